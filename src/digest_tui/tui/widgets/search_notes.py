"""The lines under the search box: filter warnings as the CLI prints them, and scope hints."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static


class SearchNotes(Static):
    """Hidden while there is nothing to say; one line per note otherwise."""

    DEFAULT_CSS = """
    SearchNotes { display: none; height: auto; padding: 0 1; color: $warning; }
    SearchNotes.visible { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.lines: tuple[str, ...] = ()

    def show(self, lines: Sequence[str]) -> None:
        self.lines = tuple(lines)
        # Literal text: a search typed by the user (or a filter value) is never markup.
        self.update(Text("\n".join(self.lines)))
        self.set_class(bool(self.lines), "visible")
