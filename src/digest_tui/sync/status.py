"""What this machine knows about sync without touching the network: `sync status`, and
retiring a device (`sync forget`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from digest_tui.errors import SyncError
from digest_tui.sync.ledger import Ledger, configured_remote
from digest_tui.sync.report import PeerStatus, SyncStatus

if TYPE_CHECKING:
    from digest_tui.store.library import Library


def local_status(library: Library, *, label: str | None = None) -> SyncStatus:
    ledger = Ledger(library.conn)
    me = ledger.device
    remote = configured_remote(library.conn)
    if remote is not None and "://" in remote:
        from digest_tui.sync.remote import redact

        remote = redact(remote)
    own = ledger.own_segments()
    forgotten = ledger.forgotten()
    coverage = ledger.coverage_all()
    peers = [
        PeerStatus(
            device=peer.device,
            label=peer.manifest.label if peer.manifest else "",
            updated_at=peer.manifest.updated_at if peer.manifest else "",
            seen_at=peer.seen_at,
            head=peer.manifest.head if peer.manifest else 0,
            have=coverage.get(peer.device, 0),
            acked_ours=peer.manifest.ack.get(me, 0) if peer.manifest else 0,
            forgotten=peer.device in forgotten,
            problem=peer.problem,
        )
        for peer in ledger.peers()
    ]
    return SyncStatus(
        remote=remote,
        device=me,
        label=ledger.label(label),
        pending_local=ledger.pending_local(),
        pending_papers=ledger.pending_papers(),
        uploaded_head=max((r.name.last for r in own), default=0),
        own_segments=len(own),
        last_sync=ledger.last(),
        peers=peers,
    )


def forget_device(library: Library, device: str) -> None:
    """Stop waiting for `device` to acknowledge segments (it is gone for good).

    Recorded in this device's manifest at the next sync, so every device stops waiting; the
    device's files stay (they are its own), and if it ever syncs again it converges.
    """
    ledger = Ledger(library.conn)
    if device == ledger.device:
        raise SyncError("a device cannot forget itself")
    ledger.forget(device)
