"""The footer (tui/widgets/key_bar.py): the focused pane's keys on one line, redrawn when focus
moves, and a click on a key presses it."""

from __future__ import annotations

from pathlib import Path

from digest_tui.tui.widgets.key_bar import KeyBar
from tests.support.pilot import offline_app
from tests.ui.settle import settle

SIZE = (160, 40)


async def test_the_bar_follows_focus_and_a_click_presses_the_key(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.main_screen.query_one(KeyBar)
        shown = {description: key for key, description, _ in bar.shown_keys()}
        assert shown["Quit"] == "q" and shown["Search"] == "/" and shown["Help"] == "?"
        assert bar.shown_keys()[-1][1] == "palette"  # the command palette's key, last
        line = bar.render().plain
        assert " / Search " in line and line.rstrip().endswith("palette")

        # Focus in the search box: typed letters are text, so the letter keys leave the bar.
        await pilot.press("slash")
        await pilot.pause()
        assert "Search" not in {description for _, description, _ in bar.shown_keys()}
        await pilot.press("escape")
        await pilot.pause()
        assert "Search" in {description for _, description, _ in bar.shown_keys()}

        # A click on "? Help" opens the help screen, as pressing `?` does.
        line = bar.render().plain
        column = line.index(" ? Help") + 1
        await pilot.click(KeyBar, offset=(column, 0))
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
