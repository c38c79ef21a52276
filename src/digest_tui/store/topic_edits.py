"""After a taxonomy edit, mark fresh the stored papers the edit cannot change, without
classifying them again (`enrich/topics/delta.py` says which those are).

The library keeps, in `meta`, a snapshot of the taxonomy files under the topics part of the
fingerprint its papers were enriched with (`remember_taxonomy`). When papers turn out stale
only in their topics, `settle_unchanged` rebuilds the taxonomy they were classified with,
compares it with the current one, and gives the papers that no changed entry can touch the
current fingerprint in place: their topics, evidence and hardware target are what a new
classification would give. The rest are left for `Library.reenrich` to classify.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from digest_tui.store.db import transaction

if TYPE_CHECKING:
    from digest_tui.enrich.pipeline import Enricher

_SNAPSHOT = "taxonomy_snapshot:"
# Papers read, judged and marked in one short write transaction.
_CHUNK = 2_000
# Below this many stale papers, classifying them all costs less than rebuilding the taxonomy
# they were classified with (25-55 ms, about a hundred classifications): `show ID` after an
# edit enriches its one paper without it.
SETTLE_MIN = 100


def remember_taxonomy(conn: sqlite3.Connection, enricher: Enricher) -> None:
    """Keep a snapshot of the current taxonomy files beside the papers being enriched with
    them (inside the caller's transaction when one is open). Cheap when it is already kept."""
    from digest_tui.enrich.pipeline import TOPICS

    key = enricher.component_fingerprints[TOPICS]
    if conn.execute("SELECT 1 FROM meta WHERE key = ?", (_SNAPSHOT + key,)).fetchone():
        return
    taken = enricher.taxonomy_snapshot()  # None when the files changed since `key` was taken
    if taken is not None:
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
            (_SNAPSHOT + taken[0], taken[1]),
        )


def forget_other_taxonomies(conn: sqlite3.Connection, enricher: Enricher) -> None:
    """Drop the snapshots no stored paper refers to any more (call once every paper is
    enriched with the current files)."""
    from digest_tui.enrich.pipeline import TOPICS

    keep = _SNAPSHOT + enricher.component_fingerprints[TOPICS]
    conn.execute(
        "DELETE FROM meta WHERE key >= ? AND key < ? AND key != ?",
        (_SNAPSHOT, _SNAPSHOT[:-1] + chr(ord(_SNAPSHOT[-1]) + 1), keep),
    )


def settle_unchanged(
    conn: sqlite3.Connection,
    enricher: Enricher,
    todo: Sequence[tuple[int, frozenset[str]]],
    stored_fps: dict[int, str | None],
    *,
    progress: Callable[[int], None] | None = None,
    pause: Callable[[], None] | None = None,
) -> list[tuple[int, frozenset[str]]]:
    """Give the papers of `todo` (rowid, stale components) that are stale in their topics
    alone, and that the taxonomy edit cannot change, the current fingerprint; return the rest
    of `todo`, for classifying. `stored_fps`: each paper's stored fingerprint, as read when
    `todo` was made; a paper whose fingerprint changed since is left in the rest.
    `progress(n)` is told how many were settled after each chunk."""
    from digest_tui.enrich.pipeline import TOPICS, fingerprint_parts

    deltas: dict[str, Any] = {}  # topics part of a stored fingerprint -> its delta (or None)
    settleable: dict[str | None, list[int]] = {}
    rest: list[tuple[int, frozenset[str]]] = []
    for rowid, components in todo:
        stored = stored_fps.get(rowid)
        old_key = fingerprint_parts(stored).get(TOPICS)
        if components != {TOPICS} or old_key is None:
            rest.append((rowid, components))
            continue
        if old_key not in deltas:
            deltas[old_key] = _delta_since(conn, enricher, old_key)
        if deltas[old_key] is None:
            rest.append((rowid, components))
        else:
            settleable.setdefault(stored, []).append(rowid)
    if not settleable:
        return rest
    fingerprint = enricher.fingerprint
    components_of = dict(todo)
    settled = 0
    for stored, rowids in settleable.items():
        delta = deltas[fingerprint_parts(stored)[TOPICS]]
        for start in range(0, len(rowids), _CHUNK):
            if pause is not None:
                pause()
            chunk = rowids[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            with transaction(conn):
                unchanged: list[tuple[str, int]] = []
                seen: set[int] = set()
                rows = conn.execute(
                    "SELECT rowid, title, abstract, keywords, topics FROM papers "
                    f"WHERE rowid IN ({marks}) AND enrich_fp IS ?",
                    (*chunk, stored),
                ).fetchall()
                for rowid, title, abstract, keywords, topics in rows:
                    seen.add(rowid)
                    words = json.loads(keywords) if keywords and keywords != "[]" else []
                    held = json.loads(topics) if delta.removed and topics else []
                    if delta.may_change(title, abstract, words, held):
                        rest.append((rowid, components_of[rowid]))
                    else:
                        unchanged.append((fingerprint, rowid))
                conn.executemany("UPDATE papers SET enrich_fp = ? WHERE rowid = ?", unchanged)
            # Changed since `todo` was read (or gone): classified the usual way.
            rest.extend((rowid, components_of[rowid]) for rowid in chunk if rowid not in seen)
            settled += len(unchanged)
            if progress is not None:
                progress(settled)
    return rest


def _delta_since(conn: sqlite3.Connection, enricher: Enricher, old_key: str) -> Any:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_SNAPSHOT + old_key,)).fetchone()
    if row is None:
        return None
    return enricher.topic_delta(old_key, row[0])
