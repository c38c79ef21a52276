"""Opening the SQLite library: WAL mode, foreign keys, and numbered schema migrations.

Migrations are the files `migrations/NNN_name.sql`, applied in order inside one transaction
each; `PRAGMA user_version` records the last one applied, so opening an old file upgrades it
and opening an up-to-date file costs one pragma read. A migration whose data SQL cannot
compute has a Python step (`_python_step`), run after its SQL in the same transaction.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from importlib import resources
from pathlib import Path
from typing import Any

from digest_tui.errors import StoreError


# Defined here rather than in errors.py so that importing the error model never loads sqlite3.
class LibraryFileError(StoreError, sqlite3.DatabaseError):
    """SQLite failed on the library file (disk full, read-only, damaged, locked).

    Raised by the store's connection in place of sqlite3's own error, so no command has to
    catch sqlite3 errors itself; it stays a sqlite3.DatabaseError for callers that catch that.
    """


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


# sqlite3 errors that say something about the file or the disk rather than about our SQL:
# those become a LibraryFileError naming the file (IntegrityError, ProgrammingError... are
# bugs and keep their own class and traceback).
_NOT_THE_FILE = (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.NotSupportedError)
# A Python function called from SQL (fits:) failed: its own error is the story, not the file.
_UDF_FAILED = "user-defined function raised exception"


def interrupted(exc: BaseException) -> bool:
    """Whether `exc` is a statement stopped on purpose (`Connection.interrupt`, as the app
    does to its workers' connections when it quits): not a problem with the file."""
    return (getattr(exc, "sqlite_errorname", "") or "").startswith("SQLITE_INTERRUPT")


def library_error(exc: sqlite3.Error, path: str) -> Exception:
    """The error to raise for `exc` on the library at `path`: a LibraryFileError saying what
    happened and what to do, or `exc` itself when it is not about the file."""
    if (
        isinstance(exc, LibraryFileError)
        or not isinstance(exc, sqlite3.DatabaseError)
        or isinstance(exc, _NOT_THE_FILE)
        or str(exc).startswith(_UDF_FAILED)
    ):
        return exc
    if interrupted(exc):
        return exc
    code = getattr(exc, "sqlite_errorname", "") or ""
    if code.startswith("SQLITE_FULL"):
        message = "the disk is full (or the file reached its size limit); the change was not saved"
    elif code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        message = (
            f"the library file is damaged ({exc}); restore it from a copy made with "
            "`digest-tui backup FILE` (see docs/user-guide.md, 'Backups')"
        )
    elif code.startswith("SQLITE_READONLY"):
        message = f"the library cannot be written ({exc}): is the file or its folder read-only?"
    elif code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        message = "the library is busy (another digest-tui is writing to it); try again"
    elif code.startswith("SQLITE_CANTOPEN"):
        message = f"cannot open the library file ({exc}): does its folder exist and is it writable?"
    elif code.startswith("SQLITE_IOERR"):
        message = f"the disk failed while reading or writing the library ({exc})"
    else:
        message = f"SQLite error: {exc}"
    error = LibraryFileError(f"{path}: {message}")
    error.__cause__ = exc
    return error


class LibraryCursor(sqlite3.Cursor):
    """A cursor whose file and disk errors are LibraryFileErrors naming the library."""

    def _path(self) -> str:
        return getattr(self.connection, "path", "library")

    def execute(self, sql: str, parameters: Any = (), /) -> LibraryCursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise library_error(exc, self._path()) from exc

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> LibraryCursor:
        try:
            return super().executemany(sql, seq_of_parameters)
        except sqlite3.Error as exc:
            raise library_error(exc, self._path()) from exc

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise library_error(exc, self._path()) from exc

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.Error as exc:
            raise library_error(exc, self._path()) from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise library_error(exc, self._path()) from exc

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise library_error(exc, self._path()) from exc


class LibraryConnection(sqlite3.Connection):
    """The library's connection: every statement, fetch and commit reports a failure of the
    file or the disk as one LibraryFileError naming the file. This is the store's boundary,
    so commands never catch sqlite3 errors themselves."""

    path: str = "library"

    def cursor(self, factory: Any = LibraryCursor) -> Any:  # type: ignore[override]
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> LibraryCursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> LibraryCursor:
        return self.cursor().executemany(sql, parameters)

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.Error as exc:
            raise library_error(exc, self.path) from exc


def connect(path: Path | str, *, readonly: bool = False) -> sqlite3.Connection:
    """Open (creating and migrating if needed) the library at `path`."""
    target = str(path)
    try:
        if target != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"{Path(path).parent}: cannot create the library's folder: {exc.strerror or exc}"
        ) from exc
    try:
        conn = sqlite3.connect(
            target, isolation_level=None, check_same_thread=False, factory=LibraryConnection
        )
        conn.path = target  # type: ignore[attr-defined]
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
    except LibraryFileError:
        raise
    except sqlite3.DatabaseError as exc:
        raise library_error(exc, target) from exc
    return conn


