"""Sync: exchange user-state ops with a folder or WebDAV remote. No UI here.

    engine = SyncEngine(library, remote, progress=print)   # or SyncEngine.open(ctx)
    report = engine.sync()                                  # SyncReport
    status = engine.status()                                # SyncStatus (no network)

One sync:
1. lists the remote root (one request): the marker file must be there, else the remote is
   empty or unmounted and nothing at all happens here (an error says so);
2. uploads this device's ops not yet uploaded as new immutable segments, and marks them synced
   only once each write is confirmed;
3. for each other device whose manifest changed (or that has ops this machine lacks), lists its
   segment directory, downloads the segments that bring something new, verifies each whole (hash,
   gzip, JSON, op validity) and applies it with `store.ops.apply_ops` in one transaction with the
   record that it was applied; a bad segment is skipped with its reason and retried next time;
4. rewrites this device's manifest (its head and its acks) when they changed;
5. compacts: merges this device's own segments when there are many, and deletes segments that
   a merged one covers once every known device has acknowledged them.

Nothing is ever deleted locally, and no delete is inferred from a missing file. With nothing new
anywhere a sync costs one listing of the remote root. See docs/sync.md.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from digest_tui import __version__
from digest_tui.errors import (
    OpsError,
    RemoteError,
    RemoteMissing,
    RemoteNotFound,
    SegmentError,
    SyncBusy,
    SyncCancelled,
    SyncError,
)
from digest_tui.store.db import transaction
from digest_tui.store.ops import Op, PaperRef, apply_ops, device_id, mark_synced, unsynced_ops
from digest_tui.sync.clock import system_wall_ms
from digest_tui.sync.remote import Entry, Remote, age_seconds
from digest_tui.sync.segments import (
    MARKER,
    MARKER_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_SEGMENT_BYTES,
    SEGMENTS_DIR,
    Manifest,
    SegmentName,
    classify,
    decode_segment,
    encode_segment,
    manifest_device,
    manifest_name,
    segment_dir,
)

if TYPE_CHECKING:
    from digest_tui.config import AppContext
    from digest_tui.store.library import Library

META_REMOTE = "sync_remote"
META_USER = "sync_user"
META_LABEL = "sync_label"
META_MANIFEST = "sync_manifest"  # the last manifest this device wrote (JSON)
META_LAST = "sync_last"  # the outcome of the last sync (JSON)
META_FORGOTTEN = "sync_forgotten"  # devices the user retired here (JSON list)
META_MANIFEST_FP = "sync_manifest_fp"  # the fingerprint of this device's manifest as written

SEGMENT_OPS = 10_000  # ops per uploaded segment
BATCH_OPS = 20_000  # downloaded ops applied in one transaction
COMPACT_AT = 8  # merge own segments when more than this many are live
STALE_TEMP_SECONDS = 3600  # own temporary files older than this are left-overs of a crash
MANIFEST_RECHECK_SECONDS = 3600  # read a manifest this old again even if its ETag is the same

_WIRE = (
    "op_id, device, counter, hlc, kind, paper_id, title_key, arxiv_id, list_id, payload, created_at"
)


@dataclass(frozen=True)
class Skipped:
    path: str
    kind: str  # conflict, temporary, unknown, corrupt, manifest, missing, refused
    reason: str


@dataclass
class SyncReport:
    remote: str
    device: str
    sent_ops: int = 0
    sent_segments: int = 0
    received_segments: int = 0
    received_ops: int = 0  # ops in the segments downloaded
    applied: int = 0  # of those, new here
    duplicates: int = 0
    pending: int = 0  # of the new ones, waiting for a paper this library does not have yet
    papers_changed: int = 0
    lists_changed: int = 0
    devices: list[str] = field(default_factory=list)  # other devices on the remote
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # things worth saying that are not problems
    merged_segments: int = 0  # own segments merged by compaction
    deleted_segments: int = 0  # superseded own segments deleted
    manifest_written: bool = False
    requests: int = 0  # operations on the remote (HTTP requests for WebDAV)
    seconds: float = 0.0

    @property
    def warnings(self) -> list[Skipped]:
        return [s for s in self.skipped if s.kind != "temporary"]

    @property
    def changed(self) -> bool:
        """Whether the local state changed (the UI should refresh)."""
        return self.applied > 0

    def lines(self) -> list[str]:
        """A short human summary, one fact per line."""
        out = [
            f"sent {self.sent_ops} op{_s(self.sent_ops)}"
            + (f" in {self.sent_segments} segment{_s(self.sent_segments)}" if self.sent_ops else "")
            + f"; received {self.received_ops}, applied {self.applied} new"
            + (f" ({self.duplicates} already here)" if self.duplicates else ""),
        ]
        if self.pending:
            out.append(
                f"{self.pending} op{_s(self.pending)} wait for papers not in this library yet "
                "(they apply when those papers are imported)"
            )
        if self.merged_segments or self.deleted_segments:
            out.append(
                f"compaction: merged {self.merged_segments} segments, deleted "
                f"{self.deleted_segments} that every device has"
            )
        out.extend(self.notes)
        devices = len(self.devices)
        out.append(
            f"{devices} other device{_s(devices)} on {self.remote}; "
            f"{self.requests} request{_s(self.requests)}, {self.seconds:.2f} s"
        )
        return out

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = [asdict(s) for s in self.skipped]
        return data


@dataclass(frozen=True)
class PeerStatus:
    device: str
    label: str
    updated_at: str  # when it last wrote its manifest (its clock)
    seen_at: str  # when this machine last read a new manifest of it
    head: int  # ops it has uploaded
    have: int  # ops 1..have of it are here
    acked_ours: int  # ops 1..N of this device it has applied
    forgotten: bool
    problem: str | None


@dataclass(frozen=True)
class SyncStatus:
    remote: str | None
    device: str
    label: str
    pending_local: int  # this device's ops not yet uploaded
    pending_papers: int  # ops from elsewhere waiting for a paper not in this library
    uploaded_head: int
    own_segments: int
    last_sync: dict[str, Any] | None
    peers: list[PeerStatus]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["peers"] = [asdict(p) for p in self.peers]
        return data


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _age(iso: str | None) -> float:
    """Seconds since an ISO time written by _now_iso (infinite if unreadable)."""
    try:
        then = dt.datetime.fromisoformat(iso or "")
    except ValueError:
        return float("inf")
    return (dt.datetime.now(dt.UTC) - then).total_seconds()


# ---- configuration kept in the library ---------------------------------------------------------


def configured_remote(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_REMOTE,)).fetchone()
    return row[0] if row else None


def _get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _set_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
    else:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def make_remote(conn: sqlite3.Connection, spec: str | None = None, **options: Any) -> Remote:
    """The remote configured for this library (or `spec`), with WebDAV credentials looked up."""
    from digest_tui.errors import CredentialsError
    from digest_tui.sync.credentials import find_credentials
    from digest_tui.sync.remote import is_url, normalize_spec, open_remote

    spec = spec or configured_remote(conn)
    if not spec:
        raise SyncError("sync is not set up: run `digest-tui sync init FOLDER-OR-URL` first")
    try:
        stored, _ = normalize_spec(spec)
        if is_url(stored) and "credentials" not in options:
            options["credentials"] = find_credentials(stored, _get_meta(conn, META_USER))
        return open_remote(stored, **options)
    except (RemoteError, CredentialsError) as exc:
        raise SyncError(str(exc)) from None


@dataclass
class InitReport:
    remote: str
    created_root: bool  # the folder or collection was created
    created_marker: bool  # this is a new sync remote
    devices: list[str]  # other devices already there
    switched: bool  # a different remote was configured before: this device re-uploads all
    dropped_credentials: bool  # the URL had credentials, which were not stored


def init_remote(
    library: Library,
    spec: str,
    *,
    user: str | None = None,
    label: str | None = None,
    remote: Remote | None = None,
    **options: Any,
) -> InitReport:
    """Set up sync with a folder or WebDAV URL: create the marker when it is new, remember it."""
    from digest_tui.sync.remote import normalize_spec

    conn = library.conn
    try:
        stored, had_credentials = normalize_spec(spec)
    except RemoteError as exc:
        raise SyncError(str(exc)) from None
    if user is not None:
        _set_meta(conn, META_USER, user)
    own_remote = remote is None
    remote = remote or make_remote(conn, stored, **options)
    try:
        created_root = created_marker = False
        root = remote.list("")
        if root is None:
            if remote.kind == "folder":
                parent = Path(stored).parent
                if not parent.is_dir():
                    raise SyncError(
                        f"{stored}: its parent folder {parent} does not exist (is the drive "
                        "or share mounted?); create it first"
                    )
            remote.ensure_dir("")
            created_root = True
            root = []
        names = {e.name for e in root}
        if MARKER not in names:
            remote.write(MARKER, MARKER_BYTES)
            created_marker = True
        me = device_id(conn)
        remote.ensure_dir(segment_dir(me))
        devices = sorted(
            d for d in (manifest_device(n) for n in names) if d is not None and d != me
        )
        previous = configured_remote(conn)
        switched = previous is not None and previous != stored
        with transaction(conn):
            if switched:
                # Another remote: it has none of this device's ops, and its segments are not
                # the ones recorded here. Upload everything again; re-read every peer.
                conn.execute("UPDATE ops SET synced = 0 WHERE origin = 'local'")
                conn.execute("DELETE FROM sync_segments")
                conn.execute("DELETE FROM sync_peers")
                _set_meta(conn, META_MANIFEST, None)
            _set_meta(conn, META_REMOTE, stored)
            if label is not None:
                _set_meta(conn, META_LABEL, label.strip()[:100])
        return InitReport(
            remote.description, created_root, created_marker, devices, switched, had_credentials
        )
    except RemoteError as exc:
        raise SyncError(str(exc)) from None
    finally:
        if own_remote:
            remote.close()


# ---- the engine ----------------------------------------------------------------------------------


class SyncEngine:
    """Sync one library with one remote. Not thread-safe: one sync at a time per engine.

    `progress(message)` is called with short status lines ("uploading 12 ops", ...), from
    the thread running `sync`. Set `cancel` (a threading.Event) to stop between requests.
    `remote_options` go to the WebDAV client (timeout, connect_timeout, max_attempts,
    backoff_base), e.g. to bound a sync on quit. Use a library on its own SQLite connection
    when running in a worker thread (`open`).
    """

    def __init__(
        self,
        library: Library,
        remote: Remote | None = None,
        *,
        progress: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        wall: Callable[[], int] = system_wall_ms,
        compact_at: int = COMPACT_AT,
        segment_ops: int = SEGMENT_OPS,
        label: str | None = None,
        remote_options: dict[str, Any] | None = None,
    ) -> None:
        self.library = library
        self.remote_options = dict(remote_options or {})
        self.conn: sqlite3.Connection = library.conn
        self.cancel = cancel or threading.Event()
        self._own_remote = remote is None
        self._remote = remote
        self.progress = progress or (lambda _message: None)
        self.wall = wall
        self.compact_at = max(2, compact_at)
        self.segment_ops = max(1, segment_ops)
        self._label = label
        self._owned_library = False
        self._batch: list[_Downloaded] = []
        self._batch_ops = 0
        self._rewrite_manifest = False

    @classmethod
    def open(cls, ctx: AppContext, **options: Any) -> SyncEngine:
        """An engine on its own connection to the library of `ctx` (for worker threads)."""
        from digest_tui.service import open_library

        engine = cls(open_library(ctx), **options)
        engine._owned_library = True
        return engine

    @property
    def remote(self) -> Remote:
        if self._remote is None:
            options: dict[str, Any] = {}
            if "://" in (configured_remote(self.conn) or ""):
                # WebDAV: waits between retries end when cancelled; `remote_options` can bound
                # a sync (e.g. {"timeout": 5, "max_attempts": 2} when quitting).
                options = {"cancel": self.cancel, **self.remote_options}
            self._remote = make_remote(self.conn, **options)
        return self._remote

    def close(self) -> None:
        if self._own_remote and self._remote is not None:
            self._remote.close()
            self._remote = None
        if self._owned_library:
            self.conn.close()

    def __enter__(self) -> SyncEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def device(self) -> str:
        return device_id(self.conn)

    @property
    def label(self) -> str:
        return self._label or _get_meta(self.conn, META_LABEL) or socket.gethostname()[:100]

    # ---- status (local knowledge only: no network) --------------------------------------------

    def status(self) -> SyncStatus:
        conn = self.conn
        me = self.device
        remote = configured_remote(conn)
        if remote is not None and "://" in remote:
            from digest_tui.sync.remote import redact

            remote = redact(remote)
        own = self._own_rows()
        forgotten = self._forgotten()
        coverage = self._coverage_all()
        peers = []
        for device, raw, problem, seen_at in conn.execute(
            "SELECT device, manifest, problem, seen_at FROM sync_peers ORDER BY device"
        ):
            manifest = _manifest_from_json(device, raw)
            peers.append(
                PeerStatus(
                    device=device,
                    label=manifest.label if manifest else "",
                    updated_at=manifest.updated_at if manifest else "",
                    seen_at=seen_at,
                    head=manifest.head if manifest else 0,
                    have=coverage.get(device, 0),
                    acked_ours=manifest.ack.get(me, 0) if manifest else 0,
                    forgotten=device in forgotten,
                    problem=problem,
                )
            )
        last = _get_meta(conn, META_LAST)
        pending_local = conn.execute(
            "SELECT count(*) FROM ops WHERE origin = 'local' AND synced = 0"
        ).fetchone()[0]
        pending_papers = conn.execute(
            "SELECT count(*) FROM ops WHERE origin = 'remote' AND paper_rowid IS NULL "
            "AND (paper_id IS NOT NULL OR title_key IS NOT NULL)"
        ).fetchone()[0]
        return SyncStatus(
            remote=remote,
            device=me,
            label=self.label,
            pending_local=int(pending_local),
            pending_papers=int(pending_papers),
            uploaded_head=max((r.name.last for r in own), default=0),
            own_segments=len(own),
            last_sync=json.loads(last) if last else None,
            peers=peers,
        )

    # ---- sync -----------------------------------------------------------------------------

    def sync(self, *, full: bool = False, compact: bool = True) -> SyncReport:
        """Exchange ops both ways. `full` re-reads every manifest and lists every directory.

        Raises SyncError (RemoteMissing, SyncBusy, SyncCancelled) when it cannot go on; problems
        with single files are reported in `SyncReport.skipped` and retried next time.
        """
        started = time.perf_counter()
        remote = self.remote
        before = remote.requests
        report = SyncReport(remote=remote.description, device=self.device)
        try:
            with self._exclusive():
                self._sync(report, full=full, compact=compact)
        except SyncError as exc:
            self._record_last(False, str(exc))
            raise
        except RemoteError as exc:
            self._record_last(False, str(exc))
            raise SyncError(str(exc)) from None
        finally:
            report.requests = remote.requests - before
            report.seconds = time.perf_counter() - started
        self._record_last(True, "; ".join(report.lines()[:1]))
        return report

    def _record_last(self, ok: bool, summary: str) -> None:
        with contextlib.suppress(sqlite3.Error):
            _set_meta(
                self.conn,
                META_LAST,
                json.dumps({"at": _now_iso(), "ok": ok, "summary": summary[:500]}),
            )

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """One sync per library at a time (the TUI and a CLI command may both try)."""
        path = next(
            (row[2] for row in self.conn.execute("PRAGMA database_list") if row[1] == "main"),
            "",
        )
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks here; sync is idempotent anyway
            yield
            return
        if not path:
            yield
            return
        with open(f"{path}.sync-lock", "a+b") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise SyncBusy("another sync of this library is running; try again") from None
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise SyncCancelled("sync cancelled")

    def _sync(self, report: SyncReport, *, full: bool, compact: bool) -> None:
        remote = self.remote
        me = self.device
        self.progress(f"listing {remote.description}")
        root = remote.list("")
        names = {e.name for e in root} if root is not None else set()
        if root is None or MARKER not in names:
            raise RemoteMissing(
                f"remote looks empty or unmounted: {remote.description} has no {MARKER}. "
                "Nothing was changed here. If it is a synced folder or a network share, check "
                "that it is mounted and has finished syncing; if it is meant to be a new "
                f"remote, run `digest-tui sync init {remote.description}`."
            )
        manifests: dict[str, Entry] = {}
        for entry in root:
            device = manifest_device(entry.name) if not entry.is_dir else None
            if device is not None:
                manifests[device] = entry
            elif entry.name in (MARKER, SEGMENTS_DIR):
                continue
            else:
                self._skip_stray(report, entry, "")
        report.devices = sorted(d for d in manifests if d != me)

        written = self._written_manifest()
        if written is not None and me in manifests:
            self._check_own_manifest(manifests[me])
        if written is not None and me not in manifests:
            report.notes.append(
                "this device's manifest is missing on the remote (was it reset or wiped?): "
                "uploading all of this device's ops again"
            )
            self._forget_own_uploads()
            written = None
        if full:
            self._verify_own_files(report)

        self._check_cancel()
        self._upload(report)

        try:
            for device in sorted(manifests):
                if device == me:
                    continue
                self._check_cancel()
                self._visit_peer(device, manifests[device], report, full=full)
            if full:
                listed = remote.list(SEGMENTS_DIR) or []
                for entry in listed:
                    if entry.is_dir and entry.name not in manifests and entry.name != me:
                        # Segments with no manifest: a device that crashed before its first
                        # manifest, or whose manifest is lost. Its segments still count.
                        self._pull(entry.name, report)
        except (RemoteError, SyncCancelled):
            self._flush(report)  # keep what was downloaded and verified before the failure
            raise
        self._flush(report)

        self._check_cancel()
        self._write_manifest(report, written, force=full)
        if compact:
            self._check_cancel()
            self._compact(report)
            self._delete_superseded(report)
        self._clean_temp(report, root)

    # ---- reading other devices ------------------------------------------------------------------

    def _skip_stray(self, report: SyncReport, entry: Entry, directory: str) -> None:
        kind, reason = classify(entry.name)
        if kind == "system":
            return
        path = f"{directory}/{entry.name}" if directory else entry.name
        report.skipped.append(Skipped(path + ("/" if entry.is_dir else ""), kind, reason))

    def _visit_peer(self, device: str, entry: Entry, report: SyncReport, *, full: bool) -> None:
        conn = self.conn
        row = conn.execute(
            "SELECT fingerprint, manifest, problem, seen_at FROM sync_peers WHERE device = ?",
            (device,),
        ).fetchone()
        # Re-read when the file changed, after a failed read, and now and then anyway: a server
        # whose ETags are weak (time and size only) could hide a change for a while.
        changed = (
            full
            or row is None
            or row[0] != entry.fingerprint
            or row[2] is not None
            or _age(row[3]) > MANIFEST_RECHECK_SECONDS
        )
        manifest = _manifest_from_json(device, row[1]) if row else None
        problem = None
        if changed:
            name = manifest_name(device)
            try:
                data = self.remote.read(name, MAX_MANIFEST_BYTES)
                manifest = Manifest.parse(data, device, name)
            except (SegmentError, RemoteNotFound) as exc:
                problem = str(exc)
                report.skipped.append(Skipped(name, "manifest", problem))
            with transaction(conn):
                conn.execute(
                    "INSERT INTO sync_peers (device, fingerprint, manifest, problem, seen_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (device) DO UPDATE SET "
                    "fingerprint = excluded.fingerprint, manifest = COALESCE("
                    "excluded.manifest, sync_peers.manifest), problem = excluded.problem, "
                    "seen_at = excluded.seen_at",
                    (
                        device,
                        entry.fingerprint if problem is None else "",
                        manifest.to_bytes().decode() if manifest and problem is None else None,
                        problem,
                        _now_iso(),
                    ),
                )
        # Its segments are listed only when it has ops this machine lacks (or its manifest
        # cannot be read): a device that only acknowledged something costs one GET.
        if (
            full
            or manifest is None
            or problem is not None
            or manifest.head > self._coverage(device)
        ):
            self._pull(device, report)

    def _pull(self, device: str, report: SyncReport) -> None:
        directory = segment_dir(device)
        entries = self.remote.list(directory)
        if entries is None:
            report.skipped.append(
                Skipped(directory + "/", "missing", "no segment directory yet (still syncing?)")
            )
            return
        segments: list[tuple[SegmentName, Entry]] = []
        for entry in entries:
            parsed = None if entry.is_dir else SegmentName.parse(entry.name)
            if parsed is None:
                self._skip_stray(report, entry, directory)
            else:
                segments.append((parsed, entry))
        covered = _Intervals(
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT first, last FROM sync_segments WHERE device = ?", (device,)
            )
        )
        # Widest first at each start: a merged segment replaces the small ones it covers.
        segments.sort(key=lambda item: (item[0].first, -item[0].last, item[0].sha256))
        wanted = [s for s in segments if not covered.covers(s[0].first, s[0].last)]
        for number, (parsed, entry) in enumerate(wanted, start=1):
            if covered.covers(parsed.first, parsed.last):
                continue
            self._check_cancel()
            path = f"{directory}/{entry.name}"
            self.progress(
                f"downloading {device} {parsed.first}-{parsed.last} ({number}/{len(wanted)})"
            )
            try:
                data = self.remote.read(path, MAX_SEGMENT_BYTES)
            except RemoteNotFound:
                report.skipped.append(Skipped(path, "missing", "vanished while syncing"))
                continue
            try:
                ops = decode_segment(device, entry.name, data)
            except SegmentError as exc:
                report.skipped.append(Skipped(path, "corrupt", f"{exc}; nothing of it was applied"))
                continue
            covered.add(parsed.first, parsed.last)
            self._batch.append(_Downloaded(device, parsed, path, ops, len(data)))
            self._batch_ops += len(ops)
            if self._batch_ops >= BATCH_OPS:
                self._flush(report)

    def _flush(self, report: SyncReport) -> None:
        """Apply the verified segments downloaded so far: together, or one by one on refusal.

        Applying many segments in one transaction recomputes each paper they touch once, not
        once per segment. Each segment is recorded as applied in the same transaction.
        """
        batch, self._batch, self._batch_ops = self._batch, [], 0
        if not batch:
            return
        self.progress(f"applying {sum(len(d.ops) for d in batch)} ops")
        try:
            self._apply(batch, report)
        except OpsError as exc:
            if len(batch) == 1:
                report.skipped.append(Skipped(batch[0].path, "refused", str(exc)))
                return
            for item in batch:  # find the segment that is refused; apply the others
                try:
                    self._apply([item], report)
                except OpsError as single:
                    report.skipped.append(Skipped(item.path, "refused", str(single)))

    def _apply(self, batch: list[_Downloaded], report: SyncReport) -> None:
        with transaction(self.conn):
            applied = apply_ops(self.conn, [op for d in batch for op in d.ops], wall=self.wall)
            for item in batch:
                self._record_segment(item.device, item.name, len(item.ops), item.size)
        report.received_segments += len(batch)
        report.received_ops += sum(len(d.ops) for d in batch)
        report.applied += applied.applied
        report.duplicates += applied.duplicates
        report.pending += applied.pending
        report.papers_changed += len(applied.papers)
        report.lists_changed += len(applied.lists)

    def _record_segment(self, device: str, name: SegmentName, ops: int, size: int) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO sync_segments (device, name, first, last, ops, bytes, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (device, name.name, name.first, name.last, ops, size, _now_iso()),
        )

    def _coverage(self, device: str) -> int:
        return _Intervals(
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT first, last FROM sync_segments WHERE device = ?", (device,)
            )
        ).prefix()

    def _coverage_all(self) -> dict[str, int]:
        spans: dict[str, list[tuple[int, int]]] = {}
        for device, first, last in self.conn.execute(
            "SELECT device, first, last FROM sync_segments"
        ):
            spans.setdefault(device, []).append((first, last))
        return {device: _Intervals(s).prefix() for device, s in spans.items()}

    # ---- writing this device's ops -------------------------------------------------------------

    def _own_rows(self) -> list[_OwnSegment]:
        return [
            _OwnSegment(SegmentName.parse(r[0]) or SegmentName(r[1], r[2], ""), r[3], r[4], r[5])
            for r in self.conn.execute(
                "SELECT name, first, last, ops, bytes, at FROM sync_segments WHERE device = ? "
                "ORDER BY first, last DESC",
                (self.device,),
            )
        ]

    def _own_ops(self, first: int, last: int) -> list[Op]:
        return [
            _op_from_row(row)
            for row in self.conn.execute(
                f"SELECT {_WIRE} FROM ops WHERE device = ? AND counter BETWEEN ? AND ? "
                "ORDER BY counter",
                (self.device, first, last),
            )
        ]

    def _upload(self, report: SyncReport) -> None:
        pending = unsynced_ops(self.conn)
        if not pending:
            return
        first = min(op.counter for op in pending)
        last = max(op.counter for op in pending)
        # Every op of the range, in case some of it was marked synced out of order: a segment
        # claims the whole range [first, last].
        ops = self._own_ops(first, last)
        pending_ids = {op.op_id for op in pending}
        self.progress(f"uploading {len(pending)} op{_s(len(pending))}")
        if not self._own_rows():
            self.remote.ensure_dir(segment_dir(self.device))
        for start in range(0, len(ops), self.segment_ops):
            self._check_cancel()
            chunk = ops[start : start + self.segment_ops]
            segment = encode_segment(self.device, chunk, chunk[0].counter, chunk[-1].counter)
            path = f"{segment_dir(self.device)}/{segment.name.name}"
            try:
                self.remote.write(path, segment.data)
            except RemoteError:
                # The directory may have gone (a wiped remote that was re-initialised).
                self.remote.ensure_dir(segment_dir(self.device))
                self.remote.write(path, segment.data)
            # Only now, with the write confirmed, are these ops safe elsewhere.
            with transaction(self.conn):
                self._record_segment(self.device, segment.name, segment.count, len(segment.data))
                mark_synced(self.conn, [op.op_id for op in chunk])
            report.sent_segments += 1
            report.sent_ops += sum(1 for op in chunk if op.op_id in pending_ids)

    def _written_manifest(self) -> Manifest | None:
        return _manifest_from_json(self.device, _get_meta(self.conn, META_MANIFEST))

    def _forgotten(self) -> set[str]:
        """Devices the user retired, here or on any other device."""
        found = set(self._own_forgotten())
        for device, raw in self.conn.execute("SELECT device, manifest FROM sync_peers"):
            manifest = _manifest_from_json(device, raw)
            if manifest:
                found.update(manifest.forgotten)
        return found

    def _write_manifest(self, report: SyncReport, written: Manifest | None, *, force: bool) -> None:
        me = self.device
        ack = dict(self._coverage_all())
        head = max((r.name.last for r in self._own_rows()), default=0)
        ack.pop(me, None)
        manifest = Manifest(
            device=me,
            label=self.label,
            head=head,
            ack=ack,
            forgotten=self._own_forgotten(),
            updated_at=_now_iso(),
            app=f"digest-tui {__version__}",
            nonce=secrets.token_hex(8),
        )
        if manifest.same_content(written) and not force and not self._rewrite_manifest:
            return
        self._rewrite_manifest = False
        self.progress("writing this device's manifest")
        self.remote.write(manifest_name(me), manifest.to_bytes())
        written_entry = self.remote.stat(manifest_name(me))
        with transaction(self.conn):
            _set_meta(self.conn, META_MANIFEST, manifest.to_bytes().decode())
            _set_meta(
                self.conn, META_MANIFEST_FP, written_entry.fingerprint if written_entry else ""
            )
        report.manifest_written = True

    def _check_own_manifest(self, entry: Entry) -> None:
        """Refuse to go on when another machine writes as this device (a copied library)."""
        if entry.fingerprint == (_get_meta(self.conn, META_MANIFEST_FP) or entry.fingerprint):
            return
        name = manifest_name(self.device)
        try:
            found = self.remote.read(name, MAX_MANIFEST_BYTES)
            Manifest.parse(found, self.device, name)
        except RemoteNotFound:
            return
        except SegmentError:
            self._rewrite_manifest = True  # damaged (not by us): write it again
            return
        if found != (_get_meta(self.conn, META_MANIFEST) or "").encode():
            raise SyncError(
                f"another machine is syncing as this device ({self.device}): {name} on the "
                "remote is not what this machine wrote. Was this library copied from another "
                "machine? Nothing was sent. Each machine needs its own library: see "
                'docs/sync.md ("A library copied to another machine").'
            )
        _set_meta(self.conn, META_MANIFEST_FP, entry.fingerprint)

    def forget_device(self, device: str) -> None:
        """Stop waiting for `device` to acknowledge segments (it is gone for good).

        Recorded in this device's manifest at the next sync, so every device stops waiting;
        the device's files stay (they are its own), and if it ever syncs again it converges.
        """
        if device == self.device:
            raise SyncError("a device cannot forget itself")
        with transaction(self.conn):
            _set_meta(
                self.conn, META_FORGOTTEN, json.dumps(sorted({*self._own_forgotten(), device}))
            )

    def _own_forgotten(self) -> list[str]:
        raw = _get_meta(self.conn, META_FORGOTTEN)
        return list(json.loads(raw)) if raw else []

    def _forget_own_uploads(self) -> None:
        with transaction(self.conn):
            self.conn.execute("UPDATE ops SET synced = 0 WHERE origin = 'local'")
            self.conn.execute("DELETE FROM sync_segments WHERE device = ?", (self.device,))
            _set_meta(self.conn, META_MANIFEST, None)

    def _verify_own_files(self, report: SyncReport) -> None:
        """`--full`: own segments that are missing or have the wrong size are uploaded again;
        temporary files that crashed uploads left in this device's directory are deleted."""
        me = self.device
        listed = {e.name: e for e in self.remote.list(segment_dir(me)) or []}
        for entry in listed.values():
            age = age_seconds(entry)
            if entry.name.startswith(".") and age is not None and age > STALE_TEMP_SECONDS:
                with contextlib.suppress(RemoteError):  # a crashed upload's temporary file
                    self.remote.delete(f"{segment_dir(me)}/{entry.name}")
        broken = [
            r
            for r in self._own_rows()
            if r.name.name not in listed
            or (listed[r.name.name].size is not None and listed[r.name.name].size != r.bytes)
        ]
        if not broken:
            return
        report.notes.append(
            f"{len(broken)} of this device's segments are missing or damaged on the remote: "
            "uploading them again"
        )
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

    # ---- compaction --------------------------------------------------------------------------

    def _compact(self, report: SyncReport) -> None:
        """Merge own segments when more than `compact_at` are live (not covered by another)."""
        rows = self._own_rows()
        live = _live(rows)
        if len(live) <= self.compact_at:
            return
        live.sort(key=lambda r: r.name.first)
        # Merge a suffix whose sizes are comparable (as a log-structured merge does), so old
        # history is rewritten rarely: the total work stays O(n log n) over a device's life.
        start = len(live) - 2
        total = live[-1].ops + live[-2].ops
        while start > 0 and (live[start - 1].ops <= 2 * total or len(live) - start < 4):
            start -= 1
            total += live[start].ops
        group = live[start:]
        first, last = group[0].name.first, group[-1].name.last
        head = max(r.name.last for r in rows)
        ops = self._live_ops(first, last, head)
        self.progress(f"compacting {len(group)} segments ({len(ops)} ops)")
        segment = encode_segment(self.device, ops, first, last)
        self.remote.write(f"{segment_dir(self.device)}/{segment.name.name}", segment.data)
        with transaction(self.conn):
            self._record_segment(self.device, segment.name, segment.count, len(segment.data))
        report.merged_segments += len(group)

    def _live_ops(self, first: int, last: int, head: int) -> list[Op]:
        """Own ops in [first, last], less bookmark/read ops that a later op has overwritten.

        An op is left out only when another op of the same register (same kind, paper named
        the same way) is greater and is itself on the remote (from another device, or ours up
        to `head`): the greatest op of a register is never left out, so every device that
        reads the merged segment computes the same state as from the originals.
        """
        me = self.device
        dropped = {
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
        return [op for op in self._own_ops(first, last) if op.op_id not in dropped]

    def _delete_superseded(self, report: SyncReport) -> None:
        """Delete own segments a merged one covers, once every known device has them."""
        rows = self._own_rows()
        live = {id(r) for r in _live(rows)}
        superseded = [r for r in rows if id(r) not in live]
        if not superseded:
            return
        me = self.device
        forgotten = self._forgotten()
        acks = []
        for device, raw in self.conn.execute("SELECT device, manifest FROM sync_peers"):
            if device == me or device in forgotten:
                continue
            manifest = _manifest_from_json(device, raw)
            acks.append(manifest.ack.get(me, 0) if manifest else 0)
        floor = min(acks, default=None)
        for row in superseded:
            if floor is not None and row.name.last > floor:
                continue
            self._check_cancel()
            self.remote.delete(f"{segment_dir(me)}/{row.name.name}")
            with transaction(self.conn):
                self.conn.execute(
                    "DELETE FROM sync_segments WHERE device = ? AND name = ?", (me, row.name.name)
                )
            report.deleted_segments += 1

    def _clean_temp(self, report: SyncReport, root: Sequence[Entry]) -> None:
        """Delete this device's own temporary files in the root left by a crash long ago."""
        prefix = f".{manifest_name(self.device)}.tmp-"
        for entry in root:
            age = age_seconds(entry)
            if entry.name.startswith(prefix) and age is not None and age > STALE_TEMP_SECONDS:
                with contextlib.suppress(RemoteError):
                    self.remote.delete(entry.name)


# ---- helpers ---------------------------------------------------------------------------------


def _op_from_row(row: Sequence[Any]) -> Op:
    (op_id, device, counter, hlc, kind, paper_id, key, arxiv, list_id, payload, created) = row
    paper = PaperRef(paper_id, key, arxiv) if (paper_id or key) else None
    return Op(op_id, device, counter, hlc, kind, paper, list_id, json.loads(payload), created)


@dataclass
class _Downloaded:
    device: str
    name: SegmentName
    path: str
    ops: list[Op]
    size: int


@dataclass
class _OwnSegment:
    name: SegmentName
    ops: int
    bytes: int
    at: str


def _live(rows: Sequence[_OwnSegment]) -> list[_OwnSegment]:
    """Segments not covered by another one (of equal ranges, the newest stays live)."""
    live = []
    for row in rows:
        covered = any(
            other is not row
            and other.name.covers(row.name)
            and (
                (other.name.first, other.name.last) != (row.name.first, row.name.last)
                or (other.at, other.name.sha256) > (row.at, row.name.sha256)
            )
            for other in rows
        )
        if not covered:
            live.append(row)
    return live


class _Intervals:
    """A union of closed integer intervals."""

    def __init__(self, spans: Any = ()) -> None:
        self.spans: list[list[int]] = []
        for first, last in spans:
            self.add(first, last)

    def add(self, first: int, last: int) -> None:
        merged: list[list[int]] = []
        placed = False
        for span in self.spans:
            if span[1] + 1 < first:
                merged.append(span)
            elif last + 1 < span[0]:
                if not placed:
                    merged.append([first, last])
                    placed = True
                merged.append(span)
            else:
                first, last = min(first, span[0]), max(last, span[1])
        if not placed:
            merged.append([first, last])
        merged.sort()
        self.spans = merged

    def covers(self, first: int, last: int) -> bool:
        return any(a <= first and last <= b for a, b in self.spans)

    def prefix(self) -> int:
        """N such that 1..N is covered (0 if 1 is not)."""
        if self.spans and self.spans[0][0] <= 1:
            return self.spans[0][1]
        return 0


def _manifest_from_json(device: str, raw: str | None) -> Manifest | None:
    if not raw:
        return None
    try:
        return Manifest.parse(raw.encode(), device, "manifest")
    except SegmentError:
        return None


__all__ = [
    "InitReport",
    "PeerStatus",
    "RemoteMissing",
    "Skipped",
    "SyncBusy",
    "SyncCancelled",
    "SyncEngine",
    "SyncError",
    "SyncReport",
    "SyncStatus",
    "configured_remote",
    "init_remote",
    "make_remote",
]
