"""`fits:` and the "reproducible" sort by distinct fit key give the per-paper function's answers.

On a real library file with varied hardware suggestions (every scale, no memory estimate,
multi-node with and without a scaled-down setup, feature floors, devices with and without a
known memory, JSON in an older shape that fails validation, text that is not JSON, none), the
papers `fits:NAME` and `-fits:NAME` list, with and without a LIMIT, are exactly those the
per-paper function `paper_fits(hardware, NAME)` selects, for machines of every kind; so for
the sort's `paper_fits_mine`. Also: papers written after their key was computed (pending), a
library upgraded from version 8, and no catalog at all.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from array import array
from pathlib import Path
from typing import Any

import pytest

from digest_tui.enrich.hardware.catalog import load_hardware_catalog
from digest_tui.settings_schema import Machine
from digest_tui.store import repro_sql
from digest_tui.store.db import _split_sql, connect, migrations, schema_version
from digest_tui.store.fit_keys import FITS_MINE_SQL, NO_FIT, fit_key, refresh_fit_keys
from digest_tui.store.fits import install_fits
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery

CATALOG = load_hardware_catalog()

MACHINES = [
    Machine(name="laptop", devices=[{"id": "rtx-4090", "count": 1}]),
    Machine(name="node", devices=[{"id": "h100", "count": 8}]),
    Machine(name="pair", devices=[{"id": "a100", "count": 2}, {"id": "rtx-3090", "count": 1}]),
    Machine(name="old", devices=[{"id": "v100-16gb", "count": 4}]),
    Machine(name="amd", devices=[{"id": "mi300x", "count": 8}]),
    Machine(name="jetson", devices=[{"id": "jetson-agx-orin", "count": 1}]),
    # A device of unknown memory beside one of known memory; a CPU only; an unknown id.
    Machine(name="mixed", devices=[{"id": "h100", "count": 1}, {"id": "ascend-910c", "count": 1}]),
    Machine(name="cpu", devices=[{"id": "xeon", "count": 2}]),
    Machine(name="ghost", devices=[{"id": "no-such-device", "count": 1}]),
]


def _suggestions() -> list[Any]:
    """Hardware JSON values (dicts, other JSON, raw text, None) covering fit.py's paths."""
    out: list[Any] = []
    scales = ["single-device", "single-node", "multi-node", "edge", "unknown"]
    memories = [None, 8.0, 24.0, 40.0, 80.0, 640.0, 2400.0]
    totals = [None, 1, 2, 8, 64]
    devices = [{}, {"h100": 8}, {"rtx-4090": 1}, {"a100": 2, "v100": 4}, {"mobile-soc": 1}]
    floors = [(None, []), ("hopper", ["tma", "wgmma"]), ("ampere", [])]
    downs = [None, {"count": 8, "devices": {"h100": 8}}, {"count": 1}, {}]
    for n, (scale, memory, total, counts, (floor, features), down) in enumerate(
        itertools.product(scales, memories, totals, devices, floors, downs)
    ):
        if n % 7:  # a spread of the product, not all 8,400
            continue
        out.append(
            {
                "target": f"target {n}",  # differs per paper, as the evidence does
                "scale": scale,
                "devices": sorted(counts),
                "memory_gb": memory,
                "confidence": "medium",
                "evidence": [{"quote": f"paper {n}"}],
                "device_counts": counts,
                "device_total": total,
                "feature_floor": "Hopper (TMA)" if floor == "hopper" else None,
                "floor_features": features,
                "floor_architecture": floor,
                "scaled_down": down,
            }
        )
    # Older shapes: no `target`, an unknown field, a memory as text, devices as text.
    for scale in scales:
        for memory in (None, 20, "80", 1000):
            for devs in (["rtx-4090"], ["h100", "h100"], [], "h100"):
                out.append({"scale": scale, "devices": devs, "memory_gb": memory})
                out.append({"target": "x", "scale": scale, "devices": devs, "gpu": "old"})
    out += [{}, {"scale": None}, None, "", "not json {"]
    return out


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def _insert(conn: sqlite3.Connection, rowid: int, hardware: str | None) -> None:
    conn.execute(
        "INSERT INTO papers (rowid, id, title_key, title, published, source, added_at, hardware) "
        "VALUES (?, ?, ?, ?, ?, 'test', '2025-01-01T00:00:00Z', ?)",
        (
            rowid,
            f"p{rowid}",
            f"p{rowid}",
            f"Paper {rowid}",
            f"2025-{rowid % 12 + 1:02d}-01",
            hardware,
        ),
    )


