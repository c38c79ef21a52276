"""What workers tell the app: one small message per result.

Workers run library calls in threads and post one of these to the app (`post_message` is safe
from any thread and never waits for the UI); the app's handlers apply them. Each carries typed
results only, never a callable to run, so a worker's whole effect on the screen is listed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from digest_tui.tui.navigation import ViewPrefs

if TYPE_CHECKING:  # annotations only: the paper and user-state models load after first paint
    from digest_tui.paper_view import PaperView
    from digest_tui.state.model import NoteState
    from digest_tui.tui.library_service import ListWindow, TreeData
    from digest_tui.tui.navigation import SearchScope


@dataclass
class LibraryReady(Message):
    """Start-up finished: the first tree and the saved theme (the list came first)."""

    tree: TreeData
    theme: str | None


@dataclass
class ViewRestored(Message):
    """The view left last time (node, sort, panel), sent just before its first list."""

    prefs: ViewPrefs = field(default_factory=ViewPrefs)


@dataclass
class TreeLoaded(Message):
    tree: TreeData


@dataclass
class RowsLoaded(Message):
    """A new list for the paper list, the answer to the app's request number `request`."""

    window: ListWindow
    request: int


@dataclass
class ScopeLoaded(Message):
    """For the search of request `request` (sent after its list, so typing never waits for
    it): the view's size without it, the matches everywhere, the filter warnings."""

    scope: SearchScope
    request: int


@dataclass
class NextUnreadFound(Message):
    """Where `.`/`,` goes in the list of request `request`: a position, or None."""

    index: int | None
    wrapped: bool
    request: int


@dataclass
class PaperLoaded(Message):
    """The paper to show (None: it is gone) and the repo health already cached for it."""

    paper: PaperView | None
    health: dict[str, str]


@dataclass
class HealthLoaded(Message):
    paper_id: str
    health: dict[str, str]


@dataclass
class StatusChanged(Message):
    """A worker's line in the status bar (fetch, sync, similar-index progress); '' ends it.
    `source` names the worker: one that ends never clears another's line."""

    text: str
    source: str

    def can_replace(self, message: Message) -> bool:
        # A progress flood: only the newest line of the same worker matters.
        return isinstance(message, StatusChanged) and message.source == self.source


@dataclass
class Notice(Message):
    """A message for the user, shown as a toast (literal text)."""

    text: str
    severity: str = "information"
    timeout: float | None = None


@dataclass
class StateSaved(Message):
    """A change to the user's state was committed: reload what shows it."""


@dataclass
class TagEditorReady(Message):
    paper: PaperView
    known_tags: list[str]


@dataclass
class NoteEditorReady(Message):
    paper: PaperView
    note: NoteState


@dataclass
class ListPickerReady(Message):
    paper: PaperView
    list_names: list[str]


@dataclass
class ClipboardCopy(Message):
    """Put text on the terminal's clipboard (OSC 52, through Textual's driver)."""

    text: str


@dataclass
class PaperScreenReady(Message):
    """The paper to show full screen (Enter on the list), read by a worker."""

    paper: PaperView | None
    health: dict[str, str]


@dataclass
class MarkedRead(Message):
    """Papers shown were marked read at once (`undo` False), or that was undone (True):
    `paper_ids` are the papers that changed, what the next undo puts back."""

    paper_ids: list[str]
    undo: bool = False
