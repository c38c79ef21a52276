"""Imports that must not hurt the library or the machine: a truncated copy of a page never
removes or shortens what is stored, and inputs are bounded (size, file type, field length)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.sources.hf_page import MAX_PAGE_BYTES
from digest_tui.store.field_caps import MAX_ABSTRACT_CHARS
from tests.support.paths import SEED_DEC10

DIGEST = "hf-page-2025-12-10"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def digest_papers(capsys) -> list[dict]:
    code, out, err = run(capsys, "papers", "--digest", DIGEST, "--format", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def imported(home, capsys) -> list[dict]:
    code, _, err = run(capsys, "import", "--year", "2025", str(SEED_DEC10))
    assert code == 0, err
    papers = digest_papers(capsys)
    assert len(papers) == 64
    return papers


def header_only(tmp_path: Path) -> Path:
    lines = SEED_DEC10.read_text(encoding="utf-8").splitlines(keepends=True)
    page = tmp_path / "header-only.txt"
    page.write_text("".join(lines[: lines.index("Dec 10\n") + 1]), encoding="utf-8")
    return page


def cut_mid_abstract(tmp_path: Path, paper: dict) -> Path:
    """The page as a failed download leaves it: ending inside `paper`'s abstract."""
    text = SEED_DEC10.read_text(encoding="utf-8")
    start = text.index(paper["abstract"][:60])
    page = tmp_path / "partial.txt"
    page.write_text(text[: start + len(paper["abstract"]) // 2], encoding="utf-8")
    return page


def test_header_only_page_keeps_the_digest_and_warns(imported, capsys, tmp_path):
    page = header_only(tmp_path)
    code, _out, err = run(capsys, "import", "--year", "2025", str(page))
    assert code == 0
    assert f"warning: {page}: has 0 entries where the stored copy of {DIGEST} has 64" in err
    assert "truncated" in err
    assert len(digest_papers(capsys)) == 64
    # Asked for explicitly, the shorter copy wins.
    assert run(capsys, "import", "--year", "2025", "--replace", str(page))[0] == 0
    assert digest_papers(capsys) == []


def test_partial_page_never_cuts_a_stored_abstract(imported, capsys, tmp_path):
    victim = imported[10]
    page = cut_mid_abstract(tmp_path, victim)
    code, out, err = run(capsys, "import", "--year", "2025", str(page))
    assert code == 0
    assert "0 updated" in out
    assert f"{page}:" in err and "abstract is a cut-off copy of the stored one" in err
    assert "stops mid-sentence: the page may be truncated" in err
    shown = json.loads(run(capsys, "show", victim["id"], "--format", "json")[1])
    assert shown["abstract"] == victim["abstract"]
    assert len(digest_papers(capsys)) == 64
    # --replace takes the cut copy: the flag is what makes shortening possible at all.
    assert run(capsys, "import", "--year", "2025", "--replace", str(page))[0] == 0
    shown = json.loads(run(capsys, "show", victim["id"], "--format", "json")[1])
    assert len(shown["abstract"]) < len(victim["abstract"])


def assert_refused(capsys, path: Path, words: str) -> None:
    code, _out, err = run(capsys, "import", str(path))
    assert code == 1
    assert f"warning: {path}: {words}" in err
    assert "Traceback" not in err


@pytest.mark.timeout(60)
def test_a_fifo_is_refused_without_waiting_for_a_writer(home, capsys, tmp_path):
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    assert_refused(capsys, fifo, "not a regular file (a FIFO)")


@pytest.mark.timeout(60)
def test_a_device_is_refused_without_reading_it(home, capsys):
    assert_refused(capsys, Path("/dev/zero"), "not a regular file (a device)")


def test_a_folder_is_refused(home, capsys, tmp_path):
    assert_refused(capsys, tmp_path, "not a regular file (a folder)")


def test_a_file_over_the_size_cap_is_refused_before_reading(home, capsys, tmp_path):
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as file:
        file.truncate(MAX_PAGE_BYTES + 1)  # sparse: no disk used, but that is its size
    assert_refused(capsys, huge, "larger than 256 MiB")


def test_a_huge_abstract_is_capped_with_a_warning_naming_file_and_line(home, capsys, tmp_path):
    abstract = "kernel " * 66_000 + "fused."  # ~460 kB of one keyword
    page = tmp_path / "giant.txt"
    page.write_text(
        f"Daily Papers\n\nDec 10\n\nA Normal Title\n\n{abstract}\n\n• 3 authors\n·\nDec 9 4\n",
        encoding="utf-8",
    )
    code, _out, err = run(capsys, "import", "--year", "2025", str(page))
    assert code == 0
    assert f"warning: {page}:5: entry 'A Normal Title': abstract of {len(abstract):,}" in err
    assert f"cut to {MAX_ABSTRACT_CHARS:,}" in err
    [paper] = digest_papers(capsys)
    assert len(paper["abstract"]) == MAX_ABSTRACT_CHARS
