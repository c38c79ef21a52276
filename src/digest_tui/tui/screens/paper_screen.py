"""One paper full screen: what the side panel shows, with the note rendered as Markdown.

Enter on the list opens it at every terminal size (at narrow widths it is the only way to read
a paper); `escape` goes back to the list, whose cursor never moved. The note is the user's own
text: Textual's Markdown widget renders it as Markdown, which never reads Rich markup in it,
and its links are not opened by the widget: they go through the app's `_open`, which only
opens http(s) URLs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from digest_tui.paper_view import PaperView
from digest_tui.tui.paper_extras import PaperExtras
from digest_tui.tui.widgets.key_bar import KeyBar
from digest_tui.tui.widgets.paper_panel import PaperBody

if TYPE_CHECKING:
    # Markdown (and markdown-it under it) loads when a paper is first opened, not at start-up.
    from textual.widgets import Markdown


class PaperScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "close", "Back to the list"),
        Binding("up,k", "scroll_by(-1)", "Up", show=False),
        Binding("down,j", "scroll_by(1)", "Down", show=False),
    ]
    DEFAULT_CSS = """
    PaperScreen > #paper-scroll { padding: 0 2; }
    PaperScreen #paper-note-heading {
        margin-top: 1; color: $text-accent; text-style: bold underline;
    }
    PaperScreen #paper-note { margin: 0; padding: 0; }
    """

    def __init__(self, paper: PaperView, health: dict[str, str] | None = None) -> None:
        super().__init__()
        self.paper = paper
        self.health = health or {}
        self.extras: PaperExtras | None = None

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        with VerticalScroll(id="paper-scroll"):
            yield PaperBody("", include_note=False, id="paper-full")
            yield Static(Text("Note"), id="paper-note-heading")
            yield Markdown(self.paper.note or "", id="paper-note", open_links=False)
        yield KeyBar()

    def _show_body(self) -> None:
        self.query_one("#paper-full", PaperBody).show(
            self.paper, health=self.health, extras=self.extras
        )

    def show_extras(self, extras: PaperExtras) -> None:
        """Similar papers, weights & data and readiness, once a worker has them."""
        if extras.paper_id == self.paper.id:
            self.extras = extras
            self._show_body()

    def _show_note(self) -> None:
        has_note = bool(self.paper.note)
        self.query_one("#paper-note-heading").display = has_note
        self.query_one("#paper-note").display = has_note

    def show_paper(self, paper: PaperView, health: dict[str, str]) -> None:
        """The same paper after a change made from here (a bookmark, a note): redraw it."""
        if paper.id != self.paper.id:
            return
        self.paper, self.health = paper, health
        self._show_body()
        from textual.widgets import Markdown

        self.query_one("#paper-note", Markdown).update(paper.note or "")
        self._show_note()

    def on_mount(self) -> None:
        self._show_body()
        self._show_note()
        self.query_one("#paper-scroll", VerticalScroll).focus()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        opener = getattr(self.app, "open_checked_url", None)
        if opener is not None:
            opener(event.href)

    def action_scroll_by(self, step: int) -> None:
        self.query_one("#paper-scroll", VerticalScroll).scroll_relative(y=step, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
