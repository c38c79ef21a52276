"""`papers --format jsonl|json` and `export` read user state and digests a chunk of papers at a
time (store/paper_batch.py): what they print must be, paper for paper, what the per-paper
path (`paper_view` asking `UserState.user_state` and `Library.digests_of`) gives."""

from __future__ import annotations

import json

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.paper_view import paper_view
from digest_tui.service import import_files, load_sample_if_empty, open_library
from digest_tui.store import paper_batch
from digest_tui.store.query import PaperQuery
from tests.support.paths import DIGESTS


@pytest.fixture
def library(home):
    library = open_library(AppContext())
    load_sample_if_empty(library)
    import_files(library, sorted(DIGESTS.glob("*.txt")))
    rows = library.rows(PaperQuery(sort="date"))
    ids = [r["id"] for r in rows]
    state = library.state
    state.bookmark(ids[0])
    state.set_read(ids[1])
    state.add_tags(ids[0], ["zeta", "alpha", "moe"])
    state.add_tags(ids[2], ["alpha"])
    state.set_note(ids[1], "a [b]note[/b]")
    # A note edited from a stale version: the paper then carries a conflict.
    first = state.set_note(ids[3], "v1")
    state.set_note(ids[3], "v2 (from sync)", replaces=[first.version])
    state.set_note(ids[3], "my edit of v1", replaces=[first.version])
    state.create_list("Zoo")
    state.create_list('my "best" papers')
    state.create_list("gone")
    state.add_to_list("Zoo", [ids[0], ids[3]])
    state.add_to_list('my "best" papers', [ids[0], ids[1]])
    state.add_to_list("gone", [ids[0]])
    state.delete_list("gone")
    yield library
    library.close()


def test_batched_state_and_digests_equal_the_per_paper_queries(library):
    rowids = [int(r["rowid"]) for r in library.rows(PaperQuery())]
    states = paper_batch.user_states(library.conn, rowids)
    digests = paper_batch.digests_of(library.conn, rowids)
    assert len(rowids) > 20
    assert any(s["note_conflicts"] for s in states.values())  # the fixture's conflict is seen
    assert any(len(d) > 1 for d in digests.values())  # papers listed by several digests
    for rowid in rowids:
        assert states[rowid] == library.user_state(rowid)
        assert digests[rowid] == library.digests_of(rowid)


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_papers_output_equals_the_per_paper_views(library, capsys, monkeypatch, fmt):
    monkeypatch.setattr(paper_batch, "CHUNK", 7)  # several chunks, and a short last one
    expected = [paper_view(library, row).to_json() for row in library.rows(PaperQuery())]
    assert main(["papers", "--format", fmt]) == 0
    out = capsys.readouterr().out
    printed = [json.loads(line) for line in out.splitlines()] if fmt == "jsonl" else json.loads(out)
    assert printed == expected
    assert [list(p) for p in printed] == [list(p) for p in expected]  # key order too
    assert any(p["note_conflicts"] for p in printed) and any(p["lists"] for p in printed)
