"""A reading flow like newsboat's: next/previous unread, mark all shown read with undo, a note
conflict badge, keys typed in a burst acting in order on the paper under the cursor, and
"New since last visit" right on the second launch."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console
from textual import events

from digest_tui.config import AppContext
from digest_tui.service import open_library
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel, render_paper
from tests.support.home import isolate_home
from tests.support.pilot import find_node, labels, notices
from tests.ui.settle import settle


def read_ops(home: Path) -> int:
    with sqlite3.connect(home / "data" / "library.sqlite3") as conn:
        count = conn.execute("SELECT count(*) FROM ops WHERE kind = 'read'").fetchone()[0]
    conn.close()
    return int(count)


async def test_j_then_b_in_one_burst_bookmarks_the_paper_under_the_cursor(home):
    app = DigestApp(AppContext())

    def burst(*keys: str) -> None:
        for key in keys:
            app.post_message(events.Key(key, key))

    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        first, second, third = (row.id for row in papers.rows[:3])
        # One burst, as a terminal delivers keys typed fast (or pasted over SSH): all queued
        # before the app handles the first, so the panel still shows the first paper at `b`.
        burst("j", "b", "j", "r", "b")
        await settle(pilot)
        state = {row.id: (row.bookmarked, row.read) for row in papers.rows}
        assert state[first] == (False, False)
        assert state[second] == (True, False)
        assert state[third] == (True, True)
        # `b` `b` in a burst: applied in order, so the second undoes the first.
        burst("k", "b", "b", "r", "r", "r")
        await settle(pilot)
        state = {row.id: (row.bookmarked, row.read) for row in papers.rows}
        assert state[second] == (True, True)


async def test_next_and_previous_unread_skip_read_papers_and_wrap(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        await pilot.press("j", "r", "j", "r", "g")  # rows 1 and 2 read; back to the top
        await settle(pilot)
        assert [row.read for row in papers.rows[:4]] == [False, True, True, False]
        await pilot.press("full_stop")
        assert papers.cursor == 3
        await pilot.press("comma")
        assert papers.cursor == 0
        await pilot.press("comma")  # wraps to the last paper
        assert papers.cursor == len(papers.rows) - 1
        assert "Wrapped around the list." in notices(app)
        await pilot.press("full_stop")  # and forward again, past the end to the top
        assert papers.cursor == 0


async def test_next_unread_says_when_there_is_none(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        await pilot.press("full_stop")
        assert "No more unread papers in All papers." in notices(app)


async def test_mark_all_shown_read_goes_through_state_ops_and_u_undoes_it(home: Path):
    before_ops = read_ops(home)
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        tree.move_cursor(find_node(tree, "topic", "kernels"))
        await settle(pilot)
        papers = app.query_one(PaperList)
        shown = {row.id for row in papers.rows}
        assert 0 < len(shown) < 152
        await pilot.press("A")
        await settle(pilot)
        assert all(row.read for row in papers.rows)
        assert labels(tree)["Unread"] == f"Unread {152 - len(shown)}"
        assert f"Marked {len(shown)} papers read; u undoes." in notices(app)
        # One `read` op per paper: what sync sends to the other machines.
        assert read_ops(home) == before_ops + len(shown)
        tree.move_cursor(find_node(tree, "all", None))
        await settle(pilot)
        marked = {row.id for row in app.query_one(PaperList).rows if row.read}
        assert marked == shown
        await pilot.press("u")
        await settle(pilot)
        assert not any(row.read for row in app.query_one(PaperList).rows)
        assert labels(tree)["Unread"] == "Unread 152"
        assert read_ops(home) == before_ops + 2 * len(shown)
        await pilot.press("u")
        assert "Nothing to undo." in notices(app)


async def test_a_note_conflict_shows_in_the_panel_and_the_list_row(home):
    library = open_library(AppContext())
    try:
        library.state.set_note("flashmoe", "from the laptop")
        # An edit that did not see the first: both versions stay, as after a sync.
        library.state.set_note("flashmoe", "from the desk", replaces=[])
        assert len(library.state.note("flashmoe").versions) == 2
    finally:
        library.close()
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"flashmoe", "enter")
        await settle(pilot)
        rows = list(app.query_one(PaperList).rows)  # a copy: `rows` is a live view
        assert [row.note_conflict for row in rows] == [True]
        panel = app.query_one(PaperPanel)
        assert panel.paper.title.startswith("FlashMoE")
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(render_paper(panel.paper))
        text = console.export_text()
        assert "⚠ note conflict: 2 versions (n to resolve)" in text
        # Every other paper: no mark.
        await pilot.press("escape")
        await settle(pilot)
        others = [row for row in app.query_one(PaperList).rows if row.id != rows[0].id]
        assert others and not any(row.note_conflict for row in others)


@pytest.mark.timeout(300)
async def test_new_since_last_visit_counts_right_on_the_second_launch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # A real first launch: the sample is loaded in the same second the visit begins.
    isolate_home(tmp_path / "fresh", monkeypatch)
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        assert labels(app.query_one(NavTree))["New since last visit"] == (
            "New since last visit 152"
        )
    app2 = DigestApp(AppContext())
    async with app2.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        tree = app2.query_one(NavTree)
        assert labels(tree)["New since last visit"] == "New since last visit 0"
        tree.move_cursor(find_node(tree, "new", None))
        await settle(pilot)
        assert list(app2.query_one(PaperList).rows) == []


async def test_next_unread_moves_on_to_the_next_view_with_unread_papers(home):
    """Newsboat's way: when the view has no unread paper left, `.` goes to the next node of
    the tree that has some (skipping those without), says so, and lands on an unread paper;
    `,` goes back the other way."""
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        papers = app.query_one(PaperList)
        views = [v for v in tree.views() if v.kind == "topic"]
        first, second, third = views[:3]
        # The second topic is read through: `.` from the first goes past it to the third.
        for topic in (second, first):
            tree.move_cursor(find_node(tree, "topic", topic.value))
            await settle(pilot)
            await pilot.press("A")
            await settle(pilot)
        assert app.selection.key == first.key and not any(not r.read for r in papers.rows)
        await pilot.press("full_stop")
        await settle(pilot)
        third_unread = [r for r in papers.rows if not r.read]
        assert app.selection.key == third.key
        assert tree.cursor_node.data.key == third.key
        assert papers.current is not None and not papers.current.read
        assert papers.current.id == third_unread[0].id
        said = f"No more unread papers in {first.label}: went to {third.label} "
        assert any(n.startswith(said) for n in notices(app)), notices(app)
        assert f"({len(third_unread)} unread)" in notices(app)[-1]
        # `,` with the third read through goes back past the second and the first (both read)
        # to a view before them (wrapping), landing on its last unread paper.
        await pilot.press("A")
        await settle(pilot)
        await pilot.press("comma")
        await settle(pilot)
        assert app.selection.key not in (first.key, second.key, third.key)
        assert app.selection.kind not in ("all", "unread")
        assert papers.current is not None and not papers.current.read
        assert papers.current.id == [r for r in papers.rows if not r.read][-1].id


async def test_next_unread_with_nothing_unread_anywhere_says_so(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("A")  # "All papers": every paper read
        await settle(pilot)
        tree = app.query_one(NavTree)
        topic = next(v for v in tree.views() if v.kind == "topic")
        tree.move_cursor(find_node(tree, "topic", topic.value))
        await settle(pilot)
        await pilot.press("full_stop")
        await settle(pilot)
        assert app.selection.key == topic.key
        assert notices(app)[-1] == f"No more unread papers in {topic.label} or any other view."
