"""Pilot tests of the reading workflow: bookmark, read, tags, note, lists, sort, failures."""

from __future__ import annotations

import sqlite3

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.screens.editors import NoteScreen, TagScreen, parse_tag_input
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.support.pilot import find_node, labels, notices
from tests.ui.settle import settle


async def test_bookmark_and_read_update_panel_marks_and_tree_counts(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        first = papers.current.id
        await pilot.press("b")
        await settle(pilot)
        assert app.query_one(PaperPanel).paper.bookmarked is True
        assert labels(app.query_one(NavTree))["Bookmarks"] == "Bookmarks 1"
        assert papers.rows[papers.cursor].id == first and papers.rows[papers.cursor].bookmarked
        assert "★" in papers.render_line(papers.cursor - int(papers.scroll_offset.y)).text
        await pilot.press("r")
        await settle(pilot)
        assert app.query_one(PaperPanel).paper.read is True
        assert labels(app.query_one(NavTree))["Unread"] == "Unread 151"
        # Both survive a restart: they were committed when the key was pressed.
    app2 = DigestApp(AppContext())
    async with app2.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app2.query_one(NavTree)
        tree.move_cursor(find_node(tree, "bookmarks", None))
        await settle(pilot)
        rows = app2.query_one(PaperList).rows
        assert [r.id for r in rows] == [first] and rows[0].read


async def test_tag_editor_adds_and_removes_with_completion(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)  # the editor opens once a worker read what it offers
        assert isinstance(app.screen, TagScreen)
        await pilot.press(*"todo, moe-reading", "enter")
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        assert panel.paper.tags == ("moe-reading", "todo")
        tree_labels = labels(app.query_one(NavTree))
        assert tree_labels["todo"] == "todo 1" and tree_labels["moe-reading"] == "moe-reading 1"
        # Completion from existing tags: "to" + right arrow accepts "todo".
        await pilot.press("j", "t")
        await settle(pilot)  # the editor opens once a worker read what it offers
        await pilot.press(*"to", "right", "enter")
        await settle(pilot)
        assert panel.paper.tags == ("todo",)
        assert labels(app.query_one(NavTree))["todo"] == "todo 2"
        await pilot.press("t")
        await settle(pilot)  # the editor opens once a worker read what it offers
        await pilot.press(*"-todo", "enter")
        await settle(pilot)
        assert panel.paper.tags == ()
        # The tag filter in the search box.
        await pilot.press("slash", *"tag:todo")
        await settle(pilot)
        assert len(app.query_one(PaperList).rows) == 1


def test_parse_tag_input():
    edit = parse_tag_input("todo, moe  -old - ,x")
    assert edit.add == ["todo", "moe", "x"] and edit.remove == ["old"]


async def test_note_editor_saves_and_note_is_searchable(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)  # the editor opens once a worker read what it offers
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"compare with zebrafish kernels")
        await pilot.press("ctrl+s")
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        assert panel.paper.note == "compare with zebrafish kernels"
        noted = panel.paper.id
        await pilot.press("slash", *"zebrafish")
        await settle(pilot)
        assert [r.id for r in app.query_one(PaperList).rows] == [noted]


async def test_reading_list_add_reorder_remove(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        ids = [papers.rows[0].id, papers.rows[1].id]
        for _ in ids:
            await pilot.press("l")
            await settle(pilot)  # the editor opens once a worker read what it offers
            await pilot.press(*"week one", "enter")
            await settle(pilot)
            await pilot.press("j")
            await settle(pilot)
        tree = app.query_one(NavTree)
        assert labels(tree)["week one"] == "week one 2"
        tree.move_cursor(find_node(tree, "list", "week one"))
        await settle(pilot)
        assert [r.id for r in papers.rows] == ids
        papers.focus()
        await pilot.pause()
        assert papers.has_focus
        await pilot.press("j", "K")
        await settle(pilot)
        assert [r.id for r in papers.rows] == ids[::-1]
        await pilot.press("x")
        await settle(pilot)
        assert len(papers.rows) == 1
        assert labels(app.query_one(NavTree))["week one"] == "week one 1"


async def test_sort_cycles_and_orders_by_upvotes(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "s")
        await settle(pilot)
        assert app.sort == "upvotes"
        votes = [r.upvotes or 0 for r in app.query_one(PaperList).rows]
        assert votes == sorted(votes, reverse=True) and votes[0] > 0


async def test_a_failed_save_is_shown_not_swallowed(home, monkeypatch):
    from digest_tui.state.user_state import UserState

    def broken(self, ident, on=True):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(UserState, "bookmark", broken)
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        messages = notices(app)
        assert any("Not saved: database or disk is full" in m for m in messages)
        assert app.query_one(PaperPanel).paper.bookmarked is False
