"""Opening the SQLite library: WAL mode, foreign keys, and numbered schema migrations.

Migrations are the files `migrations/NNN_name.sql`, applied in order inside one transaction
each; `PRAGMA user_version` records the last one applied, so opening an old file upgrades it
and opening an up-to-date file costs one pragma read.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from digest_tui.errors import StoreError

_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """(number, file name, SQL) of every packaged migration, in order."""
    found = []
    for entry in resources.files("digest_tui.store").joinpath("migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [n for n, _, _ in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise StoreError(f"migrations are not numbered 001..{len(numbers):03d}: {numbers}")
    return found


def connect(path: Path | str, *, readonly: bool = False) -> sqlite3.Connection:
    """Open (creating and migrating if needed) the library at `path`."""
    target = str(path)
    if target != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 5000")
        if target != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL is durable against application crashes in WAL mode; only an OS crash can
            # lose the last transactions, never corrupt the file.
            conn.execute("PRAGMA synchronous = NORMAL")
        if not readonly:
            migrate(conn)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{target}: cannot open the library: {exc}") from exc
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction: committed on success, rolled back on any exception.

    Inside a transaction that is already open (a caller composing several changes), it joins
    that one and leaves commit or rollback to its owner. IMMEDIATE takes the write lock up
    front, so two processes never both read and then fail to upgrade to writing.
    """
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every migration newer than the file's version; return the new version."""
    current = schema_version(conn)
    available = migrations()
    if current > len(available):
        raise StoreError(
            f"library schema version {current} is newer than this digest-tui knows "
            f"({len(available)}); upgrade digest-tui"
        )
    for number, name, sql in available[current:]:
        try:
            conn.execute("BEGIN IMMEDIATE")
            for statement in _split_sql(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise StoreError(f"migration {name} failed: {exc}") from exc
    return schema_version(conn)


def _split_sql(sql: str) -> list[str]:
    """Split a migration into statements; sqlite3.complete_statement keeps triggers whole."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        if not buffer and line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
