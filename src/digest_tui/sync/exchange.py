"""Receiving: read other devices' manifests, download what brings something new, verify it
whole and apply it (docs/sync.md, "One sync", step 3)."""

from __future__ import annotations

from dataclasses import dataclass

from digest_tui.errors import ClockError, OpsError, RemoteNotFound, RemoteTooLarge, SegmentError
from digest_tui.store.db import transaction
from digest_tui.store.ops import Op, apply_ops
from digest_tui.sync.clock import Stamp
from digest_tui.sync.context import SyncContext
from digest_tui.sync.remote import Entry
from digest_tui.sync.report import Skipped, SyncReport, age_of
from digest_tui.sync.segments import (
    MAX_MANIFEST_BYTES,
    MAX_SEGMENT_BYTES,
    Manifest,
    SegmentName,
    classify,
    decode_segment,
    manifest_name,
    segment_dir,
)

BATCH_OPS = 20_000  # downloaded ops applied in one transaction
MANIFEST_RECHECK_SECONDS = 3600  # read a manifest this old again even if its ETag is the same


@dataclass
class Downloaded:
    device: str
    name: SegmentName
    path: str
    ops: list[Op]
    size: int
    # False when some of its ops were held back: the file is not recorded as applied, so it
    # is read again at the next sync and the rest applies when its time comes.
    complete: bool = True


def too_large(entry: Entry, limit: int) -> bool:
    return entry.size is not None and entry.size > limit


def skip_stray(report: SyncReport, entry: Entry, directory: str) -> None:
    kind, reason = classify(entry.name)
    if kind == "system":
        return
    path = f"{directory}/{entry.name}" if directory else entry.name
    report.skipped.append(Skipped(path + ("/" if entry.is_dir else ""), kind, reason))


