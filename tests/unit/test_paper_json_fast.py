"""`papers --format jsonl|json` and `export` build the contract's paper object straight from
the row (`paper_view.paper_json`) instead of a frozen `PaperView` thawed by `to_json()`. The
bytes printed must be the same: compared on every fixture paper (with bookmarks, tags, notes,
a note conflict, reading lists and machines configured) and on a 1,000-paper synthetic library.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.commands.common import dumps_json
from digest_tui.config import AppContext, Machine
from digest_tui.paper_view import paper_json, paper_view
from digest_tui.service import import_files, load_sample_if_empty, open_library
from digest_tui.store import paper_batch
from digest_tui.store.query import PaperQuery
from tests.support.paths import DIGESTS

BENCH = Path(__file__).resolve().parents[2] / "bench"
MACHINES = [
    Machine.model_validate({"name": "laptop", "devices": [{"id": "rtx-4090"}]}),
    Machine.model_validate({"name": "box", "devices": [{"id": "h100-80gb", "count": 8}]}),
]


def _synthetic():  # type: ignore[no-untyped-def]
    # bench/ is a directory of scripts, not a package: load the module from its file.
    if "synthetic" in sys.modules:
        return sys.modules["synthetic"]
    spec = importlib.util.spec_from_file_location("synthetic", BENCH / "synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["synthetic"] = module
    spec.loader.exec_module(module)
    return module


def _with_state(library):  # type: ignore[no-untyped-def]
    ids = [r["id"] for r in library.rows(PaperQuery(sort="date"))]
    state = library.state
    state.bookmark(ids[0])
    state.set_read(ids[1])
    state.add_tags(ids[0], ["zeta", "alpha", "moe"])
    state.add_tags(ids[2], ["alpha"])
    state.set_note(ids[1], "a [b]note[/b] \x1b[31m\u202e")
    first = state.set_note(ids[3], "v1")
    state.set_note(ids[3], "v2 (from sync)", replaces=[first.version])
    state.set_note(ids[3], "my edit of v1", replaces=[first.version])
    state.create_list("Zoo")
    state.add_to_list("Zoo", [ids[0], ids[3]])
    return library


def _compare_every_paper(library, machines) -> int:  # type: ignore[no-untyped-def]
    rows = library.rows(PaperQuery())
    rowids = [int(r["rowid"]) for r in rows]
    states = paper_batch.user_states(library.conn, rowids)
    digests = paper_batch.digests_of(library.conn, rowids)
    for row, rowid in zip(rows, rowids, strict=True):
        fast = paper_json(library, row, machines, state=states[rowid], digests=digests[rowid])
        slow = paper_view(library, row, machines).to_json()
        assert dumps_json(fast) == dumps_json(slow), row["id"]
        assert dumps_json(fast, indent=2) == dumps_json(slow, indent=2), row["id"]
    return len(rows)


@pytest.mark.parametrize("machines", [[], MACHINES], ids=["no-machines", "machines"])
def test_every_fixture_paper_prints_the_same_bytes(home, machines):
    library = open_library(AppContext())
    load_sample_if_empty(library)
    import_files(library, sorted(DIGESTS.glob("*.txt")))
    _with_state(library)
    assert _compare_every_paper(library, machines) > 20
    library.close()


def test_a_thousand_synthetic_papers_print_the_same_bytes(home):
    synthetic = _synthetic()
    assert synthetic.import_generated(home, 1000) >= 1000
    library = _with_state(open_library(AppContext()))
    rows = library.rows(PaperQuery())
    assert any(r["hardware"] for r in rows) and any(r["repos"] != "[]" for r in rows)
    assert _compare_every_paper(library, MACHINES) >= 1000
    library.close()


def test_the_cli_prints_what_the_views_give(home, capsys):
    library = open_library(AppContext())
    import_files(library, sorted(DIGESTS.glob("*.txt")))
    _with_state(library)
    expected = "".join(
        dumps_json(paper_view(library, row).to_json()) + "\n" for row in library.rows(PaperQuery())
    )
    library.close()
    assert main(["papers", "--format", "jsonl"]) == 0
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize(
    "value",
    ["plain ascii", "del \x7f here", "esc \x1b[31m bel \x07", "bidi \u202e zw \u200b", "é ü —"],
)
def test_jsonl_lines_escape_unsafe_characters_as_before(value):
    import json

    from digest_tui.textsafe import escape_unsafe_in_json

    obj = {"title": value, "tags": [value], "n": 1}
    assert dumps_json(obj) == escape_unsafe_in_json(json.dumps(obj, ensure_ascii=False))
    assert "\x7f" not in dumps_json(obj) and "\u202e" not in dumps_json(obj)


def test_chunks_of_a_cursor_and_of_a_list_are_the_same(home):
    library = open_library(AppContext())
    import_files(library, sorted(DIGESTS.glob("*.txt")))
    listed = [tuple(r) for r in library.conn.execute("SELECT rowid, id FROM papers")]
    by_cursor = paper_batch.chunked(library.conn.execute("SELECT rowid, id FROM papers"), 7)
    by_list = paper_batch.chunked(iter(listed), 7)
    assert [[tuple(r) for r in c] for c in by_cursor] == [list(c) for c in by_list]
    assert len(listed) > 14
    library.close()
