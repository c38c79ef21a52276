"""The list and tag dialogs set no traps: tab/→ accept a completion, Enter on a prefix of one
list adds to it, a new name close to existing ones is asked about first, and lists can be
renamed and deleted in the app (`L`)."""

from __future__ import annotations

import pytest

from digest_tui.config import AppContext
from digest_tui.service import open_library
from digest_tui.tui.app import DigestApp
from digest_tui.tui.screens.editors import ListPickScreen, TagScreen, choose_list
from digest_tui.tui.screens.lists_screen import ListsScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from tests.support.pilot import find_node, labels
from tests.ui.settle import settle

SIZE = (140, 40)
NARROW = (80, 24)


def _lists(names: list[str]) -> None:
    """Reading lists made before the app starts, each holding its first paper."""
    library = open_library(AppContext())
    try:
        first = library.conn.execute("SELECT id FROM papers ORDER BY id LIMIT 1").fetchone()[0]
        for name in names:
            library.state.create_list(name)
            library.state.add_to_list(name, [first])
    finally:
        library.close()


def _list_counts() -> dict[str, int]:
    library = open_library(AppContext())
    try:
        return {info.name: info.count for info in library.state.lists()}
    finally:
        library.close()


def test_choose_list_words() -> None:
    lists = ["week one", "weekend", "Later"]
    assert choose_list("week one", lists) is not None
    assert choose_list("wee", lists).question  # start of two: asked
    assert choose_list("week o", lists).name == "week one"  # start of one: that one
    later = choose_list("later", lists)
    assert later.name == "Later" and not later.new and later.question  # case only: asked
    assert choose_list("Later", lists).question is None
    fresh = choose_list("  to   read ", lists)
    assert fresh.name == "to read" and fresh.new and fresh.question is None
    forced = choose_list("week", lists, create=True)
    assert forced.name == "week" and forced.new
    assert choose_list("   ", lists) is None


async def _open_list_dialog(pilot) -> ListPickScreen:
    await pilot.press("l")
    await settle(pilot)  # the dialog opens once a worker read the lists
    screen = pilot.app.screen
    assert isinstance(screen, ListPickScreen)
    return screen


