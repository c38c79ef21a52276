"""The TUI's access to the library: named calls with typed results, made from worker threads.

Workers run in threads so the UI never waits on SQLite (a re-enrichment can hold the library for
minutes); the lock keeps two workers from interleaving statements on the shared connection (a
write transaction and a read, say). Every method here is a blocking library call: the app calls
them only from workers, and once it names its UI thread (`ui_thread`) a call made on that
thread is refused, so a slip shows up in the first Pilot test instead of as a frozen screen.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from digest_tui.config import AppContext
from digest_tui.store.library import DigestRow, Library, ListRow
from digest_tui.store.query import PaperQuery

if TYPE_CHECKING:
    from digest_tui.paper_view import PaperView
    from digest_tui.state.model import NoteState


@dataclass(frozen=True)
class Selection:
    """What the navigation tree has selected: all papers, a topic, a digest, ..."""

    kind: str = "all"  # all | topic | digest | bookmarks | unread | tag | list | new
    value: str | None = None
    label: str = "All papers"

    def query(self, search: str = "") -> PaperQuery:
        # Filters are fields, never search syntax spliced into the box's text: a list named
        # `my "best" papers` is a name, not a phrase and two words.
        query = PaperQuery(search=search)
        if self.kind == "topic":
            query.topic = self.value
        elif self.kind == "digest":
            query.digest = self.value
        elif self.kind == "bookmarks":
            query.bookmarked = True
        elif self.kind == "unread":
            query.read = False
        elif self.kind == "tag":
            query.tag = self.value
        elif self.kind == "list":
            query.reading_list = self.value
        elif self.kind == "new":
            query.new_only = True
        return query


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


@dataclass(frozen=True)
class ListWindow:
    """A list as the paper list takes it: every matching rowid in order, the cursor's
    position, and the rows around it already fetched (those at `start` and after)."""

    rowids: array[int]
    cursor: int
    start: int
    rows: Mapping[int, ListRow]


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
        self.new_since: str | None = None
        # The thread whose calls are refused (the app's event loop); None: no check.
        self.ui_thread: int | None = None
        # Connections workers opened for themselves (a fetch writes on its own): closed when
        # the app leaves even if their worker is still blocked on the network.
        self._own: set[Library] = set()
        self._own_lock = threading.Lock()
        # The paper list reads through a connection of its own (list_window, rows_by_rowid):
        # WAL lets it read while the shared connection is busy (start-up counts, a long
        # re-enrichment), so typing never waits for them.
        self._reader: Library | None = None
        self._reader_lock = threading.Lock()

    @contextmanager
    def _locked(self) -> Iterator[Library]:
        if self.ui_thread is not None and threading.get_ident() == self.ui_thread:
            raise UIThreadCall("a library call was made on the UI thread; use a worker")
        with self._lock:
            yield self.library

    @property
    def library(self) -> Library:
        if self._library is None:
            from digest_tui.service import open_library

            self._library = open_library(self.ctx)
        return self._library

    def startup(self, progress: Callable[[str], None] | None = None) -> None:
        """First-run sample load and re-enrichment after a data change."""
        from digest_tui.service import load_sample_if_empty

        with self._locked() as library:
            report = load_sample_if_empty(library)
            if report is not None and progress is not None:
                progress(f"Loaded the sample library: {report.new} papers")
            # "New since last visit" means since the visit before this one, all session long.
            self.new_since = library.state.begin_visit() or ""
            stale = library.stale_count()
            if stale:
                if progress is not None:
                    progress(f"Updating topics and code links for {stale} papers…")
                library.reenrich()

    # ---- reading ------------------------------------------------------------------------

    def rows(
        self, selection: Selection, search: str = "", sort: str | None = None
    ) -> list[ListRow]:
        query = selection.query(search)
        query.sort = sort or query.sort
        query.new_since = self.new_since
        with self._locked() as library:
            return library.list_rows(query)

    # ---- the windowed paper list ------------------------------------------------------

    @contextmanager
    def _list_reader(self) -> Iterator[Library]:
        if self.ui_thread is not None and threading.get_ident() == self.ui_thread:
            raise UIThreadCall("a library call was made on the UI thread; use a worker")
        with self._reader_lock:
            if self._reader is None:
                from digest_tui.service import open_library

                # Opening may migrate the file: never at the same time as the shared one.
                with self._lock:
                    self._reader = open_library(self.ctx)
            yield self._reader

    def list_window(
        self,
        selection: Selection,
        search: str = "",
        sort: str | None = None,
        keep_rowid: int | None = None,
    ) -> ListWindow:
        """The ordered rowids of a list, with the rows around the cursor: on `keep_rowid`
        when that paper is still listed, else at the top."""
        query = selection.query(search)
        query.sort = sort or query.sort
        query.new_since = self.new_since
        with self._list_reader() as library:
            rowids = library.list_rowids(query)
            cursor = 0
            if keep_rowid is not None:
                with contextlib.suppress(ValueError):
                    cursor = rowids.index(keep_rowid)
            start = max(0, cursor - WINDOW_ROWS // 4)
            rows = library.list_rows_by_rowid(rowids[start : start + WINDOW_ROWS])
        return ListWindow(rowids, cursor, start, rows)

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

    def theme(self) -> str | None:
        with self._locked() as library:
            return library.get_meta("theme")

    def save_theme(self, name: str) -> None:
        with self._locked() as library:
            library.set_meta("theme", name)

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
        from digest_tui.repohealth.format import health_line

        lines = {}
        for url, (owner, name) in paper.github_repos.items():
            health = self.health_client.cached(owner, name)
            if health is not None:
                lines[url] = health_line(health)
        return lines

    def refresh_health(self, paper: PaperView) -> dict[str, str]:
        from digest_tui.repohealth.format import health_line

        repos = paper.github_repos
        results = self.health_client.refresh_many(list(repos.values()))
        by_key = {(h.owner.lower(), h.name.lower()): health_line(h) for h in results}
        return {
            url: by_key[(owner.lower(), name.lower())]
            for url, (owner, name) in repos.items()
            if (owner.lower(), name.lower()) in by_key
        }

    @contextmanager
    def own_library(self) -> Iterator[Library]:
        """A connection of the calling worker's own, closed when it is done or the app leaves."""
        from digest_tui.service import open_library

        library = open_library(self.ctx)
        with self._own_lock:
            self._own.add(library)
        try:
            yield library
        finally:
            with self._own_lock:
                self._own.discard(library)
            _close_quietly(library)

    # How long closing waits for a worker that holds the shared connection (a long
    # re-enrichment, say): quitting must not wait for it.
    CLOSE_WAIT_SECONDS = 1.0

    def close(self) -> None:
        """Close every connection; safe to call twice, and from any thread."""
        if self._health is not None:
            self._health.close()
            self._health.cache.close()
            self._health = None
        with self._own_lock:
            own, self._own = list(self._own), set()
        if self._reader_lock.acquire(timeout=self.CLOSE_WAIT_SECONDS):
            try:
                if self._reader is not None:
                    _close_quietly(self._reader)
                    self._reader = None
            finally:
                self._reader_lock.release()
        for library in own:
            # Its worker is blocked outside SQLite (on the network) or about to notice the
            # app's cancel flag; an open transaction is rolled back, committed work stays.
            _close_quietly(library)
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
