"""Control and invisible characters from outside never reach CLI output or exports raw.

A crafted paper (a title with a bidi override and a zero-width space, an abstract with bidi
isolates and a BOM) and a note carrying a raw C1 CSI (U+009B, a one-byte ESC [) go through
every output: tables, the text view, JSON, JSONL, BibTeX, Markdown and CSL-JSON. Stored text
stays as it was; JSON carries it as \\uXXXX escapes that parse back to the same value.
"""

from __future__ import annotations

import json
import re

import bibtexparser
import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.service import load_sample_if_empty, open_library
from tests.support.state import import_papers, make_paper

TITLE = "Evil\u202eplh.exe Attention\u200b Kernels"
ABSTRACT = "We fuse \u2066attention\u2069 kernels\ufeff for GPUs; see \u2060appendix."
NOTE = "check \x9b31mred\x9b0m and \u202dLTR\u202c"
# The list, written out here rather than imported: the test checks the definition.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200d\u2060\ufeff]"
)


@pytest.fixture
def crafted(home) -> str:
    library = open_library(AppContext())
    try:
        load_sample_if_empty(library)
        paper = make_paper(TITLE, "2501.00001", abstract=ABSTRACT)
        import_papers(library, [paper])
        library.state.set_note(paper.id, NOTE)
        library.state.add_tags(paper.id, ["crafted"])
        library.state.create_list("evil\u202elist")
        library.state.add_to_list("evil\u202elist", [paper.id])
    finally:
        library.conn.close()
    return paper.id


def run(capsys, *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def assert_no_raw_unsafe(text: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)})
    assert found == [], f"raw unsafe characters in output: {found}"


def test_json_and_jsonl_escape_unsafe_characters_but_keep_the_data(crafted, capsys):
    for fmt in ("json", "jsonl"):
        out = run(capsys, "papers", "--format", fmt, "--tag", "crafted")
        assert_no_raw_unsafe(out)
        assert "\\u202e" in out and "\\u009b" in out
        first = json.loads(out)[0] if fmt == "json" else json.loads(out.splitlines()[0])
        assert first["title"] == TITLE  # the exact stored value once parsed
        assert first["abstract"] == ABSTRACT
        assert first["note"] == NOTE
    shown = run(capsys, "show", crafted, "--format", "json")
    assert_no_raw_unsafe(shown)
    assert json.loads(shown)["note"] == NOTE


def test_table_and_text_views_show_markers(crafted, capsys):
    table = run(capsys, "papers", "--search", "evil")
    assert_no_raw_unsafe(table)
    assert "Evil\\u202eplh.exe Attention\\u200b Kernels" in table
    text = run(capsys, "show", crafted)
    assert_no_raw_unsafe(text)
    assert "\\u2066attention\\u2069" in text
    lists = run(capsys, "list")
    assert_no_raw_unsafe(lists)
    assert "evil\\u202elist" in lists
    note = run(capsys, "note", crafted, "--show")
    assert_no_raw_unsafe(note)
    assert "\\x9b31mred" in note


def test_exports_show_markers(crafted, capsys):
    bib = run(capsys, "export", "--format", "bibtex", "--search", "evil")
    assert_no_raw_unsafe(bib)
    entry = bibtexparser.parse_string(bib).entries[0]
    assert "u202eplh.exe" in entry["title"] and "u2066attention" in entry["abstract"]

    markdown = run(capsys, "export", "--format", "markdown", "--search", "evil")
    assert_no_raw_unsafe(markdown)
    assert "Evil\\\\u202eplh.exe" in markdown  # md-escaped backslash: renders as \u202e

    csl = run(capsys, "export", "--format", "csl-json", "--search", "evil")
    assert_no_raw_unsafe(csl)
    item = json.loads(csl)[0]
    # For a bibliography, the marker is the text: a reader sees where the override was.
    assert item["title"] == "Evil\\u202eplh.exe Attention\\u200b Kernels"
    assert "\\u202d" in item["note"]
