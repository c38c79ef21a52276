"""Filling the full-text index for many new papers with one statement instead of one per paper.

The `papers_fts` triggers (migration 001) index each inserted row on its own. FTS5 flushes its
pending terms to a new on-disk segment at every statement boundary inside a transaction, so an
import paid that flush (and the merging of thousands of tiny segments) once per paper: ~300 µs
of the ~350 µs a new paper cost the store (bench/bench_import.py). One
`INSERT INTO papers_fts ... SELECT ... FROM papers` over the new rows does the same indexing in
one statement, ~60 µs per paper.

`fts_filled_at_end(conn)` does that inside the caller's transaction:
- the insert trigger is dropped, and the update/delete triggers are recreated with
  `WHEN old.rowid <= N` (N: the highest rowid before the block), so a row inserted in the block
  and changed again in it (the same paper twice in a digest, its search_extra set by pending
  user state) is never "deleted" from an index that does not hold it yet;
- at the end, every row inserted in the block (rowid > N: SQLite gives a new row a rowid above
  the largest one) is indexed with its final text, and the three triggers are put back exactly
  as the migrations wrote them (read from sqlite_master).
All of it is inside one transaction: another connection never sees the triggers changed, and a
rollback takes the changes back with the rows. When the triggers are not the ones expected (a
future migration changed them), nothing is deferred and the per-row triggers do the work.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

_INSERT = "papers_fts_insert"
_GUARDED = ("papers_fts_delete", "papers_fts_update")
_BEGIN = re.compile(r"\sBEGIN\s", re.IGNORECASE)


def _triggers(conn: sqlite3.Connection) -> dict[str, str] | None:
    names = (_INSERT, *_GUARDED)
    found = {
        row[0]: row[1]
        for row in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'papers' "
            f"AND name IN ({','.join('?' * len(names))})",
            names,
        )
    }
    if len(found) != len(names):
        return None
    for name in _GUARDED:
        header = _BEGIN.split(found[name], maxsplit=1)[0]
        if re.search(r"\bWHEN\b", header, re.IGNORECASE) or not _BEGIN.search(found[name]):
            return None  # not the shape this module knows how to guard
    return found


@contextmanager
def fts_filled_at_end(conn: sqlite3.Connection) -> Iterator[None]:
    """Within the caller's open transaction: index the papers inserted in the block at its
    end, in one statement (see the module docstring)."""
    if not conn.in_transaction:
        raise RuntimeError("fts_filled_at_end needs an open transaction")
    original = _triggers(conn)
    if original is None:
        yield
        return
    start = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0])
    conn.execute(f"DROP TRIGGER {_INSERT}")
    for name in _GUARDED:
        conn.execute(f"DROP TRIGGER {name}")
        conn.execute(_BEGIN.sub(f" WHEN old.rowid <= {start} BEGIN ", original[name], count=1))
    try:
        yield
    finally:
        # Also on an error: if the caller catches it and commits, the index must still hold
        # every row that was inserted, and the triggers must be the real ones. (When SQLite
        # rolled the transaction back already, the changes above went with it.)
        if conn.in_transaction:
            conn.execute(
                "INSERT INTO papers_fts (rowid, title, abstract, search_extra) "
                "SELECT rowid, title, abstract, search_extra FROM papers WHERE rowid > ?",
                (start,),
            )
            for name in _GUARDED:
                conn.execute(f"DROP TRIGGER {name}")
            for name in (_INSERT, *_GUARDED):
                conn.execute(original[name])
