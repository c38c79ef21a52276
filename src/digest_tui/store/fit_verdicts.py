"""Fit verdicts kept across commands: `fits:MACHINE` and the "reproducible" sort per fit key.

A statement that reads every paper (the sort, a `fits:` filter with no LIMIT) asks whether the
user's machines fit each distinct fit key of the library (store/fit_keys.py): 3,187 keys at
100,000 synthetic papers, ~0.2 s of judging in every command, plus importing pydantic and
loading the hardware catalog to do it. The answers depend only on the key, the machines, the
catalog and the judging code, so they are kept in `<cache dir>/fit_verdicts.sqlite3` under a
hash of those (`verdict_context`) and looked up the next time: no judging, no catalog, no
pydantic.

Invalidation is by the hash, never by time: editing `machines:`, the packaged or the user's
hardware.yaml, or the code that judges (the source files in `_JUDGE_SOURCES`) gives another
hash, and the rows of any other hash are deleted when new verdicts are written. It is a cache:
a file that cannot be opened or written is left alone and the verdicts are judged as before.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

FILE_NAME = "fit_verdicts.sqlite3"
# What a verdict is about: "mine" (one of the machines fits: the sort), "name" (the machine
# of that casefolded name fits: `fits:NAME`).
MINE, NAME = "mine", "name"

# The code that turns a key into a verdict: a change to any of them changes the hash, so a
# new release never reads verdicts the old code gave.
_JUDGE_SOURCES = (
    "enrich/hardware/fit.py",
    "enrich/hardware/catalog.py",
    "enrich/hardware/suggestion.py",
    "store/fits.py",
    "store/fit_keys.py",
    "store/fit_verdicts.py",
    # What store/fit_texts.py keeps: the fit fields' runs and the answer's encoding.
    "enrich/hardware/fit_slices.py",
    "machine_fits.py",
    "store/fit_texts.py",
)


def verdict_context(machines: Sequence[Any], config_dir: Path | None) -> str:
    """A hash of everything a verdict depends on besides its key: the machines (names,
    devices, counts, in order), the catalog files' bytes and the judging code."""
    from importlib import resources

    # As enrich/hardware/catalog.py reads them (not imported: it imports pydantic).
    package = resources.files("digest_tui")
    h = hashlib.sha256()
    for machine in machines:
        h.update(repr((machine.name, [(d.id, d.count) for d in machine.devices])).encode())
        h.update(b"\0")
    h.update(b"catalog\0" + package.joinpath("data", "hardware.yaml").read_bytes())
    user = config_dir / "hardware.yaml" if config_dir is not None else None
    if user is not None and user.is_file():
        h.update(b"\0user\0" + user.read_bytes())
    for name in _JUDGE_SOURCES:
        h.update(b"\0" + name.encode() + b"\0" + package.joinpath(*name.split("/")).read_bytes())
    return h.hexdigest()


class VerdictCache:
    """Verdicts of one context, read from the file on first use; new ones written by
    `close()` (the command's end) in one transaction."""

    def __init__(self, path: Path, context: Callable[[], str]) -> None:
        self.path = path
        self._context_of = context
        self._context: str | None = None
        self._known: dict[tuple[str, str, str], int] | None = None
        self._new: dict[tuple[str, str, str], int] = {}

    def _load(self) -> dict[tuple[str, str, str], int]:
        if self._known is None:
            self._known = {}
            try:
                self._context = self._context_of()
            except OSError:
                return self._known  # a file it hashes cannot be read: judge, keep nothing
            if self.path.exists():
                try:
                    db = sqlite3.connect(self.path, timeout=1.0)
                    try:
                        rows = db.execute(
                            "SELECT kind, machine, key, fits FROM verdicts WHERE context = ?",
                            (self._context,),
                        ).fetchall()
                    finally:
                        db.close()
                except sqlite3.Error:
                    rows = []  # unreadable or from elsewhere: judged again, rewritten
                self._known = {(k, m, key): int(f) for k, m, key, f in rows}
        return self._known

    def get(self, kind: str, machine: str, key: str) -> int | None:
        return self._load().get((kind, machine, key))

    def put(self, kind: str, machine: str, key: str, fits: int) -> None:
        self._load()[(kind, machine, key)] = fits
        if self._context is not None:
            self._new[(kind, machine, key)] = fits

    def close(self) -> None:
        """Write the verdicts judged since opening, dropping those of other contexts. Quietly
        gives up on any error (a read-only or busy cache): the next command judges again."""
        if not self._new or self._context is None:
            return
        new, self._new = self._new, {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=1.0, isolation_level=None)
            try:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS verdicts (context TEXT NOT NULL, "
                    "kind TEXT NOT NULL, machine TEXT NOT NULL, key TEXT NOT NULL, "
                    "fits INTEGER NOT NULL, PRIMARY KEY (context, kind, machine, key)) "
                    "WITHOUT ROWID"
                )
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM verdicts WHERE context != ?", (self._context,))
                db.executemany(
                    "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)",
                    [(self._context, k, m, key, f) for (k, m, key), f in new.items()],
                )
                db.execute("COMMIT")
            finally:
                db.close()
        except (OSError, sqlite3.Error):
            pass


def kept_or_judged(
    verdicts: VerdictCache | None, kind: str, machine: str, key: str, judge: Callable[[], int]
) -> int:
    """The verdict kept for `key`, else `judge()`'s, kept for the next command (no cache:
    always judged)."""
    if verdicts is None:
        return judge()
    verdict = verdicts.get(kind, machine, key)
    if verdict is None:
        verdict = judge()
        verdicts.put(kind, machine, key, verdict)
    return verdict
