"""The TUI's access to the library: one connection, one lock, called from worker threads.

Workers run in threads so the UI never waits on SQLite; the lock keeps two workers from
interleaving statements on the shared connection (a write transaction and a read, say).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from digest_tui.config import AppContext
from digest_tui.store.library import DigestRow, Library, ListRow
from digest_tui.store.query import PaperQuery


@dataclass(frozen=True)
class Selection:
    """What the navigation tree has selected: all papers, a topic, a digest, ..."""

    kind: str = "all"  # all | topic | digest | bookmarks | unread | tag | list | new
    value: str | None = None
    label: str = "All papers"

    def query(self, search: str = "") -> PaperQuery:
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
            query.search = f'list:"{self.value}" {search}'.strip()
        elif self.kind == "new":
            query.search = f"is:new {search}".strip()
        return query


@dataclass(frozen=True)
class TreeData:
    total: int
    topic_counts: dict[str, int]
    topic_labels: list[tuple[str, str]]
    digests: list[DigestRow]
    extra: dict[str, Any]


class LibraryService:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._lock = threading.RLock()
        self._library: Library | None = None
        self._health: Any = None
        self.new_since: str | None = None
        # Connections workers opened for themselves (a fetch writes on its own): closed when
        # the app leaves even if their worker is still blocked on the network.
        self._own: set[Library] = set()
        self._own_lock = threading.Lock()

    def call(self, fn: Callable[[Library], Any]) -> Any:
        with self._lock:
            return fn(self.library)

    @property
    def library(self) -> Library:
        if self._library is None:
            from digest_tui.service import open_library

            self._library = open_library(self.ctx)
        return self._library

    def startup(self, progress: Callable[[str], None] | None = None) -> None:
        """First-run sample load and re-enrichment after a data change."""
        from digest_tui.service import load_sample_if_empty

        with self._lock:
            library = self.library
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

    def rows(
        self, selection: Selection, search: str = "", sort: str | None = None
    ) -> list[ListRow]:
        query = selection.query(search)
        query.sort = sort or query.sort
        query.new_since = self.new_since
        return self.call(lambda lib: lib.list_rows(query))

    def tree_data(self) -> TreeData:
        def build(lib: Library) -> TreeData:
            taxonomy = lib.enricher.taxonomy if lib.enricher is not None else None
            labels = [(t.id, t.label) for t in taxonomy.topics] if taxonomy else []
            counts = lib.state.counts(new_since=self.new_since or "")
            extra: dict[str, Any] = {
                "new": counts.new,
                "bookmarks": counts.bookmarked,
                "unread": counts.unread,
                "tags": counts.tags,
                "lists": {info.name: info.count for info in counts.lists},
            }
            return TreeData(counts.total, lib.topic_counts(), labels, lib.digests(), extra)

        return self.call(build)

    def paper(self, ident: str) -> dict[str, Any] | None:
        from digest_tui.serialize import paper_json

        machines = self.ctx.settings.machines

        def load(lib: Library) -> dict[str, Any] | None:
            row = lib.resolve(ident)
            return paper_json(lib, row, machines) if row is not None else None

        return self.call(load)

    # ---- repo health (its own cache file and lock: network calls never hold the library) ----

    @property
    def health_client(self):  # type: ignore[no-untyped-def]
        if self._health is None:
            from digest_tui.repohealth import GitHubHealthClient, HealthCache

            cache = HealthCache(self.ctx.paths.cache_dir / "repo_health.sqlite3")
            self._health = GitHubHealthClient(cache, timeout=8.0)
        return self._health

    def cached_health(self, paper: dict[str, Any]) -> dict[str, str]:
        from digest_tui.repohealth.format import github_repos, health_line

        lines = {}
        for url, (owner, name) in github_repos(paper).items():
            health = self.health_client.cached(owner, name)
            if health is not None:
                lines[url] = health_line(health)
        return lines

    def refresh_health(self, paper: dict[str, Any]) -> dict[str, str]:
        from digest_tui.repohealth.format import github_repos, health_line

        repos = github_repos(paper)
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
