"""Keys typed into the tree before the start-up has filled it are kept, not lost; `\\` moves
the focus before the keys read with it are dispatched.

The tree's nodes and counts come after the first frame (`LibraryService.tree_data`, once the
start-up has loaded the library). A reader who opens the tree at once (`\\` below 100 columns)
and moves in it used to move in an empty tree: the keys did nothing, and a key after them acted
on the view they had not reached. Here the start-up is held at `tree_data` until the keys are
typed, so the tree is certainly empty when they arrive.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from textual import events
from textual.widgets import Input, TextArea

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import LibraryService
from digest_tui.tui.screens.editors import NoteScreen
from digest_tui.tui.screens.help import HelpScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from tests.ui.settle import settle


@contextmanager
def tree_held(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The start-up's `tree_data` waits until the returned event is set."""
    release = threading.Event()
    original = LibraryService.tree_data

    def held(self: LibraryService):  # type: ignore[no-untyped-def]
        release.wait(30)
        return original(self)

    monkeypatch.setattr(LibraryService, "tree_data", held)
    try:
        yield release
    finally:
        release.set()


def filled(tree: NavTree) -> bool:
    return bool(tree.root.children)


async def wait_until_painted(pilot) -> None:  # type: ignore[no-untyped-def]
    """The first list is on screen (the start-up then goes on to `tree_data`)."""
    for _ in range(200):
        if pilot.app._first_paint.is_set():
            return
        await pilot.pause(0.02)
    raise AssertionError("the first list was never painted")


async def test_moves_typed_into_the_empty_tree_land_once_it_is_filled(home, monkeypatch):
    with tree_held(monkeypatch) as release:
        app = DigestApp(AppContext())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_painted(pilot)
            tree = app.query_one(NavTree)
            await pilot.press("backslash", *"jjjjjjj")
            await pilot.pause(0.1)
            assert not filled(tree) and app.focused is tree
            assert tree.cursor_line == -1  # nothing moved yet: the keys are held
            release.set()
            await settle(pilot)
            assert filled(tree)
            # Seven moves down from "All papers", where the library was left: a topic.
            assert tree.cursor_line == 7
            node = tree.get_node_at_line(7)
            assert node is not None and node.data is not None and node.data.kind == "topic"
            assert app.selection.key == node.data.key
            assert tree.has_focus


async def test_held_keys_are_dropped_when_the_reader_left_the_tree(home, monkeypatch):
    # `/` is the search's own key (a priority binding): text typed after it goes to the box, and
    # the tree's held moves must not be typed into it afterwards.
    with tree_held(monkeypatch) as release:
        app = DigestApp(AppContext())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_painted(pilot)
            await pilot.press("backslash", "j", "j", "slash", *"moe")
            await pilot.pause(0.1)
            release.set()
            await settle(pilot)
            search = app.query_one("#search")
            assert search.value == "moe"  # type: ignore[attr-defined]
            assert app.selection.key == ("all", None)  # the tree did not move


async def test_quitting_is_never_held(home, monkeypatch):
    with tree_held(monkeypatch):
        app = DigestApp(AppContext())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_painted(pilot)
            await pilot.press("backslash")
            tree = app.query_one(NavTree)
            assert app.focused is tree and not filled(tree)
            await pilot.press("q")
            await pilot.pause(0.2)
            assert not app.is_running


async def test_moves_read_in_one_batch_with_backslash_are_held_by_the_tree(home, monkeypatch):
    # A busy app (its first second) reads `\\ j j j` from the terminal in one go: the keys are
    # queued together, and each is sent to the pane focused when it is dispatched. `\\` must
    # move the focus before the `j`s are dispatched, or the list gets them, the tree cannot
    # hold them, and its bindings then move in the empty tree.
    with tree_held(monkeypatch) as release:
        app = DigestApp(AppContext())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_painted(pilot)
            tree, papers = app.query_one(NavTree), app.query_one(PaperList)
            for key, character in (("backslash", "\\"), ("j", "j"), ("j", "j"), ("j", "j")):
                app.post_message(events.Key(key, character))
            await pilot.pause(0.1)
            assert not filled(tree)
            release.set()
            await settle(pilot)
            assert app.focused is tree
            assert tree.cursor_line == 3  # from "All papers", where the library was left
            assert papers.cursor == 0


async def test_backslash_is_text_in_a_text_field_and_does_nothing_over_help(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "a", "backslash", "b")
        await settle(pilot)
        search = app.query_one("#search", Input)
        assert search.value == "a\\b" and app.focused is search
        assert not app.query_one(NavTree).display
        await pilot.press("enter", "n")  # back to the list, then the note editor
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press("backslash")
        await settle(pilot)
        assert "\\" in app.screen.query_one(TextArea).text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("backslash")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert not app.query_one(NavTree).display


async def test_a_tree_never_filled_gives_its_keys_back(home, monkeypatch):
    # A start-up that never fills the tree (it failed) must not swallow the keys for good: after
    # TYPEAHEAD_SECONDS they act as they always did. Escape then closes the tree shown over the
    # list, which it cannot while it is held.
    monkeypatch.setattr(NavTree, "TYPEAHEAD_SECONDS", 0.3)
    with tree_held(monkeypatch):
        app = DigestApp(AppContext())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_painted(pilot)
            tree = app.query_one(NavTree)
            await pilot.press("backslash", "escape")
            await pilot.pause(0.1)
            assert tree.display and not filled(tree)  # escape held: the tree is still open
            await pilot.pause(0.5)
            assert not tree.display  # the held escape was given back: it closed the tree
            await pilot.press("backslash")
            await pilot.pause(0.1)
            assert tree.display
            await pilot.press("escape")
            await pilot.pause(0.1)
            assert not filled(tree)
            assert not tree.display  # keys act at once again, though the tree was never filled
