"""Every `has:`/`is:`/`tag:`/`list:`/`digest:` filter, alone and with words: the rowid path lists
exactly what the CLI's full-row path lists, in the same order, and its query plan never makes
FTS5 run the MATCH once per rowid of a set, nor reads wide rows where an index answers.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator

import pytest

from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery, build_rowid_select
from digest_tui.store.repro_sql import install_repro_functions

PAPERS = 300
_CITED = {"2501.00003", "2501.00030", "2501.00200"}  # arXiv ids a Hub model cites


def _arxiv(i: int) -> str | None:
    return f"2501.{i:05d}" if i % 2 == 1 or i in (30, 200) else None


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("filters")
    lib = Library(connect(root / "library.sqlite3"))
    start = dt.date(2025, 1, 1)
    with lib.conn:
        for i in range(1, PAPERS + 1):
            words = ["attention" if i % 2 else "kernel", "cache" if i % 3 else "routing"]
            lib.conn.execute(
                "INSERT INTO papers (rowid, id, title_key, title, abstract, published, upvotes,"
                " arxiv_id, source, added_at, hardware, has_code) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'test', ?, ?, ?)",
                (
                    i,
                    f"p{i:04d}",
                    f"p{i:04d}",
                    f"Paper {i} on {words[0]}",
                    f"We study {words[1]} and {words[0]}.",
                    (start + dt.timedelta(days=i % 97)).isoformat(),
                    i % 13,
                    _arxiv(i),
                    # Added over two days: `is:new` since the second one finds half of them.
                    "2025-02-01T00:00:00Z" if i % 2 else "2025-02-02T00:00:00Z",
                    json.dumps({"scale": "unknown" if i % 4 == 0 else "single-device"}),
                    int(i % 5 == 0),
                ),
            )
        lib.conn.execute(
            "INSERT INTO digests (id, source, date, title, imported_at) "
            "VALUES ('hf-2025-01-10', 'test', '2025-01-10', 'Daily', 'now')"
        )
        lib.conn.executemany(
            "INSERT INTO digest_papers (digest_id, paper_rowid, position) VALUES (?, ?, ?)",
            [("hf-2025-01-10", r, n) for n, r in enumerate(range(7, PAPERS, 29))],
        )
    state = lib.state
    state.set_read_many([f"p{i:04d}" for i in range(1, PAPERS + 1, 3)])
    for i in range(5, PAPERS, 17):
        state.bookmark(f"p{i:04d}")
        state.add_tags(f"p{i:04d}", ["todo"])
    state.create_list("week")
    state.add_to_list("week", [f"p{i:04d}" for i in range(10, 60, 7)])
    cache = root / "cache"
    cache.mkdir()
    install_repro_functions(lib.conn, cache)
    # What the Hub artifact index would say, as its snapshot (a frozenset of cited ids).
    lib.conn.create_function("paper_weight_ids", 0, lambda: json.dumps(sorted(_CITED)))
    lib.conn.create_function("paper_has_weights", 1, lambda a: int(a in _CITED))
    yield lib
    lib.conn.close()


SEARCHES = [
    "is:read",
    "is:unread",
    "is:bookmarked",
    "-is:bookmarked",
    "tag:todo",
    "-tag:todo",
    "has:tags",
    "list:week",
    "-list:week",
    "digest:2025-01-10",
    "digest:hf-2025-01-10",
    "has:weights",
    "-has:weights",
    "has:hardware",
    "-has:hardware",
    "has:code",
    "is:new",
    "-is:new",
]


def _expected_sizes() -> dict[str, int]:
    read = len(range(1, PAPERS + 1, 3))
    marked = len(range(5, PAPERS, 17))
    digest = len(range(7, PAPERS, 29))
    listed = len(range(10, 60, 7))
    hardware = PAPERS - PAPERS // 4
    return {
        "is:read": read,
        "is:unread": PAPERS - read,
        "is:bookmarked": marked,
        "-is:bookmarked": PAPERS - marked,
        "tag:todo": marked,
        "-tag:todo": PAPERS - marked,
        "has:tags": marked,
        "list:week": listed,
        "-list:week": PAPERS - listed,
        "digest:2025-01-10": digest,
        "digest:hf-2025-01-10": digest,
        "has:weights": len(_CITED),
        "-has:weights": PAPERS - len(_CITED),
        "has:hardware": hardware,
        "-has:hardware": PAPERS - hardware,
        "has:code": PAPERS // 5,
        "is:new": PAPERS // 2,
        "-is:new": PAPERS // 2,
    }


def _query(search: str) -> PaperQuery:
    return PaperQuery(search=search, new_since="2025-02-02T00:00:00Z")


def _plan(library: Library, query: PaperQuery) -> str:
    sql, params = build_rowid_select(query)
    return " | ".join(row[3] for row in library.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


@pytest.mark.parametrize("search", SEARCHES)
def test_a_filter_alone_lists_its_papers_newest_first(library: Library, search: str) -> None:
    query = _query(search)
    rowids = list(library.list_rowids(query))
    assert len(rowids) == _expected_sizes()[search]
    assert rowids == [row.rowid for row in library.list_rows(query)]


@pytest.mark.parametrize("search", SEARCHES)
def test_a_filter_with_a_word_ranks_fts_hits_without_rerunning_the_match(
    library: Library, search: str
) -> None:
    query = _query(f"attention {search}")
    rowids = list(library.list_rowids(query))
    assert rowids == [row.rowid for row in library.list_rows(query)]
    alone = set(library.list_rowids(_query(search)))
    assert set(rowids) == alone & set(library.list_rowids(_query("attention")))
    # FTS5 given a rowid constraint (`INDEX 0:=M…`) runs the MATCH once per rowid of the set.
    assert "VIRTUAL TABLE INDEX 0:=" not in _plan(library, query)


@pytest.mark.parametrize("search", ["is:read", "is:new", "has:weights", "has:hardware"])
def test_large_sets_are_probed_along_the_sort_index(library: Library, search: str) -> None:
    plan = _plan(library, _query(search))
    assert "COVERING INDEX papers_order_date" in plan, plan
    assert "TEMP B-TREE" not in plan, plan


def test_has_weights_looks_the_cited_ids_up_in_the_arxiv_index(library: Library) -> None:
    plan = _plan(library, _query("has:weights"))
    assert "papers_arxiv_id (arxiv_id=?)" in plan, plan
    found = library.list_rowids(_query("has:weights"))
    assert {library.stored_paper(r).arxiv_id for r in found} == _CITED


def test_is_new_reads_the_added_at_index(library: Library) -> None:
    plan = _plan(library, _query("is:new"))
    assert "COVERING INDEX papers_added_at" in plan, plan
    assert all(r % 2 == 0 for r in library.list_rowids(_query("is:new")))
