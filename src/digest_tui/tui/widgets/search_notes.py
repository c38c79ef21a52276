"""The lines under the search box: filter warnings as the CLI prints them, and scope hints."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
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
        lines = tuple(lines)
        if lines == self.lines:
            return  # most keystrokes: nothing new to say, so no repaint and no layout pass
        # Only a change in height moves the list below: a note reworded in place (a count
        # that changed) repaints this widget without reflowing the screen, unless a line is
        # (or was) too long for one row and wraps.
        width = self.content_region.width
        layout = len(lines) != len(self.lines) or any(
            cell_len(line) >= width for line in lines + self.lines
        )
        self.lines = lines
        # Literal text: a search typed by the user (or a filter value) is never markup.
        self.update(Text("\n".join(self.lines)), layout=layout)
        self.set_class(bool(self.lines), "visible")
