"""Fit keys: `fits:MACHINE` and the "reproducible" sort judged once per distinct key.

Whether a machine fits a paper depends on a few fields of the paper's hardware suggestion
only (enrich/hardware/fit.py reads `scale`, `memory_gb`, `device_total`, `floor_architecture`,
`floor_features`, the count of `scaled_down` and the ids of `device_counts`; the fallback rule
of store/fits.py, for JSON in an older shape, reads `scale`, `devices` and `memory_gb`). The
fit key of a paper is the canonical JSON text of those fields, and `suggestion_of_key` turns
it back into a suggestion that store/fits.py's `machine_fits` judges exactly as it judges the
paper's whole JSON. Nearly every paper's JSON differs (evidence, quotes); keys repeat: 3,160
distinct keys for 100,000 synthetic papers.

Migration 009 keeps each paper's key in `paper_fit_keys` (key texts in `fit_keys`), computed
here by `refresh_fit_keys` for the papers its triggers marked pending. The query (`fits_where`,
`FITS_MINE_SQL`) asks the Python judge about each key of `fit_keys` once per statement, then
looks each paper's key up by its rowid: no per-paper JSON, no per-paper Python call. A paper
still pending, or whose JSON no key can stand for (not an object, a `devices` that is not a
list of names), is judged from its hardware JSON by the per-paper function, as before; so is
every paper when no catalog is loaded (the guard: the fallback rule then reads `devices`,
which the key of a valid suggestion leaves out).

When fit.py starts reading another field of the suggestion, the key must carry it: add it to
`fit_key` and `suggestion_of_key`, and add a migration that marks every paper pending again
(tests/unit/test_fit_keys.py compares the two judgements on varied suggestions).

No import of store/fits.py here: the store's migrations (store/db.py, a lower layer) run
`refresh_fit_keys`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

# No hardware, or text that is not JSON: fits no machine (the per-paper function's 0).
NO_FIT = "[]"
_FIT, _FALLBACK = "fit", "fallback"


def _dump(value: list[Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def fit_key(hardware: str | bytes | None) -> str | None:
    """The fit key of a paper's stored hardware JSON; None when no key stands for it."""
    if not hardware:
        return NO_FIT
    try:
        suggestion = json.loads(hardware)
    except ValueError:
        return NO_FIT
    if not isinstance(suggestion, dict):
        return None  # the per-paper function fails on it: keep failing the same way
    from pydantic import ValidationError

    from digest_tui.enrich.hardware.suggestion import HardwareSuggestion

    try:
        s = HardwareSuggestion.model_validate(suggestion)
    except ValidationError:
        # An older shape, judged by store/fits.py's fallback rule on the raw values, which
        # reads `devices` as a set.
        try:
            devices = sorted(set(suggestion.get("devices") or []))
        except TypeError:
            return None
        return _dump([_FALLBACK, suggestion.get("scale"), devices, suggestion.get("memory_gb")])
    # The validated values: what fit_machines reads. `scaled_down` only for its count, as
    # `down.get("count") or 0`; floor features and the paper's device ids as sets.
    down = (s.scaled_down or {}).get("count") or 0
    return _dump(
        [
            _FIT,
            s.scale,
            s.memory_gb,
            s.device_total,
            s.floor_architecture,
            sorted(set(s.floor_features)),
            down,
            sorted(s.device_counts),
        ]
    )


def suggestion_of_key(key: str) -> dict[str, Any] | None:
    """A hardware suggestion that `machine_fits` judges as it judges any paper of this key
    (when a catalog is loaded); None for NO_FIT."""
    value = json.loads(key)
    if not value:
        return None
    if value[0] == _FALLBACK:
        _, scale, devices, memory_gb = value
        # No `target`: it fails validation as the paper's JSON did, so the fallback judges it.
        return {"scale": scale, "devices": devices, "memory_gb": memory_gb}
    _, scale, memory_gb, total, floor, features, down, device_ids = value
    return {
        "target": "",
        "scale": scale,
        "memory_gb": memory_gb,
        "device_total": total,
        "floor_architecture": floor,
        "floor_features": features,
        "scaled_down": {"count": down} if down else None,
        "device_counts": dict.fromkeys(device_ids, 1),
    }


