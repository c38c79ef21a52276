"""What every step of one sync shares: the ledger, the remote, progress and cancellation."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from digest_tui.errors import SyncCancelled
from digest_tui.state.clock import system_wall_ms
from digest_tui.sync.ledger import Ledger
from digest_tui.sync.remote import Remote

# How far ahead of this machine's clock a received stamp may be. Machines days apart are
# normal (a dead CMOS battery, a wrong time zone); an op stamped further ahead is held back
# until this clock gets there, so one forged or broken stamp cannot drag every device's clock
# (and every later edit) centuries into the future.
MAX_DRIFT_MS = 30 * 86_400_000


@dataclass
class SyncContext:
    ledger: Ledger
    remote: Remote
    progress: Callable[[str], None] = lambda _message: None
    cancel: threading.Event = field(default_factory=threading.Event)
    wall: Callable[[], int] = system_wall_ms
    device: str = ""
    max_drift_ms: int = MAX_DRIFT_MS

    def __post_init__(self) -> None:
        self.device = self.device or self.ledger.device

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise SyncCancelled("sync cancelled")
