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


def accept_completion(field: Input) -> None:
    """Take the grey completion the suggester offers, as → at the end of the text does."""
    field.cursor_position = len(field.value)
    field.action_cursor_right()


class TagScreen(ModalScreen[TagEdit | None]):
    DEFAULT_CSS = _MODAL_CSS.format(name="TagScreen")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "accept_completion", "Accept the completion"),
    ]

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
            yield Static(
                "tab or → accepts a completion · enter saves · esc cancels", classes="hint"
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_accept_completion(self) -> None:
        accept_completion(self.query_one(Input))

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


@dataclass(frozen=True)
class ListChoice:
    """What Enter does with a typed list name: `name` is the list it adds to (an existing one,
    spelled as stored, or a new one); with a `question`, only after the user confirms."""

    name: str
    new: bool
    question: str | None = None


def choose_list(typed: str, lists: list[str], *, create: bool = False) -> ListChoice | None:
    """The list a typed name means. Names ignore case (the store holds one "Week one" and no
    "week one" beside it). A prefix of exactly one list is that list; a new name that only
    differs in case from a list, or is the start of several, is asked about first. `create`
    (ctrl+n) makes a new list of exactly what was typed, when it is not taken."""
    name = " ".join(typed.split())
    if not name:
        return None
    folded = name.casefold()
    same = next((n for n in lists if n.casefold() == folded), None)
    if same is not None:
        if same == name:
            return ListChoice(same, new=False)
        return ListChoice(
            same,
            new=False,
            question=f"“{same}” exists (names ignore case): enter adds to “{same}”",
        )
    if create:
        return ListChoice(name, new=True)
    starts = [n for n in lists if n.casefold().startswith(folded)]
    if len(starts) == 1:
        return ListChoice(starts[0], new=False)
    if starts:
        shown = ", ".join(f"“{n}”" for n in starts[:4])
        return ListChoice(
            name,
            new=True,
            question=f"“{name}” is the start of {shown}: enter creates a new list “{name}”, "
            "tab completes",
        )
    return ListChoice(name, new=True)


class ListPickScreen(ModalScreen[str | None]):
    """Choose a reading list to add the paper to; a new name creates the list, once it is
    clear the user did not mean an existing one (`choose_list`)."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ListPickScreen")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "accept_completion", "Accept the completion"),
        Binding("ctrl+n", "create_new", "Create a new list with this name"),
    ]

    def __init__(self, title: str, lists: list[str]) -> None:
        super().__init__()
        self.paper_title = title
        self.lists = lists
        # The choice waiting for a second Enter, and the text it was asked about.
        self.pending: tuple[str, ListChoice] | None = None

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
            yield Static(
                "tab or → completes · enter adds · ctrl+n creates a new list · esc cancels",
                classes="hint",
            )
            yield Static("", id="list-question", classes="warning")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @property
    def question(self) -> str:
        """The question on screen now ("" when none)."""
        if self.pending is None:
            return ""
        return self.pending[1].question or ""

    def action_accept_completion(self) -> None:
        accept_completion(self.query_one(Input))

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.pending is not None and self.pending[0] != event.value:
            self._ask(None, event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._choose(event.value, create=False)

    def action_create_new(self) -> None:
        self._choose(self.query_one(Input).value, create=True)

    def _choose(self, typed: str, *, create: bool) -> None:
        if self.pending is not None and self.pending[0] == typed:
            self.dismiss(self.pending[1].name)  # asked, and confirmed with a second Enter
            return
        choice = choose_list(typed, self.lists, create=create)
        if choice is None:
            self.dismiss(None)
        elif choice.question:
            self._ask(choice, typed)
        else:
            self.dismiss(choice.name)

    def _ask(self, choice: ListChoice | None, typed: str) -> None:
        self.pending = (typed, choice) if choice is not None else None
        question = choice.question if choice is not None else ""
        self.query_one("#list-question", Static).update(Text(printable(question or "")))

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