class Receiver:
    """Downloads and applies other devices' segments, in batches, for one sync."""

    def __init__(self, ctx: SyncContext) -> None:
        self.ctx = ctx
        self._batch: list[Downloaded] = []
        self._batch_ops = 0

    def visit_peer(self, device: str, entry: Entry, report: SyncReport, *, full: bool) -> None:
        ctx = self.ctx
        row = ctx.ledger.peer(device)
        # Re-read when the file changed, after a failed read, and now and then anyway: a server
        # whose ETags are weak (time and size only) could hide a change for a while.
        changed = (
            full
            or row is None
            or row.fingerprint != entry.fingerprint
            or row.problem is not None
            or age_of(row.seen_at) > MANIFEST_RECHECK_SECONDS
        )
        manifest = row.manifest if row else None
        problem = None
        if changed:
            name = manifest_name(device)
            try:
                if too_large(entry, MAX_MANIFEST_BYTES):
                    raise RemoteTooLarge(f"{name}: {entry.size} bytes is too large for a manifest")
                data = ctx.remote.read(name, MAX_MANIFEST_BYTES)
                manifest = Manifest.parse(data, device, name)
            except RemoteTooLarge as exc:
                problem = str(exc)
                report.skipped.append(Skipped(name, "oversized", f"{problem}; not read"))
            except (SegmentError, RemoteNotFound) as exc:
                problem = str(exc)
                report.skipped.append(Skipped(name, "manifest", problem))
            ctx.ledger.record_peer(device, entry.fingerprint, manifest, problem)
        # Its segments are listed only when it has ops this machine lacks (or its manifest
        # cannot be read): a device that only acknowledged something costs one GET.
        if (
            full
            or manifest is None
            or problem is not None
            or manifest.head > ctx.ledger.coverage(device)
        ):
            self.pull(device, report)

    def pull(self, device: str, report: SyncReport) -> None:
        ctx = self.ctx
        directory = segment_dir(device)
        entries = ctx.remote.list(directory)
        if entries is None:
            report.skipped.append(
                Skipped(directory + "/", "missing", "no segment directory yet (still syncing?)")
            )
            return
        segments: list[tuple[SegmentName, Entry]] = []
        for entry in entries:
            parsed = None if entry.is_dir else SegmentName.parse(entry.name)
            if parsed is None:
                skip_stray(report, entry, directory)
            else:
                segments.append((parsed, entry))
        covered = ctx.ledger.covered(device)
        # Widest first at each start: a merged segment replaces the small ones it covers.
        segments.sort(key=lambda item: (item[0].first, -item[0].last, item[0].sha256))
        wanted = [s for s in segments if not covered.covers(s[0].first, s[0].last)]
        for number, (parsed, entry) in enumerate(wanted, start=1):
            if covered.covers(parsed.first, parsed.last):
                continue
            ctx.check_cancel()
            path = f"{directory}/{entry.name}"
            ctx.progress(
                f"downloading {device} {parsed.first}-{parsed.last} ({number}/{len(wanted)})"
            )
            # One file too large to be a segment must not stop the exchange (and this device
            # announcing its own ops): it is skipped here, before a byte of it is read.
            if too_large(entry, MAX_SEGMENT_BYTES):
                report.skipped.append(
                    Skipped(path, "oversized", f"{entry.size} bytes is larger than any segment")
                )
                continue
            try:
                data = ctx.remote.read(path, MAX_SEGMENT_BYTES)
            except RemoteNotFound:
                report.skipped.append(Skipped(path, "missing", "vanished while syncing"))
                continue
            except RemoteTooLarge as exc:
                report.skipped.append(Skipped(path, "oversized", str(exc)))
                continue
            try:
                ops = decode_segment(device, entry.name, data)
            except SegmentError as exc:
                report.skipped.append(Skipped(path, "corrupt", f"{exc}; nothing of it was applied"))
                continue
            held = self._future(ops)
            if held:
                report.skipped.append(Skipped(path, "future", self._held_reason(held, ops)))
                ops = [op for op in ops if op not in held]
            else:
                covered.add(parsed.first, parsed.last)
            self._batch.append(Downloaded(device, parsed, path, ops, len(data), not held))
            self._batch_ops += len(ops)
            if self._batch_ops >= BATCH_OPS:
                self.flush(report)

    def _future(self, ops: list[Op]) -> list[Op]:
        """The ops stamped further ahead of this machine's clock than the drift allowed."""
        limit = self.ctx.wall() + self.ctx.max_drift_ms
        return [op for op in ops if Stamp.decode(op.hlc).wall_ms > limit]

    def _held_reason(self, held: list[Op], ops: list[Op]) -> str:
        ahead = (max(Stamp.decode(op.hlc).wall_ms for op in held) - self.ctx.wall()) / 86_400_000
        return (
            f"{len(held)} of its {len(ops)} ops are stamped up to {ahead:,.0f} days ahead of "
            f"this machine's clock (more than {self.ctx.max_drift_ms / 86_400_000:g} days): "
            "held back until this clock gets there, and never used to move it; the rest "
            "was applied"
        )

    def flush(self, report: SyncReport) -> None:
        """Apply the verified segments downloaded so far: together, or one by one on refusal.

        Applying many segments in one transaction recomputes each paper they touch once, not
        once per segment. Each segment is recorded as applied in the same transaction.
        """
        batch, self._batch, self._batch_ops = self._batch, [], 0
        if not batch:
            return
        self.ctx.progress(f"applying {sum(len(d.ops) for d in batch)} ops")
        try:
            self._apply(batch, report)
        except (OpsError, ClockError) as exc:
            if len(batch) == 1:
                report.skipped.append(Skipped(batch[0].path, "refused", str(exc)))
                return
            for item in batch:  # find the segment that is refused; apply the others
                try:
                    self._apply([item], report)
                except (OpsError, ClockError) as single:
                    report.skipped.append(Skipped(item.path, "refused", str(single)))

    def _apply(self, batch: list[Downloaded], report: SyncReport) -> None:
        ledger = self.ctx.ledger
        with transaction(ledger.conn):
            applied = apply_ops(
                ledger.conn, [op for d in batch for op in d.ops], wall=self.ctx.wall
            )
            for item in batch:
                if item.complete:
                    ledger.record_segment(item.device, item.name, len(item.ops), item.size)
        report.received_segments += len(batch)
        report.received_ops += sum(len(d.ops) for d in batch)
        report.applied += applied.applied
        report.duplicates += applied.duplicates
        report.pending += applied.pending
        report.papers_changed += len(applied.papers)
        report.lists_changed += len(applied.lists)
