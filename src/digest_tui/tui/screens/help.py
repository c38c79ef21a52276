"""The help screen and the command palette, generated from the bindings that are active where
the user pressed `?` (or ctrl+p), so they can never drift from what the keys really do.

Both speak to a reader, not to a Textual developer: keys as they are typed (`?`, `pgdn`,
`ctrl+p`; see key_names.py), places in words ("paper list", not "PaperList"), and Textual's
own bindings in plain words, or left out when they do nothing useful here (horizontal paging
of a pane that never scrolls sideways, `super+c`, which terminals do not send).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any, NamedTuple

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from digest_tui.search_syntax import FILTER_KEYS
from digest_tui.tui.key_names import typable, typed_key

# Where a binding works, by the class that holds it; the app's and the screen's own work
# everywhere. Not imported as classes: help must not load every screen to be shown.
WHERE = {
    "DigestApp": "everywhere",
    "Screen": "everywhere",
    "PaperList": "paper list",
    "NavTree": "navigation tree",
    "PaperPanel": "paper details",
    "PaperScreen": "paper view",
    "HelpScreen": "this help",
    "ListsScreen": "reading lists",
}

# Textual's own bindings in a reader's words, by action.
PLAIN_WORDS = {
    "scroll_up": "Scroll up",
    "scroll_down": "Scroll down",
    "scroll_home": "To the top",
    "scroll_end": "To the bottom",
    "page_up": "Page up",
    "page_down": "Page down",
    "cursor_up": "Up",
    "cursor_down": "Down",
    "cursor_parent": "To the group above",
    "cursor_parent_next_sibling": "To the next group",
    "cursor_previous_sibling": "Previous item in the group",
    "cursor_next_sibling": "Next item in the group",
    "select_cursor": "Show these papers",
    "toggle_node": "Open or close a group",
    "toggle_expand_all": "Open or close every group",
    "app.focus_next": "Next pane",
    "app.focus_previous": "Previous pane",
    "focus_next": "Next pane",
    "focus_previous": "Previous pane",
    "screen.copy_text": "Copy the selected text",
    "command_palette": "All commands (palette)",
    "quit": "Quit",
}

# The app's own keys in whole words, by action: the footer keeps the bindings' short labels
# ("Sort", "Note"), which alone left a reader guessing what the key does.
HELP_WORDS = {
    "toggle_panel": "Show or hide the details panel",
    "toggle_tree": "Go to the navigation tree (over the list when the terminal is narrow)",
    "clear_search": "Clear the search (or close the tree)",
    "fetch": "Fetch today's papers from Hugging Face",
    "sync": "Sync reading state with your other machines",
    "bookmark": "Bookmark or unbookmark the paper",
    "toggle_read": "Mark the paper read or unread",
    "tags": "Edit the paper's tags",
    "note": "Write or edit the paper's note (Markdown)",
    "add_to_list": "Add the paper to a reading list",
    "remove_from_list": "Remove the paper from the reading list shown",
    "move_in_list(-1)": "Move the paper up in the reading list shown",
    "move_in_list(1)": "Move the paper down in the reading list shown",
    "cycle_sort": "Sort by date, upvotes, stars or title",
    "next_unread(1)": "Next unread paper (then the next view with some)",
    "next_unread(-1)": "Previous unread paper (then the view before)",
    "mark_all_read": "Mark every paper shown read",
    "undo_mark_all": "Undo the last mark all read",
    "search_everywhere": "Search all papers, not just this view",
    "open_repo": "Open the highlighted repo",
    "open_paper": "Open the paper's page (arXiv when known)",
    "next_repo": "Highlight the next repo",
    "previous_repo": "Highlight the previous repo",
}

# Textual bindings that do nothing a reader needs here: nothing scrolls sideways.
HIDDEN_ACTIONS = frozenset({"scroll_left", "scroll_right", "page_left", "page_right"})


class HelpEntry(NamedTuple):
    """One row of help (a tuple, so `for keys, what, where in entries` reads it)."""

    keys: str  # as typed, several separated by spaces: "↓ j"
    description: str
    where: str


def where_of(node: object) -> str:
    name = type(node).__name__
    if name in WHERE:
        return WHERE[name]
    return "this screen" if isinstance(node, Screen) else "focused pane"


def describe(binding: Binding) -> str | None:
    """The binding in a reader's words; None when help should not offer it."""
    if binding.action in HIDDEN_ACTIONS or not typable(binding.key):
        return None
    if binding.action in PLAIN_WORDS:
        return PLAIN_WORDS[binding.action]
    if binding.action in HELP_WORDS:
        return HELP_WORDS[binding.action]
    return binding.description or None


