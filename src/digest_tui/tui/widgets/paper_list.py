"""The paper list: one line per paper, drawn with Textual's line API, windowed.

The list holds the ordered rowids of the papers it lists (8 bytes each in an `array`), never a
row object per paper: 100,000 papers cost 800 KB and one indexed query to list. The rows it
draws are fetched by rowid a page at a time, in a thread worker through `row_source` (the UI
thread never runs SQL), around the viewport with a page of margin; a line whose row has not
arrived yet is drawn as a placeholder and filled in when it does. Each new list (a search, a
sort, a state change) bumps `generation`, so rows fetched for an older list are dropped.
Titles are untrusted text: they become plain Segments, never markup.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import overload

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from digest_tui.errors import RowNotFetched
from digest_tui.store.library import ListRow
from digest_tui.textsafe import printable

# Below this width (the medium layout's list, about 51 columns at 100; 66 at 140) the date goes:
# its 11 columns are worth more as title, and the panel beside the list shows the date.
DATE_COLUMN_FROM = 60

# A title cut to fit ends with this; the cut falls after a word when the title still fills all
# but TITLE_WORD_SLACK columns (a fifth of a narrower title column), else mid-word: most of a
# long word reads better than a gap.
ELLIPSIS = "…"
TITLE_WORD_SLACK = 6

# An empty list's line when the app has not said anything better.
EMPTY_HINT = "No papers here."

# Rows are fetched in pages of this many: one `SELECT ... WHERE rowid IN (...)` each, well
# under a millisecond; a screen is ~45 rows, so the viewport plus a page of margin either side
# is at most four pages.
PAGE_ROWS = 128
# Rows kept in memory before the pages far from the viewport are dropped.
CACHE_ROWS = 16 * PAGE_ROWS

# Fetches the list rows of these rowids (a blocking library call: run in a worker thread).
RowSource = Callable[[Sequence[int]], Mapping[int, ListRow]]


class LoadedRows(Sequence[ListRow]):
    """The list's rows by position, for callers that index it like a list; a position whose
    row has not been fetched raises RowNotFetched (never a silent stop: it is not IndexError)."""

    def __init__(self, paper_list: PaperList) -> None:
        self._list = paper_list

    def __len__(self) -> int:
        return len(self._list.rowids)

    @overload
    def __getitem__(self, index: int) -> ListRow: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[ListRow]: ...
    def __getitem__(self, index: int | slice) -> ListRow | Sequence[ListRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        row = self._list.row_at(index)
        if row is None:
            raise RowNotFetched(f"row {index} of the list is not fetched yet")
        return row

    def __iter__(self) -> Iterator[ListRow]:
        return (self[i] for i in range(len(self)))


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
    COMPONENT_CLASSES = {
        "paper-list--cursor",
        "paper-list--dim",
        "paper-list--code",
        "paper-list--listed",
        "paper-list--warning",
    }
    # Never scrolled sideways: every line is drawn to the list's width. Without this a resize
    # that narrowed the list (the panel shown) left a horizontal scrollbar from the old
    # virtual width, which took a row and cropped titles before their "…".
    DEFAULT_CSS = """
    PaperList { overflow-x: hidden; }
    PaperList > .paper-list--cursor { background: $accent 40%; text-style: bold; }
    PaperList:focus > .paper-list--cursor { background: $accent; color: $text; }
    PaperList > .paper-list--dim { color: $text-muted; }
    PaperList > .paper-list--listed { color: $text-disabled; text-style: italic; }
    PaperList > .paper-list--code { color: $text-success; }
    PaperList > .paper-list--warning { color: $text-warning; text-style: bold; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    class Highlighted(Message):
        """The cursor moved to another paper (or the list emptied: row is None). Posted once
        the row under the cursor is fetched."""

        def __init__(self, paper_list: PaperList, row: ListRow | None) -> None:
            super().__init__()
            self.paper_list = paper_list
            self.row = row

        @property
        def control(self) -> PaperList:
            return self.paper_list

    class WindowLoaded(Message, bubble=False):
        """Rows fetched by this list's worker, for the list of `generation`."""

        def __init__(
            self, generation: int, pages: frozenset[int], rows: Mapping[int, ListRow]
        ) -> None:
            super().__init__()
            self.generation = generation
            self.pages = pages
            self.rows = rows

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rowids: array[int] = array("q")
        self.row_source: RowSource | None = None
        # Bumped by every new list: rows fetched for an older one are dropped.
        self.generation = 0
        self._rows: dict[int, ListRow] = {}
        self._pages_loaded: set[int] = set()
        self._pages_pending: set[int] = set()
        self._highlight_owed = False
        self._announced: ListRow | None = None
        self._render_cached = lru_cache(maxsize=512)(self._render_row)
        # What an empty list says on its first line (the app words it for the view and search).
        self.empty_hint = EMPTY_HINT

    # ---- data ---------------------------------------------------------------------------

    def set_window(
        self,
        rowids: array[int],
        rows: Mapping[int, ListRow],
        *,
        cursor: int = 0,
        start: int = 0,
    ) -> None:
        """A new list: its ordered rowids, the rows already fetched (those at `start` and
        after, in order), and the cursor's position."""
        self.generation += 1
        self.rowids = rowids
        self._rows = dict(rows)
        self._pages_pending.clear()
        # The drawn rows are kept: each is keyed by the whole row (marks, title, votes), its
        # width, cursor and focus, so a changed paper draws anew, and the next key's list
        # shares most of its rows with this one ("fla" -> "flas"): ~3 ms of a key's drawing.
        end = start + len(rows)
        self._pages_loaded = {
            page
            for page in range(-(-start // PAGE_ROWS), end // PAGE_ROWS + 1)
            if page * PAGE_ROWS >= start and min((page + 1) * PAGE_ROWS, len(rowids)) <= end
        }
        self._set_virtual_height()
        self.cursor = min(max(cursor, 0), max(len(self.rowids) - 1, 0))
        self.refresh()

    def extend_window(self, rowids: array[int]) -> None:
        """The whole list of which only the first rowids were given (a long search's first
        screen, `ListWindow.complete`): the rows fetched, the cursor and the generation stay,
        and the scrollbar now measures the whole list. A list that does not start with the
        rowids shown is a new one (`set_window`)."""
        if rowids[: len(self.rowids)] != self.rowids:
            self.set_window(rowids, {}, cursor=0)
            return
        self.rowids = rowids
        # The lines on screen are the ones already drawn: only the scrollbar changes, and it
        # repaints itself (a refresh here cost a frame of the whole list per long search).
        self._set_virtual_height()

    def _set_virtual_height(self) -> None:
        """The list's scrollable height is its number of papers. Set without Textual's layout
        pass (a reflow of the whole screen, most of a keystroke's cost): the list's own size
        does not change with its length; only its scrollbar may, and showing or hiding the
        scrollbar asks for the layout pass itself (`_scroll_update` sets its display)."""
        size = Size(self.line_width, len(self.rowids))
        if size == self.virtual_size:
            return
        self.set_reactive(PaperList.virtual_size, size)
        if self.is_mounted:
            self._scroll_update(size)

    def set_rows(self, rows: Sequence[ListRow], *, keep_id: str | None = None) -> None:
        """Every row at once (a short list); keep the cursor on `keep_id` when still listed."""
        index = next((i for i, row in enumerate(rows) if row.id == keep_id), 0)
        rowids = array("q", (row.rowid for row in rows))
        self.set_window(rowids, {row.rowid: row for row in rows}, cursor=index)

    def invalidate(self) -> None:
        """Rows shown may have changed (a bookmark, a read mark): fetch them again."""
        self.generation += 1
        self._rows.clear()
        self._pages_loaded.clear()
        self._pages_pending.clear()
        self.refresh()

    @property
    def count(self) -> int:
        return len(self.rowids)

    @property
    def rows(self) -> LoadedRows:
        return LoadedRows(self)

    def row_at(self, index: int) -> ListRow | None:
        """The row at this position, or None when it is not fetched (or out of range)."""
        if 0 <= index < len(self.rowids):
            return self._rows.get(self.rowids[index])
        return None

    @property
    def current(self) -> ListRow | None:
        return self.row_at(self.cursor)

    # ---- fetching rows ------------------------------------------------------------------

    def _wanted_pages(self) -> range:
        top = int(self.scroll_offset.y)
        bottom = top + max(self.size.height, 1)
        first = max(top // PAGE_ROWS - 1, 0)
        last = min((bottom - 1) // PAGE_ROWS + 1, (len(self.rowids) - 1) // PAGE_ROWS)
        return range(first, last + 1)

    def _fetch_missing(self) -> None:
        """Ask the worker for the pages around the viewport that are neither here nor asked."""
        if self.row_source is None or not self.rowids:
            return
        wanted = self._wanted_pages()
        missing = [
            p for p in wanted if p not in self._pages_loaded and p not in self._pages_pending
        ]
        if not missing:
            return
        self._pages_pending.update(missing)
        rowids = [
            rowid for p in missing for rowid in self.rowids[p * PAGE_ROWS : (p + 1) * PAGE_ROWS]
        ]
        self._start_fetch(self.generation, frozenset(missing), rowids)

    def _start_fetch(self, generation: int, pages: frozenset[int], rowids: list[int]) -> None:
        source = self.row_source
        assert source is not None

        def fetch() -> None:
            rows = source(rowids)
            self.post_message(self.WindowLoaded(generation, pages, rows))

        self.run_worker(fetch, thread=True, group="paper-list-rows", exit_on_error=False)

    def on_paper_list_window_loaded(self, message: WindowLoaded) -> None:
        message.stop()
        if message.generation != self.generation:
            return  # fetched for a list that has been replaced since
        self._pages_pending -= message.pages
        self._pages_loaded |= message.pages
        self._rows.update(message.rows)
        self._trim_cache()
        self.refresh()
        if self._highlight_owed and self.current is not None:
            self._highlight_owed = False
            self._announce(self.current)

    def _trim_cache(self) -> None:
        if len(self._rows) <= CACHE_ROWS:
            return
        keep = set(self._wanted_pages()) | {self.cursor // PAGE_ROWS}
        self._pages_loaded &= keep
        kept = {rowid for p in keep for rowid in self.rowids[p * PAGE_ROWS : (p + 1) * PAGE_ROWS]}
        self._rows = {rowid: row for rowid, row in self._rows.items() if rowid in kept}

    # ---- cursor -------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        # The render cache is keyed by row and cursor flag: moving needs no clearing.
        self.refresh()
        if self.rowids:
            self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True, immediate=True)
        row = self.current
        if row is None and self.rowids:
            # Announced when its row arrives (on_paper_list_window_loaded).
            self._highlight_owed = True
            self._fetch_missing()
        else:
            self._highlight_owed = False
            self._announce(row)

    def _announce(self, row: ListRow | None) -> None:
        # A new list with the same paper under the cursor (a reload after start-up, a search
        # that keeps the top paper) is no news: the panel would reload the same paper.
        if row is not None and row == self._announced:
            return
        # Announced at once, also while the reader types: keys such as `b` act on the paper
        # the panel shows, so the panel must follow the list (delaying it until typing paused
        # bookmarked the previous top paper after a quick Enter, b).
        self._announced = row
        self.post_message(self.Highlighted(self, row))

    def _move(self, delta: int) -> None:
        if self.rowids:
            self.cursor = max(0, min(len(self.rowids) - 1, self.cursor + delta))

    def action_cursor_up(self) -> None:
        self._move(-1)

    def action_cursor_down(self) -> None:
        self._move(1)

    def action_page_up(self) -> None:
        self._move(-max(self.size.height - 1, 1))

    def action_page_down(self) -> None:
        self._move(max(self.size.height - 1, 1))

    def action_first(self) -> None:
        self._move(-len(self.rowids))

    def action_last(self) -> None:
        self._move(len(self.rowids))

    def on_click(self, event: events.Click) -> None:
        index = event.y + int(self.scroll_offset.y)
        if 0 <= index < len(self.rowids):
            self.cursor = index
        self.focus()

    def notify_style_update(self) -> None:
        # A theme change or a pseudo-class (focus): cached strips carry the old colours.
        self._render_cached.cache_clear()
        super().notify_style_update()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.line_width, len(self.rowids))
        # Not cleared: the cached lines are keyed by their width, and the first layout's
        # Resize arrives after the first frame has drawn them (clearing drew them twice).

    # ---- drawing ------------------------------------------------------------------------

    @property
    def line_width(self) -> int:
        """The columns a line has: the list's width less its scrollbar. Drawn to the full
        width, a long list's lines lost their last two columns under the scrollbar, and a cut
        title its "…" with them."""
        return self.scrollable_content_region.width

    def render_lines(self, crop: Region) -> list[Strip]:
        # Once per frame: fetch what the viewport (and its margin) will need next.
        self._fetch_missing()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_offset.y)
        width = self.line_width
        if not self.rowids and index == 0 and width > 0:
            return self._empty_line(width)
        if index >= len(self.rowids) or width <= 0:
            return Strip.blank(width, self.rich_style)
        row = self._rows.get(self.rowids[index])
        is_cursor = index == self.cursor
        if row is None:
            return self._placeholder(width, is_cursor)
        return self._render_cached(row, width, is_cursor, self.has_focus)

    def _empty_line(self, width: int) -> Strip:
        """The one line an empty list shows: why it is empty and what to do about it."""
        base = self.rich_style
        hint = fit_title(f" {self.empty_hint}", width)
        return Strip([Segment(hint, base + self._text_style("paper-list--dim"))]).crop_extend(
            0, width, base
        )

    def _placeholder(self, width: int, is_cursor: bool) -> Strip:
        base = self.rich_style
        dim = base + self._text_style("paper-list--dim")
        strip = Strip([Segment("      ⋯", dim)]).crop_extend(0, width, base)
        if is_cursor:
            strip = strip.apply_style(self.get_component_rich_style("paper-list--cursor"))
        return strip

    def _render_row(self, row: ListRow, width: int, is_cursor: bool, focused: bool) -> Strip:
        base = self.rich_style
        dim = base + self._text_style("paper-list--dim")
        code = base + self._text_style("paper-list--code")
        # ★ bookmarked, • unread: the two marks a reader scans for; ! a note conflict (two
        # versions kept after a sync: `n` resolves it).
        marks = ("★" if row.bookmarked else " ") + (" " if row.read else "•")
        votes = f"{row.upvotes:>4}" if row.upvotes is not None else "   -"
        segments = [
            Segment(" "),
            Segment("⌥ " if row.has_code else "  ", code),
            Segment(marks, code),
            Segment("!", base + self._text_style("paper-list--warning"))
            if row.note_conflict
            else Segment(" "),
        ]
        if width >= DATE_COLUMN_FROM:
            segments.append(_date_segment(row, dim, self._listed_style(base)))
        segments.append(Segment(f"{votes}▲ ", dim))
        used = sum(segment.cell_length for segment in segments)
        segments.append(Segment(fit_title(printable(row.title), width - used), base))
        strip = Strip(segments).crop_extend(0, width, base)
        if is_cursor:
            cursor_style: Style = self.get_component_rich_style("paper-list--cursor")
            strip = strip.apply_style(cursor_style)
        return strip

    def _listed_style(self, base: Style) -> Style:
        return base + self._text_style("paper-list--listed")

    def _text_style(self, component: str) -> Style:
        # The colour as the theme resolves it over the list's background ("auto 60%" means
        # nothing without one: read partially it came out white on a light theme), without
        # painting a background of its own.
        full = self.get_component_rich_style(component)
        partial = self.get_component_rich_style(component, partial=True)
        return Style(color=full.color) + partial.without_color


def empty_hint(search: str, *, whole_library: bool, everywhere_key: str) -> str:
    """What an empty list says: that the view is empty, or that the search found nothing in
    it (and, outside "All papers", the key that searches the whole library)."""
    words = " ".join(printable(search).split())
    if not words:
        return EMPTY_HINT
    if whole_library:
        return f"No paper matches '{words}'."
    return f"No paper matches '{words}' here — {everywhere_key} searches everywhere."


def fit_title(title: str, cells: int) -> str:
    """`title` in at most `cells` terminal cells: whole when it fits, else cut (after a word
    when that is close to the edge) and ended with "…", so a cut title never passes for a
    whole one. Counts cells, not characters (wide CJK characters take two)."""
    if cells <= 0:
        return ""
    if cell_len(title) <= cells:
        return title
    head = set_cell_size(title, cells - 1).rstrip()
    # set_cell_size pads a wide character that does not fit with a space: stripped above.
    space = head.rfind(" ")
    if space > 0:
        after_word = head[:space].rstrip(" ,;:-–—")
        # A narrow list cannot spare a whole word's gap: at most a fifth of its width.
        if cell_len(after_word) + 1 >= cells - min(TITLE_WORD_SLACK, cells // 5):
            head = after_word
    return head + ELLIPSIS


def _date_segment(row: ListRow, dim: Style, listed: Style) -> Segment:
    """The paper's date; for an undated paper the date of the digest that listed it (what the
    list sorts it by), drawn fainter so it does not pass for a publication date."""
    if row.published:
        return Segment(f"{row.published[:10]:<10} ", dim)
    if row.listed:
        return Segment(f"{row.listed[:10]:<10} ", listed)
    return Segment(" " * 11, dim)
