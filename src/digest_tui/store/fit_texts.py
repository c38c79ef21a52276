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

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from digest_tui.store.kept_table import KeptTable

Slices = tuple[str, ...]
# The runs as one key text: "\0" never occurs in JSON text (it would be escaped).
_SEP = "\0"


class _TextRows(KeptTable[str, str]):
    TABLE = "fit_texts"
    KEY_COLUMNS = ("slices",)
    VALUE_COLUMN = "text"

    def _key_columns(self, key: str) -> Sequence[Any]:
        return (key,)

    def _row(self, row: Sequence[Any]) -> tuple[str, str] | None:
        key, text = row
        return (key, text) if type(key) is str and type(text) is str else None


class FitTexts:
    """The kept `machine_fit` texts of one context, read from the file on first use; new
    ones written by `close()` (the command's end) in one transaction (store/kept_table.py)."""

    def __init__(self, path: Path, context: Callable[[], str]) -> None:
        self.path = path
        self._rows = _TextRows(path, context)

    def get(self, slices: Slices) -> str | None:
        return self._rows.get(_SEP.join(slices))

    def put(self, slices: Slices, text: str) -> None:
        self._rows.put(_SEP.join(slices), text)

    def close(self) -> None:
        """Write the texts judged since opening, dropping those of other contexts."""
        self._rows.close()