def key_of(binding: Binding) -> str:
    """The key as typed (several when the binding lists several); a key_display wins."""
    return binding.key_display or " ".join(typed_key(k.strip()) for k in binding.key.split(","))


def help_entries(bindings: Iterable[tuple[Binding, object]]) -> list[HelpEntry]:
    """(binding, the node holding it) pairs to rows of help: one row per thing to do, with
    every key that does it; what works everywhere first."""
    rows: dict[tuple[str, str], list[str]] = {}
    for binding, node in bindings:
        description = describe(binding)
        if description is None:
            continue
        keys = rows.setdefault((where_of(node), description), [])
        key = key_of(binding)
        if key not in keys:
            keys.append(key)
    entries = [HelpEntry(" ".join(keys), what, where) for (where, what), keys in rows.items()]
    return sorted(entries, key=lambda e: (e.where != "everywhere", e.where))


def active_bindings(screen: Screen[Any]) -> list[tuple[Binding, object]]:
    """What the keys do on `screen` now, focused widget first (Textual's order)."""
    return [(active.binding, active.node) for active in screen.active_bindings.values()]


def bindings_table(entries: list[HelpEntry]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("Key")
    table.add_column("Action")
    table.add_column("Where")
    for entry in entries:
        table.add_row(Text(entry.keys), Text(entry.description), Text(entry.where))
    return table


def palette_commands(
    app: Any, builtin: Iterable[SystemCommand], run: Callable[[str], object]
) -> Iterator[SystemCommand]:
    """The command palette: Textual's theme and screenshot commands, then every binding of the
    app as "what it does" with "key: K" under it. Textual's "Keys" panel is left out: it lists
    keys in Textual's signs (^pgdn Page Right); `?` shows them in words."""
    for command in builtin:
        if command.title not in ("Keys", "Quit"):
            yield command
    seen: set[str] = set()
    for binding in app.BINDINGS:
        assert isinstance(binding, Binding)
        description = describe(binding)
        if description is None or binding.action in seen:
            continue
        if binding.action in ("focus_next", "focus_previous", "leave_search"):
            continue  # moving between panes or out of the search box is not a command
        seen.add(binding.action)
        keys = [key_of(b) for b in app.BINDINGS if b.action == binding.action]
        yield SystemCommand(
            description,
            f"key: {' '.join(dict.fromkeys(keys))}",
            partial(run, binding.action),
        )


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close help")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90; max-width: 95%; height: 80%; border: thick $accent; background: $surface;
        padding: 1 2;
    }
    HelpScreen .help-title { text-style: bold; color: $text-accent; }
    """

    def __init__(self, entries: list[HelpEntry]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("digest-tui keys", classes="help-title")
            yield Static(bindings_table(self.entries))
            yield Static(
                Text(
                    "\nSearch (/): words match titles, abstracts, tags and notes; "
                    '"quoted phrase"; -word excludes; filters: '
                    + ", ".join(f"{k}:" for k in FILTER_KEYS)
                    + " (e.g. topic:moe is:unread has:code since:2025-06-01)."
                    + "\nAll commands by name: ctrl+p."
                )
            )

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
