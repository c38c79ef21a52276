"""When the side panel loads the paper under the list's cursor: at once, or once keys pause.

Loading a paper for the panel (its details, similar papers, weights and data, code health) runs
a few queries in worker threads. Done on every keystroke of a search, those workers held the GIL
while the UI thread composed the next key's list: they were most of a key's CPU. So the panel
follows the cursor at once for a move on its own (an arrow key pressed alone, a click, Escape),
and only after `PANEL_SETTLE_S` without a new highlight while keys come in a burst (typing in
the search box, an arrow key held down). Whichever paper is under the cursor when the pause ends
is the one loaded: never an earlier one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# Short enough to read as "at once" when typing pauses; longer than the gap between the keys of
# a word typed at speed (~60-120 ms) or a held key's repeat (~30 ms), so a burst loads once.
PANEL_SETTLE_S = 0.15


class PanelPace:
    """Decides, per highlight, whether the panel loads now or after the pause."""

    def __init__(
        self,
        settle_s: float = PANEL_SETTLE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settle_s = settle_s
        self._clock = clock
        self._last: float | None = None

    def at_once(self, *, typing: bool) -> bool:
        """Whether the highlight just seen should load the panel now: not while typing a
        search, and not when the previous highlight came less than `settle_s` ago."""
        now = self._clock()
        last, self._last = self._last, now
        if typing:
            return False
        return last is None or now - last >= self.settle_s
