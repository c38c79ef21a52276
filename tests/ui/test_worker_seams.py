"""The app reaches the library only from workers, through named calls, and filters by fields.

A re-enrichment can hold the library for minutes: a key that read SQLite on the UI thread
froze the whole screen until it was done.
"""

from __future__ import annotations

import threading

import pytest

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import UIThreadCall
from digest_tui.tui.screens.editors import ListPickScreen, NoteScreen, TagScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from tests.support.pilot import find_node, labels, notices
from tests.ui.settle import settle

ODD_NAME = 'my "best" papers'


async def test_a_reading_list_with_quotes_in_its_name_lists_its_papers(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        chosen = papers.rows[3].id
        await pilot.press("j", "j", "j")
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, ListPickScreen)
        await pilot.press(*ODD_NAME, "enter")
        await settle(pilot)
        tree = app.query_one(NavTree)
        assert labels(tree)[ODD_NAME] == f"{ODD_NAME} 1"
        tree.move_cursor(find_node(tree, "list", ODD_NAME))
        await settle(pilot)
        assert [row.id for row in papers.rows] == [chosen]


async def test_new_since_last_visit_lists_what_the_tree_counts(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        node = find_node(tree, "new", None)
        tree.move_cursor(node)
        await settle(pilot)
        count = int(str(node.label).rsplit(" ", 1)[1])
        assert len(app.query_one(PaperList).rows) == count > 0
        # A search word narrows the "new" papers; it is not spliced into a filter.
        await pilot.press("slash", *"moe")
        await settle(pilot)
        rows = app.query_one(PaperList).rows
        assert 0 < len(rows) < count


async def test_a_library_call_on_the_ui_thread_is_refused(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        with pytest.raises(UIThreadCall):
            app.service.known_tags()
        # From another thread (what workers are), the same call answers.
        answers: list[list[str]] = []
        worker = threading.Thread(target=lambda: answers.append(app.service.known_tags()))
        worker.start()
        worker.join(timeout=30)
        assert answers == [[]]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("key", "slow_call", "screen"),
    [
        ("t", "all_tags", TagScreen),
        ("n", "note", NoteScreen),
        ("l", "lists", ListPickScreen),
    ],
)
async def test_the_editors_keys_leave_the_ui_answering_while_the_library_is_busy(
    home, monkeypatch, key, slow_call, screen
):
    """While the library is slow to answer (a long write holding it), `t`, `n` and `l` still
    let the user move; the editor opens once the answer is in."""
    from digest_tui.state.user_state import UserState

    entered = threading.Event()
    release = threading.Event()
    original = getattr(UserState, slow_call)

    def slow(self, *args, **kwargs):
        entered.set()
        release.wait(timeout=20)  # bounded: the UI-thread version must not hang the suite
        return original(self, *args, **kwargs)

    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        # Slow from here on only: start-up reads the lists too (for the tree's counts).
        monkeypatch.setattr(UserState, slow_call, slow)
        papers = app.query_one(PaperList)
        await pilot.press(key)
        await pilot.pause()
        assert entered.wait(timeout=20)
        await pilot.press("j")  # answered while the library call waits
        await pilot.pause()
        assert papers.cursor == 1 and not release.is_set()
        release.set()
        await settle(pilot)
        assert isinstance(app.screen, screen)


async def test_notices_shown_are_readable_and_match_the_toasts(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert notices(app)[-1] == "Sorted by date."
        assert app.notices_shown[-1].severity == "information"
        app.notify_text("bell \x07 [b]x[/b]", severity="warning")
        await pilot.pause()
        assert notices(app)[-1] == "bell \\x07 [b]x[/b]"
        toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert any("bell \\x07 [b]x[/b]" in text for text in toasts), toasts


async def test_a_worker_ending_leaves_another_workers_status_line(home):
    """The similarity index finishing while a fetch runs (its build starts when the library
    is ready, so right after a launch) cleared the fetch's "Fetching…" line: the status bar
    went blank with the fetch still under way (tests/ui/test_quit_while_stalled.py then waited
    for "Fetching" in vain)."""
    from textual.widgets import Static

    from digest_tui.tui import messages as msg

    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        status = app.query_one("#status", Static)
        app.post_message(msg.StatusChanged("Building the similarity index…", "similar"))
        app.post_message(msg.StatusChanged("Fetching from Hugging Face…", "fetch"))
        app.post_message(msg.StatusChanged("", "similar"))
        await pilot.pause()
        assert "Fetching from Hugging Face" in str(status.render())
        assert status.has_class("visible")
        app.post_message(msg.StatusChanged("", "fetch"))
        await pilot.pause()
        assert not status.has_class("visible")