def refresh_fit_keys(conn: sqlite3.Connection, batch: int = 2000) -> int:
    """Compute the keys of the papers marked pending; return how many. Call it inside the
    write transaction that wrote their hardware (an import's, a migration's)."""
    if conn.execute("SELECT 1 FROM paper_fit_pending LIMIT 1").fetchone() is None:
        return 0  # the usual case: no JSON parsed, pydantic not imported
    ids = {key: int(ident) for ident, key in conn.execute("SELECT id, key FROM fit_keys")}
    done = 0
    while True:
        rows = conn.execute(
            "SELECT q.paper_rowid, p.rowid IS NOT NULL, p.hardware FROM paper_fit_pending AS q "
            "LEFT JOIN papers AS p ON p.rowid = q.paper_rowid ORDER BY q.paper_rowid LIMIT ?",
            (batch,),
        ).fetchall()
        if not rows:
            return done
        keyed: list[tuple[int, int | None]] = []
        for rowid, exists, hardware in rows:
            if not exists:
                continue  # deleted in between (its triggers ran): nothing will ask
            key = fit_key(hardware)
            key_id = None
            if key is not None:
                key_id = ids.get(key)
                if key_id is None:
                    cursor = conn.execute("INSERT INTO fit_keys (key) VALUES (?)", (key,))
                    key_id = ids[key] = int(cursor.lastrowid or 0)
            keyed.append((rowid, key_id))
        conn.executemany(
            "INSERT OR REPLACE INTO paper_fit_keys (paper_rowid, key_id) VALUES (?, ?)", keyed
        )
        conn.executemany(
            "DELETE FROM paper_fit_pending WHERE paper_rowid = ?", [(r[0],) for r in rows]
        )
        done += len(rows)


# ---- the SQL -----------------------------------------------------------------------------
# A paper's verdict is its key's; when it has no key (pending, no key stands for its JSON, or
# `guard()` is 0: no catalog), `per_row` judges its own hardware, read by rowid only then.


def _verdict(judge: str, guard: str, per_row: str, *, every_key: bool = True) -> str:
    """`every_key`: `judge` is asked about every key of `fit_keys`, once per statement (a list
    subquery), and each paper's key is looked up in the list: what a statement that reads every
    paper needs (no LIMIT, a sort), at a cost of the number of distinct keys. Otherwise `judge`
    is asked per paper visited, about that paper's key, answered from its cache after the
    first time: a `LIMIT 20` walk down the date index stops after 20 matches, having judged
    only the few keys of the papers it passed (a few hundred papers for `fits:laptop`)."""
    if every_key:
        key_verdict = (
            f"SELECT k.key_id IN (SELECT f.id FROM fit_keys AS f WHERE {judge}) "
            "FROM paper_fit_keys AS k"
        )
    else:
        key_verdict = (
            f"SELECT {judge} FROM paper_fit_keys AS k JOIN fit_keys AS f ON f.id = k.key_id"
        )
    # `key_id IS NOT NULL`: `NULL IN (an empty list)` is 0, not NULL (no key fits the machine).
    return (
        f"coalesce(({key_verdict} WHERE k.paper_rowid = p.rowid AND k.key_id IS NOT NULL "
        f"AND {guard}), "
        f"(SELECT {per_row} FROM papers AS own WHERE own.rowid = p.rowid))"
    )


def fits_where(positive: bool, *, limited: bool = False) -> str:
    """The WHERE term of `fits:NAME` (positive) or `-fits:NAME`: two parameters, NAME twice.
    `limited`: the statement has a LIMIT (see `_verdict`). The functions are store/fits.py's
    (`install_fits`)."""
    verdict = _verdict(
        "paper_key_fits(f.key, ?)",
        "paper_fits_by_key()",
        "paper_fits(own.hardware, ?)",
        every_key=not limited,
    )
    return f"{verdict} = {1 if positive else 0}"


# 1 when one of the user's machines fits the paper (store/repro_sql.py's functions). The sort
# scores every paper, so every key is judged once.
FITS_MINE_SQL = _verdict(
    "paper_key_fits_mine(f.key)", "paper_fits_mine_by_key()", "paper_fits_mine(own.hardware)"
)
