"""What the app shows beside a paper beyond the library row (issue 15): similar papers, the
"For you" recommendations, Hub weights and data, and the readiness of each GitHub repo.

Blocking calls, made from workers through LibraryService (which holds the lock and the
connection); results are small frozen records, posted to the app as `ExtrasLoaded`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pathlib import Path

    from digest_tui.paper_view import PaperView
    from digest_tui.repohealth.readiness import Readiness, ReadinessClient
    from digest_tui.sources.hf_artifacts import Artifacts
    from digest_tui.store.library import Library, ListRow

SIMILAR_IN_PANEL = 5
SIMILAR_IN_SCREEN = 20
FOR_YOU_LIMIT = 30


@dataclass(frozen=True)
class Related:
    """A paper like the shown one (or recommended), with the one-line reason."""

    id: str
    title: str
    score: float
    reason: str


@dataclass(frozen=True)
class PaperExtras:
    paper_id: str
    # None: the similarity index is still being built in the background.
    similar: tuple[Related, ...] | None = None
    artifacts: Artifacts | None = None
    readiness: Mapping[str, Readiness] = field(default_factory=dict)  # repo url -> readiness
    why: str | None = None  # why "For you" recommends it

    @property
    def has_weights(self) -> bool:
        return self.artifacts is not None and bool(self.artifacts.models or self.artifacts.datasets)


@dataclass
class ExtrasLoaded(Message):
    extras: PaperExtras


@dataclass
class SimilarReady(Message):
    """The papers for the `m` screen; `related` None: the index is still being built."""

    title: str
    related: tuple[Related, ...] | None


def index_pending(library: Library) -> bool:
    from digest_tui.similar.index import SimilarIndex

    return SimilarIndex(library.conn).needs_full_build()


def build_index(library: Library, pause: Callable[[], object] | None = None) -> int:
    """Build (or bring up to date) the similarity index; returns the vectors computed.
    `pause` runs between the batches of a full build (a wait for a pause in typing)."""
    from digest_tui.similar.index import SimilarIndex

    return SimilarIndex(library.conn).refresh(pause=pause).built


def similar(library: Library, paper_id: str, limit: int) -> tuple[Related, ...] | None:
    """Papers like `paper_id`; None while the index awaits its full build (never started
    here: a full build on the shared connection would hold every other call for a minute)."""
    from digest_tui.similar.find import similar_to

    row = library.resolve(paper_id)
    if row is None:
        return ()
    if index_pending(library):
        return None
    found = similar_to(library.conn, int(row["rowid"]), limit)
    titles = _titles(library, [f.rowid for f in found])
    return tuple(
        Related(titles[f.rowid][0], titles[f.rowid][1], f.score, f.reason)
        for f in found
        if f.rowid in titles
    )


def for_you(
    library: Library, limit: int = FOR_YOU_LIMIT, *, tag: str | None = None
) -> tuple[list[ListRow], dict[str, str]]:
    """Papers ranked against the bookmarked ones, or (`tag`) the ones with that tag (read
    ones left out), in rank order, and why each: "like 'X' and 'Y' you bookmarked" / "you
    tagged moe". Empty without such papers or an index."""
    from digest_tui.similar.recommend import recommend
    from digest_tui.store.query import PaperQuery
    from digest_tui.textsafe import one_line

    chosen = PaperQuery(tag=tag) if tag is not None else PaperQuery(bookmarked=True)
    # The tag is the user's own text, shown quoted and on one line like a title.
    why = f"you tagged '{one_line(tag, 30)}'" if tag is not None else "you bookmarked"
    positives = [r.rowid for r in library.list_rows(chosen)]
    if not positives or index_pending(library):
        return [], {}
    read = [r.rowid for r in library.list_rows(PaperQuery(read=True))]
    found = recommend(library.conn, positives, limit=limit, exclude=read)
    titles = _titles(library, [rowid for f in found for rowid in (f.rowid, *f.like)])
    query = PaperQuery(
        extra_where=[
            ("p.rowid IN (SELECT value FROM json_each(?))", (json.dumps([f.rowid for f in found]),))
        ]
    )
    rank = {f.rowid: i for i, f in enumerate(found)}
    rows = sorted(library.list_rows(query), key=lambda r: rank.get(r.rowid, len(rank)))
    reasons = {}
    for f in found:
        names = [f"'{one_line(titles[r][1], 50)}'" for r in f.like if r in titles]
        if f.rowid in titles:
            reasons[titles[f.rowid][0]] = (
                f"like {' and '.join(names)} {why}" if names else f"near the papers {why}"
            )
    return rows, reasons


def cached_artifacts(paper: PaperView, cache_dir: Path) -> Artifacts | None:
    from digest_tui.ids import normalize_arxiv_id
    from digest_tui.sources.hf_artifacts import cached_artifacts as from_cache

    arxiv_id = normalize_arxiv_id(paper.arxiv_id or "")
    return from_cache(arxiv_id, cache_dir) if arxiv_id else None


def fetch_artifacts(paper: PaperView, cache_dir: Path) -> Artifacts | None:
    """From the Hub (the cache within its day); None when neither can answer."""
    from digest_tui.errors import FetchError
    from digest_tui.ids import normalize_arxiv_id
    from digest_tui.sources.hf_artifacts import fetch_artifacts as from_hub

    arxiv_id = normalize_arxiv_id(paper.arxiv_id or "")
    if arxiv_id is None:
        return None
    try:
        return from_hub(arxiv_id, cache_dir=cache_dir)
    except (FetchError, ValueError):
        return cached_artifacts(paper, cache_dir)


def readiness(paper: PaperView, client: ReadinessClient, *, refresh: bool) -> dict[str, Readiness]:
    """repo url -> readiness: cached only, or asked of GitHub (`refresh`)."""
    repos = paper.github_repos
    if not refresh:
        found = {url: client.cached(owner, name) for url, (owner, name) in repos.items()}
        return {url: r for url, r in found.items() if r is not None}
    results = {r.key: r for r in client.refresh_many(list(repos.values()))}
    return {
        url: results[f"{owner.lower()}/{name.lower()}"]
        for url, (owner, name) in repos.items()
        if f"{owner.lower()}/{name.lower()}" in results
    }


def _titles(library: Library, rowids: list[int]) -> dict[int, tuple[str, str]]:
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    return {
        int(r[0]): (r[1], r[2])
        for r in library.conn.execute(
            f"SELECT rowid, id, title FROM papers WHERE rowid IN ({marks})", rowids
        )
    }
