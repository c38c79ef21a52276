"""Compaction of this device's own segments, and deletion of what a merged one supersedes.

A device that syncs often makes many small segments. When more than `compact_at` are live
(not covered by another), a run of the newest comparable ones is merged into one; the
segments a merged one covers are deleted only once every known device has acknowledged them
(docs/sync.md, "Compaction and acknowledgements").
"""

from __future__ import annotations

from collections.abc import Sequence

from digest_tui.state.model import Op
from digest_tui.sync.context import SyncContext
from digest_tui.sync.ledger import OwnSegment
from digest_tui.sync.report import SyncReport
from digest_tui.sync.segments import encode_segment, segment_dir


def live(rows: Sequence[OwnSegment]) -> list[OwnSegment]:
    """Segments not covered by another one (of equal ranges, the newest stays live)."""
    found = []
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
            found.append(row)
    return found


def compact(ctx: SyncContext, report: SyncReport, compact_at: int) -> None:
    """Merge own segments when more than `compact_at` are live (not covered by another)."""
    rows = ctx.ledger.own_segments()
    current = live(rows)
    if len(current) <= compact_at:
        return
    current.sort(key=lambda r: r.name.first)
    # Merge a suffix whose sizes are comparable (as a log-structured merge does), so old
    # history is rewritten rarely: the total work stays O(n log n) over a device's life.
    start = len(current) - 2
    total = current[-1].ops + current[-2].ops
    while start > 0 and (current[start - 1].ops <= 2 * total or len(current) - start < 4):
        start -= 1
        total += current[start].ops
    group = current[start:]
    first, last = group[0].name.first, group[-1].name.last
    head = max(r.name.last for r in rows)
    ops = live_ops(ctx, first, last, head)
    ctx.progress(f"compacting {len(group)} segments ({len(ops)} ops)")
    segment = encode_segment(ctx.device, ops, first, last)
    ctx.remote.write(f"{segment_dir(ctx.device)}/{segment.name.name}", segment.data)
    ctx.ledger.record_merge(segment.name, segment.count, len(segment.data))
    report.merged_segments += len(group)


def live_ops(ctx: SyncContext, first: int, last: int, head: int) -> list[Op]:
    """Own ops in [first, last], less bookmark/read ops that a later op has overwritten.

    An op is left out only when another op of the same register (same kind, paper named the
    same way) is greater and is itself on the remote (from another device, or ours up to
    `head`): the greatest op of a register is never left out, so every device that reads the
    merged segment computes the same state as from the originals.
    """
    dropped = ctx.ledger.overwritten_own_ops(first, last, head)
    return [op for op in ctx.ledger.own_ops(first, last) if op.op_id not in dropped]


def delete_superseded(ctx: SyncContext, report: SyncReport) -> None:
    """Delete own segments a merged one covers, once every known device has them."""
    rows = ctx.ledger.own_segments()
    current = {id(r) for r in live(rows)}
    superseded = [r for r in rows if id(r) not in current]
    if not superseded:
        return
    me = ctx.device
    forgotten = ctx.ledger.forgotten()
    acks = [
        peer.manifest.ack.get(me, 0) if peer.manifest else 0
        for peer in ctx.ledger.peers()
        if peer.device != me and peer.device not in forgotten
    ]
    floor = min(acks, default=None)
    for row in superseded:
        if floor is not None and row.name.last > floor:
            continue
        ctx.check_cancel()
        ctx.remote.delete(f"{segment_dir(me)}/{row.name.name}")
        ctx.ledger.forget_segment(me, row.name.name)
        report.deleted_segments += 1
