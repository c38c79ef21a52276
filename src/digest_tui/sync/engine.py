"""Sync: exchange user-state ops with a folder or WebDAV remote. No UI here.

    engine = SyncEngine(library, remote, progress=print)   # or SyncEngine.owning(open_library(ctx))
    report = engine.sync()                                  # SyncReport
    status = local_status(library)                          # SyncStatus (no network)

One sync:
1. lists the remote root (one request): the marker file must be there, else the remote is
   empty or unmounted and nothing at all happens here (an error says so);
2. uploads this device's ops not yet uploaded as new immutable segments, and marks them synced
   only once each write is confirmed (publish.py);
3. for each other device whose manifest changed (or that has ops this machine lacks), lists its
   segment directory, downloads the segments that bring something new, verifies each whole and
   applies it in one transaction with the record that it was applied (exchange.py); a bad
   segment is skipped with its reason and retried next time;
4. rewrites this device's manifest (its head and its acks) when they changed;
5. compacts: merges this device's own segments when there are many, and deletes segments that
   a merged one covers once every known device has acknowledged them (compaction.py).

Nothing is ever deleted locally, and no delete is inferred from a missing file. With nothing new
anywhere a sync costs one listing of the remote root. The records live in the library
(ledger.py). See docs/sync.md.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from digest_tui.errors import (
    RemoteError,
    RemoteMissing,
    SyncBusy,
    SyncCancelled,
    SyncError,
)
from digest_tui.state.clock import system_wall_ms
from digest_tui.sync import compaction, ownership
from digest_tui.sync.context import MAX_DRIFT_MS, SyncContext
from digest_tui.sync.exchange import Receiver, skip_stray
from digest_tui.sync.gc_pause import collection_paused
from digest_tui.sync.ledger import Ledger, configured_remote
from digest_tui.sync.publish import Publisher
from digest_tui.sync.remote import Entry, Remote
from digest_tui.sync.report import (
    InitReport,
    PeerStatus,
    Skipped,
    SyncReport,
    SyncStatus,
    now_iso,
)
from digest_tui.sync.segments import MARKER, SEGMENTS_DIR, manifest_device
from digest_tui.sync.setup import init_remote, make_remote
from digest_tui.sync.status import local_status

if TYPE_CHECKING:
    from digest_tui.store.library import Library

SEGMENT_OPS = 10_000  # ops per uploaded segment
COMPACT_AT = 8  # merge own segments when more than this many are live


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
        max_drift_ms: int = MAX_DRIFT_MS,
    ) -> None:
        self.library = library
        self.remote_options = dict(remote_options or {})
        self.conn: sqlite3.Connection = library.conn
        self.ledger = Ledger(self.conn)
        self.cancel = cancel or threading.Event()
        self._own_remote = remote is None
        self._remote = remote
        self.progress = progress or (lambda _message: None)
        self.wall = wall
        self.compact_at = max(2, compact_at)
        self.segment_ops = max(1, segment_ops)
        self._label = label
        self._owned_library = False
        self.max_drift_ms = max_drift_ms

    @classmethod
    def owning(cls, library: Library, **options: Any) -> SyncEngine:
        """An engine that closes `library` when done (a worker thread's own connection)."""
        engine = cls(library, **options)
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
        return self.ledger.device

    @property
    def label(self) -> str:
        return self.ledger.label(self._label)

    def status(self) -> SyncStatus:
        """What this machine knows (no network); the same as `local_status(library)`."""
        return local_status(self.library, label=self._label)

    def forget_device(self, device: str) -> None:
        """Stop waiting for `device` to acknowledge segments (it is gone for good); see
        `status.forget_device`."""
        from digest_tui.sync.status import forget_device

        forget_device(self.library, device)

    # ---- sync -----------------------------------------------------------------------------

    def sync(
        self, *, full: bool = False, compact: bool = True, reclaim: bool = False
    ) -> SyncReport:
        """Exchange ops both ways. `full` re-reads every manifest and lists every directory.

        `reclaim` takes this device's manifest back when the remote holds one this machine did
        not write (a remote restored from a backup, or a copy of the library that is gone):
        this device's files are checked, what is missing is sent again, nothing is deleted.

        Raises SyncError (RemoteMissing, SyncBusy, SyncCancelled) when it cannot go on; problems
        with single files are reported in `SyncReport.skipped` and retried next time.
        """
        started = time.perf_counter()
        remote = self.remote
        before = remote.requests
        report = SyncReport(remote=remote.description, device=self.device)
        try:
            with self.exclusive(), collection_paused():
                self._sync(
                    self._context(remote), report, full=full, compact=compact, reclaim=reclaim
                )
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

    def _context(self, remote: Remote) -> SyncContext:
        return SyncContext(
            self.ledger,
            remote,
            progress=self.progress,
            cancel=self.cancel,
            wall=self.wall,
            max_drift_ms=self.max_drift_ms,
        )

    def _record_last(self, ok: bool, summary: str) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.ledger.record_last({"at": now_iso(), "ok": ok, "summary": summary[:500]})

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold this library's sync lock: one sync per library at a time (the TUI and a CLI
        command may both try). `sync` takes it; while it is held, any other engine's `sync`
        on the same library raises SyncBusy at once. Raises SyncBusy itself when held."""
        path = self.ledger.database_path()
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

    def _sync(
        self, ctx: SyncContext, report: SyncReport, *, full: bool, compact: bool, reclaim: bool
    ) -> None:
        remote, me = ctx.remote, ctx.device
        publisher = Publisher(ctx, segment_ops=self.segment_ops, label=self._label)
        receiver = Receiver(ctx)
        ctx.progress(f"listing {remote.description}")
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
                skip_stray(report, entry, "")
        report.devices = sorted(d for d in manifests if d != me)

        written = ctx.ledger.written_manifest()
        announced = written.head if written else 0
        repair = full
        if written is not None and me in manifests:
            repair = publisher.check_own_manifest(manifests[me], report, reclaim=reclaim) or full
        if written is not None and me not in manifests:
            report.notes.append(
                "this device's manifest is missing on the remote (was it reset or wiped?): "
                "uploading all of this device's ops again"
            )
            ctx.ledger.forget_own_uploads()
            written = None
        if repair:
            publisher.verify_own_files(report)

        ctx.check_cancel()
        publisher.upload(report)

        try:
            for device in sorted(manifests):
                if device == me:
                    continue
                ctx.check_cancel()
                receiver.visit_peer(device, manifests[device], report, full=full)
            if full:
                listed = remote.list(SEGMENTS_DIR) or []
                for entry in listed:
                    if entry.is_dir and entry.name not in manifests and entry.name != me:
                        # Segments with no manifest: a device that crashed before its first
                        # manifest, or whose manifest is lost. Its segments still count.
                        receiver.pull(entry.name, report, recheck=True)
            receiver.flush(report)
            if repair or reclaim or ownership.others_claim_our_ops(receiver, announced):
                ownership.reconcile_own_directory(receiver, report)
        except (RemoteError, SyncCancelled):
            receiver.flush(report)  # keep what was downloaded and verified before the failure
            raise

        ctx.check_cancel()
        publisher.write_manifest(report, written, force=repair)
        if compact:
            ctx.check_cancel()
            compaction.compact(ctx, report, self.compact_at)
            compaction.delete_superseded(ctx, report)
        publisher.clean_temp(root)


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
    "local_status",
    "make_remote",
]
