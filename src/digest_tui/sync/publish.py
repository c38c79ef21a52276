"""This device's side of a sync: upload its ops, write its manifest, guard and repair its files.

Only this device writes its own files (`device-<id>.json` and `segments/<id>/`), so here is
also where a remote that changed them behind its back is noticed: another machine syncing as
this device (a copied library), or own segments lost or damaged (`--full`).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Sequence

from digest_tui import __version__
from digest_tui.errors import RemoteError, RemoteNotFound, RemoteTooLarge, SegmentError, SyncError
from digest_tui.sync.context import SyncContext
from digest_tui.sync.remote import Entry, age_seconds
from digest_tui.sync.report import SyncReport, now_iso, plural
from digest_tui.sync.segments import (
    MAX_MANIFEST_BYTES,
    Manifest,
    encode_segment,
    manifest_name,
    segment_dir,
)

STALE_TEMP_SECONDS = 3600  # own temporary files older than this are left-overs of a crash


class Publisher:
    def __init__(self, ctx: SyncContext, *, segment_ops: int, label: str | None = None) -> None:
        self.ctx = ctx
        self.segment_ops = segment_ops
        self._label = label
        self.rewrite_manifest = False  # the remote copy is damaged: write it even if unchanged

    @property
    def label(self) -> str:
        return self.ctx.ledger.label(self._label)

    def upload(self, report: SyncReport) -> None:
        ctx, ledger = self.ctx, self.ctx.ledger
        pending = ledger.unsent()
        if not pending:
            return
        first = min(op.counter for op in pending)
        last = max(op.counter for op in pending)
        # Every op of the range, in case some of it was marked synced out of order: a segment
        # claims the whole range [first, last].
        ops = ledger.own_ops(first, last)
        pending_ids = {op.op_id for op in pending}
        ctx.progress(f"uploading {len(pending)} op{plural(len(pending))}")
        directory = segment_dir(ctx.device)
        if not ledger.own_segments():
            ctx.remote.ensure_dir(directory)
        for start in range(0, len(ops), self.segment_ops):
            ctx.check_cancel()
            chunk = ops[start : start + self.segment_ops]
            segment = encode_segment(ctx.device, chunk, chunk[0].counter, chunk[-1].counter)
            path = f"{directory}/{segment.name.name}"
            try:
                ctx.remote.write(path, segment.data)
            except RemoteError:
                # The directory may have gone (a wiped remote that was re-initialised).
                ctx.remote.ensure_dir(directory)
                ctx.remote.write(path, segment.data)
            ledger.record_upload(segment.name, chunk, len(segment.data))
            report.sent_segments += 1
            report.sent_ops += sum(1 for op in chunk if op.op_id in pending_ids)

    def write_manifest(self, report: SyncReport, written: Manifest | None, *, force: bool) -> None:
        ctx, ledger = self.ctx, self.ctx.ledger
        me = ctx.device
        ack = dict(ledger.coverage_all())
        head = max((r.name.last for r in ledger.own_segments()), default=0)
        ack.pop(me, None)
        manifest = Manifest(
            device=me,
            label=self.label,
            head=head,
            ack=ack,
            forgotten=ledger.own_forgotten(),
            updated_at=now_iso(),
            app=f"digest-tui {__version__}",
            nonce=secrets.token_hex(8),
            vouch=ledger.vouches(),
        )
        if manifest.same_content(written) and not force and not self.rewrite_manifest:
            return
        self.rewrite_manifest = False
        ctx.progress("writing this device's manifest")
        data = manifest.to_bytes()
        ctx.remote.write(manifest_name(me), data)
        written_entry = ctx.remote.stat(manifest_name(me))
        ledger.record_manifest(data, written_entry.fingerprint if written_entry else "")
        report.manifest_written = True

    def check_own_manifest(self, entry: Entry, report: SyncReport, *, reclaim: bool) -> bool:
        """Refuse to go on when another machine writes as this device (a copied library).

        Returns True when this device's files on the remote must be checked and repaired: the
        remote holds an older manifest this device wrote (it was restored from an older copy),
        or the user reclaims the device (`sync --reclaim`).
        """
        ctx, ledger = self.ctx, self.ctx.ledger
        if entry.fingerprint == (ledger.manifest_fingerprint() or entry.fingerprint):
            return reclaim
        name = manifest_name(ctx.device)
        try:
            found = ctx.remote.read(name, MAX_MANIFEST_BYTES)
            Manifest.parse(found, ctx.device, name)
        except RemoteNotFound:
            return reclaim
        except (SegmentError, RemoteTooLarge):
            self.rewrite_manifest = True  # damaged (not by us): write it again
            return reclaim
        if found == ledger.written_manifest_bytes():
            ledger.set_manifest_fingerprint(entry.fingerprint)
            return reclaim
        self.rewrite_manifest = True
        if ledger.wrote_manifest(found):
            report.notes.append(
                f"{name} on the remote is an older one this device wrote: the remote was "
                "restored from an older copy. Checking this device's files there and sending "
                "again what the copy lacks"
            )
            return True
        if reclaim:
            report.notes.append(
                f"reclaimed device {ctx.device}: {name} was not written by this machine; "
                "this device's files were checked and its manifest written again"
            )
            return True
        raise SyncError(
            f"another machine is syncing as this device ({ctx.device}): {name} on the "
            "remote is not what this machine wrote. Was this library copied from another "
            "machine? Nothing was sent. Each machine needs its own library: see "
            'docs/sync.md ("A library copied to another machine"). If no other machine uses '
            "this library (the remote was restored from a backup, or the other copy is gone), "
            "run `digest-tui sync --reclaim`: it sends again whatever the remote lacks and "
            "deletes nothing."
        )

    def verify_own_files(self, report: SyncReport) -> None:
        """`--full`: own segments that are missing or have the wrong size are uploaded again;
        temporary files that crashed uploads left in this device's directory are deleted."""
        ctx = self.ctx
        me = ctx.device
        listed = {e.name: e for e in ctx.remote.list(segment_dir(me)) or []}
        for entry in listed.values():
            age = age_seconds(entry)
            if entry.name.startswith(".") and age is not None and age > STALE_TEMP_SECONDS:
                with contextlib.suppress(RemoteError):  # a crashed upload's temporary file
                    ctx.remote.delete(f"{segment_dir(me)}/{entry.name}")
        broken = [
            r
            for r in ctx.ledger.own_segments()
            if r.name.name not in listed
            or (listed[r.name.name].size is not None and listed[r.name.name].size != r.bytes)
        ]
        if not broken:
            return
        report.notes.append(
            f"{len(broken)} of this device's segments are missing or damaged on the remote: "
            "uploading them again"
        )
        ctx.ledger.resend(broken)

    def clean_temp(self, root: Sequence[Entry]) -> None:
        """Delete this device's own temporary files in the root left by a crash long ago."""
        prefix = f".{manifest_name(self.ctx.device)}.tmp-"
        for entry in root:
            age = age_seconds(entry)
            if entry.name.startswith(prefix) and age is not None and age > STALE_TEMP_SECONDS:
                with contextlib.suppress(RemoteError):
                    self.ctx.remote.delete(entry.name)
