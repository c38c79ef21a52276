"""Papers most like one paper: what `digest-tui similar` and the app's "similar" view call."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from digest_tui.similar.index import SimilarIndex, cosine


@dataclass(frozen=True)
class SimilarPaper:
    rowid: int
    score: float  # cosine of the two papers' term vectors, 0..1
    shared: tuple[str, ...]  # the terms that weigh most in the score, strongest first

    @property
    def reason(self) -> str:
        if not self.shared:
            return "no shared terms"
        return "shares " + ", ".join(self.shared)


def similar_to(conn: sqlite3.Connection, rowid: int, limit: int = 10) -> list[SimilarPaper]:
    """The `limit` papers most like the paper at `rowid`, most similar first.

    Refreshes the index first (only papers added or changed since the last call are
    processed). A paper with no usable words (no abstract, a title of stopwords) has no
    neighbours: an empty list.
    """
    index = SimilarIndex(conn)
    index.refresh()
    query = index.vector(rowid)
    if not query:
        return []
    # Candidates are found with the paper's less common terms only (index.COMMON_SHARE); the
    # score shown, and the order, are the cosine of the whole vectors.
    hits = index.nearest(index.without_common_terms(query), limit, exclude=(rowid,))
    vectors = index.vectors(h.rowid for h in hits)
    found = [
        SimilarPaper(
            hit.rowid,
            round(cosine(query, vectors.get(hit.rowid, [])), 4),
            tuple(index.shared_terms(query, vectors.get(hit.rowid, []))),
        )
        for hit in hits
    ]
    return sorted(found, key=lambda f: (-f.score, f.rowid))
