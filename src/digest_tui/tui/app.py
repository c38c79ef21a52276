"""The digest-tui Textual app: navigation | papers | details.

Attributes go down (the app tells each pane what to show), messages come up (the panes say
what the user highlighted; workers post their results as the messages of `tui/messages.py`).
Every library call runs in a thread worker so the UI never blocks; `exclusive=True` workers
drop stale results when the user types faster than SQLite answers.

Why this module is long: it is the one place that wires the panes, the key bindings and the
workers together; each action is a few lines (a worker calling one LibraryService method and
posting its message), and there are many of them. The panes, screens, messages and the
service each live in their own module already.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import sys
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeGuard

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static, Tree
from textual.worker import Worker, WorkerState, get_current_worker

from digest_tui.config import AppContext
from digest_tui.store.db import interrupted
from digest_tui.store.library import ListRow
from digest_tui.textsafe import printable
from digest_tui.tui import messages as msg
from digest_tui.tui.layout import (
    LAYOUT_CLASSES,
    PANEL_ON_DEMAND_CLASS,
    PANEL_SHOWN_CLASS,
    Layout,
    layout_for_width,
    panel_on_demand,
)
from digest_tui.tui.library_service import LibraryService, ListWindow, Selection
from digest_tui.tui.navigation import (
    SEARCH_EVERYWHERE_KEY,
    SORTS,
    SearchScope,
    ViewPrefs,
    effective_sort,
    first_unread,
    latest_digest_view,
    list_header,
    next_unread,
    search_notes,
    views_after,
)
from digest_tui.tui.notices import ShownNotice, cause_first, notify_text
from digest_tui.tui.panel_pace import PanelPace
from digest_tui.tui.typing_lull import TypingLull
from digest_tui.tui.widgets.key_bar import KeyBar
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList, empty_hint
from digest_tui.tui.widgets.paper_panel import PaperPanel
from digest_tui.tui.widgets.search_box import SearchBox
from digest_tui.tui.widgets.search_notes import SearchNotes

if TYPE_CHECKING:
    from digest_tui.paper_view import PaperView

    # The screens load when first opened, not before the first frame (the editors bring
    # Textual's TextArea): see _showing.
    from digest_tui.tui.screens.editors import NoteEdit, TagEdit
    from digest_tui.tui.screens.lists_screen import ListChosen, ListRenamed
    from digest_tui.tui.screens.paper_screen import PaperScreen

# The longest a worker waits for the first frame before going on without it: a bound, not a
# pace. The frame comes within a second on a quiet machine; on a loaded one (or in a test
# suite beside other processes) it can take seconds, and going on early would put the
# settings' pydantic and the tree's YAML back in its way.
_FIRST_PAINT_WAIT = 30.0

# The longest on_load waits for the first window of rows (view prefs, a screen of rowids and
# rows: ~7 ms of CPU on a quiet machine) before composing without them: a bound, not a pace.
_FIRST_WINDOW_WAIT = 0.5

# Keys that work on the list, the tree or the search box: not offered over the full-screen
# paper, where those panes are hidden (the paper's own keys, `b` `r` `t` `n` `o`..., work).
_LIST_ONLY_ACTIONS = frozenset(
    {
        "search",
        "clear_search",
        "toggle_tree",
        "toggle_panel",
        "read_paper",
        "cycle_sort",
        "move_in_list",
        "remove_from_list",
        "next_repo",
        "previous_repo",
        "search_everywhere",
        "next_unread",
        "mark_all_read",
        "undo_mark_all",
    }
)
# The pane keys bound with priority (they move the focus before the next key is dispatched):
# text in a text field, and nothing over another screen.
_PRIORITY_PANE_ACTIONS = frozenset({"search", "toggle_tree"})


def _showing(screen: object, module: str, name: str) -> bool:
    """Whether `screen` is an instance of the class `name` of the screen module `module`. A
    module never imported has had no instance yet: checking does not import it, so the
    modal screens stay off the start-up path (each check runs on every key, too)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(screen, getattr(loaded, name))


def _paper_screen_shown(screen: object) -> TypeGuard[PaperScreen]:
    return _showing(screen, "digest_tui.tui.screens.paper_screen", "PaperScreen")


class UnreadViewFound(Message):
    """A worker found the next view with unread papers (`.`/`,` ran out in the current one);
    `view` None: there is none."""

    def __init__(
        self, view: Selection | None, unread: int, land: int | None, left: Selection
    ) -> None:
        super().__init__()
        self.view = view
        self.unread = unread
        self.land = land  # the rowid of the unread paper the list opens on
        self.left = left


class DigestApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "digest-tui"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        # A priority binding runs before the next key is dispatched, so text typed right
        # after `/` (a fast typist, or keys batched over SSH) lands in the search box.
        Binding("slash", "search", "Search", priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "clear_search", "Clear search", show=False),
        # Priority too, so a key typed right after Enter goes to the list, not the box.
        Binding("enter", "leave_search", "Back to the list", show=False, priority=True),
        Binding("tab", "focus_next", "Next pane", show=False),
        Binding("shift+tab", "focus_previous", "Previous pane", show=False),
        Binding("o", "open_repo", "Open repo"),
        Binding("O", "open_paper", "Open paper"),
        Binding("right_square_bracket", "next_repo", "Next repo", show=False),
        Binding("left_square_bracket", "previous_repo", "Previous repo", show=False),
        Binding("p", "toggle_panel", "Details panel", show=False),
        # Below 100 columns the tree is hidden: `\` shows it over the list (and focuses it).
        # Priority, as `/`: the focus moves before the next key is sent to a pane, so the `j`s
        # of `\ j j j` typed while the app is busy (its first second) go to the tree, not the
        # list that had the focus when they were read.
        Binding(
            "backslash",
            "toggle_tree",
            "Navigation tree",
            key_display="\\",
            show=False,
            priority=True,
        ),
        Binding("R", "fetch", "Fetch today"),
        Binding("S", "sync", "Sync reading state"),
        Binding("b", "bookmark", "Bookmark"),
        Binding("r", "toggle_read", "Read/unread"),
        Binding("t", "tags", "Tags"),
        Binding("n", "note", "Note"),
        Binding("l", "add_to_list", "Add to list", show=False),
        Binding("x", "remove_from_list", "Remove from list", show=False),
        Binding("L", "manage_lists", "Rename or delete reading lists", show=False),
        Binding("K", "move_in_list(-1)", "Move up in list", show=False),
        Binding("J", "move_in_list(1)", "Move down in list", show=False),
        Binding("s", "cycle_sort", "Sort", show=False),
        # The reading flow (newsboat's): next/previous unread, mark all shown read, undo.
        Binding("full_stop", "next_unread(1)", "Next unread", key_display=".", show=False),
        Binding("comma", "next_unread(-1)", "Previous unread", key_display=",", show=False),
        Binding("A", "mark_all_read", "Mark all shown read", show=False),
        Binding("u", "undo_mark_all", "Undo mark all read", show=False),
        # Works from the search box too (the Input has no ctrl+g of its own).
        Binding("ctrl+g", "search_everywhere", "Search everywhere", show=False),
        Binding("m", "similar", "More similar papers", show=False),
    ]

    def __init__(self, ctx: AppContext | None = None) -> None:
        super().__init__()
        self.ctx = ctx or AppContext()
        self.service = LibraryService(self.ctx)
        # The notices shown this session, newest last (bounded): what the user was told.
        self.notices_shown: deque[ShownNotice] = deque(maxlen=200)
        self.selection = Selection()
        self.search_text = ""
        # The request whose first rows only are shown (its whole list is on the way).
        self._first_rows_of: int | None = None
        self.ready = False
        self.started_at = time.perf_counter()
        self.first_rows_seconds: float | None = None
        # Set when the app is leaving: fetch and sync stop at their next step, and workers
        # drop their results instead of posting them to a closing app.
        self._quitting = threading.Event()
        self.sort: str | None = None
        self._auto_read_timer: Any = None
        # Whether the panel follows a highlight at once or once keys pause (panel_pace.py).
        self._panel_pace = PanelPace()
        # Start-up steps and background jobs wait for a pause in the reader's keys
        # (typing_lull.py), so a word typed at once is not searched behind them.
        self._lull = TypingLull()
        self._first_paint_at: float | None = None  # the lull's clock at the first frame
        # Bumped by each request for a new list: a result for an older request is dropped,
        # so a slow query never overwrites the list of a newer one.
        self._rows_request = 0
        # What the newest request asked for: (view, search text). Its counts follow its list.
        self._rows_asked: tuple[Selection, str] = (Selection(), "")
        self._first_window: Future[tuple[ViewPrefs, ListWindow]] | None = None
        # The first window was read in time and shown by on_mount (set before the start-up
        # worker starts, which then does not send it again).
        self._first_shown = False
        # Set once the first list is on screen: the start-up worker and the panel's first load
        # wait for it, so nothing else (settings, tree counts, the first paper's details)
        # competes with the first frame for the GIL.
        self._first_paint = threading.Event()
        # config.yaml is read once, by whichever worker needs a setting first (_after_first_paint).
        self._settings_lock = threading.Lock()
        self._settings_checked = False
        self.layout_name: Layout | None = None
        # The ids the last "mark all shown read" changed: what `u` puts back.
        self._undo_mark_all: list[str] = []
        # The status bar's line per worker showing one (StatusChanged.source), oldest first.
        self._statuses: dict[str, str] = {}
        # After `.`/`,` moved to another view: (that view's key, step), so its rows open on
        # its first (or last) unread paper.
        self._land_on_unread: tuple[tuple[str, str | None], int] | None = None
        # State changes run in the order their keys were pressed (see _change_state).
        self._state_turn = threading.Condition()
        self._state_tickets = 0
        self._state_serving = 0

    # ---- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The breakpoint's classes from the start: set in on_mount they would restyle every
        # pane once more before the first frame (_apply_layout keeps them current later).
        width = self.size.width
        classes = [LAYOUT_CLASSES[layout_for_width(width)]]
        if panel_on_demand(width):
            classes.append(PANEL_ON_DEMAND_CLASS)
        self.layout_name = layout_for_width(width)
        with Horizontal(id="panes", classes=" ".join(classes)):
            yield NavTree(id="nav")
            with Vertical(id="middle"):
                yield Static(Text("Loading library…"), id="list-title")
                yield SearchBox(
                    placeholder='search: words, "phrase", topic:moe has:code…', id="search"
                )
                yield SearchNotes(id="search-notes")
                yield PaperList(id="papers")
            yield PaperPanel(id="panel")
        yield Static("", id="status")
        # The footer (widgets/key_bar.py) is mounted once the first list is painted and typing
        # pauses (_on_first_paint): nothing but the list goes into the first frame.

    async def on_load(self) -> None:
        import asyncio

        from digest_tui.tui.exit_paths import DaemonThreadExecutor

        # Thread workers run on the loop's default executor: make it one that quitting never
        # waits for (see exit_paths).
        executor = DaemonThreadExecutor()
        asyncio.get_running_loop().set_default_executor(executor)
        # The first screen of the list is read before the widgets are composed, and waited
        # for (a bounded wait: a migration or a slow disk must not keep the layout off the
        # screen): read beside composing, the reading thread waited ~5 ms for the GIL after
        # each SQLite call and the rows came a frame late. Shown in on_mount, they are in the
        # first frame; when late, the start-up worker hands them over instead.
        self._first_window = executor.submit(self._first_view)
        with contextlib.suppress(TimeoutError):
            self._first_window.result(timeout=_FIRST_WINDOW_WAIT)

    def on_mount(self) -> None:
        # From here on a library call on this thread is a bug the service refuses.
        self.service.ui_thread = threading.get_ident()
        self._apply_layout(self.size.width)
        papers = self.main_screen.query_one(PaperList)
        papers.row_source = self.service.rows_by_rowid  # called from the list's own worker
        papers.focus()
        first = self._first_window
        if first is not None and first.done() and first.exception() is None:
            # Read in on_load: the view and its first rows go into the first frame.
            prefs, window = first.result()
            self.on_view_restored(msg.ViewRestored(prefs))
            self._show_rows(window)
            self._first_rows_of = None if window.complete else self._rows_request
            self._first_shown = True
        self._startup()

    def on_resize(self, event: events.Resize) -> None:
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
        """Pick the breakpoint for this width (tui/layout.py); app.tcss draws each one."""
        layout = layout_for_width(width)
        panes = self.main_screen.query_one("#panes", Horizontal)
        on_demand = panel_on_demand(width)
        if on_demand != panes.has_class(PANEL_ON_DEMAND_CLASS):
            panes.set_class(on_demand, PANEL_ON_DEMAND_CLASS)
            # Shown by `p` for this stretch of widths only: hidden again next time.
            self.main_screen.query_one(PaperPanel).remove_class(PANEL_SHOWN_CLASS)
            if on_demand and isinstance(self.main_screen.focused, PaperPanel):
                self.main_screen.set_focus(self.main_screen.query_one(PaperList))
        if layout == self.layout_name:
            return
        self.layout_name = layout
        for name, css_class in LAYOUT_CLASSES.items():
            panes.set_class(name == layout, css_class)
        if layout != "narrow":
            panes.remove_class("-tree-open")
        main = self.main_screen
        if layout == "narrow" and isinstance(main.focused, PaperPanel | NavTree):
            # A pane that just disappeared cannot keep the keys: they go to the list.
            main.set_focus(main.query_one(PaperList))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and (
            event.key == "slash" or isinstance(self.focused, Input)
        ):
            # Typing (a search, a tag, a note) holds the start-up's next steps; moving around
            # does not: `\` and `j` want the tree the start-up fills.
            self._lull.key_pressed()
        await super().on_event(event)

    async def _on_message(self, message: Message) -> None:
        # A worker's result that arrives while the app is closing (its screens already gone)
        # has no pane left to show it in: drop it rather than fail on `main_screen`.
        if not self.screen_stack and not isinstance(message, events.Event):
            return
        await super()._on_message(message)

    @property
    def main_screen(self) -> Screen[Any]:
        """The screen holding the panes. `App.query_one` searches only the screen on top, so
        with the full-screen paper or an editor open a worker's result (a reloaded paper, a
        fetch's new rows) would find no pane: every pane is looked up here instead."""
        return self.screen_stack[0]

    def notify_text(
        self, message: str, *, severity: Any = "information", timeout: float | None = None
    ) -> None:
        """Every message the app shows goes here: literal text, never markup."""
        self.notices_shown.append(notify_text(self, message, severity=severity, timeout=timeout))

    def _send(self, message: Message) -> None:
        """From a worker: hand a result to the UI thread, unless the app is leaving. Posting
        never waits for the UI, so a worker is never stuck behind a closing app."""
        if not self._quitting.is_set():
            self.post_message(message)

    def _notify_from_thread(
        self, text: str, *, severity: str = "information", timeout: float | None = None
    ) -> None:
        self._send(msg.Notice(text, severity, timeout))

    def on_notice(self, message: msg.Notice) -> None:
        self.notify_text(message.text, severity=message.severity, timeout=message.timeout)

    def on_status_changed(self, message: msg.StatusChanged) -> None:
        # The newest line of the workers still running: a fetch's progress stays on screen
        # when the similarity index, built meanwhile, is done.
        self._statuses.pop(message.source, None)
        if message.text:
            self._statuses[message.source] = message.text
        self.set_status(next(reversed(self._statuses.values()), ""))

    def on_clipboard_copy(self, message: msg.ClipboardCopy) -> None:
        self.copy_to_clipboard(message.text)

    # ---- loading ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="startup", exit_on_error=False)
    def _startup(self) -> None:
        def progress(message: str) -> None:
            self._notify_from_thread(message, timeout=4)

        # The first screen before anything else: the view left last time, the first rowids
        # of its order off an index and their rows (the rest of the order, the sample load,
        # re-enrichment and tree counts come after the first frame).
        request = self._rows_request
        if self._first_window is not None:
            prefs, first = self._first_window.result()
        else:
            prefs, first = self._first_view()
        if not self._first_shown:  # else on_mount showed them
            self._send(msg.ViewRestored(prefs))
            self._send(msg.RowsLoaded(first, request))
        if not first.complete:
            # The whole order once the first screen is painted (50,000 rowids: ~30 ms of the
            # GIL to copy out); the list's count arrives with it. Asked again rather than
            # kept open: an open statement would hold the list's connection meanwhile.
            self._first_paint.wait(timeout=_FIRST_PAINT_WAIT)
            self._lull.wait(self._quitting, since=self._first_paint_at)  # a search makes it moot
            if request == self._rows_request:
                whole = self.service.list_window(prefs.selection or Selection(), "", prefs.sort)
                if request == self._rows_request:
                    self._send(msg.RowsLoaded(whole, request))
        self._after_first_paint()  # everything below: the sample, tree counts, re-enrichment
        since = self._first_paint_at  # the steps share one bound on waiting for a pause
        self._lull.wait(self._quitting, since)
        self.service.startup(progress)
        self._lull.wait(self._quitting, since)
        tree = self.service.tree_data()
        self._report_data_file_problems()
        if prefs.selection is None and tree.today is not None:
            # A first launch opens the newest digest ("Today" when it is today's, else "Latest
            # digest DATE"): known only now that the start-up has loaded the sample.
            today = dt.date.today().isoformat()
            view = latest_digest_view(tree.today.date, today)
            self._send(msg.ViewRestored(replace(prefs, selection=view)))
        theme = self.service.theme()
        self._lull.wait(self._quitting, since)  # the tree is filled on the UI thread
        self._send(msg.LibraryReady(tree, theme))
        # Last, on a connection of its own and holding no lock: the list, search and marks
        # stay usable while papers are re-enriched after a taxonomy or catalog change; each
        # batch waits for a pause in typing.
        if self.service.reenrich(progress, pause=self._pause_for_keys):
            self._send(msg.TreeLoaded(self.service.tree_data()))

    def _first_view(self) -> tuple[ViewPrefs, ListWindow]:
        """(In a thread.) The view left last time (node, sort, panel) with the first window of
        its rows: only the first WINDOW_ROWS of a long list's order (`complete=False`), read
        off an index; a first launch (no view remembered) shows "All papers" until the
        start-up says which digest is the newest."""
        prefs = self.service.view_prefs()
        selection = prefs.selection or Selection()
        with contextlib.closing(self.service.list_windows(selection, "", prefs.sort)) as steps:
            return prefs, next(steps)

    def on_view_restored(self, message: msg.ViewRestored) -> None:
        prefs = message.prefs
        self.selection, self.sort = prefs.selection or Selection(), prefs.sort
        self.main_screen.query_one(PaperPanel).set_class(prefs.panel_hidden, "hidden")

    def _after_first_paint(self) -> None:
        """(In a worker: the start-up one and the paper loads.) Wait for the first list on
        screen, so nothing competes with that frame for the GIL (bounded: a list that is
        never painted, say an app closing at once, must not keep the library from loading);
        then read config.yaml, once, by whichever worker gets here first: a typo in it is
        said on screen (file, line, field) and the app goes on without the wrong entries (a
        machine, a setting), rather than stopping at the first key that reads a setting. Not
        before the first frame: the settings' models bring pydantic (~60 ms), and the list does
        not need them."""
        self._first_paint.wait(timeout=_FIRST_PAINT_WAIT)
        if not self._settings_checked:
            # The settings' import holds the GIL ~60 ms.
            self._lull.wait(self._quitting, self._first_paint_at)
        with self._settings_lock:
            if self._settings_checked:
                return
            self._settings_checked = True
            if "settings" in vars(self.ctx):
                return  # loaded already (a test, or a caller that made the context)
            from digest_tui.config import load_settings_leaving_out_mistakes

            settings, problem = load_settings_leaving_out_mistakes(self.ctx.paths)
            self.ctx.settings = settings
            if problem is not None:
                self._notify_from_thread(problem, severity="error", timeout=30)

    def _report_data_file_problems(self) -> None:
        """(In the start-up worker, once the tree has loaded the taxonomy.) A user
        taxonomy.yaml that is invalid was set aside for the built-in one: say which file, line
        and problem, as a config.yaml typo is (_load_settings)."""
        enricher = self.service.library.enricher
        for problem in enricher.problems if enricher is not None else []:
            self._notify_from_thread(problem, severity="error", timeout=30)

    def on_library_ready(self, message: msg.LibraryReady) -> None:
        theme = self._start_theme(message.theme)
        if theme:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if not self._populate_tree(message.tree):
            self.refresh_rows()  # the start-up may have loaded the sample or re-enriched papers
        self.ready = True
        self._build_similar_index()
        if self.ctx.settings.sync_on_start:
            self._sync(quiet_if_unconfigured=True)
        days = self.ctx.settings.fetch_on_start_days
        if days:
            self._fetch(since=(dt.date.today() - dt.timedelta(days=days - 1)).isoformat())

    @work(thread=True, exclusive=True, group="tree", exit_on_error=False)
    def refresh_tree(self) -> None:
        self._send(msg.TreeLoaded(self.service.tree_data()))

    def on_tree_loaded(self, message: msg.TreeLoaded) -> None:
        self._populate_tree(message.tree)

    def _start_theme(self, remembered: str | None) -> str | None:
        """The theme to start with: config.yaml's `theme` when it names one (the reader wrote
        it down, so it wins over the palette's last pick), else the theme last picked in the
        palette. A name that is no theme is said on screen, with the names there are, and the
        app goes on as if it were unset."""
        configured = self.ctx.settings.theme
        if configured and configured in self.available_themes:
            return configured
        if configured:
            names = ", ".join(sorted(self.available_themes))
            self.notify_text(
                f"{self.ctx.paths.config_file}: theme: {configured!r} is not a theme; "
                f"one of: {names}. Using the last theme picked in the palette, or the default.",
                severity="error",
                timeout=30,
            )
        if remembered and remembered in self.available_themes:
            return remembered
        return None

    def _remember_theme(self, theme: Any) -> None:
        self._save_theme(theme.name)

    @work(thread=True, group="meta", exit_on_error=False)
    def _save_theme(self, name: str) -> None:
        self.service.save_theme(name)

    def set_status(self, message: str) -> None:
        status = self.main_screen.query_one("#status", Static)
        status.update(Text(printable(message)))
        status.set_class(bool(message), "visible")

    def _load_rows(
        self,
        selection: Selection,
        search: str,
        keep: int | str | None,
        previous: Sequence[int] = (),
    ) -> None:
        """Ask for a new list; the cursor stays on `keep` (a rowid or a paper id), or when it
        left the view on its nearest neighbour in `previous` (the list shown before)."""
        self._rows_request += 1
        self._rows_asked = (selection, search)
        self._load_window(selection, search, keep, previous, self._rows_request)

    # Not exclusive: cancelling cannot stop a thread anyway. Stale work is skipped instead:
    # a request that a newer keystroke has replaced does not query, and its result (if it
    # was already running) is dropped by on_rows_loaded.
    @work(thread=True, group="rows", exit_on_error=False)
    def _load_window(
        self,
        selection: Selection,
        search: str,
        keep: int | str | None,
        previous: Sequence[int],
        request: int,
    ) -> None:
        if request != self._rows_request:
            return
        if keep is None and not previous:
            # A new list with the cursor on top (a keystroke, a view): its first rows are
            # sent before the whole order, which can be 100,000 rowids (list_windows).
            with contextlib.closing(
                self.service.list_windows(selection, search, self.sort)
            ) as steps:
                for window in steps:
                    if request != self._rows_request:
                        return
                    self._send(msg.RowsLoaded(window, request))
        else:
            window = self.service.list_window(selection, search, self.sort, keep, previous)
            if request != self._rows_request:
                return
            self._send(msg.RowsLoaded(window, request))

    def on_rows_loaded(self, message: msg.RowsLoaded) -> None:
        if message.request != self._rows_request:
            return  # the list of an older request (typing ran ahead of it)
        if self._keystroke_pending():
            # A key already in the box has not been searched yet (a burst: its Changed is
            # still queued behind this answer): painting would show a list replaced at once.
            return
        if message.window.complete and self._first_rows_of == message.request:
            # The rest of the list whose first rows are on screen: cursor and rows stay.
            self._first_rows_of = None
            self.main_screen.query_one(PaperList).extend_window(message.window.rowids)
            self._show_list_header(len(message.window.rowids), None)
        else:
            self._first_rows_of = None if message.window.complete else message.request
            self._show_rows(message.window)
        selection, search = self._rows_asked
        if search.strip():
            self._load_scope_after_pause(selection, search, message.request)
        else:
            # No counts for a list without a search: an older search's wait is dropped.
            self.workers.cancel_group(self, "scope-pause")

    @work(exclusive=True, group="scope-pause", exit_on_error=False)
    async def _load_scope_after_pause(
        self, selection: Selection, search: str, request: int
    ) -> None:
        """A search's counts (a count(*) of the view, and of the library when the view is
        narrower) once keys pause: they cost more CPU than the list itself, and a key's frame
        must not share the GIL with the counts of the key before. Each newer list replaces
        this worker, cancelling its wait, as the panel's pause does (`_load_panel_later`),
        and the pause is the panel's."""
        await asyncio.sleep(self._panel_pace.settle_s)
        if request == self._rows_request:
            self._load_scope(selection, search, request)

    @work(thread=True, group="scope", exit_on_error=False)
    def _load_scope(self, selection: Selection, search: str, request: int) -> None:
        if request != self._rows_request:
            return
        scope = self.service.search_scope(selection, search)
        if request == self._rows_request:
            self._send(msg.ScopeLoaded(scope, request))

    def _keystroke_pending(self) -> bool:
        """Whether the search box holds text the app has not asked for a list yet."""
        return self.main_screen.query_one("#search", Input).value != self.search_text

    def on_scope_loaded(self, message: msg.ScopeLoaded) -> None:
        if message.request == self._rows_request:
            count = self.main_screen.query_one(PaperList).count
            self._show_list_header(count, message.scope)

    def _show_rows(self, window: ListWindow) -> None:
        if self.first_rows_seconds is None:
            self.first_rows_seconds = time.perf_counter() - self.started_at
            self.call_after_refresh(self._on_first_paint)
        papers = self.main_screen.query_one(PaperList)
        papers.empty_hint = empty_hint(
            self.search_text,
            whole_library=self.selection.kind == "all",
            everywhere_key=SEARCH_EVERYWHERE_KEY,
        )
        papers.set_window(window.rowids, window.rows, cursor=window.cursor, start=window.start)
        if window.complete:  # else the count is not known yet: the whole list says it
            self._show_list_header(len(window.rowids), None)
        if not window.rowids:
            self.main_screen.query_one(PaperPanel).show_paper(None)

    def _on_first_paint(self) -> None:
        """The first list is on screen: the workers waiting for it go on, and the footer
        follows once keys pause."""
        if not self.screen_stack:
            return  # closing already
        self._lull.hold()  # keys sent the moment the list shows are on their way
        self._first_paint_at = self._lull.now()
        self._first_paint.set()
        self._mount_footer()

    @work(exclusive=True, group="footer", exit_on_error=False)
    async def _mount_footer(self) -> None:
        """The footer, in a pause of typing: mounting it lays out and repaints the whole
        screen (~40 ms at 160x48), which a key typed meanwhile would wait behind."""
        await self._lull.wait_async()
        if not self.screen_stack:
            return  # closing already
        from textual.widget import MountError

        screen = self.main_screen
        try:
            await screen.mount(KeyBar())
        except MountError:
            return  # the app is leaving (quit at the first frame): the screen is going away

    def refresh_rows(self) -> None:
        papers = self.main_screen.query_one(PaperList)
        keep = papers.rowids[papers.cursor] if papers.cursor < papers.count else None
        self._load_rows(self.selection, self.search_text, keep, papers.rowids)

    @work(thread=True, exclusive=True, group="paper", exit_on_error=False)
    def _load_paper(self, paper_id: str) -> None:
        self._after_first_paint()  # the first paper's details, and the modules they bring
        paper = self.service.paper(paper_id)
        health = self.service.cached_health(paper) if paper else {}
        self._send(msg.PaperLoaded(paper, health))

    def on_paper_loaded(self, message: msg.PaperLoaded) -> None:
        paper = message.paper
        if self._overtaken(paper):
            # Typing moved the cursor to another paper since this one was asked for (a burst
            # of keys): drawing it would cost a render and a layout pass for a panel that is
            # replaced at once; the newer paper's load is already under way.
            return
        panel = self.main_screen.query_one(PaperPanel)
        panel.health = message.health
        panel.show_paper(paper)
        if _paper_screen_shown(self.screen) and paper is not None:
            self.screen.show_paper(paper, message.health)  # a key there changed the paper
        self._schedule_auto_read(paper)
        if paper is not None and paper.repos and self.ctx.settings.repo_health:
            self._refresh_health(paper)
        if paper is not None:
            self._load_extras(paper)  # similar, weights & data, readiness (paper_extras.py)

    def _overtaken(self, paper: PaperView | None) -> bool:
        """Whether a paper loaded for the panel is no longer the one under the list's cursor
        (the full-screen paper is always current: keys there reload it)."""
        if paper is None or _paper_screen_shown(self.screen):
            return False
        current = self.main_screen.query_one(PaperList).current
        return current is not None and current.id != paper.id

    def _schedule_auto_read(self, paper: PaperView | None) -> None:
        """With `auto_read_seconds` set, a paper left open that long is marked read."""
        if self._auto_read_timer is not None:
            self._auto_read_timer.stop()
            self._auto_read_timer = None
        delay = self.ctx.settings.auto_read_seconds
        if not delay or paper is None or paper.read:
            return
        paper_id = paper.id

        def mark() -> None:
            current = self.main_screen.query_one(PaperPanel).paper
            if current is not None and current.id == paper_id and not current.read:
                self._change_state("", self.service.set_read, paper_id, True)

        self._auto_read_timer = self.set_timer(delay, mark)

    @work(thread=True, exclusive=True, group="health", exit_on_error=False)
    def _refresh_health(self, paper: PaperView) -> None:
        """Fetch stars, licence and last push in the background; cached figures show first."""
        health = self.service.refresh_health(paper)
        if health:
            self._send(msg.HealthLoaded(paper.id, health))

    def on_health_loaded(self, message: msg.HealthLoaded) -> None:
        panel = self.main_screen.query_one(PaperPanel)
        if panel.paper is not None and panel.paper.id == message.paper_id:
            panel.health = message.health
            panel.refresh_view()

    # ---- messages up --------------------------------------------------------------------

    @on(Tree.NodeHighlighted, "#nav")
    def _on_nav(self, event: Tree.NodeHighlighted[Selection]) -> None:
        selection = event.node.data
        # Before the library is ready the tree is empty and highlights its hidden root (data
        # "All papers"): that must not replace the view the start-up worker restored.
        if not self.ready or selection is None or selection.key == self.selection.key:
            return
        self.selection = selection
        keep: int | None = None
        if self._land_on_unread is not None and self._land_on_unread[0] == selection.key:
            keep = self._land_on_unread[1]  # `.`/`,` came here: open on that unread paper
        self._land_on_unread = None
        self._load_rows(selection, self.search_text, keep)
        self._remember_view()

    @on(PaperList.Highlighted)
    def _on_paper(self, event: PaperList.Highlighted) -> None:
        if event.row is None:
            return
        typing = self.focused is not None and self.focused.id == "search"
        at_once = self._panel_pace.at_once(typing=typing)
        shown = self.main_screen.query_one(PaperPanel).paper
        # A new search often keeps the same paper on top: no need to reload and redraw it.
        if shown is not None and shown.id == event.row.id:
            self._cancel_panel_later()
            return
        if at_once:
            self._cancel_panel_later()
            self._load_paper(event.row.id)
        else:
            # A burst (typing, a held key): its panel loads would compete with the next
            # key's list for the GIL; the paper under the cursor once keys pause is loaded.
            self._load_panel_later()

    @work(exclusive=True, group="panel-pause", exit_on_error=False)
    async def _load_panel_later(self) -> None:
        """The paper under the cursor once no highlight came for the pacer's pause (each new
        one replaces this worker, cancelling its wait)."""
        await asyncio.sleep(self._panel_pace.settle_s)
        self._load_current_paper()

    def _cancel_panel_later(self) -> None:
        self.workers.cancel_group(self, "panel-pause")

    def _load_current_paper(self) -> None:
        """Load the paper under the list's cursor into the panel, unless it is there."""
        row = self.main_screen.query_one(PaperList).current
        shown = self.main_screen.query_one(PaperPanel).paper
        if row is not None and (shown is None or shown.id != row.id):
            self._load_paper(row.id)

    @on(Input.Changed, "#search")
    def _on_search(self, event: Input.Changed) -> None:
        # Every keystroke searches: a query is ordered rowids plus one screen of rows, a few
        # ms at 100,000 papers, so no debounce; a newer keystroke's list replaces older ones.
        if event.value != event.input.value:
            # Keys that arrived in one read (a word pasted, typed ahead over SSH, a terminal
            # that batches input) are all in the box before the first Changed gets here: only
            # the last Changed, whose value is the box's, starts a search.
            return
        self.search_text = event.value
        self._load_rows(self.selection, self.search_text, None)

    # ---- actions ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `/` and `\` typed into a text field (the search box, a tag or note editor) are text.
        if action in _PRIORITY_PANE_ACTIONS and (
            isinstance(self.focused, Input)
            or _showing(self.focused, "textual.widgets._text_area", "TextArea")
        ):
            return False
        if action in _PRIORITY_PANE_ACTIONS and self.screen is not self.main_screen:
            # Priority bindings: over help or the lists screen `/` opened the search box
            # behind the dialog, which then kept neither the keys nor its own focus.
            return False
        if _paper_screen_shown(self.screen) and action in _LIST_ONLY_ACTIONS:
            return False  # they act on panes hidden under the full-screen paper
        if action == "leave_search":
            # Only from the search box; Enter elsewhere (a tree node, an editor) is theirs.
            return self.focused is not None and self.focused.id == "search"
        return True

    def action_leave_search(self) -> None:
        self.screen.set_focus(self.main_screen.query_one(PaperList))
        # Typing is over: the panel shows the paper under the cursor now, not after the pause
        # (keys such as `o` act on the panel's paper).
        self._cancel_panel_later()
        self._load_current_paper()

    def action_search(self) -> None:
        search = self.main_screen.query_one("#search", Input)
        search.add_class("visible")
        # Focus now, not after the next refresh: keys typed right after `/` belong to the box.
        search.display = True
        self.screen.set_focus(search)

    def action_clear_search(self) -> None:
        panes = self.main_screen.query_one("#panes", Horizontal)
        if panes.has_class("-tree-open"):  # escape first closes the tree shown over the list
            self._close_tree()
            return
        search = self.main_screen.query_one("#search", Input)
        if search.value:
            search.value = ""  # Input.Changed reloads the list
        search.remove_class("visible")
        search.display = False
        self.screen.set_focus(self.main_screen.query_one(PaperList))

    def action_help(self) -> None:
        from digest_tui.tui.screens.help import HelpScreen, active_bindings, help_entries

        self.push_screen(HelpScreen(help_entries(active_bindings(self.screen))))

    def get_system_commands(self, screen: Any) -> Any:
        """Every app action in the command palette (ctrl+p), generated from the bindings so
        the palette and the keys can never disagree (tui/screens/help.py words them)."""
        from digest_tui.tui.screens.help import palette_commands

        builtin = super().get_system_commands(screen)
        yield from palette_commands(
            self, builtin, lambda action: self.call_later(self.run_action, action)
        )

    def action_toggle_tree(self) -> None:
        panes = self.main_screen.query_one("#panes", Horizontal)
        if self.layout_name != "narrow":
            # The tree is on screen already: the key just takes the user there.
            self.screen.set_focus(self.main_screen.query_one(NavTree))
            return
        if panes.has_class("-tree-open"):
            self._close_tree()
        else:
            panes.add_class("-tree-open")
            self.screen.set_focus(self.main_screen.query_one(NavTree))

    def _close_tree(self) -> None:
        self.main_screen.query_one("#panes", Horizontal).remove_class("-tree-open")
        self.screen.set_focus(self.main_screen.query_one(PaperList))

    @on(Tree.NodeSelected, "#nav")
    def _on_nav_selected(self, event: Tree.NodeSelected[Selection]) -> None:
        # Enter on a node shown over the list: the list behind it is what the user wants now.
        if self.main_screen.query_one("#panes", Horizontal).has_class("-tree-open"):
            self._close_tree()

    def action_read_paper(self) -> None:
        """Enter on the list: the highlighted paper full screen (loaded in a worker)."""
        row = self.main_screen.query_one(PaperList).current
        if row is not None:
            self._prepare_paper_screen(row.id)

    @work(thread=True, exclusive=True, group="paper-screen", exit_on_error=False)
    def _prepare_paper_screen(self, paper_id: str) -> None:
        paper = self.service.paper(paper_id)
        health = self.service.cached_health(paper) if paper else {}
        self._send(msg.PaperScreenReady(paper, health))

    def on_paper_screen_ready(self, message: msg.PaperScreenReady) -> None:
        if message.paper is not None and not _paper_screen_shown(self.screen):
            from digest_tui.tui.screens.paper_screen import PaperScreen

            screen = PaperScreen(message.paper, message.health)
            extras = self.main_screen.query_one(PaperPanel).extras
            if extras is not None and extras.paper_id == message.paper.id:
                screen.extras = extras  # similar, weights & data, readiness already loaded
            self.push_screen(screen)

    def open_checked_url(self, url: str) -> None:
        """A link the user clicked in text shown by a screen (a note's Markdown): opened only
        through the same checks as every other URL (http(s) only)."""
        self._open(url)

    def action_toggle_panel(self) -> None:
        panel = self.main_screen.query_one(PaperPanel)
        if self.main_screen.query_one("#panes").has_class(PANEL_ON_DEMAND_CLASS):
            # Too narrow for the panel by default (tui/layout.py): `p` shows it for now, and
            # the choice remembered for wider terminals stays as it was.
            panel.toggle_class(PANEL_SHOWN_CLASS)
            return
        panel.toggle_class("hidden")
        self._remember_view()

    def action_next_repo(self) -> None:
        self._cycle_repo(1)

    def action_previous_repo(self) -> None:
        self._cycle_repo(-1)

    def _cycle_repo(self, step: int) -> None:
        panel = self.main_screen.query_one(PaperPanel)
        if panel.paper is not None and not panel.paper.repos:
            # Said, not silent: a key that does nothing looks broken.
            self.notify_text("This paper has no linked code.", severity="warning")
            return
        panel.cycle_repo(step)

    def action_open_repo(self) -> None:
        repo = self.main_screen.query_one(PaperPanel).current_repo
        if repo is None:
            self.notify_text("This paper has no linked code.", severity="warning")
            return
        self._open(repo.url)

    def action_open_paper(self) -> None:
        paper = self.main_screen.query_one(PaperPanel).paper
        if paper is not None:
            self._open(paper.page_url)

    @work(thread=True, group="open", exit_on_error=False)
    def _open(self, url: str) -> None:
        from digest_tui.urls import open_url

        # Without a browser (over SSH) the URL goes to the terminal's clipboard through
        # Textual's own driver, so the OSC 52 bytes never interleave with a screen update.
        result = open_url(url, writer=lambda _osc52: self._send(msg.ClipboardCopy(url)))
        severity = "error" if result.action == "refused" else "information"
        self._notify_from_thread(result.message, severity=severity)

    # ---- the user's state --------------------------------------------------------------

    def _current_paper(self) -> PaperView | ListRow | None:
        """The paper a key acts on, read when the key is dispatched: the one shown full screen,
        else the list's cursor row. Not the panel's paper: it is loaded by a worker and lags
        behind the cursor, so `j` then `b` typed in one burst bookmarked the paper above."""
        paper: PaperView | ListRow | None
        if _paper_screen_shown(self.screen):
            paper = self.screen.paper
        else:
            paper = self.main_screen.query_one(PaperList).current
        if paper is None:
            self.notify_text("No paper selected.", severity="warning")
        return paper

    def _change_state(self, done: str, change: Callable[..., Any], *args: Any) -> None:
        """Queue one LibraryService change. Changes run in worker threads but in the order
        their keys were pressed: each takes a ticket here, on the UI thread, and its worker
        waits for its turn (two threads racing for the library lock could swap `b` `b`)."""
        ticket = self._state_tickets
        self._state_tickets += 1
        self._run_state_change(ticket, done, change, *args)

    @work(thread=True, group="state", exit_on_error=False)
    def _run_state_change(
        self, ticket: int, done: str, change: Callable[..., Any], *args: Any
    ) -> None:
        """Run one change; it is committed when this returns. A failure is shown, never
        swallowed, and nothing else is lost (each change is its own transaction)."""
        import sqlite3

        from digest_tui.errors import StateError

        with self._state_turn:
            while self._state_serving != ticket and not self._quitting.is_set():
                self._state_turn.wait(timeout=0.5)
        try:
            if self._quitting.is_set():
                return
            try:
                result = change(*args)
            except (StateError, sqlite3.Error, OSError) as exc:
                self._notify_from_thread(f"Not saved: {exc}", severity="error", timeout=10)
                return
            if isinstance(result, msg.MarkedRead):
                self._send(result)
                if not result.paper_ids:
                    return
            if isinstance(result, str):
                done = result  # a toggle says what it did once it knows
            if done:
                self._notify_from_thread(done, timeout=3)
            self._send(msg.StateSaved())
        finally:
            with self._state_turn:
                self._state_serving = max(self._state_serving, ticket + 1)
                self._state_turn.notify_all()

    def on_state_saved(self, message: msg.StateSaved) -> None:
        self._after_state_change()

    def _after_state_change(self) -> None:
        paper = self.main_screen.query_one(PaperPanel).paper
        if paper is not None:
            self._load_paper(paper.id)
        self.refresh_tree()
        self.refresh_rows()

    def action_bookmark(self) -> None:
        paper = self._current_paper()
        if paper is not None:
            self._change_state("", self._toggle_bookmark, paper.id)

    def action_toggle_read(self) -> None:
        paper = self._current_paper()
        if paper is not None:
            self._change_state("", self._toggle_read, paper.id)

    def _toggle_bookmark(self, paper_id: str) -> str:
        # Toggled from the state the library has when the change runs, not from a row drawn
        # before: `b` `b` in one burst bookmarks and unbookmarks.
        on = self.service.toggle_bookmark(paper_id)
        return "Bookmarked." if on else "Unbookmarked."

    def _toggle_read(self, paper_id: str) -> str:
        self.service.toggle_read(paper_id)
        return ""

    # The editors open once a worker has read what they offer (known tags, the note, the
    # lists): the library may be busy for a while, and the UI must not wait for it.

    def action_tags(self) -> None:
        paper = self._current_paper()
        if paper is not None:
            self._prepare_tag_editor(paper.id)

    @work(thread=True, group="editor", exit_on_error=False)
    def _prepare_tag_editor(self, paper_id: str) -> None:
        paper = self.service.paper(paper_id)
        if paper is not None:
            self._send(msg.TagEditorReady(paper, self.service.known_tags()))

    def on_tag_editor_ready(self, message: msg.TagEditorReady) -> None:
        from digest_tui.tui.screens.editors import TagScreen

        paper = message.paper

        def apply(edit: TagEdit | None) -> None:
            if edit is not None:
                self._change_state(
                    "Tags saved.", self.service.edit_tags, paper.id, edit.add, edit.remove
                )

        screen = TagScreen(paper.title, list(paper.tags), message.known_tags)
        self.push_screen(screen, apply)

    def action_note(self) -> None:
        paper = self._current_paper()
        if paper is not None:
            self._prepare_note_editor(paper.id)

    @work(thread=True, group="editor", exit_on_error=False)
    def _prepare_note_editor(self, paper_id: str) -> None:
        paper = self.service.paper(paper_id)
        if paper is not None:
            self._send(msg.NoteEditorReady(paper, self.service.note(paper.id)))

    def on_note_editor_ready(self, message: msg.NoteEditorReady) -> None:
        from digest_tui.tui.screens.editors import NoteScreen

        paper, note = message.paper, message.note
        shown = note.text or ""
        others = [v.text for v in note.versions if v.version != note.version and v.text]
        versions = [v.version for v in note.versions]

        def apply(edit: NoteEdit | None) -> None:
            if edit is not None:
                done = "Note saved." if edit.text.strip() else "Note deleted."
                self._change_state(done, self.service.save_note, paper.id, edit.text, edit.replaces)

        self.push_screen(NoteScreen(paper.title, shown, versions, others), apply)

    def action_add_to_list(self) -> None:
        paper = self._current_paper()
        if paper is not None:
            self._prepare_list_picker(paper.id)

    @work(thread=True, group="editor", exit_on_error=False)
    def _prepare_list_picker(self, paper_id: str) -> None:
        paper = self.service.paper(paper_id)
        if paper is not None:
            self._send(msg.ListPickerReady(paper, self.service.list_names()))

    def on_list_picker_ready(self, message: msg.ListPickerReady) -> None:
        from digest_tui.tui.screens.editors import ListPickScreen

        paper = message.paper

        def apply(name: str | None) -> None:
            if name is not None:
                self._change_state(f"Added to {name}.", self.service.add_to_list, name, paper.id)

        self.push_screen(ListPickScreen(paper.title, message.list_names), apply)

    def action_manage_lists(self) -> None:
        from digest_tui.tui.screens.lists_screen import ListsScreen

        self.push_screen(ListsScreen(self.service))

    def on_list_renamed(self, message: ListRenamed) -> None:
        """The list being viewed was renamed (`L`): the view follows it to its new name."""
        if self.selection.key == ("list", message.old):
            self.selection = Selection("list", message.new, f"Reading lists: {message.new}")
            self._remember_view()

    def on_list_chosen(self, message: ListChosen) -> None:
        """Enter on a list in the lists screen (`L`): the tree moves to it, the list follows."""
        tree = self.main_screen.query_one(NavTree)
        node = tree.find(Selection("list", message.name))
        if node is not None:
            tree.move_cursor(node)  # NodeHighlighted loads its rows

    def action_remove_from_list(self) -> None:
        paper = self._current_paper()
        if paper is None:
            return
        if self.selection.kind != "list" or self.selection.value is None:
            self.notify_text(
                "Open a reading list in the navigation pane first.", severity="warning"
            )
            return
        name = self.selection.value
        self._change_state(f"Removed from {name}.", self.service.remove_from_list, name, paper.id)

    def action_move_in_list(self, step: int) -> None:
        papers = self.main_screen.query_one(PaperList)
        current = papers.current
        if self.selection.kind != "list" or self.selection.value is None:
            self.notify_text(
                "J and K move a paper within a reading list: open one in the navigation pane "
                "first.",
                severity="warning",
            )
            return
        if current is None:
            return
        target = papers.cursor + step
        neighbour_row = papers.row_at(target)
        if neighbour_row is None:
            return
        name = self.selection.value
        # Place it on the other side of its neighbour.
        neighbour = neighbour_row.id
        if step < 0:
            self._change_state("", self._move_before, name, current.id, neighbour)
        else:
            self._change_state("", self._move_after, name, current.id, neighbour)

    def _move_before(self, name: str, paper_id: str, neighbour: str) -> None:
        self.service.move_in_list(name, paper_id, before=neighbour)

    def _move_after(self, name: str, paper_id: str, neighbour: str) -> None:
        self.service.move_in_list(name, paper_id, after=neighbour)

    def action_cycle_sort(self) -> None:
        index = SORTS.index(self.sort) if self.sort in SORTS else -1
        self.sort = SORTS[(index + 1) % len(SORTS)]
        self.notify_text(f"Sorted by {self.sort}.", timeout=2)
        self.refresh_rows()
        self._remember_view()

    def action_fetch(self) -> None:
        self._fetch()

    @work(thread=True, exclusive=True, group="fetch", exit_on_error=False)
    def _fetch(self, since: str | None = None) -> None:
        """Fetch from the Hugging Face API on a connection of its own: the UI keeps reading
        the library (WAL lets readers go on while this writes)."""
        from digest_tui.service import fetch_sources
        from digest_tui.sources.hf_fetch import FetchSpec

        def progress(done: int, total: int, label: str) -> None:
            self._send(msg.StatusChanged(f"Fetching {label}… {done}/{total}", "fetch"))

        self._send(msg.StatusChanged("Fetching from Hugging Face…", "fetch"))
        try:
            with self.service.own_library() as library:
                report = fetch_sources(  # Daily Papers, and arXiv if config.yaml says so
                    self.ctx,
                    FetchSpec.build(since=since),
                    library=library,
                    progress=progress,
                    cancel=self._quitting,
                )
        finally:
            self._send(msg.StatusChanged("", "fetch"))
        if self._quitting.is_set():
            return
        severity = "information" if report.ok else "error"
        message = cause_first(report.summary(), report.errors)
        self._notify_from_thread(message, severity=severity, timeout=8)
        # Tree counts, the list and the shown paper (its upvotes or repos may have changed).
        self._send(msg.StateSaved())
        if report.ok:
            self.service.prefetch_artifacts(cancel=self._quitting)  # has:weights, bounded

    def action_sync(self) -> None:
        self._sync()

    @work(thread=True, exclusive=True, group="sync", exit_on_error=False)
    def _sync(self, quiet_if_unconfigured: bool = False) -> None:
        """Exchange reading state with the remote on a connection of its own. A failure is
        reported and changes nothing locally: every local edit stays committed here."""
        from digest_tui.errors import SyncError
        from digest_tui.service import open_library
        from digest_tui.sync.engine import SyncEngine, configured_remote

        def progress(message: str) -> None:
            self._send(msg.StatusChanged(f"Sync: {message}", "sync"))

        self._send(msg.StatusChanged("Sync: starting…", "sync"))
        try:
            with SyncEngine.owning(
                open_library(self.ctx), progress=progress, cancel=self._quitting
            ) as engine:
                if configured_remote(engine.conn) is None:
                    if not quiet_if_unconfigured:
                        self._notify_from_thread(
                            "No sync remote yet: run `digest-tui sync init FOLDER-OR-URL`.",
                            severity="warning",
                        )
                    return
                report = engine.sync()
        except (SyncError, OSError) as exc:
            self._notify_from_thread(f"Sync failed: {exc}", severity="error", timeout=10)
            return
        finally:
            self._send(msg.StatusChanged("", "sync"))
        summary = "; ".join(report.lines()[:3]) or "nothing to do"
        self._notify_from_thread(f"Synced: {summary}", timeout=6)
        if report.changed:
            self._send(msg.StateSaved())

    def _sync_on_quit(self) -> None:
        """Blocking, bounded: the user asked for it in config, and edits must leave with them."""
        from digest_tui.errors import SyncError
        from digest_tui.service import open_library
        from digest_tui.sync.engine import SyncEngine, configured_remote

        try:
            # Bounded: a WebDAV server that is down must not hold quitting for long.
            options = {"timeout": 5, "max_attempts": 2}
            with SyncEngine.owning(open_library(self.ctx), remote_options=options) as engine:
                if configured_remote(engine.conn) is not None:
                    engine.sync()
        except (SyncError, OSError):
            pass  # never block quitting; the next sync sends what is left

    async def action_quit(self) -> None:
        # Workers learn first: fetch and sync stop at their next step, nothing more is posted.
        self._quitting.set()
        self.workers.cancel_all()
        if self.ctx.settings.sync_on_quit:
            self.notify_text("Syncing before quitting…", timeout=2)
            import asyncio

            await asyncio.to_thread(self._sync_on_quit)
        self.exit()

    def on_unmount(self) -> None:
        self._quitting.set()
        self._first_paint.set()  # a worker still waiting for the first frame: go, and drop out
        self.service.close()

    # ---- navigation that stays put ------------------------------------------------------

    def _populate_tree(self, data: Any) -> bool:
        """Rebuild the tree with the cursor on the app's selection (found by its key). When
        that node is gone (its last paper left a tag, a remembered list was deleted), the
        cursor falls back to "All papers" and the list follows it: True then."""
        shown = self.main_screen.query_one(NavTree).populate(data, keep=self.selection)
        if shown is not None and shown.key == self.selection.key and shown != self.selection:
            # The same view under a new name (the latest digest became today's): say it.
            self.selection = shown
            if not self.search_text.strip():  # a search's header waits for its own rows
                self._show_list_header(len(self.main_screen.query_one(PaperList).rows), None)
        elif shown is not None and shown.key != self.selection.key:
            self.selection = shown
            self._load_rows(shown, self.search_text, None)
            self._remember_view()
            return True
        return False

    def _show_list_header(self, count: int, scope: SearchScope | None) -> None:
        sort = effective_sort(self.selection, self.search_text, self.sort)
        title = list_header(self.selection, count, self.search_text, sort, scope)
        # One line of fixed height: no layout pass (a full-screen reflow per keystroke).
        self.main_screen.query_one("#list-title", Static).update(Text(title), layout=False)
        searching = self.search_text.strip() and scope is not None
        notes = search_notes(self.selection, count, scope) if searching else []
        self.main_screen.query_one(SearchNotes).show(notes)

    def _remember_view(self) -> None:
        """Node, sort and panel are remembered for the next launch (as the theme is)."""
        hidden = self.main_screen.query_one(PaperPanel).has_class("hidden")
        self._save_view_prefs(ViewPrefs(self.selection, self.sort, hidden))

    @work(thread=True, exclusive=True, group="view-prefs", exit_on_error=False)
    def _save_view_prefs(self, prefs: ViewPrefs) -> None:
        self.service.save_view_prefs(prefs)

    def action_search_everywhere(self) -> None:
        """The same search over the whole library: the tree moves to "All papers"."""
        tree = self.main_screen.query_one(NavTree)
        node = tree.find(Selection())
        if self.selection.kind == "all" or node is None:
            self.notify_text("Already searching all papers.", timeout=2)
            return
        tree.move_cursor(node)  # NodeHighlighted reloads the list for it

    # ---- the reading flow ------------------------------------------------------------------

    def action_next_unread(self, step: int) -> None:
        """`.`/`,`: the next/previous unread paper of the list, wrapping around its ends. The
        list holds rowids only, so a worker looks the read marks up."""
        papers = self.main_screen.query_one(PaperList)
        views = views_after(self.main_screen.query_one(NavTree).views(), self.selection, step)
        self._find_unread(papers.rowids, papers.cursor, step, self._rows_request, views)

    @work(thread=True, exclusive=True, group="next-unread", exit_on_error=False)
    def _find_unread(
        self, rowids: Sequence[int], cursor: int, step: int, request: int, views: list[Selection]
    ) -> None:
        read = self.service.read_rowids()
        index = next_unread(rowids, read, cursor, step)
        if index is None:
            # None left here: on to the next view in the tree that has some (newsboat's way).
            self._find_unread_view(views, self.search_text, step, self.selection)
            return
        wrapped = (index < cursor) == (step > 0)
        self._send(msg.NextUnreadFound(index, wrapped, request))

    def on_next_unread_found(self, message: msg.NextUnreadFound) -> None:
        if message.request != self._rows_request or message.index is None:
            return  # the list changed meanwhile: that position means another paper
            return
        if message.wrapped:
            self.notify_text("Wrapped around the list.", timeout=2)
        self.main_screen.query_one(PaperList).cursor = message.index

    def _find_unread_view(
        self, views: list[Selection], search: str, step: int, left: Selection
    ) -> None:
        """(In the `.`/`,` worker.) The next view with unread papers, and the paper to land
        on there: its first (`.`) or last (`,`) unread one in the list's order."""
        found = self.service.first_with_unread(views, search)
        view, unread = found if found is not None else (None, 0)
        land: int | None = None
        if view is not None:
            rowids = self.service.list_window(view, search, self.sort).rowids
            index = first_unread(rowids, self.service.read_rowids(), step)
            land = rowids[index] if index is not None else None
        self._send(UnreadViewFound(view, unread, land, left))

    def on_unread_view_found(self, message: UnreadViewFound) -> None:
        left, view = message.left, message.view
        if left.key != self.selection.key:
            return  # the reader moved on meanwhile: their choice stands
        if view is None:
            elsewhere = "" if left.kind == "all" else " or any other view"
            self.notify_text(f"No more unread papers in {left.label}{elsewhere}.", timeout=4)
            return
        tree = self.main_screen.query_one(NavTree)
        node = tree.find(view)
        if node is None:
            return
        if message.land is not None:
            self._land_on_unread = (view.key, message.land)
        self.notify_text(
            f"No more unread papers in {left.label}: went to {view.label} "
            f"({message.unread} unread).",
            timeout=5,
        )
        tree.move_cursor(node)  # NodeHighlighted loads its rows; they open on an unread one

    def action_mark_all_read(self) -> None:
        """`A`: every paper the list shows now is marked read, one op each (so it syncs)."""
        if self._first_rows_of is not None:  # only a long list's first rows are known yet
            self.notify_text("The list is still being read: press A again.", timeout=2)
            return
        rowids = array("q", self.main_screen.query_one(PaperList).rowids)
        self._change_state("", self._mark_all_read, rowids)

    def _mark_all_read(self, rowids: Sequence[int]) -> msg.MarkedRead | str:
        ids = self.service.unread_ids(rowids)
        if not ids:
            return "Every paper shown is read already."
        return self._mark_read(ids, False)

    def action_undo_mark_all(self) -> None:
        """`u`: put back as unread what the last `A` marked read."""
        if not self._undo_mark_all:
            self.notify_text("Nothing to undo.", timeout=3)
            return
        ids, self._undo_mark_all = self._undo_mark_all, []
        self._change_state("", self._mark_read, ids, True)

    def _mark_read(self, paper_ids: list[str], undo: bool) -> msg.MarkedRead:
        return msg.MarkedRead(self.service.mark_read_many(paper_ids, not undo), undo)

    def on_marked_read(self, message: msg.MarkedRead) -> None:
        count = len(message.paper_ids)
        noun = "paper" if count == 1 else "papers"
        if message.undo:
            self.notify_text(f"Marked {count} {noun} unread again.", timeout=4)
            return
        self._undo_mark_all = message.paper_ids
        self.notify_text(f"Marked {count} {noun} read; u undoes.", timeout=6)

    # ---- similar papers, "For you", weights & data, readiness (tui/paper_extras.py) ---

    def _pause_for_keys(self) -> None:
        """(Background jobs, between their steps.) Wait for a pause in typing."""
        self._lull.wait(self._quitting)

    @work(thread=True, exclusive=True, group="similar-index", exit_on_error=False)
    def _build_similar_index(self) -> None:
        """The first build of the similarity index (a minute at 100,000 papers) runs here,
        never inside a keystroke; the panel says "building…" meanwhile."""
        if not self.service.similar_index_pending():
            return
        # The status line, not a toast: the panel's Similar section says it too.
        # Started in a pause of typing, and each of its batches (about half a second of CPU at
        # 1,000 papers) waits for one too, outside its write transaction: a reader who types
        # while a large library's first build runs is not slowed by it.
        self._pause_for_keys()
        self._send(msg.StatusChanged("Building the similarity index…", "similar"))
        try:
            self.service.build_similar_index(pause=self._pause_for_keys)
        finally:
            self._send(msg.StatusChanged("", "similar"))
        if not self._quitting.is_set():
            self._send(msg.StateSaved())  # the shown paper's Similar section, "For you"

    @work(thread=True, exclusive=True, group="extras", exit_on_error=False)
    def _load_extras(self, paper: PaperView) -> None:
        """Cached answers first, then the Hub and GitHub (each within its cache's TTL)."""
        from digest_tui.tui.paper_extras import ExtrasLoaded

        worker = get_current_worker()
        self._send(ExtrasLoaded(self.service.paper_extras(paper, fetch=False)))
        if not worker.is_cancelled and not self._quitting.is_set():
            self._send(ExtrasLoaded(self.service.paper_extras(paper, fetch=True)))

    def on_extras_loaded(self, message: Any) -> None:
        extras = message.extras
        panel = self.main_screen.query_one(PaperPanel)
        if panel.paper is not None and panel.paper.id == extras.paper_id:
            panel.extras = extras
            panel.refresh_view()
        if _paper_screen_shown(self.screen):
            self.screen.show_extras(extras)

    def action_similar(self) -> None:
        paper = self._current_paper()
        if paper is not None:
            self._prepare_similar_screen(paper)

    @work(thread=True, exclusive=True, group="similar-screen", exit_on_error=False)
    def _prepare_similar_screen(self, paper: PaperView) -> None:
        from digest_tui.tui.paper_extras import SIMILAR_IN_SCREEN, SimilarReady

        self._send(SimilarReady(paper.title, self.service.similar(paper.id, SIMILAR_IN_SCREEN)))

    def on_similar_ready(self, message: Any) -> None:
        from digest_tui.tui.screens.similar_screen import SimilarScreen

        if message.related is None:
            self.notify_text("The similarity index is still being built…", timeout=3)
        elif not message.related:
            self.notify_text("No similar papers: it shares no word with another paper.")
        else:
            self.push_screen(SimilarScreen(message.title, message.related), self._jump_to)

    def _jump_to(self, paper_id: str | None) -> None:
        """Show `paper_id` in the list: all papers, no search, the cursor on it."""
        if paper_id is None:
            return
        if _paper_screen_shown(self.screen):
            self.pop_screen()
        self.selection, self.search_text = Selection(), ""
        self.main_screen.query_one("#search", Input).value = ""
        self._load_rows(self.selection, "", paper_id)
        self._load_paper(paper_id)

    # ---- failures ---------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a failed worker is reported: every @work has exit_on_error=False,
        so without this a failure would pass in silence (and "Loading library…" stay)."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        if self._quitting.is_set() and interrupted(event.worker.error):
            return  # LibraryService.close stopped its statement on the way out: not a failure
        self.report_failure(event.worker.name or "a background task", event.worker.error)

    def report_failure(self, what: str, error: BaseException) -> None:
        from digest_tui.tui.error_log import append_traceback, one_line_reason

        reason = one_line_reason(error)
        logged = append_traceback(self.ctx.paths.error_log, what, error)
        where = f" (details in {logged})" if logged is not None else ""
        if not self.ready:
            self.main_screen.query_one("#list-title", Static).update(
                Text(printable(f"Could not load the library: {reason}"))
            )
        self.notify_text(f"{reason}{where}", severity="error", timeout=15)

    def _handle_exception(self, error: Exception) -> None:
        """A bug outside a worker ends the app, as in any Textual app, but the terminal gets
        one line instead of a screenful of traceback; the traceback goes to the error log."""
        from digest_tui.tui.error_log import append_traceback, one_line_reason

        self._quitting.set()
        logged = append_traceback(self.ctx.paths.error_log, "the app stopped", error)
        super()._handle_exception(error)
        where = f"; details in {logged}" if logged is not None else ""
        line = Text(f"digest-tui: internal error: {one_line_reason(error)}{where}")
        # Textual keeps what it prints on exit here; replace its traceback with our line.
        self._exit_renderables[:] = [line]


def run_app(ctx: AppContext) -> int:
    from digest_tui.tui.exit_paths import leave

    app = DigestApp(ctx)
    try:
        app.run()
    finally:
        app.service.close()  # on every way out, also when the app never got to mount
    status = app.return_code or 0
    leave(status)  # a thread stuck on a stalled server must not keep the process alive
    return status
