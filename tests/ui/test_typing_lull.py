"""A word typed the moment the list appears is searched before the start-up goes on
(tui/typing_lull.py), in the real app (Pilot).

The lull's clock is one the test moves: while it stands still, keys "keep coming" and the
start-up's next steps (the tree's counts, the footer) wait; moving it is the reader's pause.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from digest_tui.tui.library_service import Selection
from digest_tui.tui.typing_lull import TypingLull
from digest_tui.tui.widgets.paper_list import PaperList
from tests.support.pilot import offline_app
from tests.ui.settle import settle

SIZE = (140, 40)
WORD = "memory"


class ManualClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _first_frame(app: Any, pilot: Any) -> None:
    """Until the list's first frame is painted (the lull's first "key")."""
    for _ in range(2000):
        if app._first_paint.is_set():
            return
        await pilot.pause(0.01)
    raise AssertionError("the list was never painted")


async def test_a_word_typed_at_the_first_frame_is_searched_before_the_start_up_goes_on(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = offline_app()
    clock = ManualClock()
    # A short settle time in real seconds (how often the waits look again), a limit that
    # cannot pass: only the test's clock ends the wait.
    app._lull = TypingLull(settle_s=0.02, limit_s=3600.0, clock=clock)
    calls: list[str] = []
    service: Any = app.service
    for name in ("tree_data", "list_windows", "list_window", "startup"):
        original = getattr(service, name)

        def recorded(*args: Any, _original: Any = original, _name: str = name, **kw: Any) -> Any:
            search = args[1] if len(args) > 1 else ""
            calls.append(f"{_name}({search})" if _name.startswith("list") else _name)
            return _original(*args, **kw)

        monkeypatch.setattr(service, name, recorded)
    async with app.run_test(size=SIZE) as pilot:
        await _first_frame(app, pilot)
        await pilot.press("slash", *WORD)
        await settle(pilot, groups={"rows", "paper-list-rows"})
        papers = app.query_one(PaperList)
        # (Off the UI thread, as the app's own calls: the service refuses library calls there.)
        expected = await asyncio.to_thread(service.rows, Selection(), WORD)
        everything = await asyncio.to_thread(service.rows, Selection())
        # The word's list is on screen while the start-up waits for the reader's pause.
        assert 0 < papers.count == len(expected) < len(everything)
        shown = [papers.row_at(i) for i in range(papers.count)]
        assert [row.id if row else None for row in shown] == [row.id for row in expected]
        assert not app.ready
        assert "tree_data" not in calls and "startup" not in calls
        assert not app.main_screen.query("KeyBar")  # its layout pass waits too
        assert f"list_windows({WORD})" in calls

        clock.now += 1.0  # the reader pauses
        await settle(pilot)
        assert app.ready
        assert calls.index(f"list_windows({WORD})") < calls.index("startup")
        assert "tree_data" in calls
        assert len(app.main_screen.query("KeyBar")) == 1
        assert app.query_one("#search").has_focus  # nothing took the keys away


async def test_without_keys_the_start_up_goes_on_after_the_first_frame(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(settle(pilot), timeout=60)
        assert app.ready
        assert len(app.main_screen.query("KeyBar")) == 1


async def test_only_typing_holds_the_start_up_not_navigation_keys(home: Path) -> None:
    # A reader who moves through the list wants the tree and the footer at once; one who types
    # a word wants the search first (app.on_event notes only `/` and keys into a text box).
    app = offline_app()
    clock = ManualClock()
    app._lull = TypingLull(settle_s=0.02, limit_s=3600.0, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await _first_frame(app, pilot)
        assert app._lull.quiet_for() == 0.0  # the first frame counts as a key
        clock.now += 1.0
        await pilot.press("down", "j", "k", "up")
        assert app._lull.quiet_for() == 1.0  # navigation: not noted
        await pilot.press("slash")
        assert app._lull.quiet_for() == 0.0
        clock.now += 1.0
        assert app.query_one("#search").has_focus
        await pilot.press("m")
        assert app._lull.quiet_for() == 0.0  # a key into the search box
        clock.now += 1.0
        await settle(pilot)
        assert app.ready
