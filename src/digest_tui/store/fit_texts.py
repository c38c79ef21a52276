"""`machine_fit` kept across commands, per the text of a suggestion's fit fields.

With machines configured, every paper object (`show`, `papers --format json`/`jsonl`,
`similar`/`recommend --format json`, the app's panel) carries whether each machine fits the
paper and why. Judging needs the hardware catalog, and so pydantic (~0.1-0.15 s to import and
load in every such command), and each stored suggestion validated (~10 us; ~0.3 s of judging
at 100,000 papers). The answer depends only on the fields fit.py reads (for a suggestion the
current enricher wrote, the runs `enrich/hardware/fit_slices.py` cuts), the machines, the
catalogs and the judging code: the same things `store/fit_verdicts.py` keys its verdicts by
(`verdict_context`, whose hashed sources include this module and fit_slices.py). So the
encoded list is kept in the same file, table `fit_texts`, under that hash and the runs: the
next command answers with neither catalog nor pydantic. The 100,000 synthetic papers have
~6,400 distinct runs (2.2 MB of text; a 5.5 MB file).

Why not the verdicts' fit keys: those leave out what only the reasons read (the floor's name,
the scaled-down setup's devices), so they cannot key the reasons.

Invalidation is by the hash, as for the verdicts: rows of any other hash are deleted when new
texts are written. It is a cache: a file that cannot be read or written is worked around (the
fits are judged as before), and only suggestions that validated are kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

Slices = tuple[str, ...]
# The runs as one key text: "\0" never occurs in JSON text (it would be escaped).
_SEP = "\0"


class FitTexts:
    """The kept `machine_fit` texts of one context, read from the file on first use; new
    ones written by `close()` (the command's end) in one transaction."""

    def __init__(self, path: Path, context: Callable[[], str]) -> None:
        self.path = path
        self._context_of = context
        self._context: str | None = None
        self._known: dict[str, str] | None = None
        self._new: dict[str, str] = {}

    def _load(self) -> dict[str, str]:
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
                            "SELECT slices, text FROM fit_texts WHERE context = ?",
                            (self._context,),
                        ).fetchall()
                    finally:
                        db.close()
                except sqlite3.Error:
                    rows = []  # unreadable, or made before this table: judged, rewritten
                self._known = {
                    key: text for key, text in rows if type(key) is str and type(text) is str
                }
        return self._known

    def get(self, slices: Slices) -> str | None:
        return self._load().get(_SEP.join(slices))

    def put(self, slices: Slices, text: str) -> None:
        key = _SEP.join(slices)
        self._load()[key] = text
        if self._context is not None:
            self._new[key] = text

    def close(self) -> None:
        """Write the texts judged since opening, dropping those of other contexts. Quietly
        gives up on any error (a read-only or busy cache): the next command judges again."""
        if not self._new or self._context is None:
            return
        new, self._new = self._new, {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=1.0, isolation_level=None)
            try:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS fit_texts (context TEXT NOT NULL, "
                    "slices TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (context, slices)) "
                    "WITHOUT ROWID"
                )
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM fit_texts WHERE context != ?", (self._context,))
                db.executemany(
                    "INSERT OR REPLACE INTO fit_texts VALUES (?, ?, ?)",
                    [(self._context, key, text) for key, text in new.items()],
                )
                db.execute("COMMIT")
            finally:
                db.close()
        except (OSError, sqlite3.Error):
            pass
