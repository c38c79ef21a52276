"""The store's half of the windowed list: ordered rowids from indexes, rows fetched by rowid.

The rowid path must list exactly the papers, in exactly the order, of the full-row path the CLI
uses (`list_rows`), at 100,000 papers; and the queries must come off indexes, never a sort or a
scan of the wide `papers` rows.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery, build_rowid_select
from tests.support import big_library


@pytest.fixture(scope="session")
def big_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big") / "home"
    big_library.build(root)
    return root


@pytest.fixture(scope="module")
def library(big_home: Path) -> Iterator[Library]:
    lib = Library(connect(big_home / "data" / "library.sqlite3"))
    yield lib
    lib.conn.close()


QUERIES = [
    PaperQuery(),
    PaperQuery(search="flash"),
    PaperQuery(search="flash attention"),
    PaperQuery(search="zeppelin"),
    PaperQuery(search="topic:moe"),
    PaperQuery(search="topic:moe has:code"),
    PaperQuery(search="topic:other"),
    PaperQuery(search="-topic:kernels cache"),
    PaperQuery(search="kernel topic:moe"),
    PaperQuery(search="expert -routing"),
    PaperQuery(search="-routing"),
    PaperQuery(search="since:2025-12-01"),
    PaperQuery(search="sort:upvotes"),
    PaperQuery(search="sort:stars"),
    PaperQuery(search="sort:title"),
    PaperQuery(search="flash sort:date"),
    PaperQuery(topic="kernels", search="pipeline"),
]


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.search or f"topic={q.topic}")
def test_rowids_list_the_same_papers_in_the_same_order(library: Library, query: PaperQuery) -> None:
    expected = [row.rowid for row in library.list_rows(query)]
    assert expected, "the query should match something in the big library"
    assert list(library.list_rowids(query)) == expected


def test_default_order_puts_undated_papers_by_their_digest_date(library: Library) -> None:
    rowids = library.list_rowids(PaperQuery())
    assert len(rowids) == big_library.PAPERS
    dates = [big_library.published(i) or big_library.first_seen(i) for i in rowids[:2000]]
    assert dates == sorted(dates, reverse=True)
    assert any(big_library.published(i) is None for i in rowids[:2000])


def test_rows_by_rowid_carry_marks_and_the_listing_date(library: Library) -> None:
    undated = big_library.UNDATED_EVERY * 3
    rows = library.list_rows_by_rowid([undated, 1, 99_999, 123_456_789])
    assert set(rows) == {undated, 1, 99_999}  # a rowid that is gone is simply missing
    assert rows[undated].published is None
    assert rows[undated].listed == big_library.first_seen(undated)
    assert rows[1].title == big_library.title(1)
    assert not rows[1].bookmarked and not rows[1].read


def test_rows_by_rowid_past_the_bound_parameter_chunk(library: Library) -> None:
    wanted = list(range(1, 1_501))
    assert sorted(library.list_rows_by_rowid(wanted)) == wanted


def _plan(library: Library, query: PaperQuery) -> str:
    sql, params = build_rowid_select(query)
    return " | ".join(row[3] for row in library.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


@pytest.mark.parametrize(
    "search",
    ["", "topic:moe", "has:code", "topic:moe has:code", "sort:upvotes", "sort:stars", "sort:title"],
)
def test_orders_and_filters_come_off_a_covering_index(library: Library, search: str) -> None:
    plan = _plan(library, PaperQuery(search=search))
    assert "COVERING INDEX papers_order_" in plan, plan
    assert "TEMP B-TREE" not in plan, plan


@pytest.mark.parametrize("search", ["attention", "flash topic:moe", "cache is:unread tag:x"])
def test_ranked_words_with_rowid_filters_never_read_papers(library: Library, search: str) -> None:
    sql, _ = build_rowid_select(PaperQuery(search=search))
    assert " papers p" not in sql and "papers_fts MATCH" in sql, sql


def test_a_remembered_list_is_forgotten_when_the_library_changes(
    big_home: Path, tmp_path: Path
) -> None:
    path = tmp_path / "library.sqlite3"
    shutil.copyfile(big_home / "data" / "library.sqlite3", path)
    library = Library(connect(path))
    try:
        everything = library.list_rowids(PaperQuery())
        assert library.list_rowids(PaperQuery()) is everything  # unchanged: from memory
        assert len(library.list_rowids(PaperQuery(bookmarked=True))) == 0

        # A change made through this connection...
        library.state.bookmark("t000005", True)
        assert list(library.list_rowids(PaperQuery(bookmarked=True))) == [5]

        # ...and a paper committed by another connection (a sync or fetch worker's own).
        other = sqlite3.connect(path)
        with other:
            other.execute(
                "INSERT INTO papers (rowid, id, title_key, title, published, source, added_at) "
                "VALUES (200001, 'new', 'new', 'Brand new', '2030-01-01', 'test', 'now')"
            )
        other.close()
        again = library.list_rowids(PaperQuery())
        assert len(again) == big_library.PAPERS + 1 and again[0] == 200001
    finally:
        library.conn.close()