def _fill(conn: sqlite3.Connection) -> int:
    values = _suggestions()
    for rowid, value in enumerate(values, start=1):
        _insert(conn, rowid, _text(value))
    return len(values)


@pytest.fixture
def library(tmp_path: Path) -> Library:
    library = Library(connect(tmp_path / "library.sqlite3"))
    _fill(library.conn)
    refresh_fit_keys(library.conn)
    install_fits(library.conn, MACHINES, CATALOG)
    return library


def _per_paper(conn: sqlite3.Connection, name: str) -> set[int]:
    """What `fits:NAME` selected before fit keys: the per-paper function on every row."""
    return {
        r[0]
        for r in conn.execute("SELECT rowid FROM papers WHERE paper_fits(hardware, ?) = 1", (name,))
    }


def _all(conn: sqlite3.Connection) -> set[int]:
    return {r[0] for r in conn.execute("SELECT rowid FROM papers")}


def _assert_same(library: Library) -> None:
    conn = library.conn
    for name in [*(m.name for m in MACHINES), "unconfigured"]:
        expected = _per_paper(conn, name)
        for limit in (None, 100_000):
            got = library.list_rowids(PaperQuery(search=f"fits:{name}", limit=limit))
            assert set(got) == expected, (name, limit)
            assert len(got) == len(set(got))
            negated = library.list_rowids(PaperQuery(search=f"-fits:{name}", limit=limit))
            assert set(negated) == _all(conn) - expected, (name, limit)
            # With words: ranked off the full-text index, the filter on its rowids.
            ranked = library.list_rowids(PaperQuery(search=f"paper fits:{name}", limit=limit))
            assert set(ranked) == expected, (name, limit)


def test_fit_keys_select_what_the_per_paper_function_selects(library: Library) -> None:
    conn = library.conn
    # The data exercise the paths: fits, does not fit, and keys shared by several papers.
    assert _per_paper(conn, "laptop") and _per_paper(conn, "node") != _all(conn)
    keys = conn.execute("SELECT count(*) FROM fit_keys").fetchone()[0]
    assert keys < conn.execute("SELECT count(*) FROM paper_fit_keys").fetchone()[0]
    assert conn.execute("SELECT count(*) FROM paper_fit_pending").fetchone()[0] == 0
    _assert_same(library)


def test_no_paper_is_judged_from_its_json_when_every_key_is_known(library: Library) -> None:
    conn = library.conn
    judged: list[str] = []
    conn.create_function("paper_fits", 2, lambda hw, name: judged.append(hw) or 0)
    library.list_rowids(PaperQuery(search="fits:laptop"))
    library.list_rowids(PaperQuery(search="-fits:node", limit=20))
    # Only the papers whose JSON no key stands for (none in this library's JSON).
    unkeyed = conn.execute("SELECT count(*) FROM paper_fit_keys WHERE key_id IS NULL").fetchone()
    assert unkeyed[0] == 0 and judged == []


def test_each_key_is_judged_once_per_statement_without_a_limit(library: Library) -> None:
    conn = library.conn
    asked: list[str] = []
    conn.create_function("paper_key_fits", 2, lambda key, name: asked.append(key) or 0)
    assert library.list_rowids(PaperQuery(search="fits:laptop")) == array("q")
    keys = conn.execute("SELECT count(*) FROM fit_keys").fetchone()[0]
    assert sorted(asked) == sorted(set(asked)) and len(asked) == keys


