"""The main screen at the terminal sizes readers have: which panes show, how wide the list is,
how much of a title is visible, and the full-screen paper (Enter / Esc) at every size."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Markdown, Static

from digest_tui.tui.app import DigestApp
from digest_tui.tui.layout import layout_for_width
from digest_tui.tui.screens.paper_screen import PaperScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import DATE_COLUMN_FROM, PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.support.pilot import notices, offline_app
from tests.ui.settle import settle


def visible_title_chars(app: DigestApp) -> int:
    """How many characters of the cursor row's title the list really draws."""
    papers = app.main_screen.query_one(PaperList)
    row = papers.current
    assert row is not None
    line = papers.render_line(papers.cursor - int(papers.scroll_offset.y)).text
    # The title starts after the marks, date and votes; find its first characters there.
    start = line.index(row.title[:8])
    return len(line[start:].rstrip())


def drawn_text(widget: Widget) -> str:
    """The text a widget draws, every line of it (also those scrolled out of view)."""
    size = widget.size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, *size)))


def test_breakpoints() -> None:
    assert [layout_for_width(w) for w in (80, 99, 100, 139, 140, 200)] == [
        "narrow",
        "narrow",
        "medium",
        "medium",
        "wide",
        "wide",
    ]


@pytest.mark.parametrize(
    ("size", "nav_shown", "panel_shown", "min_list", "min_title"),
    [
        ((80, 24), False, False, 78, 40),
        ((100, 30), True, False, 74, 40),  # the panel on demand: see test_layout_polish
        ((160, 48), True, True, 60, 35),
    ],
)
async def test_panes_and_list_width_per_size(
    home: Path, size, nav_shown, panel_shown, min_list, min_title
) -> None:
    app = offline_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        nav, panel = app.query_one(NavTree), app.query_one(PaperPanel)
        papers = app.query_one(PaperList)
        assert nav.display is nav_shown and (nav.region.width > 0) is nav_shown
        assert panel.display is panel_shown and (panel.region.width > 0) is panel_shown
        assert papers.region.width >= min_list, papers.region
        assert visible_title_chars(app) >= min_title
        if size[0] < 100:
            assert papers.region.width == size[0]
        # The date column stays where the list has room for it, and gives way where not.
        dated = [row.published for row in papers.rows[:20] if row.published]
        drawn = "\n".join(papers.render_line(y).text for y in range(20))
        assert dated and (dated[0] in drawn) is (papers.region.width >= DATE_COLUMN_FROM)


async def test_resize_moves_between_layouts_and_keeps_the_list_focused(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.query_one(NavTree).focus()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.layout_name == "narrow"
        assert not app.query_one(NavTree).display
        assert isinstance(app.focused, PaperList)  # a hidden tree cannot keep the keys
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert app.layout_name == "medium"
        assert app.query_one(NavTree).region.width == 26
        assert app.query_one(PaperList).region.width >= 50


async def test_the_tree_at_100_columns_shows_every_name_and_count_whole(home: Path) -> None:
    """At 100x30 the tree was 22 columns: "Training parallelis" and "New since last visit"
    lost their counts (a cut count reads as a wrong one)."""
    from tests.support.pilot import tree_nodes

    app = offline_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        room = tree.scrollable_content_region.width
        for node in tree_nodes(tree):
            depth = 0 if node.parent is tree.root else 2  # a group's items sit under a guide
            assert depth + len(str(node.label)) <= room, (str(node.label), room)
        assert app.query_one(PaperList).region.width >= 50


async def test_backslash_shows_the_tree_over_the_list_at_narrow_widths(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        nav = app.query_one(NavTree)
        assert not nav.display
        await pilot.press("backslash")
        await pilot.pause()
        assert nav.display and nav.region.width > 0
        assert app.focused is nav
        # Over the list, not beside it: the list keeps the whole width underneath.
        assert app.query_one(PaperList).region.width == 80
        await pilot.press("escape")
        await pilot.pause()
        assert not nav.display
        assert isinstance(app.focused, PaperList)
        # Enter on a node picks it and gives the list back.
        await pilot.press("backslash", "down", "enter")
        await settle(pilot)
        assert not nav.display and isinstance(app.focused, PaperList)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)])
async def test_enter_opens_the_paper_full_screen_and_escape_returns(home: Path, size) -> None:
    app = offline_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        await settle(pilot)
        papers = app.query_one(PaperList)
        cursor, row = papers.cursor, papers.current
        assert cursor == 3 and row is not None
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PaperScreen)
        assert screen.paper.id == row.id
        body = drawn_text(screen.query_one("#paper-full", Static))
        assert row.title[:40] in body and "Topics" in body and "Abstract" in body
        assert screen.query_one("#paper-full").region.width >= size[0] - 6
        # The list's keys are not offered here: `/` opens no hidden search box under it.
        await pilot.press("slash", "x")
        await pilot.pause()
        assert app.screen is screen
        assert not app.main_screen.query_one("#search").display
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PaperScreen)
        assert app.query_one(PaperList).cursor == cursor
        assert app.query_one(PaperList).current == row


async def test_the_note_is_markdown_and_never_rich_markup(home: Path) -> None:
    app = offline_app()
    note = "# Plan\n\n- try **this** [bold red]not markup[/] [link=x]y[/link]\n"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        row = app.query_one(PaperList).current
        assert row is not None
        # As the note editor saves it: from a thread, never the UI's.
        await asyncio.to_thread(app.service.save_note, row.id, note, ())
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PaperScreen)
        markdown = screen.query_one("#paper-note", Markdown)
        assert markdown.display
        shown = "\n".join(drawn_text(block) for block in markdown.query("MarkdownBlock"))
        assert "Plan" in shown and "# Plan" not in shown  # a heading, as Markdown
        assert "[bold red]not markup[/]" in shown  # Rich markup stays literal text
        assert "[link=x]y[/link]" in shown
        # `b` on the full-screen view bookmarks the paper shown, and the view follows.
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, PaperScreen) and app.screen.paper.bookmarked


def test_the_full_screen_paper_loads_markdown_only_when_opened() -> None:
    """Markdown (markdown-it) is not on the start-up path: importing the app leaves it out."""
    code = "import sys, digest_tui.tui.app; print('markdown_it' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_a_link_in_the_note_goes_through_the_http_only_opener(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        row = app.query_one(PaperList).current
        assert row is not None
        note = "see [this](file:///etc/passwd)"
        await asyncio.to_thread(app.service.save_note, row.id, note, ())
        await pilot.press("enter")
        await settle(pilot)
        markdown = app.screen.query_one("#paper-note", Markdown)
        markdown.post_message(Markdown.LinkClicked(markdown, "file:///etc/passwd"))
        await settle(pilot)
        assert any(text.startswith("Refused to open 'file:///etc/passwd'") for text in notices(app))


async def test_resizing_under_the_full_screen_paper(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PaperScreen)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, PaperScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.layout_name == "narrow"
        assert app.query_one(PaperList).region.width == 80
        assert not app.query_one(NavTree).display
