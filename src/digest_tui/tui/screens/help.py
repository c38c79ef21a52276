"""The help screen, generated from the bindings that are active where the user pressed `?`,
so it can never drift from what the keys really do."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from digest_tui.search_syntax import FILTER_KEYS


def bindings_table(entries: list[tuple[str, str, str]]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("Key")
    table.add_column("Action")
    table.add_column("Where", style="dim")
    for key, description, where in entries:
        table.add_row(Text(key), Text(description), Text(where))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close help")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; max-width: 95%; height: 80%; border: thick $accent; background: $surface;
        padding: 1 2;
    }
    """

    def __init__(self, entries: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text("digest-tui keys", style="bold"))
            yield Static(bindings_table(self.entries))
            yield Static(
                Text(
                    "\nSearch (/): words match titles, abstracts, tags and notes; "
                    '"quoted phrase"; -word excludes; filters: '
                    + ", ".join(f"{k}:" for k in FILTER_KEYS)
                    + " (e.g. topic:moe is:unread has:code since:2025-06-01)."
                )
            )

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
