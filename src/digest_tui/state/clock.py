"""A Hybrid Logical Clock (Kulkarni et al., 2014) for stamping user-state operations.

A stamp is (wall-clock milliseconds, counter, device id). It stays close to real time, yet it
never goes backwards and always moves past every stamp the device has seen, so an edit made
after seeing another edit gets a larger stamp even when the two machines' clocks disagree by
days. Comparing stamps therefore orders causally related edits correctly; concurrent edits are
ordered arbitrarily but identically on every machine (the device id breaks ties).

Stamps are encoded as fixed-width text that sorts like the tuple, so SQLite can order and
compare them as plain strings: ``0001736937600000-000000-3fa9c1d2e4b5a6f7``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from digest_tui.errors import ClockError

# 16 decimal digits of milliseconds last beyond the year 300,000; 6 digits of counter allow a
# million events inside one millisecond (a bulk tag of 100,000 papers) before spilling over.
_WALL_DIGITS = 16
_COUNTER_DIGITS = 6
MAX_WALL_MS = 10**_WALL_DIGITS - 1
MAX_COUNTER = 10**_COUNTER_DIGITS - 1

DEVICE_ID = re.compile(r"^[A-Za-z0-9_]{1,64}$")
_STAMP = re.compile(rf"^(\d{{{_WALL_DIGITS}}})-(\d{{{_COUNTER_DIGITS}}})-([A-Za-z0-9_]{{1,64}})$")


def system_wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, order=True)
class Stamp:
    wall_ms: int
    counter: int
    device: str

    def encode(self) -> str:
        return f"{self.wall_ms:0{_WALL_DIGITS}d}-{self.counter:0{_COUNTER_DIGITS}d}-{self.device}"

    def __str__(self) -> str:
        return self.encode()

    @classmethod
    def decode(cls, text: str) -> Stamp:
        match = _STAMP.match(text) if isinstance(text, str) else None
        if match is None:
            raise ClockError(f"not a clock stamp: {text!r}")
        return cls(int(match.group(1)), int(match.group(2)), match.group(3))


def check_device_id(device: str) -> str:
    if not isinstance(device, str) or not DEVICE_ID.match(device):
        raise ClockError(f"not a device id (1-64 of A-Z a-z 0-9 _): {device!r}")
    return device


class HybridClock:
    """One device's clock. Not thread-safe: callers serialise (the store does, in a transaction).

    `wall` returns the physical time in milliseconds; tests inject a skewed or frozen one.
    `max_drift_ms`, when set, makes `receive` refuse a remote stamp that far ahead of this
    machine's physical time (a guard against a corrupt stamp dragging every later stamp into
    the far future). The default accepts any drift, so days of skew are handled, not refused.
    """

    def __init__(
        self,
        device: str,
        *,
        wall: Callable[[], int] = system_wall_ms,
        last: tuple[int, int] = (0, 0),
        max_drift_ms: int | None = None,
    ) -> None:
        self.device = check_device_id(device)
        self._wall = wall
        self.wall_ms, self.counter = last
        self.max_drift_ms = max_drift_ms

    @property
    def state(self) -> tuple[int, int]:
        """(logical wall ms, counter) to persist; pass back as `last` to resume."""
        return self.wall_ms, self.counter

    def now(self) -> Stamp:
        """A stamp for a local event, greater than every stamp issued or received so far."""
        physical = self._wall()
        if physical > self.wall_ms:
            self.wall_ms, self.counter = physical, 0
        else:
            self._advance_counter(self.counter + 1)
        return Stamp(self.wall_ms, self.counter, self.device)

    def receive(self, remote: Stamp | str) -> Stamp:
        """Merge a stamp from another device; return the stamp of this receive event.

        Afterwards every `now()` is greater than `remote`, whatever the wall clocks say.
        """
        if isinstance(remote, str):
            remote = Stamp.decode(remote)
        physical = self._wall()
        if self.max_drift_ms is not None and remote.wall_ms - physical > self.max_drift_ms:
            raise ClockError(
                f"stamp {remote} from device {remote.device} is "
                f"{(remote.wall_ms - physical) / 86_400_000:.1f} days ahead of this clock"
            )
        top = max(self.wall_ms, remote.wall_ms, physical)
        if top == self.wall_ms and top == remote.wall_ms:
            counter = max(self.counter, remote.counter) + 1
        elif top == self.wall_ms:
            counter = self.counter + 1
        elif top == remote.wall_ms:
            counter = remote.counter + 1
        else:
            counter = 0
        self.wall_ms = top
        self._advance_counter(counter)
        return Stamp(self.wall_ms, self.counter, self.device)

    def _advance_counter(self, counter: int) -> None:
        # Counter overflow borrows one millisecond: still monotonic, still fixed width.
        if counter > MAX_COUNTER:
            self.wall_ms += 1
            counter = 0
        if self.wall_ms > MAX_WALL_MS:
            raise ClockError("clock ran past the largest encodable time")
        self.counter = counter