def checkpoint(conn: sqlite3.Connection) -> bool:
    """Copy everything in the write-ahead log into the library file and empty the log.

    Until this runs (or the last connection closes cleanly) recent changes live only in
    `library.sqlite3-wal`: a copy of `library.sqlite3` alone would miss them. Returns False
    when another process's open read kept part of the log (the data is safe either way, in
    the log, and the next checkpoint moves it).
    """
    try:
        busy, _log, _moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.Error:
        return False
    return not busy


def close(conn: sqlite3.Connection) -> None:
    """Checkpoint and close; safe to call twice, and never raises for a checkpoint that could
    not finish (the log keeps the data; SQLite replays it on the next open).

    A connection that changed nothing (`tags`, `papers`, `show`...) has nothing of its own in
    the log and skips the checkpoint: a TRUNCATE checkpoint waits out the busy timeout (5 s)
    whenever another process is writing, so every reading command run beside the app's
    re-enrichment or an index build took 5 s longer to exit."""
    try:
        if not conn.in_transaction and conn.total_changes:
            checkpoint(conn)
    except sqlite3.ProgrammingError:
        return  # already closed
    conn.close()


def backup(conn: sqlite3.Connection, destination: Path) -> None:
    """Write a consistent, self-contained copy of the library to `destination`.

    SQLite's online backup API copies the pages of a single snapshot, log included, while
    other connections keep reading and writing. The copy is written beside the destination
    and renamed into place, so a failed backup never leaves a half-written file there; it is
    switched to a rollback journal, so it is one file that can be copied like any other.
    """
    destination = Path(destination)
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        target = sqlite3.connect(str(partial), isolation_level=None)
        try:
            conn.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")
            problem = target.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            target.close()
        if problem != "ok":
            raise StoreError(f"{destination}: the copy failed its check: {problem}")
        partial.replace(destination)
    except sqlite3.Error as exc:
        partial.unlink(missing_ok=True)
        raise library_error(exc, str(destination)) from exc
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"{destination}: cannot write the backup: {exc.strerror or exc}") from exc
    finally:
        partial.unlink(missing_ok=True)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction: committed on success, rolled back on any exception.

    Inside a transaction that is already open (a caller composing several changes), it joins
    that one and leaves commit or rollback to its owner. IMMEDIATE takes the write lock up
    front, so two processes never both read and then fail to upgrade to writing. A failed
    COMMIT (disk full) is rolled back too, so the connection stays usable.
    """
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        # SQLite may have rolled back already (some disk-full errors do): then there is
        # nothing left to roll back, and trying must not hide the error that got us here.
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _python_step(number: int) -> Callable[[sqlite3.Connection], object] | None:
    """The Python step of migration `number`, if it has one (imported only to upgrade)."""
    if number == 9:  # each paper's fit key needs the hardware JSON validated (pydantic)
        from digest_tui.store.fit_keys import refresh_fit_keys

        return refresh_fit_keys
    return None


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
            step = _python_step(number)
            if step is not None:
                step(conn)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if isinstance(exc, LibraryFileError):
                raise
            raise StoreError(f"migration {name} failed: {exc}") from exc
        except BaseException:  # a Python step failed (or was interrupted): undo it all
            if conn.in_transaction:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
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
