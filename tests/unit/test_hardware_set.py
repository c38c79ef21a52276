"""`has:hardware` from the narrow set of migration 008, never from each paper's JSON.

The set must hold exactly the papers the filter always meant (a hardware suggestion whose scale
is known), on a library upgraded from version 7 (backfill) and as papers are inserted, changed
and deleted afterwards (triggers); and the filter's query must not read the wide `papers` rows.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from digest_tui.store.db import _split_sql, connect, migrations, schema_version
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery, build_rowid_select

_KNOWN = json.dumps({"scale": "single-device", "devices": ["a100"]})
_UNKNOWN = json.dumps({"scale": "unknown"})
_NO_SCALE = json.dumps({"devices": ["h100"]})
# rowid -> hardware column; which of them has:hardware selects is _EXPECTED
_HARDWARE: dict[int, str | None] = {
    1: _KNOWN,
    2: _UNKNOWN,
    3: None,
    4: _NO_SCALE,
    5: "not json {",
    6: json.dumps({"scale": "multi-node"}),
}
_EXPECTED = {1, 6}


def _insert(conn: sqlite3.Connection, rowid: int, hardware: str | None, title: str) -> None:
    conn.execute(
        "INSERT INTO papers (rowid, id, title_key, title, published, source, added_at, hardware) "
        "VALUES (?, ?, ?, ?, ?, 'test', '2025-01-01T00:00:00Z', ?)",
        (rowid, f"p{rowid}", f"p{rowid}", title, f"2025-01-{rowid:02d}", hardware),
    )


def _version_7_library(path: Path) -> None:
    """A library file as digest-tui left it before migration 008, with papers in it."""
    conn = sqlite3.connect(path, isolation_level=None)
    for number, _name, sql in migrations()[:7]:
        for statement in _split_sql(sql):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    for rowid, hardware in _HARDWARE.items():
        _insert(conn, rowid, hardware, f"Paper {rowid} on kernels")
    conn.close()


def _with_hardware(conn: sqlite3.Connection) -> set[int]:
    return {row[0] for row in conn.execute("SELECT paper_rowid FROM papers_with_hardware")}


@pytest.fixture
def upgraded(tmp_path: Path) -> Library:
    path = tmp_path / "library.sqlite3"
    _version_7_library(path)
    return Library(connect(path))


def test_upgrading_fills_the_set_with_what_has_hardware_meant(upgraded: Library) -> None:
    assert schema_version(upgraded.conn) >= 8
    assert _with_hardware(upgraded.conn) == _EXPECTED


def test_the_set_follows_inserts_changes_and_deletes(upgraded: Library) -> None:
    conn = upgraded.conn
    _insert(conn, 10, _KNOWN, "A new paper")
    _insert(conn, 11, _UNKNOWN, "Another new paper")
    assert _with_hardware(conn) == _EXPECTED | {10}

    conn.execute("UPDATE papers SET hardware = ? WHERE rowid = 10", (_UNKNOWN,))
    conn.execute("UPDATE papers SET hardware = ? WHERE rowid = 2", (_KNOWN,))
    conn.execute("UPDATE papers SET hardware = NULL WHERE rowid = 6")
    # A change of other columns (re-enrichment writing the same JSON) leaves it as it was.
    conn.execute("UPDATE papers SET hardware = hardware, upvotes = 3 WHERE rowid = 1")
    assert _with_hardware(conn) == {1, 2}

    conn.execute("DELETE FROM papers WHERE rowid = 1")
    assert _with_hardware(conn) == {2}


@pytest.mark.parametrize("search", ["has:hardware", "kernels has:hardware"])
def test_has_hardware_lists_the_set_and_minus_has_hardware_the_rest(
    upgraded: Library, search: str
) -> None:
    everything = set(upgraded.list_rowids(PaperQuery(search=search.replace("has:hardware", ""))))
    assert everything == set(_HARDWARE)
    with_hw = list(upgraded.list_rowids(PaperQuery(search=search)))
    assert set(with_hw) == _EXPECTED
    assert [row.rowid for row in upgraded.list_rows(PaperQuery(search=search))] == with_hw
    without = set(upgraded.list_rowids(PaperQuery(search=search.replace("has:", "-has:"))))
    assert without == set(_HARDWARE) - _EXPECTED


def test_has_hardware_in_date_order_comes_off_the_index(upgraded: Library) -> None:
    """Newest first, from the sort index probing the set: no wide row, no sort."""
    sql, params = build_rowid_select(PaperQuery(search="has:hardware"))
    plan = " | ".join(r[3] for r in upgraded.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
    assert "COVERING INDEX papers_order_date" in plan, plan
    assert "TEMP B-TREE" not in plan, plan
    assert list(upgraded.list_rowids(PaperQuery(search="has:hardware"))) == [6, 1]


def test_has_hardware_with_words_ranks_fts_rowids_only() -> None:
    sql, _ = build_rowid_select(PaperQuery(search="kernels has:hardware"))
    assert " papers p" not in sql and "papers_with_hardware" in sql, sql
