"""Keys typed into the tree before the start-up has filled it are kept, not lost.

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

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import LibraryService
from digest_tui.tui.widgets.nav_tree import NavTree
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
