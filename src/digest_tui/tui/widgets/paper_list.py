"""The paper list: one line per paper, drawn with Textual's line API.

No widget is created per paper: the list keeps plain `ListRow` tuples and renders only the
lines on screen (`render_line`), with an LRU cache of rendered strips, so 100,000 papers cost
the same to draw as 100. Titles are untrusted text: they become plain Segments, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from digest_tui.store.library import ListRow
from digest_tui.textsafe import printable

# Below this width (the medium layout's list, about 51 columns at 100; 66 at 140) the date goes:
# its 11 columns are worth more as title, and the panel beside the list shows the date.
DATE_COLUMN_FROM = 60


class PaperList(ScrollView, can_focus=True):
    """A virtual list of papers with a cursor."""

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("enter", "app.read_paper", "Read paper"),
    ]
    COMPONENT_CLASSES = {"paper-list--cursor", "paper-list--dim", "paper-list--code"}
    DEFAULT_CSS = """
    PaperList > .paper-list--cursor { background: $accent 40%; text-style: bold; }
    PaperList:focus > .paper-list--cursor { background: $accent; color: $text; }
    PaperList > .paper-list--dim { color: $text-muted; }
    PaperList > .paper-list--code { color: $success; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    class Highlighted(Message):
        """The cursor moved to another paper (or the list emptied: row is None)."""

        def __init__(self, paper_list: PaperList, row: ListRow | None) -> None:
            super().__init__()
            self.paper_list = paper_list
            self.row = row

        @property
        def control(self) -> PaperList:
            return self.paper_list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[ListRow] = []
        self._render_cached = lru_cache(maxsize=512)(self._render_row)

    # ---- data ---------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[ListRow], *, keep_id: str | None = None) -> None:
        """Replace the rows; keep the cursor on `keep_id` when that paper is still listed."""
        self.rows = list(rows)
        self._render_cached.cache_clear()
        self.virtual_size = Size(self.size.width, len(self.rows))
        index = 0
        if keep_id is not None:
            for position, row in enumerate(self.rows):
                if row.id == keep_id:
                    index = position
                    break
        self.cursor = min(index, max(len(self.rows) - 1, 0))
        self.refresh()

    @property
    def current(self) -> ListRow | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    # ---- cursor -------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        self._render_cached.cache_clear()
        self.refresh()
        if self.rows:
            self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True, immediate=True)
        self.post_message(self.Highlighted(self, self.current))

    def _move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))

    def action_cursor_up(self) -> None:
        self._move(-1)

    def action_cursor_down(self) -> None:
        self._move(1)

    def action_page_up(self) -> None:
        self._move(-max(self.size.height - 1, 1))

    def action_page_down(self) -> None:
        self._move(max(self.size.height - 1, 1))

    def action_first(self) -> None:
        self._move(-len(self.rows))

    def action_last(self) -> None:
        self._move(len(self.rows))

    def on_click(self, event: events.Click) -> None:
        index = event.y + int(self.scroll_offset.y)
        if 0 <= index < len(self.rows):
            self.cursor = index
        self.focus()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows))
        self._render_cached.cache_clear()

    # ---- drawing ------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_offset.y)
        width = self.size.width
        if index >= len(self.rows) or width <= 0:
            return Strip.blank(width, self.rich_style)
        return self._render_cached(index, width, index == self.cursor, self.has_focus)

    def _render_row(self, index: int, width: int, is_cursor: bool, focused: bool) -> Strip:
        row = self.rows[index]
        base = self.rich_style
        dim = base + self.get_component_rich_style("paper-list--dim", partial=True)
        code = base + self.get_component_rich_style("paper-list--code", partial=True)
        # ★ bookmarked, • unread: the two marks a reader scans for.
        marks = ("★" if row.bookmarked else " ") + (" " if row.read else "•")
        votes = f"{row.upvotes:>4}" if row.upvotes is not None else "   -"
        segments = [
            Segment(" "),
            Segment("⌥ " if row.has_code else "  ", code),
            Segment(f"{marks} ", code),
        ]
        if width >= DATE_COLUMN_FROM:
            segments.append(Segment(f"{(row.published or '          ')[:10]} ", dim))
        segments.append(Segment(f"{votes}▲ ", dim))
        title = printable(row.title)
        segments.append(Segment(title, base))
        strip = Strip(segments).crop_extend(0, width, base)
        if is_cursor:
            cursor_style: Style = self.get_component_rich_style("paper-list--cursor")
            strip = strip.apply_style(cursor_style)
        return strip
