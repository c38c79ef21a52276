"""The sync bookkeeping kept in the library: every SQL statement sync runs lives here.

What it records (migration 003_sync.sql, and `meta` keys `sync_*`): the configured remote and
user, this device's label and last manifest, the segments this machine uploaded or applied
(`sync_segments`), the other devices' manifests as last read (`sync_peers`), the outcome of the
last sync, and the devices the user retired. The rest of sync/ asks the ledger; it never
touches a table itself.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from digest_tui.state.log import device_id, mark_synced, unsynced_ops
from digest_tui.state.model import Op, PaperRef
from digest_tui.store.db import transaction
from digest_tui.sync.intervals import Intervals
from digest_tui.sync.report import now_iso
from digest_tui.sync.segments import Manifest, SegmentName

META_REMOTE = "sync_remote"
META_USER = "sync_user"
META_LABEL = "sync_label"
META_MANIFEST = "sync_manifest"  # the last manifest this device wrote (JSON)
META_LAST = "sync_last"  # the outcome of the last sync (JSON)
META_FORGOTTEN = "sync_forgotten"  # devices the user retired here (JSON list)
META_MANIFEST_FP = "sync_manifest_fp"  # the fingerprint of this device's manifest as written
# SHA-256 of every manifest this device wrote (the newest 2,000; JSON list): an older one found
# on the remote means the remote was restored from an older copy, not another writer.
META_MANIFEST_HISTORY = "sync_manifest_history"
META_VOUCH = "sync_vouch"  # op id -> digest of this device's genuine ops that others also claimed
MANIFEST_HISTORY = 2000

_WIRE = (
    "op_id, device, counter, hlc, kind, paper_id, title_key, arxiv_id, list_id, payload, created_at"
)


@dataclass
class OwnSegment:
    """A segment this device uploaded and has not deleted."""

    name: SegmentName
    ops: int
    bytes: int
    at: str


@dataclass(frozen=True)
class PeerRow:
    device: str
    fingerprint: str
    manifest: Manifest | None
    problem: str | None
    seen_at: str


def configured_remote(conn: sqlite3.Connection) -> str | None:
    return get_meta(conn, META_REMOTE)


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
    else:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def manifest_from_json(device: str, raw: str | None) -> Manifest | None:
    if not raw:
        return None
    from digest_tui.errors import SegmentError

    try:
        return Manifest.parse(raw.encode(), device, "manifest")
    except SegmentError:
        return None


def op_from_row(row: Sequence[Any]) -> Op:
    (op_id, device, counter, hlc, kind, paper_id, key, arxiv, list_id, payload, created) = row
    paper = PaperRef(paper_id, key, arxiv) if (paper_id or key) else None
    return Op(op_id, device, counter, hlc, kind, paper, list_id, json.loads(payload), created)


class Ledger:
    """Sync's records in one library (one SQLite connection)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    # ---- settings ------------------------------------------------------------------------

    @property
    def device(self) -> str:
        return device_id(self.conn)

    def label(self, override: str | None = None) -> str:
        """This machine's name as other devices see it."""
        import socket

        return override or self.read_meta(META_LABEL) or socket.gethostname()[:100]

    def read_meta(self, key: str) -> str | None:
        return get_meta(self.conn, key)

    def write_meta(self, key: str, value: str | None) -> None:
        set_meta(self.conn, key, value)

    def database_path(self) -> str:
        return next(
            (row[2] for row in self.conn.execute("PRAGMA database_list") if row[1] == "main"),
            "",
        )

    def record_last(self, summary: dict[str, Any]) -> None:
        self.write_meta(META_LAST, json.dumps(summary))

    def last(self) -> dict[str, Any] | None:
        raw = self.read_meta(META_LAST)
        return json.loads(raw) if raw else None

    def own_forgotten(self) -> list[str]:
        raw = self.read_meta(META_FORGOTTEN)
        return list(json.loads(raw)) if raw else []

    def forget(self, device: str) -> None:
        with transaction(self.conn):
            self.write_meta(META_FORGOTTEN, json.dumps(sorted({*self.own_forgotten(), device})))

    def switch_remote(self, stored: str, *, switched: bool, label: str | None) -> None:
        """Remember the remote; after a switch, upload everything again and re-read peers."""
        with transaction(self.conn):
            if switched:
                # Another remote has none of this device's ops, and its segments are not the
                # ones recorded here.
                self.conn.execute("UPDATE ops SET synced = 0 WHERE origin = 'local'")
                self.conn.execute("DELETE FROM sync_segments")
                self.conn.execute("DELETE FROM sync_peers")
                self.write_meta(META_MANIFEST, None)
            self.write_meta(META_REMOTE, stored)
            if label is not None:
                self.write_meta(META_LABEL, label.strip()[:100])

    # ---- segments ------------------------------------------------------------------------

    def record_segment(self, device: str, name: SegmentName, ops: int, size: int) -> None:
        """Record an uploaded or applied segment (inside the caller's transaction)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO sync_segments (device, name, first, last, ops, bytes, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (device, name.name, name.first, name.last, ops, size, now_iso()),
        )

    def forget_segment(self, device: str, name: str) -> None:
        with transaction(self.conn):
            self.conn.execute(
                "DELETE FROM sync_segments WHERE device = ? AND name = ?", (device, name)
            )

    def segment_names(self, device: str) -> set[str]:
        return {
            r[0]
            for r in self.conn.execute("SELECT name FROM sync_segments WHERE device = ?", (device,))
        }

    def covered(self, device: str) -> Intervals:
        """The counters of `device` held here: the union of the segments recorded."""
        return Intervals(
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT first, last FROM sync_segments WHERE device = ?", (device,)
            )
        )

    def coverage(self, device: str) -> int:
        return self.covered(device).prefix()

    def coverage_all(self) -> dict[str, int]:
        spans: dict[str, list[tuple[int, int]]] = {}
        for device, first, last in self.conn.execute(
            "SELECT device, first, last FROM sync_segments"
        ):
            spans.setdefault(device, []).append((first, last))
        return {device: Intervals(s).prefix() for device, s in spans.items()}

    def own_segments(self) -> list[OwnSegment]:
        return [
            OwnSegment(SegmentName.parse(r[0]) or SegmentName(r[1], r[2], ""), r[3], r[4], r[5])
            for r in self.conn.execute(
                "SELECT name, first, last, ops, bytes, at FROM sync_segments WHERE device = ? "
                "ORDER BY first, last DESC",
                (self.device,),
            )
        ]

    # ---- this device's ops -----------------------------------------------------------------

    def unsent(self) -> list[Op]:
        return unsynced_ops(self.conn)

    def pending_local(self) -> int:
        return int(
            self.conn.execute(
                "SELECT count(*) FROM ops WHERE origin = 'local' AND synced = 0"
            ).fetchone()[0]
        )

    def pending_papers(self) -> int:
        return int(
            self.conn.execute(
                "SELECT count(*) FROM ops WHERE origin = 'remote' AND paper_rowid IS NULL "
                "AND (paper_id IS NOT NULL OR title_key IS NOT NULL)"
            ).fetchone()[0]
        )

    def own_ops(self, first: int, last: int) -> list[Op]:
        return [
            op_from_row(row)
            for row in self.conn.execute(
                f"SELECT {_WIRE} FROM ops WHERE device = ? AND counter BETWEEN ? AND ? "
                "ORDER BY counter",
                (self.device, first, last),
            )
        ]

    def stored_ops(self, op_ids: Sequence[str]) -> dict[str, Op]:
        """The ops of these ids held here (any device), by id."""
        found: dict[str, Op] = {}
        ids = list(dict.fromkeys(op_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(
                f"SELECT {_WIRE} FROM ops WHERE op_id IN ({marks})", chunk
            ):
                found[row[0]] = op_from_row(row)
        return found

    def vouches(self) -> dict[str, str]:
        raw = self.read_meta(META_VOUCH)
        return dict(json.loads(raw)) if raw else {}

    def add_vouches(self, vouch: dict[str, str]) -> None:
        with transaction(self.conn):
            self.write_meta(
                META_VOUCH, json.dumps(dict(sorted({**self.vouches(), **vouch}.items())))
            )

    def record_upload(self, name: SegmentName, ops: Sequence[Op], size: int) -> None:
        """A segment's write is confirmed: only now are its ops safe elsewhere."""
        with transaction(self.conn):
            self.record_segment(self.device, name, len(ops), size)
            mark_synced(self.conn, [op.op_id for op in ops])

    def record_merge(self, name: SegmentName, ops: int, size: int) -> None:
        with transaction(self.conn):
            self.record_segment(self.device, name, ops, size)

    def forget_own_uploads(self) -> None:
        """The remote lost this device's files: send every op again."""
        with transaction(self.conn):
            self.conn.execute("UPDATE ops SET synced = 0 WHERE origin = 'local'")
            self.conn.execute("DELETE FROM sync_segments WHERE device = ?", (self.device,))
            self.write_meta(META_MANIFEST, None)

    def resend(self, broken: Iterable[OwnSegment]) -> None:
        """Own segments missing or damaged on the remote: upload their ops again."""
        me = self.device
        with transaction(self.conn):
            for row in broken:
                self.conn.execute(
                    "DELETE FROM sync_segments WHERE device = ? AND name = ?", (me, row.name.name)
                )
                self.conn.execute(
                    "UPDATE ops SET synced = 0 WHERE device = ? AND origin = 'local' "
                    "AND counter BETWEEN ? AND ?",
                    (me, row.name.first, row.name.last),
                )

    def overwritten_own_ops(self, first: int, last: int, head: int) -> set[str]:
        """Own bookmark/read op ids in [first, last] that a greater op of the same register
        overwrites, where that greater op is itself on the remote (compaction leaves them out).
        """
        me = self.device
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT o.op_id FROM ops o WHERE o.device = ? AND o.counter BETWEEN ? AND ? "
                "AND o.kind IN ('bookmark', 'read') AND o.paper_rowid IS NOT NULL "
                "AND EXISTS (SELECT 1 FROM ops p WHERE p.paper_rowid = o.paper_rowid "
                "AND p.kind = o.kind AND p.list_id IS NULL AND p.paper_id IS o.paper_id "
                "AND p.title_key IS o.title_key AND p.arxiv_id IS o.arxiv_id "
                "AND (p.hlc > o.hlc OR (p.hlc = o.hlc AND p.op_id > o.op_id)) "
                "AND (p.device != ? OR p.counter <= ?))",
                (me, first, last, me, head),
            )
        }

    # ---- this device's manifest -------------------------------------------------------------

    def written_manifest(self) -> Manifest | None:
        return manifest_from_json(self.device, self.read_meta(META_MANIFEST))

    def written_manifest_bytes(self) -> bytes:
        return (self.read_meta(META_MANIFEST) or "").encode()

    def manifest_fingerprint(self) -> str | None:
        return self.read_meta(META_MANIFEST_FP)

    def record_manifest(self, data: bytes, fingerprint: str) -> None:
        history = self._manifest_history()
        history.append(hashlib.sha256(data).hexdigest())
        with transaction(self.conn):
            self.write_meta(META_MANIFEST, data.decode())
            self.write_meta(META_MANIFEST_FP, fingerprint)
            self.write_meta(META_MANIFEST_HISTORY, json.dumps(history[-MANIFEST_HISTORY:]))

    def wrote_manifest(self, data: bytes) -> bool:
        """Whether this device wrote exactly these manifest bytes at some time."""
        return hashlib.sha256(data).hexdigest() in set(self._manifest_history())

    def _manifest_history(self) -> list[str]:
        raw = self.read_meta(META_MANIFEST_HISTORY)
        return list(json.loads(raw)) if raw else []

    def set_manifest_fingerprint(self, fingerprint: str) -> None:
        self.write_meta(META_MANIFEST_FP, fingerprint)

    # ---- other devices ---------------------------------------------------------------------

    def peer(self, device: str) -> PeerRow | None:
        row = self.conn.execute(
            "SELECT fingerprint, manifest, problem, seen_at FROM sync_peers WHERE device = ?",
            (device,),
        ).fetchone()
        if row is None:
            return None
        return PeerRow(device, row[0], manifest_from_json(device, row[1]), row[2], row[3])

    def peers(self) -> list[PeerRow]:
        return [
            PeerRow(device, fp, manifest_from_json(device, raw), problem, seen_at)
            for device, fp, raw, problem, seen_at in self.conn.execute(
                "SELECT device, fingerprint, manifest, problem, seen_at FROM sync_peers "
                "ORDER BY device"
            )
        ]

    def record_peer(
        self, device: str, fingerprint: str, manifest: Manifest | None, problem: str | None
    ) -> None:
        """A manifest was read (or failed to be: `problem`); keep the last good one."""
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO sync_peers (device, fingerprint, manifest, problem, seen_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (device) DO UPDATE SET "
                "fingerprint = excluded.fingerprint, manifest = COALESCE("
                "excluded.manifest, sync_peers.manifest), problem = excluded.problem, "
                "seen_at = excluded.seen_at",
                (
                    device,
                    fingerprint if problem is None else "",
                    manifest.to_bytes().decode() if manifest and problem is None else None,
                    problem,
                    now_iso(),
                ),
            )

    def forgotten(self) -> set[str]:
        """Devices the user retired, here or on any other device."""
        found = set(self.own_forgotten())
        for peer in self.peers():
            if peer.manifest:
                found.update(peer.manifest.forgotten)
        return found
