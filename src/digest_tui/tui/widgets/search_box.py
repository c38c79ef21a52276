"""The search box: Textual's Input, without a layout pass per keystroke."""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Input


class SearchBox(Input):
    """An Input whose typing repaints only itself.

    Textual's Input sets its `virtual_size` (a reactive that asks for a layout pass) on every
    change of its value, so each key typed reflowed the whole screen: tree, list, panel and
    footer, most of a keystroke's cost. The box's own size never depends on its text (app.tcss
    gives it a fixed height and its pane's width); only how far it scrolls does, and that
    reads `virtual_size` when the cursor moves. So the size is stored without the layout pass.
    """

    def _watch_value(self, value: str) -> None:
        # Stored first, so Input's own assignment of the same size changes nothing (a
        # reactive set to its current value neither refreshes nor asks for layout).
        self.set_reactive(Input.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)
