"""Writing derived user state into the tables the queries read.

`paper_state`, `paper_tags`, `note_versions`, `lists` and `list_items` are never edited
directly: for every paper and list that ops touch, `recompute` loads *all* of its ops from the
log, derives its state (derive.py) and replaces its rows. The papers' `search_extra` column
(tags and note text, indexed by FTS5 through triggers) is kept in step.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from digest_tui.state.derive import (
    ListDerived,
    OpRow,
    PaperDerived,
    derive_list,
    derive_paper,
)
from digest_tui.state.model import Op
from digest_tui.store.db import transaction


@dataclass
class Affected:
    """The papers (by rowid) and lists whose derived rows must be recomputed."""

    papers: set[int] = field(default_factory=set)
    lists: set[str] = field(default_factory=set)

    def add(self, op: Op, paper_rowid: int | None) -> None:
        if op.list_id is not None:
            self.lists.add(op.list_id)
        elif paper_rowid is not None:
            self.papers.add(paper_rowid)


_OP_COLUMNS = "op_id, device, hlc, kind, payload, created_at, paper_rowid"


def _rows(conn: sqlite3.Connection, where: str, params: Sequence[Any]) -> list[OpRow]:
    return [
        (r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6])
        for r in conn.execute(f"SELECT {_OP_COLUMNS} FROM ops WHERE {where}", params)
    ]


def paper_derived(conn: sqlite3.Connection, rowid: int) -> PaperDerived:
    return derive_paper(_rows(conn, "paper_rowid = ? AND list_id IS NULL", (rowid,)))


def list_derived(conn: sqlite3.Connection, list_id: str) -> ListDerived | None:
    return derive_list(list_id, _rows(conn, "list_id = ?", (list_id,)))


# Papers recomputed per round of queries: a merge of 100,000 ops touches thousands of papers,
# and one query per table per chunk replaces eight statements per paper.
_CHUNK = 500


@dataclass(frozen=True)
class Arrived:
    """Ops a merge has just stored and still holds, so `recompute` need not read them back.

    `rows`: each paper's new op rows (paper ops only), in the order they were inserted;
    `stored_upto`: the largest `seq` in the log before they were inserted. A paper's rows are
    then its stored rows up to `stored_upto` followed by these, the order `ops_paper` gives.
    """

    rows: Mapping[int, list[OpRow]]
    stored_upto: int


def recompute(conn: sqlite3.Connection, affected: Affected, arrived: Arrived | None = None) -> None:
    papers = sorted(affected.papers)
    for start in range(0, len(papers), _CHUNK):
        chunk = papers[start : start + _CHUNK]
        _store_papers(
            conn,
            [(rowid, derive_paper(rows)) for rowid, rows in _paper_rows(conn, chunk, arrived)],
        )
    for list_id in sorted(affected.lists):
        _store_list(conn, list_id, list_derived(conn, list_id))


def _paper_rows(
    conn: sqlite3.Connection, rowids: list[int], arrived: Arrived | None = None
) -> list[tuple[int, list[OpRow]]]:
    """Each paper's op rows, in the order `paper_derived` reads them (the `ops_paper` index:
    by paper, then arrival), from one query; with `arrived`, only the rows stored before the
    merge are read (a fresh machine's merge reads none) and the merge's own are appended."""
    found: dict[int, list[OpRow]] = {rowid: [] for rowid in rowids}
    if arrived is not None:
        if arrived.stored_upto > 0:
            _read_paper_rows(conn, rowids, found, arrived.stored_upto)
        for rowid in rowids:
            found[rowid].extend(arrived.rows.get(rowid, ()))
        return list(found.items())
    _read_paper_rows(conn, rowids, found, None)
    return list(found.items())


def _read_paper_rows(
    conn: sqlite3.Connection,
    rowids: list[int],
    found: dict[int, list[OpRow]],
    upto: int | None,
) -> None:
    # Most payloads repeat ({"value":true}, {"tag":"to-read"}): each distinct text is parsed
    # once per chunk and the dict shared (derive reads payloads, never changes them). The rows
    # are fetched in one C call (the cursor's per-row __next__ is Python, ~3 us a row).
    payloads: dict[str, Any] = {}
    bound = "" if upto is None else f" AND seq <= {int(upto)}"
    rows = conn.execute(
        f"SELECT {_OP_COLUMNS} FROM ops WHERE paper_rowid IN ({','.join('?' * len(rowids))}) "
        f"AND list_id IS NULL{bound} ORDER BY paper_rowid, seq",
        rowids,
    ).fetchall()
    for r in rows:
        text = r[4]
        payload = payloads.get(text)
        if payload is None:
            payload = payloads[text] = json.loads(text)
        found[r[6]].append((r[0], r[1], r[2], r[3], payload, r[5], r[6]))


def _store_papers(conn: sqlite3.Connection, derived: list[tuple[int, PaperDerived]]) -> None:
    rowids = [(rowid,) for rowid, _ in derived]
    conn.executemany("DELETE FROM paper_state WHERE paper_rowid = ?", rowids)
    conn.executemany("DELETE FROM paper_tags WHERE paper_rowid = ?", rowids)
    conn.executemany("DELETE FROM note_versions WHERE paper_rowid = ?", rowids)
    states: list[tuple[Any, ...]] = []
    tags: list[tuple[Any, ...]] = []
    notes: list[tuple[Any, ...]] = []
    extras: list[tuple[str, int, str]] = []
    for rowid, state in derived:
        if not state.empty:
            note = state.note
            states.append(
                (
                    rowid,
                    int(state.bookmarked),
                    state.bookmarked_at,
                    int(state.read),
                    state.read_at,
                    note.text if note else None,
                    note.version if note else None,
                    max(len(state.notes) - 1, 0),
                )
            )
            tags.extend((tag, rowid, state.tag_added_at[tag]) for tag in state.tags)
            notes.extend(
                (rowid, v.version, v.hlc, v.device, v.created_at, v.text) for v in state.notes
            )
        # Tags and note text feed the full-text index (through the papers_fts triggers).
        extra = "\n".join(
            [" ".join(sorted(state.tags)), *(v.text for v in state.notes if v.text)]
        ).strip()
        extras.append((extra, rowid, extra))
    conn.executemany(
        "INSERT INTO paper_state (paper_rowid, bookmarked, bookmarked_at, read, read_at, "
        "note, note_version, note_conflicts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        states,
    )
    conn.executemany("INSERT INTO paper_tags (tag, paper_rowid, added_at) VALUES (?, ?, ?)", tags)
    conn.executemany(
        "INSERT INTO note_versions (paper_rowid, version, hlc, device, created_at, text) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        notes,
    )
    conn.executemany(
        "UPDATE papers SET search_extra = ? WHERE rowid = ? AND search_extra != ?", extras
    )


def _store_list(conn: sqlite3.Connection, list_id: str, state: ListDerived | None) -> None:
    conn.execute("DELETE FROM list_items WHERE list_id = ?", (list_id,))
    if state is None:
        conn.execute("DELETE FROM lists WHERE list_id = ?", (list_id,))
        return
    conn.execute(
        "INSERT INTO lists (list_id, name, deleted, created_at, changed_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (list_id) DO UPDATE SET name = excluded.name, "
        "deleted = excluded.deleted, created_at = excluded.created_at, "
        "changed_at = excluded.changed_at",
        (list_id, state.name, int(state.deleted), state.created_at, state.changed_at),
    )
    conn.executemany(
        "INSERT INTO list_items (list_id, paper_rowid, position, position_at) VALUES (?, ?, ?, ?)",
        [(list_id, m.paper_rowid, m.position, m.position_at) for m in state.members.values()],
    )


def rebuild_derived(conn: sqlite3.Connection) -> None:
    """Recompute every derived table from the op log (repair, or after a snapshot import)."""
    with transaction(conn):
        for table in ("list_items", "lists", "note_versions", "paper_tags", "paper_state"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("UPDATE papers SET search_extra = '' WHERE search_extra != ''")
        affected = Affected(
            papers={
                int(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT paper_rowid FROM ops "
                    "WHERE paper_rowid IS NOT NULL AND list_id IS NULL"
                )
            },
            lists={
                r[0]
                for r in conn.execute("SELECT DISTINCT list_id FROM ops WHERE list_id IS NOT NULL")
            },
        )
        recompute(conn, affected)


def derived_snapshot(conn: sqlite3.Connection) -> dict[str, Any]:
    """All derived state keyed by paper id, not rowid: equal across converged replicas.

    For tests and sync diagnostics: two libraries that applied the same set of ops (and hold
    the same papers) return equal snapshots.
    """
    ids = {int(r[0]): r[1] for r in conn.execute("SELECT rowid, id FROM papers")}
    return {
        "paper_state": sorted(
            (ids[r[0]], *r[1:]) for r in conn.execute("SELECT * FROM paper_state")
        ),
        "paper_tags": sorted(
            (ids[r[1]], r[0], r[2])
            for r in conn.execute("SELECT tag, paper_rowid, added_at FROM paper_tags")
        ),
        "note_versions": sorted(
            (ids[r[0]], *r[1:]) for r in conn.execute("SELECT * FROM note_versions")
        ),
        "lists": sorted(tuple(r) for r in conn.execute("SELECT * FROM lists")),
        "list_items": sorted(
            (r[0], ids[r[1]], r[2], r[3]) for r in conn.execute("SELECT * FROM list_items")
        ),
        "search_extra": sorted(
            (r[0], r[1])
            for r in conn.execute("SELECT id, search_extra FROM papers WHERE search_extra != ''")
        ),
    }