async def test_enter_on_a_prefix_of_one_list_adds_to_that_list(home) -> None:
    _lists(["week one"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        await _open_list_dialog(pilot)
        await pilot.press("w", "e", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, ListPickScreen)
    assert _list_counts() == {"week one": 2}  # no list "we"


async def test_tab_and_right_accept_the_completion(home) -> None:
    _lists(["week one"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for accept in ("tab", "right"):
            screen = await _open_list_dialog(pilot)
            await pilot.press("w", "e")
            await settle(pilot)  # the suggester answers asynchronously
            await pilot.press(accept)
            await pilot.pause()
            assert screen.query_one("#list-input").value == "week one", accept
            await pilot.press("escape")
            await settle(pilot)


async def test_tab_completes_a_tag(home) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press(*"moe-ready", "enter")
        await settle(pilot)
        await pilot.press("j", "t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TagScreen)
        await pilot.press("m", "o", "e", "-")
        await settle(pilot)
        await pilot.press("tab")
        await pilot.pause()
        assert screen.query_one("#tag-input").value == "moe-ready"


async def test_a_new_name_starting_two_lists_is_asked_about_first(home) -> None:
    _lists(["week one", "weekend"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        screen = await _open_list_dialog(pilot)
        await pilot.press("w", "e", "e", "enter")
        await settle(pilot)
        assert app.screen is screen, "created without asking"
        assert "week one" in screen.question and "weekend" in screen.question
        await pilot.press("enter")  # asked, confirmed
        await settle(pilot)
        assert app.screen is not screen
    assert _list_counts() == {"week one": 1, "weekend": 1, "wee": 1}


async def test_a_name_differing_in_case_is_asked_and_uses_the_list(home) -> None:
    _lists(["Week one"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        screen = await _open_list_dialog(pilot)
        await pilot.press(*"week one", "enter")
        await settle(pilot)
        assert app.screen is screen and "Week one" in screen.question
        await pilot.press("enter")
        await settle(pilot)
    assert _list_counts() == {"Week one": 2}


async def test_ctrl_n_creates_a_prefix_of_an_existing_list(home) -> None:
    _lists(["week one"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        await _open_list_dialog(pilot)
        await pilot.press("w", "e", "ctrl+n")
        await settle(pilot)
    assert _list_counts() == {"week one": 1, "we": 1}


async def test_rename_and_delete_a_list_in_the_app(home) -> None:
    _lists(["week one", "later"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ListsScreen)
        assert sorted(name for name, _ in screen.lists) == ["later", "week one"]
        # Rename "week one": its name is offered for editing.
        screen.query_one("#lists").highlighted = [n for n, _ in screen.lists].index("week one")
        await pilot.press("r", "ctrl+u", *"week two", "enter")
        await settle(pilot)
        assert sorted(n for n, _ in screen.lists) == ["later", "week two"]
        assert "week two" in labels(app.main_screen.query_one(NavTree))
        # Delete asks first: another key keeps the list.
        screen.query_one("#lists").highlighted = [n for n, _ in screen.lists].index("later")
        await pilot.press("d", "n")
        await settle(pilot)
        assert sorted(n for n, _ in screen.lists) == ["later", "week two"]
        await pilot.press("d", "y")
        await settle(pilot)
        assert [n for n, _ in screen.lists] == ["week two"]
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not screen
        assert app.main_screen.query_one(PaperList).rows
    assert _list_counts() == {"week two": 1}


async def test_renaming_to_a_taken_name_is_refused_in_words(home) -> None:
    _lists(["week one", "later"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#lists").highlighted = [n for n, _ in screen.lists].index("week one")
        await pilot.press("r", "ctrl+u", *"LATER", "enter")
        await settle(pilot)
        shown = str(screen.query_one("#lists-question").render())
        assert "Not saved" in shown and "already exists" in shown
    assert _list_counts() == {"week one": 1, "later": 1}


async def _view_list(pilot, name: str) -> None:
    tree = pilot.app.main_screen.query_one(NavTree)
    tree.move_cursor(find_node(tree, "list", name))
    await settle(pilot)
    assert pilot.app.selection.key == ("list", name)


async def test_renaming_the_list_being_viewed_follows_it_to_its_new_name(home) -> None:
    _lists(["week one", "later"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _view_list(pilot, "week one")
        assert len(app.main_screen.query_one(PaperList).rows) == 1
        await pilot.press("L")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#lists").highlighted = [n for n, _ in screen.lists].index("week one")
        await pilot.press("r", "ctrl+u", *"week two", "enter")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        tree = app.main_screen.query_one(NavTree)
        assert app.selection.key == ("list", "week two")
        assert app.selection.label == "Reading lists: week two"
        assert tree.cursor_node is not None and tree.cursor_node.data.key == ("list", "week two")
        assert len(app.main_screen.query_one(PaperList).rows) == 1
        title = str(app.main_screen.query_one("#list-title").render())
        assert title.startswith("Reading lists: week two · 1 paper ·"), title


@pytest.mark.parametrize("size", [SIZE, NARROW])
async def test_deleting_the_list_being_viewed_falls_back_to_all_papers(home, size) -> None:
    _lists(["week one", "later"])
    app = DigestApp(AppContext())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await _view_list(pilot, "later")
        await pilot.press("L")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#lists").highlighted = [n for n, _ in screen.lists].index("later")
        await pilot.press("d", "y")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        tree = app.main_screen.query_one(NavTree)
        assert app.selection.key == ("all", None)
        assert tree.cursor_node is not None and tree.cursor_node.data.key == ("all", None)
        assert len(app.main_screen.query_one(PaperList).rows) == 152
        title = str(app.main_screen.query_one("#list-title").render())
        assert title.startswith("All papers · 152 papers"), title


async def test_enter_on_a_list_in_the_lists_screen_shows_its_papers(home) -> None:
    _lists(["week one", "later"])
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#lists").highlighted = [n for n, _ in screen.lists].index("later")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main_screen
        assert app.selection.key == ("list", "later")
        tree = app.main_screen.query_one(NavTree)
        assert tree.cursor_node is not None and tree.cursor_node.data.key == ("list", "later")
        assert len(app.main_screen.query_one(PaperList).rows) == 1
