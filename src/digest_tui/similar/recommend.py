"""Papers ranked against the ones a reader keeps (bookmarks or a tag): `digest-tui recommend`.

The model is Rocchio's: the centroid of the positives' unit TF-IDF vectors, cut to its
CENTROID_TERMS strongest terms, is the query; every other paper scores its cosine with it (the
rest of the library is the negative side only through idf, which already weighs down what
every paper says). Each result names the positives it is closest to, as the explanation.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from digest_tui.similar.index import SimilarIndex, Vector, cosine

CENTROID_TERMS = 64
EXPLAIN_WITH = 2  # positives named in a reason


@dataclass(frozen=True)
class Recommendation:
    rowid: int
    score: float
    like: tuple[int, ...]  # rowids of the positives it is most like, closest first


def centroid(vectors: Iterable[Vector], terms: int = CENTROID_TERMS) -> Vector:
    """The mean of unit vectors, cut to its `terms` strongest terms and scaled to unit length."""
    total: dict[int, float] = defaultdict(float)
    count = 0
    for vector in vectors:
        count += 1
        for term_id, weight in vector:
            total[term_id] += weight
    if not count:
        return []
    top = sorted(total.items(), key=lambda item: (-item[1], item[0]))[:terms]
    norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
    return [(t, w / norm) for t, w in top]


def recommend(
    conn: sqlite3.Connection,
    positives: Sequence[int],
    *,
    limit: int = 10,
    exclude: Iterable[int] = (),
) -> list[Recommendation]:
    """The `limit` papers closest to the positives' centroid, excluding the positives and
    `exclude` (e.g. papers already read). No positives with words: an empty list."""
    index = SimilarIndex(conn)
    index.refresh()
    positive_vectors = index.vectors(positives)
    query = centroid(positive_vectors.values())
    if not query:
        return []
    hits = index.nearest(
        index.without_common_terms(query), limit, exclude=set(positives) | set(exclude)
    )
    found_vectors = index.vectors(h.rowid for h in hits)
    results = []
    for hit in hits:
        vector = found_vectors.get(hit.rowid, [])
        closest = sorted(
            ((cosine(vector, pv), rowid) for rowid, pv in positive_vectors.items()),
            key=lambda item: (-item[0], item[1]),
        )
        like = tuple(rowid for score, rowid in closest[:EXPLAIN_WITH] if score > 0)
        # The score is the cosine with the whole centroid, whichever terms found the paper.
        results.append(Recommendation(hit.rowid, round(cosine(query, vector), 4), like))
    return sorted(results, key=lambda r: (-r.score, r.rowid))
