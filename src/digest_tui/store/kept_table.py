"""Answers kept across commands in one table of a cache file, under a hash of what they
depend on (the "context"): the mechanism `fit_verdicts.VerdictCache` and `fit_texts.FitTexts`
share.

The rows of the current context are read on first use; answers added during the command are
written by `close()` in one transaction, which also deletes every row of another context (so a
changed input never leaves stale rows behind). It is a cache: a file that cannot be opened,
read or written is worked around (the caller judges as if nothing were kept).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class KeptTable(Generic[Key, Value]):
    """One table's rows for one context. A subclass names the table and its key columns,
    the value column's SQL type, and how a key becomes its column values and back."""

    TABLE = ""
    KEY_COLUMNS: tuple[str, ...] = ()
    VALUE_COLUMN = ""
    VALUE_TYPE = "TEXT"

    def __init__(self, path: Path, context: Callable[[], str]) -> None:
        self.path = path
        self._context_of = context
        self._context: str | None = None
        self._known: dict[Key, Value] | None = None
        self._new: dict[Key, Value] = {}

    def _key_columns(self, key: Key) -> Sequence[Any]:
        raise NotImplementedError

    def _row(self, row: Sequence[Any]) -> tuple[Key, Value] | None:
        """A read row (key columns, then the value) as (key, value); None for a row that is
        not one this code wrote (a foreign file): it is skipped."""
        raise NotImplementedError

    def _load(self) -> dict[Key, Value]:
        if self._known is None:
            self._known = {}
            try:
                self._context = self._context_of()
            except OSError:
                return self._known  # a file it hashes cannot be read: judge, keep nothing
            if self.path.exists():
                columns = ", ".join((*self.KEY_COLUMNS, self.VALUE_COLUMN))
                try:
                    db = sqlite3.connect(self.path, timeout=1.0)
                    try:
                        rows = db.execute(
                            f"SELECT {columns} FROM {self.TABLE} WHERE context = ?",
                            (self._context,),
                        ).fetchall()
                    finally:
                        db.close()
                except sqlite3.Error:
                    rows = []  # unreadable, or made before this table: judged, rewritten
                self._known = dict(filter(None, map(self._row, rows)))
        return self._known

    def get(self, key: Key) -> Value | None:
        return self._load().get(key)

    def put(self, key: Key, value: Value) -> None:
        self._load()[key] = value
        if self._context is not None:
            self._new[key] = value

    def close(self) -> None:
        """Write the answers added since opening, dropping those of other contexts. Quietly
        gives up on any error (a read-only or busy cache): the next command judges again."""
        if not self._new or self._context is None:
            return
        new, self._new = self._new, {}
        keys = ", ".join(f"{c} TEXT NOT NULL" for c in self.KEY_COLUMNS)
        primary = ", ".join(("context", *self.KEY_COLUMNS))
        marks = ", ".join("?" * (len(self.KEY_COLUMNS) + 2))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=1.0, isolation_level=None)
            try:
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {self.TABLE} (context TEXT NOT NULL, {keys}, "
                    f"{self.VALUE_COLUMN} {self.VALUE_TYPE} NOT NULL, PRIMARY KEY ({primary})) "
                    "WITHOUT ROWID"
                )
                db.execute("BEGIN IMMEDIATE")
                db.execute(f"DELETE FROM {self.TABLE} WHERE context != ?", (self._context,))
                db.executemany(
                    f"INSERT OR REPLACE INTO {self.TABLE} VALUES ({marks})",
                    [(self._context, *self._key_columns(k), v) for k, v in new.items()],
                )
                db.execute("COMMIT")
            finally:
                db.close()
        except (OSError, sqlite3.Error):
            pass