def test_pending_papers_are_judged_from_their_json_until_refreshed(library: Library) -> None:
    conn = library.conn
    # Written behind the keys' back: another connection's UPDATE, new papers.
    first = conn.execute("SELECT hardware FROM papers WHERE rowid = 1").fetchone()[0]
    conn.execute("UPDATE papers SET hardware = ? WHERE rowid % 5 = 0", (first,))
    conn.execute("UPDATE papers SET hardware = NULL WHERE rowid % 11 = 0")
    start = conn.execute("SELECT max(rowid) FROM papers").fetchone()[0]
    for n, value in enumerate(_suggestions()[::13], start=start + 1):
        _insert(conn, n, _text(value))
    conn.execute("DELETE FROM papers WHERE rowid % 17 = 0")
    assert conn.execute("SELECT count(*) FROM paper_fit_pending").fetchone()[0]
    _assert_same(library)
    refresh_fit_keys(conn)
    assert conn.execute("SELECT count(*) FROM paper_fit_pending").fetchone()[0] == 0
    gone = "SELECT count(*) FROM paper_fit_keys WHERE paper_rowid NOT IN (SELECT rowid FROM papers)"
    assert conn.execute(gone).fetchone()[0] == 0
    _assert_same(library)


def test_without_a_catalog_every_paper_is_judged_from_its_json(library: Library) -> None:
    install_fits(library.conn, MACHINES, None)  # the fallback rule, which reads `devices`
    _assert_same(library)


def test_the_reproducible_sort_scores_as_the_per_paper_function(library: Library) -> None:
    conn = library.conn
    for machines in ([MACHINES[0]], MACHINES[1:3], []):
        repro_sql.install_repro_functions(conn, None, lambda m=machines: m, CATALOG)
        expected = {
            r[0]
            for r in conn.execute("SELECT rowid FROM papers WHERE paper_fits_mine(hardware) = 1")
        }
        got = {
            r[0] for r in conn.execute(f"SELECT p.rowid FROM papers p WHERE {FITS_MINE_SQL} = 1")
        }
        assert got == expected, [m.name for m in machines]
        assert bool(expected) == bool(machines)


def test_json_no_key_stands_for_is_judged_per_paper(tmp_path: Path) -> None:
    assert fit_key(None) == fit_key("") == fit_key("not json {") == NO_FIT
    assert fit_key("[1, 2]") is None and fit_key('"text"') is None  # fails the per-paper way
    assert fit_key(json.dumps({"scale": "edge", "devices": [["a"], "b"]})) is None
    library = Library(connect(tmp_path / "library.sqlite3"))
    odd = {"scale": "single-device", "devices": [["h100"]], "memory_gb": 1}
    _insert(library.conn, 1, json.dumps(odd))
    _insert(
        library.conn,
        2,
        json.dumps(
            {
                "target": "x",
                "scale": "single-device",
                "devices": ["h100"],
                "device_counts": {"h100": 1},
            }
        ),
    )
    refresh_fit_keys(library.conn)
    rows = dict(library.conn.execute("SELECT paper_rowid, key_id FROM paper_fit_keys"))
    assert rows[1] is None and rows[2] is not None
    install_fits(library.conn, MACHINES, CATALOG)
    with pytest.raises(sqlite3.OperationalError):  # as the per-paper function always did
        library.list_rowids(PaperQuery(search="fits:laptop"))


def _version_8_library(path: Path) -> int:
    conn = sqlite3.connect(path, isolation_level=None)
    for number, _name, sql in migrations()[:8]:
        for statement in _split_sql(sql):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    count = _fill(conn)
    conn.close()
    return count


def test_an_old_library_is_upgraded_in_place_and_every_key_filled(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite3"
    count = _version_8_library(path)
    papers = "SELECT rowid, hardware FROM papers ORDER BY rowid"
    before = sqlite3.connect(path).execute(papers).fetchall()
    library = Library(connect(path))
    assert schema_version(library.conn) >= 9
    assert [tuple(row) for row in library.conn.execute(papers)] == before
    keyed = library.conn.execute("SELECT count(*) FROM paper_fit_keys").fetchone()[0]
    pending = library.conn.execute("SELECT count(*) FROM paper_fit_pending").fetchone()[0]
    assert (keyed, pending) == (count, 0)
    install_fits(library.conn, MACHINES, CATALOG)
    _assert_same(library)
