"""Issue 10: at 100x30 the side panel was ~20 columns and wrapped every few words. In the
medium layout a panel that would be narrower than PANEL_MIN_COLUMNS is hidden until `p` shows
it (Pilot here; the real terminal in test_layout_tmux)."""

from __future__ import annotations

from pathlib import Path

import pytest

from digest_tui.config import AppContext
from digest_tui.tui.layout import (
    MEDIUM_FROM,
    PANEL_MIN_COLUMNS,
    WIDE_FROM,
    layout_for_width,
    panel_on_demand,
)
from digest_tui.tui.library_service import LibraryService
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.support.pilot import offline_app
from tests.ui.settle import settle

pytestmark = pytest.mark.timeout(180)


def test_the_panel_is_on_demand_exactly_where_it_would_be_too_narrow() -> None:
    on_demand = [w for w in range(60, 200) if panel_on_demand(w)]
    assert on_demand == list(range(MEDIUM_FROM, 108))
    assert all(layout_for_width(w) == "medium" for w in on_demand)


@pytest.mark.parametrize("width", [100, 107, 108, 120, 139, WIDE_FROM, 160])
async def test_a_shown_panel_is_never_narrower_than_its_minimum(home: Path, width: int) -> None:
    app = offline_app()
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        panel, papers = app.query_one(PaperPanel), app.query_one(PaperList)
        if panel_on_demand(width):
            assert not panel.display and panel.region.width == 0
            # The list has the panel's room: everything right of the tree.
            nav = app.query_one(NavTree)
            assert papers.region.width == width - nav.region.width
        else:
            assert panel.display and panel.region.width >= PANEL_MIN_COLUMNS, panel.region
            assert papers.region.width >= 50


async def test_p_shows_the_panel_on_demand_and_does_not_remember_it(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        panel, papers = app.query_one(PaperPanel), app.query_one(PaperList)
        assert not panel.display
        assert papers.region.width == 74  # 100 less the 26-column tree
        await pilot.press("p")
        await pilot.pause()
        assert panel.display and panel.region.width >= PANEL_MIN_COLUMNS, panel.region
        assert panel.paper is not None and papers.current is not None
        assert panel.paper.id == papers.current.id
        # The narrowed list is drawn to its new width: no sideways scrollbar left from the
        # old one (it took a row and cropped titles before their "…").
        assert not papers.show_horizontal_scrollbar
        lines = [papers.render_line(y).text for y in range(papers.size.height)]
        assert all(len(line) == papers.line_width for line in lines)
        assert papers.line_width == papers.region.width - papers.scrollbar_size_vertical
        assert any(line.rstrip().endswith("…") for line in lines)
        await pilot.press("p")
        await pilot.pause()
        assert not panel.display
        # Wider, the panel is there again as remembered (shown): `p` at 100 did not hide it.
        await pilot.resize_terminal(140, 30)
        await pilot.pause()
        assert panel.display and panel.region.width >= PANEL_MIN_COLUMNS
        await settle(pilot)
    prefs = LibraryService(AppContext()).view_prefs()
    assert prefs.panel_hidden is False
