"""Modal editors for the user's state: tags, the note, and which reading list to add to.

Each returns its result through `dismiss` (None when cancelled); the app turns results into
UserState calls in a worker, so these screens never touch the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static, TextArea

from digest_tui.textsafe import printable

_MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 80; max-width: 95%; height: auto; max-height: 90%;
    border: thick $accent; background: $surface; padding: 1 2;
}}
{name} .hint {{ color: $text-muted; }}
{name} .warning {{ color: $text-warning; text-style: bold; }}
"""


class LastWordSuggester(Suggester):
    """Completes the word being typed (after the last space or comma) from known words."""

    def __init__(self, words: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.words = sorted(set(words))

    async def get_suggestion(self, value: str) -> str | None:
        last = value.replace(",", " ").rpartition(" ")[2]
        prefix = last.removeprefix("-").lower()
        if not prefix:
            return None
        for word in self.words:
            if word.lower().startswith(prefix) and word.lower() != prefix:
                return value + word[len(prefix) :]
        return None


@dataclass(frozen=True)
class TagEdit:
    add: list[str]
    remove: list[str]


def parse_tag_input(text: str) -> TagEdit:
    """'todo, moe -old' adds todo and moe and removes old."""
    add: list[str] = []
    remove: list[str] = []
    for word in text.replace(",", " ").split():
        if word.startswith("-") and len(word) > 1:
            remove.append(word[1:])
        elif word != "-":
            add.append(word)
    return TagEdit(add, remove)


class TagScreen(ModalScreen[TagEdit | None]):
    DEFAULT_CSS = _MODAL_CSS.format(name="TagScreen")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, current: list[str], known: list[str]) -> None:
        super().__init__()
        self.paper_title = title
        self.current = current
        self.known = known

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Tags for: ", style="bold").append(printable(self.paper_title)))
            current = ", ".join(printable(t) for t in self.current) or "(none)"
            yield Static(Text(f"current: {current}"), classes="hint")
            yield Input(
                placeholder="tags to add; -tag removes (e.g. todo, moe -old)",
                suggester=LastWordSuggester(self.known),
                id="tag-input",
            )
            yield Static("→ accepts a completion · enter saves · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        edit = parse_tag_input(event.value)
        self.dismiss(edit if edit.add or edit.remove else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class NoteEdit:
    text: str
    replaces: list[str]


class NoteScreen(ModalScreen[NoteEdit | None]):
    """A Markdown note; concurrent versions from other machines are shown to merge by hand."""

    DEFAULT_CSS = (
        _MODAL_CSS.format(name="NoteScreen")
        + """
    NoteScreen TextArea { height: 16; }
    """
    )
    BINDINGS = [
        Binding("ctrl+s", "save", "Save note"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, title: str, text: str, versions: list[str], conflicts: list[str]) -> None:
        super().__init__()
        self.paper_title = title
        self.text = text
        self.versions = versions
        self.conflicts = conflicts

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Note for: ", style="bold").append(printable(self.paper_title)))
            if self.conflicts:
                yield Static(
                    Text(
                        f"{len(self.conflicts)} other version(s) were edited on another machine "
                        "at the same time; they are appended below. Merge them and save."
                    ),
                    classes="warning",
                )
            body = self.text
            for other in self.conflicts:
                body += "\n\n--- other version ---\n" + other
            yield TextArea(body, language="markdown", id="note-text")
            yield Static("ctrl+s saves · esc cancels · an empty note deletes it", classes="hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(NoteEdit(self.query_one(TextArea).text, self.versions))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ListPickScreen(ModalScreen[str | None]):
    """Choose a reading list to add the paper to; a new name creates the list."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ListPickScreen")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, lists: list[str]) -> None:
        super().__init__()
        self.paper_title = title
        self.lists = lists

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text("Add to reading list: ", style="bold").append(printable(self.paper_title))
            )
            names = ", ".join(printable(n) for n in self.lists) or "(no lists yet)"
            yield Static(Text(f"lists: {names}"), classes="hint")
            yield Input(
                placeholder="list name (a new name creates the list)",
                suggester=_WholeValueSuggester(self.lists),
                id="list-input",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = " ".join(event.value.split())
        self.dismiss(name or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class _WholeValueSuggester(Suggester):
    def __init__(self, names: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.names = names

    async def get_suggestion(self, value: str) -> str | None:
        lowered = value.lower()
        if not lowered:
            return None
        for name in self.names:
            if name.lower().startswith(lowered) and len(name) > len(value):
                return value + name[len(value) :]
        return None
