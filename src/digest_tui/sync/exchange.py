"""Receiving: read other devices' manifests, download what brings something new, verify it
whole and apply it (docs/sync.md, "One sync", step 3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from digest_tui.errors import ClockError, OpsError, RemoteNotFound, RemoteTooLarge, SegmentError
from digest_tui.state.clock import Stamp
from digest_tui.state.log import apply_ops, replace_op
from digest_tui.state.model import Op
from digest_tui.store.db import transaction
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
    op_digest,
    segment_dir,
)

# Downloaded ops applied in one transaction. Each batch recomputes every paper it touches from
# all of that paper's ops so far (and re-indexes its search text), so larger batches redo less:
# 10 devices x 10,000 ops took 5.8 s of CPU in batches of 20,000 and 4.5 s in batches of
# 50,000. Ops of a batch share their repeated objects (`_shared`), ~500 bytes per held op, so
# 100,000 hold what 50,000 held before that (~50 MB).
BATCH_OPS = 100_000
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
    replace: list[Op] = field(default_factory=list)  # owner-vouched versions of contested ops


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
        # Objects the ops of the batch share (Op.from_json): one per paper, device, kind and
        # repeated payload, across all of the batch's segments. Dropped with the batch.
        self._shared: dict[Any, Any] = {}

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
        # Its segments are listed only when it has ops this machine lacks, its head moved (a
        # new segment may claim counters another writer claimed first), it vouches for an op
        # whose copy here differs, or its manifest cannot be read: a device that only
        # acknowledged something costs one GET.
        before = row.manifest if row else None
        unsettled = manifest is not None and self._unsettled(manifest.vouch)
        if (
            full
            or manifest is None
            or problem is not None
            or manifest.head > ctx.ledger.coverage(device)
            or (before is not None and before.head != manifest.head)
            or unsettled
        ):
            vouch = manifest.vouch if manifest else {}
            self.pull(device, report, vouch, recheck=full or unsettled)

    def _unsettled(self, vouch: dict[str, str]) -> bool:
        """Whether an op held here is not the version its owner vouches for."""
        if not vouch:
            return False
        stored = self.ctx.ledger.stored_ops(list(vouch))
        return any(
            op_id not in stored or op_digest(stored[op_id]) != digest
            for op_id, digest in vouch.items()
        )

    def pull(
        self,
        device: str,
        report: SyncReport,
        vouch: dict[str, str] | None = None,
        *,
        recheck: bool = False,
    ) -> None:
        """Download and verify the segments of `device` that bring something new.

        `recheck` also reads files never read here whose counters are covered (`--full`, or
        when the owner vouches for an op whose copy here differs): coverage by counter alone
        would let a file that claimed those counters first hide the owner's own ops.
        """
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
        known = ctx.ledger.segment_names(device)
        # Widest first at each start: a merged segment replaces the small ones it covers.
        segments.sort(key=lambda item: (item[0].first, -item[0].last, item[0].sha256))
        wanted = [
            s
            for s in segments
            if not covered.covers(s[0].first, s[0].last) or (recheck and s[1].name not in known)
        ]
        for number, (parsed, entry) in enumerate(wanted, start=1):
            if covered.covers(parsed.first, parsed.last) and not recheck:
                continue
            ctx.check_cancel()
            path = f"{directory}/{entry.name}"
            ctx.progress(
                f"downloading {device} {parsed.first}-{parsed.last} ({number}/{len(wanted)})"
            )
            fetched = self.fetch(device, entry, report)
            if fetched is None:
                continue
            ops, size = fetched
            apply, replace, complete = self.screen(device, path, ops, vouch or {}, report)
            if complete:
                covered.add(parsed.first, parsed.last)
            self._batch.append(Downloaded(device, parsed, path, apply, size, complete, replace))
            self._batch_ops += len(apply)
            if self._batch_ops >= BATCH_OPS:
                self.flush(report)

    def fetch(self, device: str, entry: Entry, report: SyncReport) -> tuple[list[Op], int] | None:
        """A segment's ops, verified whole; None (reported) when it cannot be used."""
        path = f"{segment_dir(device)}/{entry.name}"
        # One file too large to be a segment must not stop the exchange (and this device
        # announcing its own ops): it is skipped here, before a byte of it is read.
        if too_large(entry, MAX_SEGMENT_BYTES):
            report.skipped.append(
                Skipped(path, "oversized", f"{entry.size} bytes is larger than any segment")
            )
            return None
        try:
            data = self.ctx.remote.read(path, MAX_SEGMENT_BYTES)
        except RemoteNotFound:
            report.skipped.append(Skipped(path, "missing", "vanished while syncing"))
            return None
        except RemoteTooLarge as exc:
            report.skipped.append(Skipped(path, "oversized", str(exc)))
            return None
        try:
            return decode_segment(device, entry.name, data, self._shared), len(data)
        except SegmentError as exc:
            report.skipped.append(Skipped(path, "corrupt", f"{exc}; nothing of it was applied"))
            return None

    def screen(
        self,
        device: str,
        path: str,
        ops: list[Op],
        vouch: dict[str, str],
        report: SyncReport,
    ) -> tuple[list[Op], list[Op], bool]:
        """(ops to apply, ops to put in place of another version, whether the file is settled).

        Ops too far in the future are held back. An op whose id is held here with other
        content was claimed by two writers: the version its owner vouches for wins (it
        replaces the other, or the other is ignored); with no word from the owner, neither
        is applied over the other and the file is read again at the next sync.
        """
        held = self.future(ops)
        if held:
            report.skipped.append(Skipped(path, "future", self._held_reason(held, ops)))
        stored = self.ctx.ledger.stored_ops([op.op_id for op in ops])
        if not held and not vouch and not stored:
            return list(ops), [], True  # the usual file: nothing to compare, all of it applies
        apply: list[Op] = []
        replace: list[Op] = []
        contested: list[Op] = []
        disowned: list[Op] = []
        for op in ops:
            if op in held:
                continue
            genuine = vouch.get(op.op_id)
            old = stored.get(op.op_id)
            if genuine is None and old is None:
                apply.append(op)  # nothing to compare it with: no digest needed
                continue
            digest = op_digest(op)
            if genuine is not None and digest != genuine:
                disowned.append(op)  # its owner vouches for another version of it
                continue
            if old is None or op_digest(old) == digest:
                apply.append(op)
            elif genuine == digest:
                replace.append(op)
            else:
                contested.append(op)
        if contested:
            ids = ", ".join(op.op_id for op in contested[:5])
            report.skipped.append(
                Skipped(
                    path,
                    "impersonation",
                    f"{len(contested)} of its ops ({ids}{', ...' if len(contested) > 5 else ''}) "
                    "differ from copies of the same ops applied here from another file: two "
                    f"writers claim counters of device {device}. Those ops were not applied "
                    f"(the rest was); it settles when device {device} syncs (with --full if "
                    "this persists) and says which version is its own",
                )
            )
        if disowned:
            report.skipped.append(
                Skipped(
                    path,
                    "impersonation",
                    f"{len(disowned)} of its ops are not the versions device {device} vouches "
                    "for (another writer's): ignored",
                )
            )
        # A file with ops left out is not recorded as applied: its counters must not count as
        # held here, or the owner's own file for them would never be read.
        return apply, replace, not held and not contested and not disowned

    def future(self, ops: list[Op]) -> list[Op]:
        """The ops stamped further ahead of this machine's clock than the drift allowed."""
        limit = self.ctx.wall() + self.ctx.max_drift_ms
        # A validated op's stamp is canonical (Op.from_json re-encodes it): its wall clock is
        # the digits before the first "-", read here without building a Stamp per op.
        return [op for op in ops if int(op.hlc.partition("-")[0]) > limit]

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
        self._shared = {}
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
            for op in (op for d in batch for op in d.replace):
                replaced = replace_op(ledger.conn, op, wall=self.ctx.wall)
                applied.applied += 1
                applied.papers |= replaced.papers
                applied.lists |= replaced.lists
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
