"""One short TF-IDF vector per paper, kept in SQLite, and the papers nearest a vector.

A paper's vector is its TERMS_PER_PAPER strongest terms (log term frequency x inverse document
frequency, title and keyword words counted twice), scaled to unit length; the dot product of
two vectors is their cosine. Vectors live in `similar_docs`, and an inverted index
(`similar_postings`: term -> papers and weights) lets SQLite add up the scores of only the
papers that share a term with the query, in C.

Incremental: triggers on `papers` (migration 005) mark papers that come, change or go in
`similar_dirty`; `refresh()` rebuilds only those, skipping a paper whose text fingerprint did
not change. Document frequencies are read from the full-text index (`similar_vocab`) in a full
pass and kept in `similar_terms`; vectors built between full passes use those, so every stored
weight shares one idf. When the library has grown or shrunk by more than REWEIGHT_FACTOR since
the last full pass (or the algorithm VERSION changed), every vector is recomputed once, so the
rebuilds cost O(N) amortised and never happen on every call.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from digest_tui.similar.terms import term_counts
from digest_tui.store.db import transaction

# Bump when vectors built by older code must be rebuilt (tokens, weights, TERMS_PER_PAPER).
VERSION = "1"
TERMS_PER_PAPER = 64
REWEIGHT_FACTOR = 1.25
_BATCH = 500
# Between two batches of a full pass the write lock is left free this long. SQLite has no queue
# of writers: one waiting on a busy library retries after sleeps of up to 100 ms, so a lock
# taken again at once would starve it (a bookmark would fail after its 5 s wait); a gap as
# long as the longest sleep lets every waiter in. With _FULL_BATCH papers per batch (about a
# second of work here) the gaps add ~10 % to the pass, and a writer waits a second at most.
_WRITER_GAP = 0.1
_FULL_BATCH = 1000
# A query term held by more than this share of the library (and more than COMMON_FLOOR papers)
# is left out of the search: its postings list is most of the work (at 100,000 synthetic
# papers a full query walks ~640,000 postings, 300 ms; without such terms ~21,000, 5 ms) and
# its low idf moves the order little. The floor keeps small libraries exact.
COMMON_SHARE = 0.05
COMMON_FLOOR = 1_000
MIN_QUERY_TERMS = 8  # never search with fewer: the strongest common terms come back first

Vector = list[tuple[int, float]]  # (term_id, weight), strongest first, unit length


@dataclass(frozen=True)
class RefreshReport:
    built: int = 0  # vectors computed
    unchanged: int = 0  # marked dirty, but the text was the same
    dropped: int = 0  # papers gone from the library
    full: bool = False  # every vector recomputed (first build, version, library size)


@dataclass(frozen=True)
class Hit:
    rowid: int
    score: float


class SimilarIndex:
    """The vectors of one library connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._terms: dict[str, tuple[int, int]] = {}  # term -> (term_id, df)
        self._term_names: dict[int, str] = {}

    # ---- keeping it current ---------------------------------------------------------------

    def refresh(
        self,
        *,
        limit: int | None = None,
        full: bool = True,
        pause: Callable[[], object] | None = None,
    ) -> RefreshReport:
        """Bring every vector up to date with the library; cheap when nothing changed.

        `limit`: rebuild at most that many changed papers (the oldest marks first); the rest
        stay marked for the next refresh. `full=False`: never start a full pass (an import
        must not turn into a minute-long rebuild); nothing is done when one is due.
        `pause`: called between two batches of a full pass, outside any transaction (the app
        waits there for a pause in the reader's typing).
        """
        conn = self.conn
        if self._needs_full():
            return self._rebuild_all(pause) if full else RefreshReport()
        if not conn.execute("SELECT 1 FROM similar_dirty").fetchone():
            return RefreshReport()
        with transaction(conn):
            # Decided again under the write lock: another process may have refreshed already
            # (or started a full pass, which rebuilds these papers too).
            if self._needs_full():
                return RefreshReport()
            sql = "SELECT paper_rowid FROM similar_dirty ORDER BY paper_rowid"
            params: tuple[int, ...] = ()
            if limit is not None:
                sql += " LIMIT ?"
                params = (max(limit, 0),)
            dirty = [r[0] for r in conn.execute(sql, params)]
            report = self._rebuild(dirty)
            if limit is None:
                conn.execute("DELETE FROM similar_dirty")
            else:
                for chunk in _chunks(dirty, _BATCH):
                    marks = ",".join("?" * len(chunk))
                    conn.execute(f"DELETE FROM similar_dirty WHERE paper_rowid IN ({marks})", chunk)
            return report

    def built(self) -> bool:
        """Whether a full pass has ever been made (an index exists to keep current)."""
        return self._meta("similar_papers") is not None

    def pending(self) -> int:
        """Papers marked as changed since the last refresh."""
        return int(self.conn.execute("SELECT count(*) FROM similar_dirty").fetchone()[0])

    def needs_full_build(self) -> bool:
        """Whether the next refresh() recomputes every vector (first build, a new VERSION, or
        the library grew or shrank past REWEIGHT_FACTOR): the app runs that in the background
        instead of inside the first `similar` a reader asks for."""
        return self._needs_full()

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _needs_full(self) -> bool:
        if self._meta("similar_version") != VERSION:
            return True
        built_at = self._meta("similar_papers")
        if built_at is None:
            return True
        now = self._paper_count()
        then = max(int(built_at), 1)
        return now > then * REWEIGHT_FACTOR or now * REWEIGHT_FACTOR < then

    def _paper_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM papers").fetchone()[0])

    def _rebuild_all(self, pause: Callable[[], object] | None = None) -> RefreshReport:
        """Every vector again, `_FULL_BATCH` papers per write transaction. The write lock is never
        held for the whole pass (a minute or two at 100,000 papers): the app's marks, tags,
        notes and re-enrichment, and other commands, write between batches instead of failing
        on a busy library after SQLite's 5 s wait. The version goes first and comes back
        last, so until the pass ends the index reads as pending (`needs_full_build`) and
        nobody searches a half-built one; a pass cut short (the app closed) starts again.
        `pause` runs between batches, after the gap: each batch holds the GIL for a good
        part of a second, which a reader typing meanwhile would feel in every key."""
        conn = self.conn
        with transaction(conn):
            if not self._needs_full():
                return RefreshReport()  # another connection finished one meanwhile
            conn.execute("DELETE FROM meta WHERE key = 'similar_version'")
            conn.execute("DELETE FROM similar_postings")
            conn.execute("DELETE FROM similar_docs")
            conn.execute("DELETE FROM similar_dirty")
            # The library size this pass's document frequencies go with (`_rebuild` reads it).
            self._set_meta("similar_papers", str(self._paper_count()))
            self._snapshot_document_frequencies()
        built, last = 0, -1
        while True:
            with transaction(conn):
                rowids = [
                    int(r[0])
                    for r in conn.execute(
                        "SELECT rowid FROM papers WHERE rowid > ? ORDER BY rowid LIMIT ?",
                        (last, _FULL_BATCH),
                    )
                ]
                if not rowids:
                    self._set_meta("similar_version", VERSION)
                    return RefreshReport(built=built, full=True)
                # As any changed papers: a vector a second pass running at the same time
                # (another process) stored already is replaced, not duplicated.
                built += self._rebuild(rowids).built
            last = rowids[-1]
            time.sleep(_WRITER_GAP)
            if pause is not None:
                pause()

    def _rebuild(self, rowids: Sequence[int]) -> RefreshReport:
        conn = self.conn
        # The library size of the last full pass goes with its document frequencies.
        total = int(self._meta("similar_papers") or self._paper_count())
        built = unchanged = dropped = 0
        for chunk in _chunks(rowids, _BATCH):
            marks = ",".join("?" * len(chunk))
            papers = {
                r[0]: r
                for r in conn.execute(
                    f"SELECT rowid, title, abstract, keywords FROM papers WHERE rowid IN ({marks})",
                    chunk,
                )
            }
            stored = {
                r[0]: (r[1], r[2])
                for r in conn.execute(
                    "SELECT paper_rowid, fp, terms FROM similar_docs "
                    f"WHERE paper_rowid IN ({marks})",
                    chunk,
                )
            }
            for rowid in chunk:
                old_fp, old_terms = stored.get(rowid, (None, "[]"))
                old_ids = [term_id for term_id, _ in json.loads(old_terms)]
                paper = papers.get(rowid)
                if paper is None:
                    if rowid in stored:
                        self._drop(rowid, old_ids)
                        dropped += 1
                    continue
                _, title, abstract, keywords = paper
                fp = _fingerprint(title, abstract, keywords)
                if fp == old_fp:
                    unchanged += 1
                    continue
                vector = self._vector(title, abstract, keywords, total)
                self._store(rowid, fp, vector, old_ids)
                built += 1
        return RefreshReport(built=built, unchanged=unchanged, dropped=dropped)

    def _drop(self, rowid: int, old_ids: Iterable[int]) -> None:
        self.conn.executemany(
            "DELETE FROM similar_postings WHERE term_id = ? AND paper_rowid = ?",
            [(term_id, rowid) for term_id in old_ids],
        )
        self.conn.execute("DELETE FROM similar_docs WHERE paper_rowid = ?", (rowid,))

    def _store(self, rowid: int, fp: str, vector: Vector, old_ids: Iterable[int]) -> None:
        self._drop(rowid, old_ids)
        self.conn.execute(
            "INSERT INTO similar_docs (paper_rowid, fp, terms) VALUES (?, ?, ?)",
            (rowid, fp, json.dumps([[t, round(w, 5)] for t, w in vector])),
        )
        self.conn.executemany(
            "INSERT INTO similar_postings (term_id, paper_rowid, weight) VALUES (?, ?, ?)",
            [(term_id, rowid, weight) for term_id, weight in vector],
        )

    def _vector(self, title: str, abstract: str, keywords_json: str, total: int) -> Vector:
        counts = term_counts(title, abstract or "", _keywords(keywords_json))
        weighted = []
        for term, count in counts.items():
            term_id, df = self._term(term)
            # A term new since the last full pass, or only in keywords (which are not
            # full-text indexed), counts as held by one paper: this one.
            idf = math.log((total + 1) / (max(df, 1) + 0.5))
            if idf > 0:
                weighted.append(((1.0 + math.log(count)) * idf, term_id))
        weighted.sort(key=lambda item: (-item[0], item[1]))
        top = weighted[:TERMS_PER_PAPER]
        norm = math.sqrt(sum(w * w for w, _ in top)) or 1.0
        return [(term_id, w / norm) for w, term_id in top]

    def _snapshot_document_frequencies(self) -> None:
        """Copy every term's document frequency from the full-text index into similar_terms."""
        conn = self.conn
        conn.execute("UPDATE similar_terms SET df = 0")
        conn.executemany(
            "INSERT INTO similar_terms (term, df) VALUES (?, ?) "
            "ON CONFLICT (term) DO UPDATE SET df = excluded.df",
            conn.execute("SELECT term, doc FROM similar_vocab").fetchall(),
        )
        self._terms = {
            term: (int(term_id), int(df))
            for term_id, term, df in conn.execute("SELECT term_id, term, df FROM similar_terms")
        }

    def _term(self, term: str) -> tuple[int, int]:
        """(term_id, document frequency at the last full pass), adding a new term."""
        known = self._terms.get(term)
        if known is None:
            row = self.conn.execute(
                "SELECT term_id, df FROM similar_terms WHERE term = ?", (term,)
            ).fetchone()
            if row is None:
                cursor = self.conn.execute("INSERT INTO similar_terms (term) VALUES (?)", (term,))
                known = (int(cursor.lastrowid or 0), 0)
            else:
                known = (int(row[0]), int(row[1]))
            self._terms[term] = known
        return known

    # ---- reading --------------------------------------------------------------------------

    def vector(self, rowid: int) -> Vector | None:
        """The stored vector of a paper (call refresh() first), or None when it has none."""
        row = self.conn.execute(
            "SELECT terms FROM similar_docs WHERE paper_rowid = ?", (rowid,)
        ).fetchone()
        if row is None:
            return None
        return [(int(t), float(w)) for t, w in json.loads(row[0])]

    def vectors(self, rowids: Iterable[int]) -> dict[int, Vector]:
        found: dict[int, Vector] = {}
        for chunk in _chunks(list(rowids), _BATCH):
            marks = ",".join("?" * len(chunk))
            for rowid, terms in self.conn.execute(
                f"SELECT paper_rowid, terms FROM similar_docs WHERE paper_rowid IN ({marks})",
                chunk,
            ):
                found[int(rowid)] = [(int(t), float(w)) for t, w in json.loads(terms)]
        return found

    def nearest(
        self, query: Sequence[tuple[int, float]], limit: int, exclude: Iterable[int] = ()
    ) -> list[Hit]:
        """The `limit` papers with the highest dot product with `query`, best first.

        Only papers sharing at least one term with the query are scored; ties go to the
        older rowid so the order is stable.
        """
        if not query or limit <= 0:
            return []
        values = ",".join("(?, ?)" for _ in query)
        params: list[object] = [x for pair in query for x in pair]
        params += [json.dumps(sorted(set(exclude))), limit]
        rows = self.conn.execute(
            f"WITH q (term_id, w) AS (VALUES {values}) "
            "SELECT p.paper_rowid, sum(p.weight * q.w) AS score "
            "FROM q CROSS JOIN similar_postings p ON p.term_id = q.term_id "
            "WHERE p.paper_rowid NOT IN (SELECT value FROM json_each(?)) "
            "GROUP BY p.paper_rowid ORDER BY score DESC, p.paper_rowid LIMIT ?",
            params,
        ).fetchall()
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def without_common_terms(self, query: Vector) -> Vector:
        """`query` without the terms too common to be worth their postings (COMMON_SHARE)."""
        total = int(self._meta("similar_papers") or 0)
        cap = max(COMMON_SHARE * total, COMMON_FLOOR)
        ids = [t for t, _ in query]
        df: dict[int, int] = {}
        for chunk in _chunks(ids, _BATCH):
            marks = ",".join("?" * len(chunk))
            df.update(
                (int(t), int(d))
                for t, d in self.conn.execute(
                    f"SELECT term_id, df FROM similar_terms WHERE term_id IN ({marks})", chunk
                )
            )
        kept = [(t, w) for t, w in query if df.get(t, 0) <= cap]
        if len(kept) < MIN_QUERY_TERMS:
            common = [(t, w) for t, w in query if df.get(t, 0) > cap]
            kept += common[: MIN_QUERY_TERMS - len(kept)]
        return kept

    def term_names(self, term_ids: Iterable[int]) -> dict[int, str]:
        term_ids = list(term_ids)
        missing = [t for t in set(term_ids) if t not in self._term_names]
        for chunk in _chunks(missing, _BATCH):
            marks = ",".join("?" * len(chunk))
            for term_id, term in self.conn.execute(
                f"SELECT term_id, term FROM similar_terms WHERE term_id IN ({marks})", chunk
            ):
                self._term_names[int(term_id)] = term
        return {t: self._term_names[t] for t in term_ids if t in self._term_names}

    def shared_terms(self, a: Vector, b: Vector, count: int = 4) -> list[str]:
        """The terms that contribute most to the similarity of `a` and `b`, strongest first."""
        weights = dict(b)
        shared = sorted(
            ((w * weights[t], t) for t, w in a if t in weights), key=lambda x: (-x[0], x[1])
        )
        names = self.term_names(t for _, t in shared[:count])
        return [names[t] for _, t in shared[:count] if t in names]


def cosine(a: Vector, b: Vector) -> float:
    """The dot product of two unit vectors."""
    weights = dict(b)
    return sum(w * weights.get(t, 0.0) for t, w in a)


def _fingerprint(title: str, abstract: str, keywords: str) -> str:
    text = "\x00".join((VERSION, title or "", abstract or "", keywords or "[]"))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def _keywords(keywords_json: str) -> list[str]:
    try:
        value = json.loads(keywords_json or "[]")
    except ValueError:
        return []
    return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []


def _chunks(items: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
