"""Snapshot tests of the main screen (pytest-textual-snapshot).

Regenerate after an intended visual change with `pytest tests/ui --snapshot-update` and review
the SVGs in tests/ui/__snapshots__ before committing them.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.pilot import offline_app
from tests.ui.settle import settle

SIZE = (140, 40)


async def _ready(pilot) -> None:
    # Six rounds: the similarity index is built after the first paint, then the shown
    # paper's Similar section, weights & data and readiness load in their own worker.
    await settle(pilot, rounds=6)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_main_screen(home: Path, snap_compare):
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=_ready)


def test_main_screen_after_search(home: Path, snap_compare):
    async def search(pilot) -> None:
        await _ready(pilot)
        await pilot.press("slash", *"expert parallel")
        await _ready(pilot)

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=search)


def test_help_screen(home: Path, snap_compare):
    async def help_screen(pilot) -> None:
        await _ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=help_screen)


def test_main_screen_narrow_80x24(home: Path, snap_compare):
    """Narrow: the list alone, full width, titles readable."""
    assert snap_compare(offline_app(), terminal_size=(80, 24), run_before=_ready)


def test_main_screen_medium_100x30(home: Path, snap_compare):
    """Medium: a 22-column tree, the list two thirds of the rest, the panel one third."""
    assert snap_compare(offline_app(), terminal_size=(100, 30), run_before=_ready)


def test_paper_screen_80x24(home: Path, snap_compare):
    async def open_paper(pilot) -> None:
        await _ready(pilot)
        await pilot.press("enter")
        await _ready(pilot)

    assert snap_compare(offline_app(), terminal_size=(80, 24), run_before=open_paper)
