"""The user state and digests of many papers at once, for views that print whole result sets.

`papers --format jsonl` of 100,000 papers asked four to six queries per paper (its state, tags,
lists, note conflicts, digests): 500,000 round trips into SQLite. Here each of those is one
query per chunk of rowids (`rowid IN (...)`), so a chunk of 500 papers costs five queries.

The values are exactly those of `UserState.user_state` and `Library.digests_of` (same keys,
same order of tags, lists, conflicts and digests); tests/unit/test_paper_batch.py compares
them paper by paper.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

# Rowids bound per `IN (...)`: well under SQLite's default limit of 32,766 host parameters,
# and large enough that per-query overhead vanishes.
CHUNK = 500


def _marks(n: int) -> str:
    return ",".join("?" * n)


def user_states(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """rowid -> the dict `UserState.user_state(rowid)` returns, for every rowid given."""
    marks = _marks(len(rowids))
    state_rows = {
        int(r[0]): r
        for r in conn.execute(
            "SELECT paper_rowid, bookmarked, read, note, note_version, note_conflicts "
            f"FROM paper_state WHERE paper_rowid IN ({marks})",
            rowids,
        )
    }
    tags: dict[int, list[str]] = defaultdict(list)
    for rowid, tag in conn.execute(
        f"SELECT paper_rowid, tag FROM paper_tags WHERE paper_rowid IN ({marks}) "
        "ORDER BY paper_rowid, tag",
        rowids,
    ):
        tags[int(rowid)].append(tag)
    lists: dict[int, list[str]] = defaultdict(list)
    for rowid, name in conn.execute(
        "SELECT li.paper_rowid, l.name FROM list_items li JOIN lists l ON l.list_id = li.list_id "
        f"WHERE li.paper_rowid IN ({marks}) AND l.deleted = 0 "
        "ORDER BY li.paper_rowid, l.name COLLATE NOCASE",
        rowids,
    ):
        lists[int(rowid)].append(name)
    conflicts: dict[int, list[dict[str, Any]]] = defaultdict(list)
    with_conflicts = [rowid for rowid, row in state_rows.items() if row[5]]
    if with_conflicts:
        for rowid, version, device, created_at, text, current in conn.execute(
            "SELECT v.paper_rowid, v.version, v.device, v.created_at, v.text, s.note_version "
            "FROM note_versions v JOIN paper_state s ON s.paper_rowid = v.paper_rowid "
            f"WHERE v.paper_rowid IN ({_marks(len(with_conflicts))}) "
            "ORDER BY v.paper_rowid, v.hlc DESC",
            with_conflicts,
        ):
            if version != current:  # SQL `version IS NOT note_version`: None == None
                conflicts[int(rowid)].append(
                    {"version": version, "device": device, "created_at": created_at, "text": text}
                )
    states: dict[int, dict[str, Any]] = {}
    for rowid in rowids:
        row = state_rows.get(rowid)
        states[rowid] = {
            "bookmarked": bool(row[1]) if row else False,
            "tags": tags.get(rowid, []),
            "read": bool(row[2]) if row else False,
            "note": row[3] if row else None,
            "note_conflicts": conflicts.get(rowid, []),
            "lists": lists.get(rowid, []),
        }
    return states


def digests_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, list[str]]:
    """rowid -> the ids of the digests listing it, oldest first (`Library.digests_of`)."""
    found: dict[int, list[str]] = defaultdict(list)
    for rowid, digest_id in conn.execute(
        "SELECT dp.paper_rowid, d.id FROM digest_papers dp JOIN digests d ON d.id = dp.digest_id "
        f"WHERE dp.paper_rowid IN ({_marks(len(rowids))}) ORDER BY dp.paper_rowid, d.date",
        rowids,
    ):
        found[int(rowid)].append(digest_id)
    return {rowid: found.get(rowid, []) for rowid in rowids}


def chunked(rows: Iterable[sqlite3.Row], size: int | None = None) -> Iterator[list[sqlite3.Row]]:
    """Rows in lists of `size` (default CHUNK), read lazily (a cursor is never fetched whole)."""
    size = size or CHUNK
    fetchmany = getattr(rows, "fetchmany", None)
    if fetchmany is not None:
        # A cursor: a chunk per call, not a Python-level __next__ per row (the library's
        # cursor class wraps each fetch to name the file on errors: ~10 us a row at 100k).
        while batch := fetchmany(size):
            yield batch
        return
    chunk: list[sqlite3.Row] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
