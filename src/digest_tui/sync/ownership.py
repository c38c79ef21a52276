"""This device's own directory, as written by someone else: two writers for one device.

Only this device writes `segments/<its id>/`, but nothing on a folder or WebDAV server stops
another writer (a copied library, a confused tool, a hostile peer) from putting a segment there
that claims this device's counters. Other devices cannot tell such a file from a genuine one;
this device can, because it holds its own ops. When a peer acknowledges more of this device's
ops than it ever announced, or on `--full` / `--reclaim`, it reads the files in its directory
that it did not write:

- ops it does not have (counters it never used) are adopted: applied here like any peer's, so
  every device derives the same state, and its own next ops are numbered after them;
- ops that differ from its own under the same id are contested: its manifest then vouches for
  its own version (`vouch`: op id -> digest), and every device puts that version in place of
  the other (exchange.py).

Nothing is deleted: the other writer's file stays, and a device reading it ignores the ops its
owner disowns.
"""

from __future__ import annotations

from digest_tui.state.log import apply_ops
from digest_tui.store.db import transaction
from digest_tui.sync.exchange import Receiver
from digest_tui.sync.report import Skipped, SyncReport, plural
from digest_tui.sync.segments import SegmentName, op_digest, segment_dir


def others_claim_our_ops(receiver: Receiver, announced_head: int) -> bool:
    """Whether a peer acknowledges more of this device's ops than it ever announced."""
    me = receiver.ctx.device
    return any(
        peer.manifest is not None and peer.manifest.ack.get(me, 0) > announced_head
        for peer in receiver.ctx.ledger.peers()
    )


def reconcile_own_directory(receiver: Receiver, report: SyncReport) -> None:
    """Read the files in this device's directory that it did not write (see module doc)."""
    ctx = receiver.ctx
    ledger, me = ctx.ledger, ctx.device
    directory = segment_dir(me)
    known = ledger.segment_names(me)
    vouch: dict[str, str] = {}
    adopted = 0
    for entry in ctx.remote.list(directory) or []:
        parsed = None if entry.is_dir else SegmentName.parse(entry.name)
        if parsed is None or entry.name in known:
            continue
        ctx.check_cancel()
        fetched = receiver.fetch(me, entry, report)
        if fetched is None:
            continue
        ops, size = fetched
        path = f"{directory}/{entry.name}"
        held = receiver.future(ops)
        if held:
            report.skipped.append(Skipped(path, "future", "ops stamped too far ahead; held back"))
        stored = ledger.stored_ops([op.op_id for op in ops])
        contested = {
            op.op_id: op_digest(stored[op.op_id])
            for op in ops
            if op.op_id in stored and op_digest(stored[op.op_id]) != op_digest(op)
        }
        new = [op for op in ops if op.op_id not in stored and op not in held]
        with transaction(ledger.conn):
            if new:
                apply_ops(ledger.conn, new, wall=ctx.wall)
            if not contested and not held:
                # Every op of it is now this device's own: it counts as one of its segments.
                ledger.record_segment(me, parsed, len(ops), size)
        adopted += len(new)
        if contested:
            vouch.update(contested)
            report.skipped.append(
                Skipped(
                    path,
                    "impersonation",
                    f"this device did not write this file: {len(contested)} of its ops differ "
                    "from this device's own under the same ids. This device's manifest now "
                    "vouches for its own versions, and every device uses those",
                )
            )
    if adopted:
        report.notes.append(
            f"adopted {adopted} op{plural(adopted)} that another writer put under this "
            "device's name (so every device has the same state); this device's next ops are "
            "numbered after them"
        )
    if vouch:
        ledger.add_vouches(vouch)
