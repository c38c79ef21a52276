"""Background work that waits for a lull in the reader's keys.

After the first frame the start-up still has work to do off the UI thread (the list's whole
order, config.yaml, the sample check, the tree's counts, re-enriching papers after a data
change), and each step holds the GIL or the library's lock for tens of milliseconds. A reader
who types at once (a word typed ahead while the app opens, `/` pressed as soon as the list
shows) had each key's list wait behind those steps: in a real terminal at 50,000 papers the
word's list came 125-155 ms after the keys, against 72-97 ms once the start-up was over. So
each such step first waits here until no key has come for `settle_s`; a step already running
finishes. The first frame counts as a key (`hold`): keys sent the moment the list appears
arrive in the next few milliseconds, before the first step starts. The waits are bounded: the
start-up's steps share `limit_s` from the first frame, so a reader typing without a pause still
gets the tree's counts within it; each batch of a re-enrichment waits `limit_s` at most.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from digest_tui.tui.panel_pace import PANEL_SETTLE_S

# A reader who types for longer than this without a pause of `settle_s` gets the start-up's
# next step anyway (the tree's counts, the newest digest): it must not wait on them forever.
LULL_LIMIT_S = 2.0


class TypingLull:
    """When keys last came (told by the UI thread) and a wait for a pause in them (by workers)."""

    def __init__(
        self,
        settle_s: float = PANEL_SETTLE_S,
        limit_s: float = LULL_LIMIT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settle_s = settle_s
        self.limit_s = limit_s
        self._clock = clock
        # A float is read and written whole under the GIL: no lock needed between threads.
        self._last: float | None = None

    def key_pressed(self) -> None:
        """(UI thread.) A key came: background steps not yet started wait for a pause."""
        self._last = self._clock()

    hold = key_pressed  # the first frame: keys sent the moment it shows are on their way

    def quiet_for(self) -> float | None:
        """Seconds since the last key (None: no key yet)."""
        last = self._last
        return None if last is None else self._clock() - last

    def left(self, started: float) -> float:
        """Seconds still to wait for a pause, for a wait begun at `started` (clock time); 0
        when keys have paused for `settle_s` or the wait has lasted `limit_s`."""
        last = self._last
        now = self._clock()
        if last is None or now - last >= self.settle_s:
            return 0.0
        return max(0.0, min(self.settle_s - (now - last), started + self.limit_s - now))

    async def wait_async(self) -> None:
        """(UI thread, in an async worker.) `wait` without blocking the event loop."""
        import asyncio

        started = self._clock()
        while (left := self.left(started)) > 0:
            await asyncio.sleep(left)

    def now(self) -> float:
        """The lull's clock: pass it back as `wait(since=...)` to share one budget."""
        return self._clock()

    def wait(self, stop: threading.Event | None = None, since: float | None = None) -> float:
        """(Worker threads.) Return once no key came for `settle_s`, `limit_s` after `since`
        (default: now) at most, or at once when `stop` is set (the app is leaving); the
        seconds waited. Steps that pass the same `since` share one `limit_s` between them."""
        started = self._clock() if since is None else since
        begun = self._clock()
        while (left := self.left(started)) > 0:
            if stop is None:
                time.sleep(left)
            elif stop.wait(left):
                break
        return self._clock() - begun
