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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from digest_tui.store.kept_table import KeptTable

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


class _VerdictRows(KeptTable[tuple[str, str, str], int]):
    TABLE = "verdicts"
    KEY_COLUMNS = ("kind", "machine", "key")
    VALUE_COLUMN = "fits"
    VALUE_TYPE = "INTEGER"

    def _key_columns(self, key: tuple[str, str, str]) -> Sequence[Any]:
        return key

    def _row(self, row: Sequence[Any]) -> tuple[tuple[str, str, str], int] | None:
        kind, machine, key, fits = row
        return ((kind, machine, key), int(fits)) if type(fits) is int else None


class VerdictCache:
    """Verdicts of one context, read from the file on first use; new ones written by
    `close()` (the command's end) in one transaction (store/kept_table.py)."""

    def __init__(self, path: Path, context: Callable[[], str]) -> None:
        self.path = path
        self._rows = _VerdictRows(path, context)

    def get(self, kind: str, machine: str, key: str) -> int | None:
        return self._rows.get((kind, machine, key))

    def put(self, kind: str, machine: str, key: str, fits: int) -> None:
        self._rows.put((kind, machine, key), fits)

    def close(self) -> None:
        """Write the verdicts judged since opening, dropping those of other contexts."""
        self._rows.close()


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
