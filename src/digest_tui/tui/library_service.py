"""The TUI's access to the library: named calls with typed results, made from worker threads.

Workers run in threads so the UI never waits on SQLite; the lock keeps two workers from
interleaving statements on the shared connection (a write transaction and a read, say). A
re-enrichment (minutes at 100k papers) runs on a connection of its own without the lock. Every
method here is a blocking library call: the app calls them only from workers, and once it names
its UI thread (`ui_thread`) a call made on that thread is refused, so a slip shows up in the
first Pilot test instead of as a frozen screen.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from array import array
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from digest_tui.config import AppContext
from digest_tui.store.library import DigestRow, Library, ListRow
from digest_tui.store.query import PaperQuery
from digest_tui.tui.selection import Selection

__all__ = ["LibraryService", "Selection", "TopicCount", "TreeData", "UIThreadCall"]

if TYPE_CHECKING:
    from digest_tui.paper_view import PaperView
    from digest_tui.state.model import NoteState
    from digest_tui.tui.navigation import SearchScope, ViewPrefs
    from digest_tui.tui.paper_extras import PaperExtras, Related

# The meta key of the remembered view (node, sort, panel): local to this machine, never synced.
_VIEW_PREFS = "ui_prefs"


@dataclass(frozen=True)
class TopicCount:
    id: str  # a taxonomy id, or "other" for papers in no topic
    label: str
    count: int


@dataclass(frozen=True)
class TreeData:
    """Everything the navigation tree shows, with the count beside each node."""

    total: int
    new: int
    bookmarks: int
    unread: int
    topics: tuple[TopicCount, ...]  # taxonomy order, "other" last
    digests: tuple[DigestRow, ...]  # newest first
    tags: Mapping[str, int]  # tag -> papers, by tag
    lists: Mapping[str, int]  # reading list -> papers, by name
    today: DigestRow | None = None  # the newest digest ("Today"), None in an empty library


@dataclass(frozen=True)
class ListWindow:
    """A list as the paper list takes it: every matching rowid in order, the cursor's
    position, and the rows around it already fetched (those at `start` and after)."""

    rowids: array[int]
    cursor: int
    start: int
    rows: Mapping[int, ListRow]
    # False: only the first rowids of the list (`list_windows`); the whole list follows.
    complete: bool = True


# Rows fetched with a new list: a screen and more around the cursor, so the first frame
# needs no second round trip to the library.
WINDOW_ROWS = 256


class UIThreadCall(RuntimeError):
    """A blocking library call made on the UI thread: a bug in the app (see the module doc)."""


class LibraryService:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._lock = threading.RLock()
        self._library: Library | None = None
        self._health: Any = None
        self._readiness: Any = None
        # Why each paper of the "For you" list is there (paper id -> "like 'X' ... "), as of
        # the last time the list was ranked.
        self.for_you_reasons: dict[str, str] = {}
        self.new_since: str | None = None
        # The thread whose calls are refused (the app's event loop); None: no check.
        self.ui_thread: int | None = None
        # Connections workers opened for themselves (a fetch, the similar index, a
        # re-enrichment), each with the event its worker sets once it has closed it. On the way
        # out their statements are interrupted and their workers close them (see close()).
        self._own: dict[Library, threading.Event] = {}
        self._own_lock = threading.Lock()
        # The paper list reads through a connection of its own (list_window, rows_by_rowid):
        # WAL lets it read while the shared connection is busy (start-up counts, a long
        # re-enrichment), so typing never waits for them.
        self._reader: Library | None = None
        self._reader_lock = threading.Lock()

    def _refuse_ui_thread(self) -> None:
        if self.ui_thread is not None and threading.get_ident() == self.ui_thread:
            raise UIThreadCall("a library call was made on the UI thread; use a worker")

    @contextmanager
    def _locked(self) -> Iterator[Library]:
        self._refuse_ui_thread()
        with self._lock:
            yield self.library

    @property
    def library(self) -> Library:
        if self._library is None:
            from digest_tui.service import open_library

            self._library = open_library(self.ctx, fallback_taxonomy=True)
        return self._library

    def startup(self, progress: Callable[[str], None] | None = None) -> None:
        """First-run sample load and the start of a visit. The re-enrichment after a data
        change is `reenrich`, called after it (it holds no lock)."""
        from digest_tui.service import load_sample_if_empty

        with self._locked() as library:
            report = load_sample_if_empty(library)
            if report is not None and progress is not None:
                progress(f"Loaded the sample library: {report.new} papers")
            # "New since last visit" means since the visit before this one, all session long.
            self.new_since = library.state.begin_visit() or ""

    def reenrich(
        self,
        progress: Callable[[str], None] | None = None,
        pause: Callable[[], None] | None = None,
    ) -> int:
        """Re-enrich the papers enriched with older data (a changed taxonomy or catalog);
        return how many.

        On a connection of its own and outside the service's lock: re-enriching 100,000
        papers takes a while, and meanwhile the list, search, marks and every other call go
        on through the shared connection. `Library.reenrich` writes each batch in a short
        transaction of its own (WAL: readers never wait; another write waits for one batch's
        write at most), and a paper changed in between is enriched again inside its write.
        `pause` is called before each batch (the app waits there for a pause in typing)."""
        with self.own_library() as library:
            stale = library.stale_count()
            if not stale:
                return 0
            if progress is not None:
                progress(f"Updating topics and code links for {stale} papers…")
            return library.reenrich(pause=pause)

    # ---- reading ------------------------------------------------------------------------

    def rows(
        self, selection: Selection, search: str = "", sort: str | None = None
    ) -> list[ListRow]:
        if selection.kind == "foryou":
            return self.for_you_rows(selection.value)
        with self._locked() as library:
            return library.list_rows(self._query(library, selection, search, sort))

    # ---- the windowed paper list ------------------------------------------------------

    @contextmanager
    def _list_reader(self) -> Iterator[Library]:
        self._refuse_ui_thread()
        with self._reader_lock:
            if self._reader is None:
                from digest_tui.service import open_library

                # Opening may migrate the file: never at the same time as the shared one.
                with self._lock:
                    self._reader = open_library(self.ctx, fallback_taxonomy=True)
            yield self._reader

    def list_window(
        self,
        selection: Selection,
        search: str = "",
        sort: str | None = None,
        keep: int | str | None = None,
        previous: Sequence[int] = (),
    ) -> ListWindow:
        """The ordered rowids of a list, with the rows around the cursor. The cursor stays on
        `keep` (a rowid, or a paper id) when that paper is still listed; when it left the
        view (`x` in a list, `r` in "Unread") it goes to the nearest paper after it in the
        `previous` list that is still listed, else before it; else to the top."""
        if selection.kind == "foryou":
            return self._for_you_window(keep, selection.value)
        with self._list_reader() as library:
            query = self._query(library, selection, search, sort)
            rowids = library.list_rowids(query)
            keep_rowid = _rowid_of(library, keep)
            cursor = _cursor_position(rowids, keep_rowid, previous)
            start = max(0, cursor - WINDOW_ROWS // 4)
            rows = library.list_rows_by_rowid(rowids[start : start + WINDOW_ROWS])
        return ListWindow(rowids, cursor, start, rows)

    def list_windows(
        self, selection: Selection, search: str = "", sort: str | None = None
    ) -> Generator[ListWindow, None, None]:
        """A new list with the cursor on top, in two steps when it is long: first a window of
        its first WINDOW_ROWS papers (`complete=False`, what the screen shows), then the whole
        order with the same rows. A search matching 50,000 papers is painted once SQLite has
        ranked them, before their rowids are copied out; a list walked off a sort index once
        its first entries are read. Stop iterating to drop the rest (an overtaken request)."""
        if selection.kind == "foryou":
            yield self._for_you_window(None, selection.value)
            return
        with self._list_reader() as library:
            query = self._query(library, selection, search, sort)
            steps = library.list_rowids_first(query, WINDOW_ROWS)
            try:
                rows: Mapping[int, ListRow] = {}
                for rowids, complete in steps:
                    if not rows:
                        rows = library.list_rows_by_rowid(rowids[:WINDOW_ROWS])
                    yield ListWindow(rowids, 0, 0, rows, complete)
            finally:
                steps.close()  # ends the statement even when the caller stopped early

    def _for_you_window(self, keep: int | str | None, tag: str | None = None) -> ListWindow:
        """ "For you" is ranked in Python (a short list): every row comes with it."""
        rows = self.for_you_rows(tag)
        rowids = array("q", (row.rowid for row in rows))
        cursor = next((i for i, row in enumerate(rows) if keep in (row.rowid, row.id)), 0)
        return ListWindow(rowids, cursor, 0, {row.rowid: row for row in rows})

    def read_rowids(self) -> set[int]:
        """The rowids of every paper marked read (what `.`/`,` skip), from the list reader."""
        with self._list_reader() as library:
            rows = library.conn.execute("SELECT paper_rowid FROM paper_state WHERE read = 1")
            return {int(row[0]) for row in rows}

    def unread_ids(self, rowids: Sequence[int]) -> list[str]:
        """The ids of the papers among `rowids` not marked read, in list order (for `A`)."""
        ids: dict[int, str] = {}
        with self._list_reader() as library:
            for begin in range(0, len(rowids), 500):
                chunk = list(rowids[begin : begin + 500])
                marks = ",".join("?" * len(chunk))
                sql = (
                    "SELECT p.rowid, p.id FROM papers p "
                    "LEFT JOIN paper_state s ON s.paper_rowid = p.rowid "
                    f"WHERE p.rowid IN ({marks}) AND coalesce(s.read, 0) = 0"
                )
                ids.update((int(r[0]), str(r[1])) for r in library.conn.execute(sql, chunk))
        return [ids[rowid] for rowid in rowids if rowid in ids]

    def rows_by_rowid(self, rowids: Sequence[int]) -> dict[int, ListRow]:
        """The list rows of these papers (the list fetches what scrolls into view)."""
        with self._list_reader() as library:
            return library.list_rows_by_rowid(rowids)

    def tree_data(self) -> TreeData:
        with self._locked() as library:
            taxonomy = library.enricher.taxonomy if library.enricher is not None else None
            labels = [(t.id, t.label) for t in taxonomy.topics] if taxonomy else []
            counts = library.state.counts(new_since=self.new_since or "")
            topic_counts = library.topic_counts()
            digests = tuple(library.digests())
        return TreeData(
            total=counts.total,
            new=counts.new,
            bookmarks=counts.bookmarked,
            unread=counts.unread,
            topics=tuple(
                TopicCount(topic_id, label, topic_counts.get(topic_id, 0))
                for topic_id, label in [*labels, ("other", "Other")]
            ),
            digests=digests,
            tags=dict(counts.tags),
            lists={info.name: info.count for info in counts.lists},
            today=digests[0] if digests else None,
        )

    def paper(self, ident: str) -> PaperView | None:
        from digest_tui.paper_view import paper_view

        machines = self.ctx.settings.machines
        with self._locked() as library:
            row = library.resolve(ident)
            return paper_view(library, row, machines) if row is not None else None

    def known_tags(self) -> list[str]:
        """Every tag in use, for completion in the tag editor."""
        with self._locked() as library:
            return library.state.all_tags()

    def note(self, paper_id: str) -> NoteState:
        with self._locked() as library:
            return library.state.note(paper_id)

    def list_names(self) -> list[str]:
        """The reading lists, by name."""
        with self._locked() as library:
            return [info.name for info in library.state.lists()]

    def reading_lists(self) -> list[tuple[str, int]]:
        """The reading lists as (name, number of papers)."""
        with self._locked() as library:
            return [(info.name, info.count) for info in library.state.lists()]

    def rename_list(self, name: str, new_name: str) -> None:
        with self._locked() as library:
            library.state.rename_list(name, new_name)

    def delete_list(self, name: str) -> None:
        with self._locked() as library:
            library.state.delete_list(name)

    def theme(self) -> str | None:
        with self._locked() as library:
            return library.get_meta("theme")

    def save_theme(self, name: str) -> None:
        with self._locked() as library:
            library.set_meta("theme", name)

    # ---- navigation: the query of a view, a search's scope, the remembered view -----------

    def _query(
        self, library: Library, selection: Selection, search: str, sort: str | None
    ) -> PaperQuery:
        query = selection.query(search)
        if selection.kind == "today":
            # The newest digest, most upvoted first: what a reader opens the app for.
            newest = library.conn.execute(
                "SELECT id FROM digests ORDER BY date DESC, id LIMIT 1"
            ).fetchone()
            query.digest = newest[0] if newest is not None else ""
            query.sort = "upvotes"
        query.sort = sort or query.sort
        query.new_since = self.new_since
        return query

    def search_scope(self, selection: Selection, search: str) -> SearchScope:
        """How many papers the view has without the search, how many match in the whole
        library (when the view is narrower), and the filter warnings the CLI would print."""
        from digest_tui.store.query import build_select
        from digest_tui.store.search_problems import search_problems
        from digest_tui.tui.navigation import SearchScope

        def count(query: PaperQuery) -> int:
            sql, params = build_select(query, "count(*)")
            return int(library.conn.execute(sql, params).fetchone()[0])

        with self._locked() as library:
            query = self._query(library, selection, search, None)
            problems = search_problems(library, query.parsed, lambda: self.ctx.settings.machines)
            scope_total = count(self._query(library, selection, "", None))
            everywhere = None
            if selection.kind != "all":
                everywhere = count(self._query(library, Selection(), search, None))
        return SearchScope(scope_total, everywhere, tuple(problems))

    def first_with_unread(
        self, candidates: Sequence[Selection], search: str = ""
    ) -> tuple[Selection, int] | None:
        """The first view of `candidates` (tree order) with an unread paper matching `search`,
        and how many it has: where `.`/`,` go when the current view has none left."""
        from digest_tui.store.query import build_select

        with self._locked() as library:
            for selection in candidates:
                query = self._query(library, selection, search, None)
                query.read = False
                sql, params = build_select(query, "count(*)")
                unread = int(library.conn.execute(sql, params).fetchone()[0])
                if unread:
                    return selection, unread
        return None

    def view_prefs(self) -> ViewPrefs:
        from digest_tui.tui.navigation import ViewPrefs

        # Through the list's connection: read with the first window of rows before the first
        # frame, it spares opening the shared one (and its enricher) until after that frame.
        with self._list_reader() as library:
            return ViewPrefs.from_json(library.get_meta(_VIEW_PREFS))

    def save_view_prefs(self, prefs: ViewPrefs) -> None:
        with self._locked() as library:
            library.set_meta(_VIEW_PREFS, prefs.to_json())

    def mark_read_many(self, paper_ids: Sequence[str], on: bool) -> list[str]:
        """Mark papers read (or unread) in one transaction, through the state ops (so it
        syncs); the ids that changed, which is what an undo puts back."""
        with self._locked() as library:
            return library.state.set_read_many(paper_ids, on)

    def toggle_bookmark(self, paper_id: str) -> bool:
        """Flip the bookmark as the library has it now; True: it is bookmarked."""
        with self._locked() as library:
            on = not library.state.user_state(self._rowid(library, paper_id))["bookmarked"]
            library.state.bookmark(paper_id, on)
            return on

    def toggle_read(self, paper_id: str) -> bool:
        """Flip the read mark as the library has it now; True: it is read."""
        with self._locked() as library:
            on = not library.state.user_state(self._rowid(library, paper_id))["read"]
            library.state.set_read(paper_id, on)
            return on

    @staticmethod
    def _rowid(library: Library, paper_id: str) -> int:
        from digest_tui.errors import StateError

        row = library.resolve(paper_id)
        if row is None:
            raise StateError(f"no paper with id {paper_id!r}")
        return int(row["rowid"])

    # ---- the user's state: each call is one committed change ---------------------------

    def set_bookmark(self, paper_id: str, on: bool) -> None:
        with self._locked() as library:
            library.state.bookmark(paper_id, on)

    def set_read(self, paper_id: str, on: bool) -> None:
        with self._locked() as library:
            library.state.set_read(paper_id, on)

    def edit_tags(self, paper_id: str, add: Sequence[str], remove: Sequence[str]) -> None:
        with self._locked() as library:
            if add:
                library.state.add_tags(paper_id, add)
            if remove:
                library.state.remove_tags(paper_id, remove)

    def save_note(self, paper_id: str, text: str, replaces: Sequence[str]) -> None:
        with self._locked() as library:
            library.state.set_note(paper_id, text, replaces=replaces)

    def add_to_list(self, name: str, paper_id: str) -> None:
        """Add to the list called `name` (any case), creating it when there is none."""
        with self._locked() as library:
            state = library.state
            if name.casefold() not in {info.name.casefold() for info in state.lists()}:
                state.create_list(name)
            state.add_to_list(name, [paper_id])

    def remove_from_list(self, name: str, paper_id: str) -> None:
        with self._locked() as library:
            library.state.remove_from_list(name, [paper_id])

    def move_in_list(
        self, name: str, paper_id: str, *, before: str | None = None, after: str | None = None
    ) -> None:
        """Place the paper just before or just after another paper of the list."""
        with self._locked() as library:
            library.state.move_in_list(name, paper_id, before=before, after=after)

    # ---- repo health (its own cache file and lock: network calls never hold the library) ----

    @property
    def health_client(self):  # type: ignore[no-untyped-def]
        if self._health is None:
            from digest_tui.repohealth import GitHubHealthClient, HealthCache

            cache = HealthCache(self.ctx.paths.cache_dir / "repo_health.sqlite3")
            self._health = GitHubHealthClient(cache, timeout=8.0)
        return self._health

    def cached_health(self, paper: PaperView) -> dict[str, str]:
        """The cached health of the paper's repos in words (a `HealthLines`: with a notice
        when the last check could not reach GitHub)."""
        from digest_tui.repohealth.format import health_lines

        found = {
            url: self.health_client.cached(owner, name)
            for url, (owner, name) in paper.github_repos.items()
        }
        return health_lines({url: h for url, h in found.items() if h is not None})

    def refresh_health(self, paper: PaperView) -> dict[str, str]:
        """Health asked of GitHub; offline, one notice and the cached figures."""
        from digest_tui.repohealth.format import health_lines

        repos = paper.github_repos
        client = self.health_client
        results = client.refresh_many(list(repos.values()))
        by_key = {(h.owner.lower(), h.name.lower()): h for h in results}
        found = {
            url: by_key[(owner.lower(), name.lower())]
            for url, (owner, name) in repos.items()
            if (owner.lower(), name.lower()) in by_key
        }
        return health_lines(found, unreachable=bool(client.unreachable))

    # ---- similar papers, "For you", Hub artifacts, readiness (tui/paper_extras.py) -----

    def similar_index_pending(self) -> bool:
        from digest_tui.tui.paper_extras import index_pending

        with self._locked() as library:
            return index_pending(library)

    def build_similar_index(self, pause: Callable[[], object] | None = None) -> int:
        """The full build on a connection of its own: the shared one stays free for the
        list and the panel (WAL lets them read while this writes). `pause` runs between its
        batches."""
        from digest_tui.tui.paper_extras import build_index

        with self.own_library() as library:
            return build_index(library, pause)

    def similar(self, paper_id: str, limit: int) -> tuple[Related, ...] | None:
        from digest_tui.tui.paper_extras import similar

        with self._locked() as library:
            return similar(library, paper_id, limit)

    def for_you_rows(self, tag: str | None = None) -> list[ListRow]:
        """Ranked against the bookmarks, or (`tag`) against the papers with that tag."""
        from digest_tui.tui.paper_extras import for_you

        with self._locked() as library:
            rows, self.for_you_reasons = for_you(library, tag=tag)
        return rows

    @property
    def readiness_client(self):  # type: ignore[no-untyped-def]
        if self._readiness is None:
            from digest_tui.repohealth.readiness import ReadinessClient

            self._readiness = ReadinessClient(self.health_client)
        return self._readiness

    def paper_extras(self, paper: PaperView, *, fetch: bool) -> PaperExtras:
        """Similar papers, Hub listings and repo readiness of `paper`: from the caches, or
        (`fetch`) asked of the Hub and of GitHub (when repo health is on)."""
        from digest_tui.tui import paper_extras as extras

        cache_dir = self.ctx.paths.cache_dir
        related = self.similar(paper.id, extras.SIMILAR_IN_PANEL)
        ask_github = fetch and self.ctx.settings.repo_health
        return extras.PaperExtras(
            paper_id=paper.id,
            similar=related,
            artifacts=(
                extras.fetch_artifacts(paper, cache_dir)
                if fetch
                else extras.cached_artifacts(paper, cache_dir)
            ),
            readiness=extras.readiness(paper, self.readiness_client, refresh=ask_github),
            why=self.for_you_reasons.get(paper.id),
        )

    def prefetch_artifacts(self, cancel: threading.Event | None = None) -> int:
        """After a fetch: the Hub listings of the newest papers not yet asked about (at most
        hf_artifacts.PREFETCH_LIMIT), so `has:weights` and the "reproducible" sort know them."""
        from digest_tui.sources.hf_artifacts import prefetch_artifacts

        with self._locked() as library:
            ids = [
                r[0]
                for r in library.conn.execute(
                    "SELECT arxiv_id FROM papers WHERE arxiv_id IS NOT NULL "
                    "ORDER BY added_at DESC, rowid DESC LIMIT 500"
                )
            ]
        return prefetch_artifacts(ids, self.ctx.paths.cache_dir, cancel=cancel)

    @contextmanager
    def own_library(self) -> Iterator[Library]:
        """A connection of the calling worker's own, closed when it is done or the app leaves."""
        from digest_tui.service import open_library

        self._refuse_ui_thread()  # opening may migrate the file; its statements block too
        library = open_library(self.ctx, fallback_taxonomy=True)
        closed = threading.Event()
        with self._own_lock:
            self._own[library] = closed
        try:
            yield library
        finally:
            with self._own_lock:
                self._own.pop(library, None)
            _close_quietly(library)
            closed.set()

    # How long closing waits for a worker that holds the shared connection (a long
    # re-enrichment, say): quitting must not wait for it.
    CLOSE_WAIT_SECONDS = 1.0

    def close(self) -> None:
        """Close the shared and list connections and stop the workers' own (their running
        statement is interrupted; each worker closes its connection as it leaves). Safe to
        call twice, and from any thread."""
        if self._health is not None:
            self._health.close()
            self._health.cache.close()
            self._health = None
        with self._own_lock:
            own, self._own = dict(self._own), {}
            for library in own:
                # A statement running on it (a similar-index build, a re-enrichment batch)
                # stops with "interrupted" and its transaction rolls back; the worker then
                # leaves and closes its connection itself. Under the lock: a worker takes it
                # before closing (own_library), so no connection is interrupted mid-close.
                with contextlib.suppress(sqlite3.Error):
                    library.conn.interrupt()
        if self._reader_lock.acquire(timeout=self.CLOSE_WAIT_SECONDS):
            try:
                if self._reader is not None:
                    _close_quietly(self._reader)
                    self._reader = None
            finally:
                self._reader_lock.release()
        deadline = time.monotonic() + self.CLOSE_WAIT_SECONDS
        for closed in own.values():
            # Never closed from here: closing a connection while another thread is inside
            # SQLite on it can crash the process. A worker that has not let go by the deadline
            # (blocked on the network, say) keeps it until the process ends; its committed work
            # is in the WAL and an open transaction rolls back on the next open.
            closed.wait(max(0.0, deadline - time.monotonic()))
        if not self._lock.acquire(timeout=self.CLOSE_WAIT_SECONDS):
            return  # a worker is inside SQLite; the process ends soon and SQLite recovers
        try:
            if self._library is not None:
                _close_quietly(self._library)
                self._library = None
        finally:
            self._lock.release()


def _close_quietly(library: Library) -> None:
    # Library.close() checkpoints the WAL into the file, then closes.
    with contextlib.suppress(sqlite3.Error):  # on the way out: nothing left to save
        library.close()


def _rowid_of(library: Library, keep: int | str | None) -> int | None:
    if keep is None or isinstance(keep, int):
        return keep
    row = library.conn.execute("SELECT rowid FROM papers WHERE id = ?", (keep,)).fetchone()
    return int(row[0]) if row is not None else None


def _cursor_position(rowids: array[int], keep: int | None, previous: Sequence[int]) -> int:
    if keep is None:
        return 0
    with contextlib.suppress(ValueError):
        return rowids.index(keep)
    # The paper left the view: the nearest one after it that is still listed, else before.
    try:
        at = list(previous).index(keep)
    except ValueError:
        return 0
    listed = {rowid: index for index, rowid in enumerate(rowids)}
    for rowid in [*previous[at + 1 :], *reversed(previous[:at])]:
        if rowid in listed:
            return listed[rowid]
    return 0
