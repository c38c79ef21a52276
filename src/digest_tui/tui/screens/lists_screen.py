"""Reading lists: rename and delete them in the app (`L`).

Changes go through the app's LibraryService in a worker, as state ops (`UserState.rename_list`,
`delete_list`), so they sync like any other edit; the app is told (`StateSaved`) to redraw its
tree and list. Deleting asks first: `d`, then `y`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from digest_tui.textsafe import printable
from digest_tui.tui import messages as msg

if TYPE_CHECKING:
    from digest_tui.tui.library_service import LibraryService


class ListRenamed(Message):
    """Posted to the app when a list is renamed here: a view showing the old name follows it
    to the new one (without this the tree lost the node and fell back to "All papers")."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old = old
        self.new = new


class ListChosen(Message):
    """Posted to the app by enter on a list here: show that list's papers."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class ListsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    ListsScreen { align: center middle; }
    ListsScreen > Vertical {
        width: 70; max-width: 95%; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    ListsScreen .title { text-style: bold; }
    ListsScreen .hint { color: $text-muted; }
    ListsScreen #lists-question { color: $text-warning; text-style: bold; }
    ListsScreen OptionList { height: auto; max-height: 16; }
    ListsScreen #lists-rename { display: none; }
    ListsScreen #lists-rename.visible { display: block; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close (or stop renaming)"),
        Binding("r", "rename", "Rename the list"),
        Binding("d", "delete", "Delete the list"),
        Binding("y", "confirm_delete", "Yes, delete it", show=False),
    ]

    class Loaded(Message):
        def __init__(self, lists: list[tuple[str, int]], problem: str = "") -> None:
            super().__init__()
            self.lists = lists
            self.problem = problem

    def __init__(self, service: LibraryService) -> None:
        super().__init__()
        self.service = service
        self.lists: list[tuple[str, int]] = []
        self.deleting: str | None = None  # the list `y` would delete
        self.renaming: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Reading lists", classes="title")
            yield OptionList(id="lists")
            yield Input(placeholder="new name", id="lists-rename")
            yield Static("", id="lists-question")
            yield Static(
                "enter shows its papers · r renames · d deletes · esc closes", classes="hint"
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._load()

    @work(thread=True, exclusive=True, group="lists", exit_on_error=False)
    def _load(self, problem: str = "") -> None:
        self.post_message(self.Loaded(self.service.reading_lists(), problem))

    @work(thread=True, exclusive=True, group="lists", exit_on_error=False)
    def _change(self, done: str, change: str, *args: str) -> None:
        """Run one rename or delete; a refusal (a taken name) is said on this screen."""
        import sqlite3

        from digest_tui.errors import StateError

        try:
            getattr(self.service, change)(*args)
        except (StateError, sqlite3.Error, OSError) as exc:
            self.post_message(self.Loaded(self.service.reading_lists(), f"Not saved: {exc}"))
            return
        if change == "rename_list":
            self.app.post_message(ListRenamed(*args))  # before the redraw it asks for
        self.app.post_message(msg.StateSaved())
        self.post_message(self.Loaded(self.service.reading_lists(), done))

    def on_lists_screen_loaded(self, message: Loaded) -> None:
        self.lists = message.lists
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if not self.lists:
            options.add_option(
                Option(Text("(no reading lists yet: l adds a paper to one)"), disabled=True)
            )
        for name, count in self.lists:
            label = Text(printable(name))
            label.append(f"  {count} paper{'' if count == 1 else 's'}", style="dim")
            options.add_option(Option(label))
        if self.lists:
            options.highlighted = min(highlighted or 0, len(self.lists) - 1)
        self._say(message.problem)

    def _say(self, text: str) -> None:
        self.query_one("#lists-question", Static).update(Text(printable(text)))

    @property
    def current(self) -> str | None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.lists):
            return None
        return self.lists[index][0]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the new name is typed, letters are text, not commands.
        if action in ("rename", "delete", "confirm_delete") and self.renaming is not None:
            return False
        if action == "confirm_delete":
            return self.deleting is not None
        return True

    def action_rename(self) -> None:
        name = self.current
        if name is None:
            return
        self.deleting = None
        self.renaming = name
        field = self.query_one("#lists-rename", Input)
        field.value = name
        field.add_class("visible")
        field.focus()
        self._say(f"New name for “{name}”, then enter (esc keeps it)")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        old, new = self.renaming, " ".join(event.value.split())
        self._stop_renaming()
        if old is None or not new or new == old:
            self._say("")
            return
        self._change(f"Renamed “{old}” to “{new}”.", "rename_list", old, new)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a list: its papers, in the main view (enter did nothing before)."""
        event.stop()
        name = self.current
        if name is not None:
            self.app.post_message(ListChosen(name))
            self.dismiss(None)

    def _stop_renaming(self) -> None:
        self.renaming = None
        self.query_one("#lists-rename", Input).remove_class("visible")
        self.query_one(OptionList).focus()

    def action_delete(self) -> None:
        name = self.current
        if name is None:
            return
        count = dict(self.lists).get(name, 0)
        self.deleting = name
        self._say(
            f"Delete “{name}” ({count} paper{'' if count == 1 else 's'})? "
            "y deletes, any other key keeps it"
        )

    def action_confirm_delete(self) -> None:
        name, self.deleting = self.deleting, None
        if name is not None:
            self._change(f"Deleted “{name}”.", "delete_list", name)

    def on_key(self, event: object) -> None:
        # Any key but `y` after `d` keeps the list (`y` itself runs as a binding first).
        key = getattr(event, "key", "")
        if self.deleting is not None and key not in ("y", "d"):
            self.deleting = None
            self._say("Kept.")

    def action_close(self) -> None:
        if self.renaming is not None:
            self._stop_renaming()
            self._say("")
            return
        self.dismiss(None)
