"""Help and the command palette speak to a reader: every binding of every screen and widget
has words for what it does and a key as it is typed."""

from __future__ import annotations

import re

import pytest
from textual.binding import Binding
from textual.screen import Screen

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.key_names import typed_key
from digest_tui.tui.screens.editors import ListPickScreen, NoteScreen, TagScreen
from digest_tui.tui.screens.help import WHERE, HelpScreen, describe, key_of
from digest_tui.tui.screens.lists_screen import ListsScreen
from digest_tui.tui.screens.paper_screen import PaperScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.ui.settle import settle

# Where help can be asked for (`?` works there), and the dialogs, whose keys show in the footer.
WITH_HELP = [DigestApp, Screen, PaperList, NavTree, PaperPanel, PaperScreen, ListsScreen]
DIALOGS = [HelpScreen, TagScreen, NoteScreen, ListPickScreen]
OURS = [DigestApp, PaperList, NavTree, PaperScreen, ListsScreen, *DIALOGS]

NAMED_KEYS = {"esc", "enter", "tab", "space", "pgup", "pgdn", "home", "end", "del", "backspace"}
NAMED_KEYS |= {"↑", "↓", "←", "→"}
TYPED = re.compile(
    r"^(?:(?:ctrl|shift|alt)\+)*(?:\S|" + "|".join(map(re.escape, NAMED_KEYS)) + ")$"
)
WORDS = re.compile(r"^[A-Z][a-z]*(?:[ ',/()-]+[A-Za-z']+)*[)]?$")


def all_bindings(cls: type) -> list[Binding]:
    return [b for bindings in cls._merge_bindings().key_to_bindings.values() for b in bindings]  # type: ignore[attr-defined]


def test_typed_key_names() -> None:
    assert [typed_key(k) for k in ("question_mark", "slash", "ctrl+p", "pagedown")] == [
        "?",
        "/",
        "ctrl+p",
        "pgdn",
    ]
    assert typed_key("ctrl+pagedown") == "ctrl+pgdn" and typed_key("R") == "R"


@pytest.mark.parametrize("cls", WITH_HELP + DIALOGS, ids=lambda c: c.__name__)
def test_every_binding_has_words_and_a_typed_key(cls: type) -> None:
    shown = 0
    for binding in all_bindings(cls):
        description = describe(binding)
        if description is None:
            continue  # left out on purpose (super+c, sideways paging): see help.py
        shown += 1
        assert WORDS.match(description), (cls.__name__, binding.key, description)
        assert description != binding.action
        for key in key_of(binding).split(" "):
            assert TYPED.match(key), (cls.__name__, binding.key, key)
    assert shown


@pytest.mark.parametrize("cls", OURS, ids=lambda c: c.__name__)
def test_our_own_bindings_are_all_offered(cls: type) -> None:
    for binding in cls.BINDINGS:
        assert isinstance(binding, Binding)
        assert describe(binding), (cls.__name__, binding.key)


def test_every_place_with_help_has_a_name() -> None:
    for cls in WITH_HELP:
        assert WHERE.get(cls.__name__), cls.__name__


def _help_text(app: DigestApp) -> str:
    screen = app.screen
    assert isinstance(screen, HelpScreen)
    return "\n".join(f"{entry.keys} {entry.description} {entry.where}" for entry in screen.entries)


TEXTUAL_SPEAK = ("PaperList", "NavTree", "Screen", "^", "super", "question_mark", "Page Right")


@pytest.mark.parametrize("focus", ["#papers", "#nav", "#panel"])
async def test_help_screen_speaks_plain_words(home, focus: str) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.query_one(focus).focus()
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        shown = _help_text(app)
        for word in TEXTUAL_SPEAK:
            assert word not in shown, (word, shown)
        for typed in ("? Help everywhere", "/ Search", "ctrl+p", "pgdn", "q Quit"):
            assert typed in shown, typed


async def test_help_over_the_paper_view_names_it(home) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        shown = _help_text(app)
        assert "esc Back to the list paper view" in shown
        assert "PaperScreen" not in shown


async def test_palette_commands_say_keys_as_typed(home) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert commands["Help"] == "key: ?"
        assert commands["Search"] == "key: /"
        assert "Keys" not in commands  # Textual's panel of ^pgdn-style keys
        assert commands["Rename or delete reading lists"] == "key: L"
        for title, help_text in commands.items():
            assert "_" not in help_text and "^" not in help_text, (title, help_text)


def test_help_says_in_whole_words_what_each_app_key_does() -> None:
    """The footer's short labels ("Sort", "Note", "Details panel") left a reader guessing;
    help and the palette say what the key does to what."""
    from digest_tui.tui.screens.help import PLAIN_WORDS

    short_and_clear = {"Quit", "Search", "Help", "Back to the list", *PLAIN_WORDS.values()}
    for binding in DigestApp.BINDINGS:
        assert isinstance(binding, Binding)
        words = describe(binding)
        if words is None or words in short_and_clear:
            continue
        assert len(words.split()) >= 3, (binding.key, words)
