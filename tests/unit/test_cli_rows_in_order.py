"""`papers` (table, and json up to 10,000 papers) orders rowids first and then reads only
those rows (`Library.rows_in_order`). The rows and their order must be exactly those of one
sorted SELECT of the rows (`Library.rows`), for every sort, search, filter and limit, on the
fixture digests with user state."""

from __future__ import annotations

import pytest

from digest_tui.commands.library_cmds import _TABLE_COLUMNS
from digest_tui.enrich.pipeline import Enricher
from digest_tui.paper_jsonl import COLUMNS
from digest_tui.state.user_state import UserState
from digest_tui.store import repro_sql
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery
from tests.support.library import import_seed
from tests.support.paths import ALL_SEEDS


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("rows-in-order")
    library = Library(connect(root / "library.sqlite3"), Enricher(root / "config"))
    for seed in ALL_SEEDS:
        import_seed(library, seed)
    repro_sql.install_repro_functions(library.conn, None)
    ids = [r[0] for r in library.conn.execute("SELECT id FROM papers ORDER BY rowid")]
    state = UserState(library)
    for n, ident in enumerate(ids[:30]):
        if n % 2:
            state.bookmark(ident)
        state.add_tags(ident, ["todo" if n % 3 else "moe"])
    state.create_list("week")
    state.add_to_list("week", list(reversed(ids[:12])))
    return library


QUERIES = [
    PaperQuery(),
    PaperQuery(limit=20),
    PaperQuery(limit=1),
    PaperQuery(limit=0),
    PaperQuery(sort="upvotes", limit=20),
    PaperQuery(sort="stars", limit=7),
    PaperQuery(sort="title"),
    PaperQuery(sort="readiness", limit=20),
    PaperQuery(sort="reproducible", limit=20),
    PaperQuery(search="attention", limit=20),
    PaperQuery(search="attention", sort="relevance"),
    PaperQuery(search="kernel sort:upvotes"),
    PaperQuery(search="topic:moe -has:code"),
    PaperQuery(search="has:hardware is:bookmarked"),
    PaperQuery(search='list:"week"'),
    PaperQuery(search="tag:todo", sort="title", limit=5),
    PaperQuery(search="has:runnable"),
    PaperQuery(search="-has:runnable", limit=15),
    PaperQuery(topic="serving", limit=10),
    PaperQuery(tag="moe"),
    PaperQuery(bookmarked=True, sort="upvotes"),
    PaperQuery(read=False, has_code=True, limit=25),
    PaperQuery(search="no-such-word-anywhere"),
    PaperQuery(reading_list="week"),
    PaperQuery(reading_list="week", sort="upvotes", limit=4),
]


@pytest.mark.parametrize("query", QUERIES, ids=repr)
@pytest.mark.parametrize("columns", [_TABLE_COLUMNS, COLUMNS], ids=["table", "json"])
def test_rows_in_order_are_the_sorted_selects_rows(
    library: Library, query: PaperQuery, columns: str
) -> None:
    from digest_tui.store.query import build_select

    sql, params = build_select(query, columns)
    expected = [tuple(row) for row in library.conn.execute(sql, params)]
    got = [tuple(row) for row in library.rows_in_order(query, columns)]
    assert got == expected
    assert [r["id"] for r in library.rows(query)] == [row[1] for row in got]


def test_the_fixture_exercises_orders_and_filters(library: Library) -> None:
    assert len(library.rows_in_order(PaperQuery(), _TABLE_COLUMNS)) > 40
    week = library.rows_in_order(PaperQuery(search='list:"week"'), _TABLE_COLUMNS)
    assert len(week) == 12
