"""Navigation that stays put: the tree and list cursors survive every action, the view (node,
sort, panel) is remembered across launches, the header says the sort and the search's scope,
and filter problems show under the search box worded as the CLI words them."""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.screens.editors import ListPickScreen, NoteScreen, TagScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from digest_tui.tui.widgets.search_notes import SearchNotes
from tests.support.loopback import Recorded, serve
from tests.support.pilot import find_node
from tests.support.sample_counts import kernels_label
from tests.support.tmux import Terminal
from tests.ui.settle import settle


def header(app: DigestApp) -> str:
    return str(app.query_one("#list-title").render())


def tree_key(app: DigestApp) -> tuple[str, str | None]:
    node = app.query_one(NavTree).cursor_node
    assert node is not None and node.data is not None
    return node.data.key


async def test_tree_and_list_cursors_survive_every_action(home, monkeypatch):
    # `R` fetches from a local server with nothing new: it still reloads tree and list.
    with serve({"/api/daily_papers": Recorded(200, b"[]")}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        app = DigestApp(AppContext())
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            tree = app.query_one(NavTree)
            papers = app.query_one(PaperList)
            tree.move_cursor(find_node(tree, "topic", "moe"))
            await settle(pilot)
            await pilot.press("j", "j")
            await settle(pilot)
            chosen = papers.current.id

            async def check(after: str) -> None:
                await settle(pilot)
                assert tree_key(app) == ("topic", "moe"), after
                assert app.selection.key == ("topic", "moe"), after
                assert papers.current.id == chosen, after

            for key in ("b", "r", "b", "r"):
                await pilot.press(key)
                await check(key)
            await pilot.press("t")
            await settle(pilot)
            assert isinstance(app.screen, TagScreen)
            await pilot.press(*"todo", "enter")
            await check("t")
            await pilot.press("n")
            await settle(pilot)
            assert isinstance(app.screen, NoteScreen)
            await pilot.press(*"a note", "ctrl+s")
            await check("n")
            await pilot.press("l")
            await settle(pilot)
            assert isinstance(app.screen, ListPickScreen)
            await pilot.press(*"later", "enter")
            await check("l")
            await pilot.press("S")  # no remote: a warning, nothing moves
            await check("S")
            await pilot.press("R")
            await settle(pilot, rounds=6)
            assert hub.requests, "the fetch reached the local server"
            await check("R")
            await pilot.press("s")
            await check("s")
            app.refresh_tree()  # a background refresh (sync, fetch on start)
            await check("refresh")


async def test_x_keeps_the_list_node_and_the_cursor_moves_to_the_next_paper(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        for _ in range(3):
            await pilot.press("l")
            await settle(pilot)
            await pilot.press(*"later", "enter", "j")
            await settle(pilot)
        tree = app.query_one(NavTree)
        tree.move_cursor(find_node(tree, "list", "later"))
        await settle(pilot)
        listed = [row.id for row in papers.rows]
        assert len(listed) == 3
        await pilot.press("j", "x")
        await settle(pilot)
        assert tree_key(app) == ("list", "later")
        assert [row.id for row in papers.rows] == [listed[0], listed[2]]
        # The paper after the removed one, not the top of the list.
        assert papers.current.id == listed[2]


async def test_node_sort_and_panel_are_remembered_across_launches(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        tree.move_cursor(find_node(tree, "topic", "serving"))
        await settle(pilot)
        await pilot.press("s", "s", "p")  # date, then upvotes; the panel hidden
        await settle(pilot)
        assert "most upvoted first" in header(app)
    app2 = DigestApp(AppContext())
    async with app2.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert tree_key(app2) == ("topic", "serving")
        assert header(app2).startswith("Serving · ")
        assert "most upvoted first" in header(app2)
        assert app2.query_one(PaperPanel).has_class("hidden")
        rows = app2.query_one(PaperList).rows
        votes = [row.upvotes or 0 for row in rows]
        assert votes == sorted(votes, reverse=True) and len(set(votes)) > 1


async def test_a_remembered_node_that_is_gone_falls_back_to_all_papers(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        await pilot.press(*"gone soon", "enter")
        await settle(pilot)
        tree = app.query_one(NavTree)
        tree.move_cursor(find_node(tree, "list", "gone soon"))
        await settle(pilot)
    assert main(["list", "delete", "gone soon"]) == 0
    app2 = DigestApp(AppContext())
    async with app2.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert tree_key(app2) == ("all", None) == app2.selection.key
        assert len(app2.query_one(PaperList).rows) == 152


async def test_a_first_launch_lands_on_today_the_newest_digest_by_upvotes(home: Path):
    with sqlite3.connect(home / "data" / "library.sqlite3") as conn:
        conn.execute("DELETE FROM meta WHERE key = 'ui_prefs'")  # never opened before
        newest, date = conn.execute(
            "SELECT id, date FROM digests ORDER BY date DESC, id LIMIT 1"
        ).fetchone()
        listed = {
            r[0]
            for r in conn.execute(
                "SELECT p.id FROM papers p JOIN digest_papers dp ON dp.paper_rowid = p.rowid "
                "WHERE dp.digest_id = ?",
                (newest,),
            )
        }
    conn.close()
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert tree_key(app) == ("today", None)
        node = find_node(app.query_one(NavTree), "today", None)
        # The sample's newest digest is not today's: the node and header say which it is.
        assert str(node.label) == f"Latest {date} {len(listed)}"
        rows = app.query_one(PaperList).rows
        assert {row.id for row in rows} == listed and 0 < len(rows) < 152
        votes = [row.upvotes or 0 for row in rows]
        assert votes == sorted(votes, reverse=True)
        assert header(app) == f"Latest digest {date} · {len(rows)} papers · most upvoted first"


async def test_the_newest_digest_is_called_today_only_when_it_is_todays(home: Path):
    today = dt.date.today().isoformat()
    with sqlite3.connect(home / "data" / "library.sqlite3") as conn:
        conn.execute("DELETE FROM meta WHERE key = 'ui_prefs'")
        newest = conn.execute("SELECT id FROM digests ORDER BY date DESC, id LIMIT 1").fetchone()
        conn.execute("UPDATE digests SET date = ? WHERE id = ?", (today, newest[0]))
    conn.close()
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert tree_key(app) == ("today", None)
        node = find_node(app.query_one(NavTree), "today", None)
        count = len(app.query_one(PaperList).rows)
        assert str(node.label) == f"Today {count}"
        assert header(app) == f"Today · {count} papers · most upvoted first"


async def test_a_view_remembered_as_today_is_renamed_when_it_is_not(home: Path):
    """A library last opened on "Today" a day ago shows that digest as the latest one."""
    with sqlite3.connect(home / "data" / "library.sqlite3") as conn:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'ui_prefs'",
            ('{"node": {"kind": "today", "value": null, "label": "Today"}}',),
        )
        date = conn.execute("SELECT max(date) FROM digests").fetchone()[0]
    conn.close()
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.selection.label == f"Latest digest {date}"
        assert header(app).startswith(f"Latest digest {date} · ")


async def test_the_header_says_the_sort(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert header(app) == "All papers · 152 papers · newest first"
        await pilot.press("s", "s")
        await settle(pilot)
        assert header(app) == "All papers · 152 papers · most upvoted first"
        await pilot.press("s")
        await settle(pilot)
        assert header(app) == "All papers · 152 papers · most starred code first"


async def test_a_search_says_its_scope_and_ctrl_g_searches_everywhere(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        other = find_node(tree, "topic", "other")
        in_other = int(str(other.label).rsplit(" ", 1)[1])
        tree.move_cursor(other)
        await settle(pilot)
        await pilot.press("slash", *"flashmoe")
        await settle(pilot)
        assert list(app.query_one(PaperList).rows) == []
        assert header(app).startswith(f"in Other: 0 of {in_other} papers match 'flashmoe'")
        assert "ctrl+g: search everywhere" in header(app)
        notes = app.query_one(SearchNotes).lines
        assert notes == (
            "No match in Other, but 1 paper in all papers: press ctrl+g to search everywhere.",
        )
        await pilot.press("ctrl+g")  # from the search box itself
        await settle(pilot)
        assert tree_key(app) == ("all", None)
        rows = app.query_one(PaperList).rows
        assert [row.title[:8] for row in rows] == ["FlashMoE"]
        assert header(app).startswith("in All papers: 1 of 152 papers match 'flashmoe'")
        assert app.query_one(SearchNotes).lines == ()


@pytest.mark.parametrize(
    "search", ["since:2025-13-01", "is:whatever", "topic:foo", "fits:desktop", "moe is:nope"]
)
async def test_filter_problems_show_under_the_search_box_as_the_cli_words_them(
    home, capsys, search
):
    assert main(["papers", "--search", search]) == 0
    # Notes ("note: search: 'moe' is short ...") go in the app's header, not under the box.
    err = capsys.readouterr().err.splitlines()
    cli_warnings = tuple(line for line in err if not line.startswith("note: search: "))
    assert cli_warnings and all(line.startswith("warning: search: ") for line in cli_warnings)
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *search)
        await settle(pilot)
        notes = app.query_one(SearchNotes)
        assert notes.lines == cli_warnings
        assert notes.display and cli_warnings[0] in str(notes.render())
        await pilot.press("escape")  # the search cleared, the warning goes
        await settle(pilot)
        assert app.query_one(SearchNotes).lines == () and not notes.display


@pytest.mark.tmux
@pytest.mark.timeout(180)
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tmux_tree_cursor_unchanged_after_b(home: Path) -> None:
    """In a real terminal: `b` with a topic selected leaves the tree's cursor on that topic,
    so the next `j` in the tree goes to the topic below it (not to the node under "All")."""
    term = Terminal(home, width=150, height=45)
    try:
        term.wait_for("All papers · 152 papers · newest first")
        # The list comes first (from an index); the tree once the start-up has counted.
        term.wait_for(kernels_label())
        term.keys("\\\\")  # focus the tree
        term.keys(*["j"] * 7)  # All, Today, New, Bookmarks, Unread, For you, Topics, Kernels
        term.wait_until(lambda s: "Kernels · " in s and "newest first" in s, "Kernels listed")
        term.keys("b")
        term.wait_until(lambda s: "Bookmarks 1" in s, "the bookmark counted in the tree")
        term.keys("j")
        screen = term.wait_until(lambda s: "MoE · " in s or "Today · " in s, "the next node")
        assert "MoE · " in screen, screen
        term.keys("q")
    finally:
        term.close()
