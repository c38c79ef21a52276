"""The library: importing digests into SQLite and reading papers back out.

Importing is idempotent: a paper is found again by id, alias, arXiv id or normalised title, and
is only written when something about it changed. When copies of a paper from several digests
disagree, the copy from the most recent digest wins for the fields it carries.

Why this module is long: `Library` owns the `papers` table and its satellites (aliases,
digests, extra repos, topics, FTS), and both importing and re-enriching write the same columns
through the same merge and alias rules; keeping writes in one class keeps those rules in one
place. Queries live in store/query.py, short ids in store/short_ids.py, user state in
state/user_state.py; what is left reads single papers back by the same keys imports use.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from array import array
from collections.abc import Callable, Generator, Iterable, Sequence
from contextlib import nullcontext, suppress
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from digest_tui.errors import DigestError
from digest_tui.ids import normalize_arxiv_id, title_key
from digest_tui.store import db
from digest_tui.store.db import transaction
from digest_tui.store.field_caps import cap_fields, where_from
from digest_tui.store.fit_keys import refresh_fit_keys
from digest_tui.store.fits import install_fits
from digest_tui.store.fts_bulk import fts_filled_at_end
from digest_tui.store.query import PaperQuery, build_rowid_select, build_select
from digest_tui.store.topic_edits import (
    SETTLE_MIN,
    forget_other_taxonomies,
    remember_taxonomy,
    settle_unchanged,
)

if TYPE_CHECKING:
    from digest_tui.enrich.parallel import EnrichPool, PartsTask
    from digest_tui.enrich.pipeline import Enricher

    # The pydantic models load where a paper is built (import, re-enrichment): a command
    # that only reads the library never imports pydantic.
    from digest_tui.models import Digest, ImportWarning, Paper, ParsedDigest, Repo
    from digest_tui.state.user_state import UserState
    from digest_tui.store.fit_texts import FitTexts

# Columns that come from a source (everything else is bookkeeping or derived).
_SOURCE_FIELDS = (
    "title",
    "abstract",
    "published",
    "published_year_inferred",
    "upvotes",
    "authors_count",
    "authors",
    "organization",
    "organization_name",
    "arxiv_id",
    "keywords",
    "categories",
    "project_page",
    "github_repo",
    "github_stars",
    "withdrawn",
    "source",
    "source_ref",
)
_JSON_LIST_FIELDS = ("authors", "keywords", "categories")
# Meta key: the enrichment fingerprint every stored paper is known to carry (`has_stale`).
_ENRICHED_FP = "enriched_fp"
# Papers in one digest from which the full-text index is filled in bulk (store/fts_bulk.py).
_BULK_FTS_MIN = 8


@dataclass
class ImportReport:
    digest_id: str = ""
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[ImportWarning] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # inputs that could not be read at all

    def merge(self, other: ImportReport) -> None:
        self.failed.extend(other.failed)
        self.new += other.new
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.warnings.extend(other.warnings)


# The columns of a ListRow, in its order.
_LIST_COLUMNS = (
    "p.rowid, p.id, p.title, p.published, p.upvotes, p.has_code, p.topics, p.max_stars, "
    "coalesce(s.bookmarked, 0), coalesce(s.read, 0), coalesce(s.note_conflicts, 0) > 0, "
    "p.first_seen"
)
# Lists of rowids remembered by list_rowids (up to 800 KB each at 100,000 papers).
_ROWID_MEMO_SIZE = 8
# Rowids per `IN (...)` of list_rows_by_rowid: far below SQLite's limit on bound parameters.
_ROWID_CHUNK = 500


def attach_pending(conn: sqlite3.Connection, rowid: int) -> int:
    """state.refs.attach_pending, imported on the first paper stored: the user state's modules
    (~15 ms to import) stay off the paths that only read, such as the app's first frame."""
    from digest_tui.state.refs import attach_pending as attach

    return attach(conn, rowid)


def any_pending(conn: sqlite3.Connection) -> bool:
    """state.refs.any_pending, imported when an import starts (see attach_pending)."""
    from digest_tui.state.refs import any_pending as pending

    return pending(conn)


class ListRow(NamedTuple):
    """What the paper list needs per row: a tuple, so 100,000 of them build and stay cheap
    (a frozen dataclass cost 6x more to build, bench_search)."""

    rowid: int
    id: str
    title: str
    published: str | None
    upvotes: int | None
    has_code: bool
    topics: str
    max_stars: int | None
    bookmarked: bool = False
    read: bool = False
    # Its note kept more than one version after a sync (concurrent edits): the list marks it.
    note_conflict: bool = False
    # The date of the first digest that listed it: what an undated paper sorts (and shows) by.
    listed: str | None = None


@dataclass(frozen=True)
class DigestRow:
    id: str
    date: str
    title: str
    count: int


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


# One encoder for the list columns (`json.dumps` with options builds a new one per call); the
# same text `json.dumps(value, ensure_ascii=False)` gives.
_encode_list = json.JSONEncoder(ensure_ascii=False).encode


def _paper_columns(paper: Paper) -> dict[str, Any]:
    # Attribute reads, not `model_dump` (which copies every field of the model: ~15 us a
    # paper of the importer's ~200).
    row = {name: getattr(paper, name) for name in _SOURCE_FIELDS}
    row["published"] = paper.published.isoformat() if paper.published else None
    row["published_year_inferred"] = int(paper.published_year_inferred)
    row["withdrawn"] = int(paper.withdrawn)
    for name in _JSON_LIST_FIELDS:
        value = row[name]
        # Usually empty (a page lists no authors, keywords or categories): the encoder's text
        # for an empty list without calling it.
        row[name] = _encode_list(value) if value else "[]"
    row["arxiv_id"] = normalize_arxiv_id(paper.arxiv_id) if paper.arxiv_id else None
    return row


# Text that a cut-off copy of a page would shorten: a shorter copy never replaces the stored
# text unless the user asks (`import --replace`).
_NEVER_SHORTENED = ("title", "abstract")


def _merge(
    existing: sqlite3.Row,
    incoming: dict[str, Any],
    incoming_is_newer: bool,
    *,
    replace: bool = False,
    kept: list[str] | None = None,
) -> dict:
    """Combine a stored paper with a new copy of it; return the columns that change.

    Fields in _NEVER_SHORTENED that the new copy would make shorter are kept (their names
    are appended to `kept`) unless `replace`.
    """
    changes: dict[str, Any] = {}
    for name in _SOURCE_FIELDS:
        if name in ("source", "source_ref"):
            continue  # where a copy came from is not a change to the paper
        new_value = incoming[name]
        old_value = existing[name]
        if name != "published_year_inferred" and (
            new_value in (None, "", "[]") or new_value == old_value
        ):
            continue
        if name == "published_year_inferred":
            # A copy that prints the year confirms an inferred one.
            same_day = existing["published"] == incoming["published"]
            if same_day and old_value and not new_value:
                changes[name] = 0
            continue
        printed_year_kept = old_value and not existing["published_year_inferred"]
        if name == "published" and printed_year_kept and incoming["published_year_inferred"]:
            continue  # a date printed with its year beats one whose year was inferred
        if incoming_is_newer or old_value in (None, "", "[]"):
            shorter = name in _NEVER_SHORTENED and old_value and len(new_value) < len(old_value)
            if shorter and not replace:
                if kept is not None:
                    kept.append(name)
                continue
            changes[name] = new_value
            if name == "published":
                changes["published_year_inferred"] = incoming["published_year_inferred"]
    if changes and incoming_is_newer:
        changes["source"] = incoming["source"]
        changes["source_ref"] = incoming["source_ref"]
    return changes


class Library:
    """All reads and writes of papers and digests go through here."""

    def __init__(self, conn: sqlite3.Connection, enricher: Enricher | None = None) -> None:
        self.conn = conn
        self.enricher = enricher
        self._rowid_memo: dict[tuple[str, tuple[Any, ...]], tuple[Any, array[int]]] = {}
        # Whether an import on this connection has kept the snapshot of the taxonomy its
        # papers are classified with (store/topic_edits.py). An import rolled back loses it;
        # `reenrich` and the next connection keep it again.
        self._taxonomy_kept = False
        # `machine_fit` answers kept across commands (store/fit_texts.py): service.open_library
        # sets it; without it every answer is judged.
        self.fit_texts: FitTexts | None = None
        # `fits:` works on any connection; service.open_library installs the user's machines.
        install_fits(conn)

    # ---- the file -----------------------------------------------------------------------

    def checkpoint(self) -> bool:
        """Move recent changes from the write-ahead log into `library.sqlite3` (db.checkpoint)."""
        return db.checkpoint(self.conn)

    def close(self) -> None:
        """Checkpoint and close the connection: call on every exit (the app on quit).

        Without it the latest changes stay in `library.sqlite3-wal` only, so a copy of the
        library file alone would miss them. Safe to call twice.
        """
        db.close(self.conn)

    def backup(self, destination: Path) -> None:
        """A consistent copy of the whole library in one file (SQLite's online backup)."""
        db.backup(self.conn, destination)

    # ---- import -------------------------------------------------------------------------

    def import_parsed(
        self, parsed: ParsedDigest, content_hash: str = "", *, replace: bool = False
    ) -> ImportReport:
        """Store one parsed digest in a single transaction.

        A shorter copy of a digest (a page cut off by a failed download or save) never
        removes papers from it nor shortens a stored title or abstract: that is kept, with a
        warning naming the file. `replace` makes the new copy win in both cases.
        """
        return self.import_chunks(
            parsed.digest, [parsed.papers], parsed.warnings, content_hash, replace=replace
        )

    def import_chunks(
        self,
        digest: Digest,
        chunks: Iterable[Sequence[Paper]],
        warnings: Sequence[ImportWarning] = (),
        content_hash: str = "",
        *,
        replace: bool = False,
    ) -> ImportReport:
        """`import_parsed` for a digest whose papers come a chunk at a time (a page too large
        to hold, hf_page.StreamedPage), in one transaction. `warnings` is read at the end, so
        a stream may still add to it while its chunks are read."""
        report = ImportReport(digest_id=digest.id)
        day = digest.date.isoformat()
        with transaction(self.conn):
            if self.enricher is None:  # papers stored unenriched: `has_stale` must look again
                self.conn.execute("DELETE FROM meta WHERE key = ?", (_ENRICHED_FP,))
            rowids: list[tuple[int, int | None]] = []
            # Ops only ever stop waiting during an import (attach_pending), so when none wait
            # at its start none will: one probe per import instead of two per new paper.
            pending_ops = any_pending(self.conn)
            for chunk in chunks:
                papers = []
                for paper in chunk:
                    capped, capped_warnings = cap_fields(paper)
                    papers.append(self._with_catalog_arxiv(capped))
                    report.warnings.extend(capped_warnings)
                # Many new papers: their full-text rows are written in one statement at the
                # end (store/fts_bulk.py), 5x cheaper than a trigger per paper. A few: not
                # worth the DDL.
                bulk = fts_filled_at_end(self.conn) if len(papers) >= _BULK_FTS_MIN else None
                with bulk or nullcontext():
                    self._store_chunk(papers, chunk, day, replace, report, rowids, pending_ops)
            report.warnings[:0] = warnings  # the source's warnings first, as they were found
            self._store_digest(digest, rowids, content_hash, replace, report.warnings)
            refresh_fit_keys(self.conn)
        return report

    def needing_enrichment(self, papers: Sequence[Paper]) -> list[Paper]:
        """The papers an import will likely enrich: all but those stored under the same id
        with the same text and current enrichment. Only a hint for computing enrichment ahead
        (service.import_files): a paper left out is still enriched when it is stored."""
        fingerprint = self._fingerprint()
        stored: dict[str, tuple[Any, ...]] = {}
        for start in range(0, len(papers), 500):
            ids = [p.id for p in papers[start : start + 500]]
            for row in self.conn.execute(
                "SELECT id, title, abstract, enrich_fp FROM papers "
                f"WHERE id IN ({','.join('?' * len(ids))})",
                ids,
            ):
                stored[row[0]] = (row[1], row[2], row[3])
        return [p for p in papers if stored.get(p.id) != (p.title, p.abstract, fingerprint)]

    def _find_exact(self, ident: str, arxiv: str | None) -> sqlite3.Row | None:
        """A paper by its id, a former id (alias), or its arXiv id."""
        conn = self.conn
        row = conn.execute("SELECT * FROM papers WHERE id = ?", (ident,)).fetchone()
        if row is None:
            alias = conn.execute(
                "SELECT paper_id FROM paper_aliases WHERE alias = ?", (ident,)
            ).fetchone()
            if alias is not None:
                row = conn.execute("SELECT * FROM papers WHERE id = ?", (alias[0],)).fetchone()
        if row is None and arxiv:
            row = conn.execute("SELECT * FROM papers WHERE arxiv_id = ?", (arxiv,)).fetchone()
        return row

    def _find(self, paper: Paper) -> sqlite3.Row | None:
        """The stored copy of an incoming paper: by id, alias, arXiv id, then title."""
        arxiv = normalize_arxiv_id(paper.arxiv_id) if paper.arxiv_id else None
        row = self._find_exact(paper.id, arxiv)
        if row is None:
            candidates = self.conn.execute(
                "SELECT * FROM papers WHERE title_key = ?", (title_key(paper.title),)
            ).fetchall()
            # Same title but two different arXiv ids are two papers (e.g. a v2 re-submission
            # under a new id is rare; two unrelated papers sharing a title is not).
            for candidate in candidates:
                if not arxiv or not candidate["arxiv_id"] or candidate["arxiv_id"] == arxiv:
                    row = candidate
                    break
        return row

    def _store_chunk(
        self,
        papers: Sequence[Paper],
        sources: Sequence[Paper],
        day: str,
        replace: bool,
        report: ImportReport,
        rowids: list[tuple[int, int | None]],
        pending_ops: bool,
    ) -> None:
        """Store a chunk of papers (capped, with catalog ids: `papers`; as the source gave
        them: `sources`), appending (rowid, upvotes) to `rowids`.

        A paper none of whose keys (id, arXiv id, title key) is stored, nor was named by an
        earlier paper of the chunk, is new: it is inserted without the four lookups of `_find`
        (the stored keys of the whole chunk are read in four queries), and its topics are
        written with the others of the chunk in one statement. Any other paper takes the
        general path (`_upsert_paper`), exactly as before."""
        keys = [_PaperKeys.of(paper) for paper in papers]
        stored = self._stored_keys(keys)
        named: set[str] = set()  # keys of the papers handled so far in this chunk
        topics: list[tuple[str, int]] = []
        added_at = _now()
        for paper, source, key in zip(papers, sources, keys, strict=True):
            if stored.isdisjoint(key.tags) and named.isdisjoint(key.tags):
                incoming = _paper_columns(paper)
                rowid, new_topics = self._insert_paper(paper, incoming, key.title, day, added_at)
                topics.extend((topic, rowid) for topic in new_topics)
                if pending_ops:
                    self._write_topics(topics)
                    attach_pending(self.conn, rowid)  # user state synced before the paper
                outcome = "new"
            else:
                self._write_topics(topics)  # the general path may read or rewrite them
                rowid, outcome = self._upsert_paper(paper, day, replace, report.warnings)
            named.update(key.tags)
            named.add("i" + source.id)
            setattr(report, outcome, getattr(report, outcome) + 1)
            rowids.append((rowid, paper.upvotes))
            if paper.id != source.id:
                self._keep_alias(source.id, rowid)
        self._write_topics(topics)

    def _stored_keys(self, keys: Sequence[_PaperKeys]) -> set[str]:
        """Which of the chunk's keys name a stored paper (tagged as in `_PaperKeys.tags`): by
        id or alias ("i"), arXiv id ("a"), title key ("t"), as `_find` looks them up."""
        found: set[str] = set()
        queries = (
            ("i", "SELECT id FROM papers WHERE id IN ({})", [k.id for k in keys]),
            ("i", "SELECT alias FROM paper_aliases WHERE alias IN ({})", [k.id for k in keys]),
            ("a", "SELECT arxiv_id FROM papers WHERE arxiv_id IN ({})", [k.arxiv for k in keys]),
            ("t", "SELECT title_key FROM papers WHERE title_key IN ({})", [k.title for k in keys]),
        )
        for tag, sql, values in queries:
            wanted = list(dict.fromkeys(v for v in values if v))
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                found.update(tag + row[0] for row in self.conn.execute(sql.format(marks), part))
        return found

    def _write_topics(self, topics: list[tuple[str, int]]) -> None:
        """Insert the (topic, rowid) rows of new papers, and empty the list."""
        if topics:
            self.conn.executemany(
                "INSERT INTO paper_topics (topic, paper_rowid) VALUES (?, ?)", topics
            )
            topics.clear()

    def _insert_paper(
        self, paper: Paper, incoming: dict[str, Any], key: str, day: str, added_at: str
    ) -> tuple[int, list[str]]:
        """Insert a paper not stored yet, enriched; return its rowid and its topics, which the
        caller writes (the rowid is new: no topic rows name it yet)."""
        columns = incoming
        columns.update(id=paper.id, title_key=key, first_seen=day, last_seen=day)
        columns["added_at"] = added_at
        columns.update(self._enrichment_columns(paper, []))
        names = tuple(columns)
        sql = _INSERT_SQL.get(names)
        if sql is None:
            sql = _INSERT_SQL[names] = (
                f"INSERT INTO papers ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
            )
        cursor = self.conn.execute(sql, tuple(columns.values()))
        return int(cursor.lastrowid or 0), json.loads(columns["topics"])

    def _upsert_paper(
        self,
        paper: Paper,
        day: str,
        replace: bool = False,
        warnings: list[ImportWarning] | None = None,
    ) -> tuple[int, str]:
        conn = self.conn
        incoming = _paper_columns(paper)
        existing = self._find(paper)
        if existing is None:
            key = title_key(paper.title)
            rowid, topics = self._insert_paper(paper, incoming, key, day, _now())
            self._store_topics(rowid, topics)
            attach_pending(conn, rowid)  # user state synced before the paper arrived
            return rowid, "new"

        rowid = int(existing["rowid"])
        incoming_is_newer = not existing["last_seen"] or day >= existing["last_seen"]
        kept: list[str] = []
        changes = _merge(existing, incoming, incoming_is_newer, replace=replace, kept=kept)
        if kept and warnings is not None:
            warnings.append(_kept_warning(paper, existing, kept))
        if existing["first_seen"] is None or day < existing["first_seen"]:
            changes["first_seen"] = day
        if existing["last_seen"] is None or day > existing["last_seen"]:
            changes["last_seen"] = day
        if (
            paper.id != existing["id"]
            and normalize_arxiv_id(paper.id)
            and not normalize_arxiv_id(existing["id"])
        ):
            self._rekey(existing["id"], paper.id)
        text_changed = any(
            name in changes for name in ("title", "abstract", "keywords", "arxiv_id", "github_repo")
        )
        if not changes:
            return rowid, "unchanged"
        if "title" in changes:
            changes["title_key"] = title_key(changes["title"])
        if text_changed or existing["enrich_fp"] != self._fingerprint():
            merged = self._row_to_paper({**dict(existing), **changes})
            changes.update(self._enrichment_columns(merged, self._extra_repos(rowid)))
            self._store_topics(rowid, json.loads(changes["topics"]))
        self._update(rowid, changes)
        if {"title", "arxiv_id"} & changes.keys():
            attach_pending(conn, rowid)  # new names may match ops waiting for this paper
        only_bookkeeping = set(changes) <= {"first_seen", "last_seen"}
        return rowid, "unchanged" if only_bookkeeping else "updated"

    # ---- arXiv ids from the curated catalog ------------------------------------------------

    def _catalog_arxiv(self, title: str) -> str | None:
        """The arXiv id the curated catalog (repro_links/) gives a paper of this title."""
        if self.enricher is None:
            return None
        entry = self.enricher.catalog.lookup(None, title)
        return entry.arxiv_key if entry is not None else None

    def _with_catalog_arxiv(self, paper: Paper) -> Paper:
        """A paper known only by its title, with the arXiv id the catalog lists for that
        title (matched by normalised title, as the catalog's repos are); ids are never
        guessed: a paper the catalog lacks stays as it is."""
        if paper.arxiv_id:
            return paper
        arxiv = self._catalog_arxiv(paper.title)
        if arxiv is None:
            return paper
        return paper.model_copy(update={"arxiv_id": arxiv, "id": arxiv})

    def _keep_alias(self, former_id: str, rowid: int) -> None:
        """`former_id` (the title-derived id a source gave) keeps naming the paper at `rowid`,
        unless it is some paper's id already."""
        self.conn.execute(
            "INSERT OR IGNORE INTO paper_aliases (alias, paper_id) "
            "SELECT ?1, id FROM papers WHERE rowid = ?2 AND id != ?1 "
            "AND NOT EXISTS (SELECT 1 FROM papers WHERE id = ?1)",
            (former_id, rowid),
        )

    def adopt_catalog_arxiv_ids(self) -> int:
        """Give stored papers without an arXiv id the one the curated catalog lists for their
        title, re-keying them (the old id stays an alias); return how many changed.

        Runs once per change of the enrichment data (its fingerprint is kept in meta), so a
        library made before the catalog knew a paper catches up, at the cost of one indexed
        lookup per catalog entry; otherwise it is one meta read.
        """
        if self.enricher is None:
            return 0
        fingerprint = self.enricher.fingerprint
        if self.get_meta("catalog_arxiv_fp") == fingerprint:
            return 0
        changed = 0
        with transaction(self.conn):
            for entry in self.enricher.catalog.entries:
                arxiv = entry.arxiv_key
                if not arxiv or not entry.title:
                    continue
                if self._find_exact(arxiv, arxiv) is not None:
                    continue  # the library knows that arXiv id already
                rows = self.conn.execute(
                    "SELECT rowid, id, title FROM papers WHERE title_key = ? AND arxiv_id IS NULL",
                    (title_key(entry.title),),
                ).fetchall()
                if len(rows) != 1:
                    continue  # two stored papers share the title: leave them as they are
                row = rows[0]
                self._update(int(row["rowid"]), {"arxiv_id": arxiv})
                if not normalize_arxiv_id(row["id"]):
                    self._rekey(row["id"], arxiv)
                attach_pending(self.conn, int(row["rowid"]))
                changed += 1
            self.set_meta("catalog_arxiv_fp", fingerprint)
        return changed

    def _rekey(self, old_id: str, new_id: str) -> None:
        """A paper known by its title gets its arXiv id; the old id stays as an alias."""
        self.conn.execute("UPDATE papers SET id = ? WHERE id = ?", (new_id, old_id))
        self.conn.execute(
            "INSERT OR REPLACE INTO paper_aliases (alias, paper_id) VALUES (?, ?)",
            (old_id, new_id),
        )
        self.conn.execute(
            "UPDATE paper_aliases SET paper_id = ? WHERE paper_id = ?", (new_id, old_id)
        )

    def _store_digest(
        self,
        digest: Digest,
        rowids: list[tuple[int, int | None]],
        content_hash: str,
        replace: bool = False,
        warnings: list[ImportWarning] | None = None,
    ) -> None:
        conn = self.conn
        existing = conn.execute(
            "SELECT content_hash FROM digests WHERE id = ?", (digest.id,)
        ).fetchone()
        if existing is not None and content_hash and existing[0] == content_hash:
            return
        stored = [
            (int(r[0]), r[1])
            for r in conn.execute(
                "SELECT paper_rowid, upvotes FROM digest_papers WHERE digest_id = ? "
                "ORDER BY position",
                (digest.id,),
            )
        ]
        incoming = {rowid for rowid, _ in rowids}
        missing = [(rowid, votes) for rowid, votes in stored if rowid not in incoming]
        if missing and not replace:
            if warnings is not None:
                from digest_tui.models import ImportWarning

                warnings.append(
                    ImportWarning(
                        origin=digest.origin or digest.id,
                        message=f"has {len(rowids)} entries where the stored copy of "
                        f"{digest.id} has {len(stored)}: the page looks truncated; kept the "
                        f"{len(missing)} missing papers in the digest (import --replace "
                        "drops them)",
                    )
                )
            if not incoming - {rowid for rowid, _ in stored}:
                return  # nothing new: the stored copy stays as it was, its origin included
            rowids = rowids + missing
        conn.execute(
            "INSERT INTO digests (id, source, date, title, origin, imported_at, content_hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "source = excluded.source, title = excluded.title, origin = excluded.origin, "
            "imported_at = excluded.imported_at, content_hash = excluded.content_hash",
            (
                digest.id,
                digest.source,
                digest.date.isoformat(),
                digest.title,
                digest.origin,
                _now(),
                content_hash,
            ),
        )
        conn.execute("DELETE FROM digest_papers WHERE digest_id = ?", (digest.id,))
        conn.executemany(
            "INSERT OR IGNORE INTO digest_papers (digest_id, paper_rowid, position, upvotes) "
            "VALUES (?, ?, ?, ?)",
            [(digest.id, rowid, pos, votes) for pos, (rowid, votes) in enumerate(rowids)],
        )

    # ---- enrichment ---------------------------------------------------------------------

    def _fingerprint(self) -> str | None:
        return self.enricher.fingerprint if self.enricher is not None else None

    def _enrichment_columns(self, paper: Paper, extra: list[Repo]) -> dict[str, Any]:
        if self.enricher is None:
            return {"topics": "[]", "enrich_fp": None}
        columns = dict(self.enricher.columns(paper, extra))
        columns["enrich_fp"] = self.enricher.fingerprint
        if not self._taxonomy_kept:
            # What these topics were computed from, for the next taxonomy edit (topic_edits).
            remember_taxonomy(self.conn, self.enricher)
            self._taxonomy_kept = True
        return columns

    def _store_topics(self, rowid: int, topics: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM paper_topics WHERE paper_rowid = ?", (rowid,))
        self.conn.executemany(
            "INSERT INTO paper_topics (topic, paper_rowid) VALUES (?, ?)",
            [(topic, rowid) for topic in topics],
        )

    def _extra_repos(self, rowid: int) -> list[Repo]:
        rows = self.conn.execute(
            "SELECT repo FROM extra_repos WHERE paper_rowid = ? ORDER BY url", (rowid,)
        ).fetchall()
        from digest_tui.models import Repo

        return [Repo.model_validate_json(row[0]) for row in rows]

    def stale_count(self) -> int:
        """Papers whose stored enrichment predates the current data files."""
        fingerprint = self._fingerprint()
        if fingerprint is None:
            return 0
        # The app asks at every start: the count reads every wide row (~0.8 s at 100,000
        # papers), while the meta key of `has_stale` usually says at once that none is stale.
        # Read only: setting the key here (a write at the app's start-up) made the app's list
        # reload under the user's first keys (tests/e2e/test_tmux.py).
        if self.get_meta(_ENRICHED_FP) == fingerprint:
            return 0
        stale = int(
            self.conn.execute(
                "SELECT count(*) FROM papers WHERE enrich_fp IS NOT ?", (fingerprint,)
            ).fetchone()[0]
        )
        return stale

    def has_stale(self) -> bool:
        """Whether any paper's stored enrichment predates the current data files.

        Cheap on every command at any size: meta `enriched_fp` records the fingerprint every
        paper was last seen enriched with (set by `reenrich` and by a check that found nothing
        stale; dropped by an import without an enricher), so the usual answer is one meta read
        instead of a scan of every row (`stale_count`)."""
        fingerprint = self._fingerprint()
        if fingerprint is None:
            return False
        if self.get_meta(_ENRICHED_FP) == fingerprint:
            return False
        stale = (
            self.conn.execute(
                "SELECT 1 FROM papers WHERE enrich_fp IS NOT ? LIMIT 1", (fingerprint,)
            ).fetchone()
            is not None
        )
        if not stale:
            # Only a shortcut for the next check: a library that cannot be written (a
            # read-only file) just keeps scanning.
            with suppress(sqlite3.Error, DigestError), transaction(self.conn):
                self.set_meta(_ENRICHED_FP, fingerprint)
                assert self.enricher is not None
                remember_taxonomy(self.conn, self.enricher)
        return stale

    def reenrich(
        self,
        *,
        only_stale: bool = True,
        progress: Callable[[int, int], None] | None = None,
        batch: int = 500,
        workers: int | None = None,
        pause: Callable[[], None] | None = None,
        rowids: Sequence[int] | None = None,
    ) -> int:
        """Enrich papers again (those enriched with older data, or all); return how many.

        Only a paper's stale components are re-run (a changed taxonomy re-runs the topics and
        leaves links and hardware as stored: `Enricher.stale_components`); `only_stale=False`
        re-runs every component of every paper. Each batch is read in three queries, enriched
        outside any transaction and written in a short one, so the library stays writable for
        the app and other commands meanwhile (a paper changed in between is enriched again,
        in full, inside the write). `workers` > 0 enriches the next batch in that many
        processes while one is written (enrich/parallel.py); None: one per core when there
        are enough papers to pay for starting them (`parallel.MIN_PAPERS`), else none.
        `pause`, when given, is called before each batch, outside any transaction: the app
        waits there while the reader types (the batch after it is already being enriched in
        the workers, so the pause costs the re-enrichment little).

        `rowids`, when given, limits the work to those papers (a command about one paper
        enriches that one, not the library); the library is then not marked fresh."""
        from digest_tui.enrich.pipeline import COMPONENTS, encode_columns

        fingerprint = self._fingerprint()
        if fingerprint is None:
            return 0
        enricher = self.enricher
        assert enricher is not None
        where = "WHERE enrich_fp IS NOT ?" if only_stale else "WHERE ? IS NOT NULL"
        params: list[Any] = [fingerprint]
        if rowids is not None:
            where += f" AND rowid IN ({','.join('?' * len(rowids))})"
            params.extend(rowids)
        stale_by_fp: dict[str | None, frozenset[str]] = {}
        todo: list[tuple[int, frozenset[str]]] = []
        stored_fps: dict[int, str | None] = {}
        for rowid, stored_fp in self.conn.execute(
            f"SELECT rowid, enrich_fp FROM papers {where}", params
        ):
            if stored_fp not in stale_by_fp:
                stale_by_fp[stored_fp] = (
                    enricher.stale_components(stored_fp) if only_stale else frozenset(COMPONENTS)
                )
            todo.append((rowid, stale_by_fp[stored_fp]))
            stored_fps[rowid] = stored_fp
        total = len(todo)
        done = 0
        if progress is not None and total:
            progress(0, total)  # before the first batch: a caller may say why it waits
        if only_stale and len(todo) >= SETTLE_MIN:
            # A taxonomy edit: the papers no changed entry can touch are marked fresh as they
            # are (store/topic_edits.py); only the others are classified again.
            todo = settle_unchanged(
                self.conn,
                enricher,
                todo,
                stored_fps,
                progress=None if progress is None else (lambda n: progress(n, total)),
                pause=pause,
            )
            done = total - len(todo)
        del stored_fps
        batches = [todo[start : start + batch] for start in range(0, len(todo), batch)]
        pool = None
        if len(todo) > batch and workers != 0:
            from digest_tui.enrich.parallel import MIN_PAPERS, EnrichPool, default_workers

            if workers is None:
                workers = default_workers() if len(todo) >= MIN_PAPERS else 0
            if workers > 0:
                pool = EnrichPool(enricher, workers)
        with pool or nullcontext():
            ahead = None  # (inputs, the workers' handle) of the batch being enriched there
            for index, chunk in enumerate(batches):
                if pause is not None:
                    pause()
                if pool is not None:
                    inputs, handle = ahead or self._submit_batch(pool, chunk)
                    following = batches[index + 1] if index + 1 < len(batches) else []
                    ahead = self._submit_batch(pool, following) if following else None
                    results = pool.gather(handle)
                else:
                    inputs = self._enrich_inputs(chunk)
                    results = [encode_columns(enricher.compute_parts(*i.task)) for i in inputs]
                self._write_reenriched(inputs, results)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        if rowids is None:
            with transaction(self.conn):
                self.set_meta(_ENRICHED_FP, fingerprint)
                remember_taxonomy(self.conn, enricher)
                forget_other_taxonomies(self.conn, enricher)
        return total

    def _submit_batch(
        self, pool: EnrichPool, chunk: Sequence[tuple[int, frozenset[str]]]
    ) -> tuple[list[_EnrichInput], list[Any]]:
        inputs = self._enrich_inputs(chunk)
        return inputs, pool.submit_parts([item.task for item in inputs])

    # The stored fields enrichment reads or keeps: what `reenrich` compares before writing.
    _ENRICH_TEXT = (
        "title, abstract, keywords, arxiv_id, github_repo, github_stars, enrich_fp, topics"
    )

    def _enrich_snapshot(self, rowids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
        """Per paper: the stored fields enrichment reads, its fingerprint and topics, and its
        extra repos; two queries for the lot."""
        marks = ",".join("?" * len(rowids))
        extra: dict[int, list[str]] = {}
        for rowid, repo in self.conn.execute(
            f"SELECT paper_rowid, repo FROM extra_repos WHERE paper_rowid IN ({marks}) "
            "ORDER BY paper_rowid, url",
            rowids,
        ):
            extra.setdefault(rowid, []).append(repo)
        return {
            row[0]: (*row[1:], tuple(extra.get(row[0], ())))
            for row in self.conn.execute(
                f"SELECT rowid, {self._ENRICH_TEXT} FROM papers WHERE rowid IN ({marks})", rowids
            )
        }

    def _enrich_inputs(self, chunk: Sequence[tuple[int, frozenset[str]]]) -> list[_EnrichInput]:
        """What enriching each paper of `chunk` again needs, read in three queries."""
        rowids = [rowid for rowid, _ in chunk]
        snapshot = self._enrich_snapshot(rowids)
        marks = ",".join("?" * len(rowids))
        papers = {
            int(row["rowid"]): self._row_to_paper(dict(row))
            for row in self.conn.execute(
                f"SELECT rowid, * FROM papers WHERE rowid IN ({marks})", rowids
            )
        }
        inputs = []
        for rowid, components in chunk:
            seen = snapshot.get(rowid)
            if seen is None:
                continue  # gone since
            extra = [Repo.model_validate_json(repo) for repo in seen[-1]]
            topics = json.loads(seen[-2] or "[]")
            inputs.append(_EnrichInput(rowid, seen, (papers[rowid], extra, components, topics)))
        return inputs

    def _write_reenriched(
        self, inputs: Sequence[_EnrichInput], results: Sequence[dict[str, Any]]
    ) -> None:
        """Write re-enriched components (`results`: their encoded columns) in one short
        transaction: only the columns that were re-run, the paper's topics only when they
        changed. A paper whose stored fields changed since they were read is enriched
        again, in full, here."""
        from digest_tui.enrich.pipeline import encode_columns

        assert self.enricher is not None
        fingerprint = self.enricher.fingerprint
        updates: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        new_topics: list[tuple[int, list[str]]] = []
        with transaction(self.conn):
            now = self._enrich_snapshot([item.rowid for item in inputs]) if inputs else {}
            for item, encoded in zip(inputs, results, strict=True):
                current = now.get(item.rowid)
                if current is None:
                    continue  # gone since
                columns = dict(encoded)
                if current != item.snapshot:  # changed since: enrich it again, in full
                    paper = self.stored_paper(item.rowid)
                    fields = self.enricher.compute_parts(
                        paper, self._extra_repos(item.rowid), self.enricher.stale_components(None)
                    )
                    columns = encode_columns(fields)
                columns["enrich_fp"] = fingerprint
                updates.setdefault(tuple(columns), []).append((*columns.values(), item.rowid))
                # (`current[-2]`: the topics stored now, as their JSON)
                if "topics" in columns and columns["topics"] != current[-2]:
                    new_topics.append((item.rowid, json.loads(columns["topics"])))
            for names, values in updates.items():
                assignments = ", ".join(f"{name} = ?" for name in names)
                self.conn.executemany(f"UPDATE papers SET {assignments} WHERE rowid = ?", values)
            self.conn.executemany(
                "DELETE FROM paper_topics WHERE paper_rowid = ?", [(r,) for r, _ in new_topics]
            )
            self.conn.executemany(
                "INSERT INTO paper_topics (topic, paper_rowid) VALUES (?, ?)",
                [(topic, rowid) for rowid, topics in new_topics for topic in topics],
            )
            remember_taxonomy(self.conn, self.enricher)
            refresh_fit_keys(self.conn)

    def add_extra_repos(self, paper_rowid: int, repos: Iterable[Repo]) -> int:
        """Attach repos from another source (PwC import, the user); re-enrich; return added."""
        added = 0
        with transaction(self.conn):
            for repo in repos:
                cursor = self.conn.execute(
                    "INSERT OR IGNORE INTO extra_repos (paper_rowid, url, repo, source) "
                    "VALUES (?, ?, ?, ?)",
                    (paper_rowid, repo.url, repo.model_dump_json(), repo.source),
                )
                added += cursor.rowcount
            if added:
                self._enrich_stored(paper_rowid)
                refresh_fit_keys(self.conn)
        return added

    def _update(self, rowid: int, columns: dict[str, Any]) -> None:
        assignments = ", ".join(f"{name} = ?" for name in columns)
        self.conn.execute(
            f"UPDATE papers SET {assignments} WHERE rowid = ?", (*columns.values(), rowid)
        )

    def _enrich_stored(self, rowid: int) -> None:
        """Enrich a stored paper again, from its stored fields and extra repos."""
        columns = self._enrichment_columns(self.stored_paper(rowid), self._extra_repos(rowid))
        self._update(rowid, columns)
        self._store_topics(rowid, json.loads(columns["topics"]))

    # ---- reading ------------------------------------------------------------------------

    def stored_paper(self, rowid: int) -> Paper:
        """The paper stored at `rowid` as its source gave it (the imported fields, without
        what enrichment added); KeyError when there is none."""
        row = self.conn.execute("SELECT * FROM papers WHERE rowid = ?", (rowid,)).fetchone()
        if row is None:
            raise KeyError(rowid)
        return self._row_to_paper(dict(row))

    @staticmethod
    def _row_to_paper(row: dict[str, Any]) -> Paper:
        data = {name: row[name] for name in _SOURCE_FIELDS}
        data["id"] = row["id"]
        for name in _JSON_LIST_FIELDS:
            data[name] = json.loads(data[name] or "[]")
        data["withdrawn"] = bool(data["withdrawn"])
        data["published_year_inferred"] = bool(data["published_year_inferred"])
        from digest_tui.models import Paper

        return Paper.model_validate(data)

    def resolve(self, ident: str) -> sqlite3.Row | None:
        """Find a paper by id, former id, arXiv id, or a unique id prefix; None when no
        paper or several papers match (`resolve_candidates` tells which)."""
        found = self.resolve_candidates(ident, limit=2)
        return found[0] if len(found) == 1 else None

    def resolve_candidates(self, ident: str, limit: int = 10) -> list[sqlite3.Row]:
        """The papers `ident` may name: the one it names exactly (id, former id, arXiv id),
        else those whose id or a former id starts with it (case-insensitively), at most
        `limit`, by id. More than one is an ambiguous prefix."""
        ident = ident.strip()
        if not ident:
            return []
        row = self._find_exact(ident, normalize_arxiv_id(ident))
        if row is not None:
            return [row]
        pattern = ident.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return self.conn.execute(
            "SELECT * FROM papers WHERE id IN ("
            "SELECT id FROM papers WHERE id LIKE ?1 ESCAPE '\\' "
            "UNION SELECT paper_id FROM paper_aliases WHERE alias LIKE ?1 ESCAPE '\\') "
            "ORDER BY id LIMIT ?2",
            (pattern, limit),
        ).fetchall()

    def short_ids(self, ids: Sequence[str]) -> dict[str, str]:
        """id -> the shortest prefix naming only that paper (store/short_ids.py)."""
        from digest_tui.store.short_ids import names_for, shortest_prefixes

        return shortest_prefixes(names_for(self.conn, ids), ids)

    def list_rows(self, query: PaperQuery) -> list[ListRow]:
        sql, params = build_select(query, _LIST_COLUMNS, join_state=True)
        cursor = self.conn.cursor()
        cursor.row_factory = None  # plain tuples: no sqlite3.Row per paper
        make = ListRow._make
        # fetchall: one call into C, not a Python-level __next__ per row (db.LibraryCursor)
        return [make(row) for row in cursor.execute(sql, params).fetchall()]

    def list_rowids(self, query: PaperQuery) -> array[int]:
        """The matching papers' rowids in list order: 8 bytes a paper, read from indexes (the
        paper list fetches only the rows it shows, `list_rows_by_rowid`). The array may be
        shared with later calls: read it, never change it."""
        *_, (rowids, _complete) = self.list_rowids_first(query, 0)
        return rowids

    def list_rowids_first(
        self, query: PaperQuery, first: int
    ) -> Generator[tuple[array[int], bool], None, None]:
        """`list_rowids` in two steps: the first `first` rowids as soon as SQLite has them
        (False: more may follow), then all of them (True). One statement read in two parts,
        so the second step neither repeats the first nor sees another snapshot: an order
        walked off an index (no text, `-topic:`, `is:unread`) yields its first rows after
        `first` index entries, a ranked search after its sort, before the tens of thousands
        of rowids a broad prefix matches are copied out. `first=0`: one step."""
        sql, params = build_rowid_select(query)
        # The same list asked again (Escape back to every paper, a backspace, the reload
        # after start-up) is answered from memory while the database is unchanged: SQLite's
        # data_version moves when another connection commits, total_changes when this one does.
        # `fits:` reads the user's config, not only the database: never remembered.
        key = (sql, tuple(params))
        stamp = (
            self.conn.execute("PRAGMA data_version").fetchone()[0],
            self.conn.total_changes,
        )
        remembered = self._rowid_memo.get(key)
        if remembered is not None and remembered[0] == stamp:
            yield remembered[1], True
            return
        cursor = self.conn.cursor()
        cursor.row_factory = None
        try:
            cursor.execute(sql, params)
            head: list[Any] = []
            if first > 0:
                head = cursor.fetchmany(first)
                if len(head) == first:
                    yield array("q", [row[0] for row in head]), False
            rowids = array("q", [row[0] for row in head])
            rowids.extend([row[0] for row in cursor.fetchall()])
        finally:
            # A caller that stops after the first step (its list was overtaken) ends the
            # statement here, not whenever the generator is collected: an open statement
            # keeps its read snapshot.
            cursor.close()
        if "paper_fits" not in sql:
            if len(self._rowid_memo) >= _ROWID_MEMO_SIZE:
                del self._rowid_memo[next(iter(self._rowid_memo))]  # the oldest
            self._rowid_memo[key] = (stamp, rowids)
        yield rowids, True

    def list_rows_by_rowid(self, rowids: Sequence[int]) -> dict[int, ListRow]:
        """The list rows of these papers, by rowid (papers gone since are missing)."""
        found: dict[int, ListRow] = {}
        make = ListRow._make
        cursor = self.conn.cursor()
        cursor.row_factory = None
        wanted = list(dict.fromkeys(rowids))
        for start in range(0, len(wanted), _ROWID_CHUNK):
            chunk = wanted[start : start + _ROWID_CHUNK]
            marks = ",".join("?" * len(chunk))
            sql = (
                f"SELECT {_LIST_COLUMNS} FROM papers p "
                "LEFT JOIN paper_state s ON s.paper_rowid = p.rowid "
                f"WHERE p.rowid IN ({marks})"
            )
            for row in cursor.execute(sql, chunk).fetchall():
                found[row[0]] = make(row)
        return found

    def rows_in_order(self, query: PaperQuery, columns: str) -> list[sqlite3.Row]:
        """The query's rows (these `columns` of `papers p`, the first being `p.rowid AS rowid`)
        in its order: the order as rowids first (`list_rowids`: read from the list-order
        indexes, as the app's list does), then only those rows by rowid.

        One sorted SELECT of the rows themselves made SQLite carry every paper's wide row
        through the sort: `papers --sort readiness --limit 20` read all 100,000 (~170 ms of
        CPU) to show 20. The order is the list's own (tests/unit/test_cli_rows_in_order.py)."""
        rowids = self.list_rowids(query)
        by_rowid: dict[int, sqlite3.Row] = {}
        for start in range(0, len(rowids), _ROWID_CHUNK):
            chunk = list(rowids[start : start + _ROWID_CHUNK])
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT {columns} FROM papers p WHERE p.rowid IN ({marks})"
            for row in self.conn.execute(sql, chunk):
                by_rowid[int(row["rowid"])] = row
        return [by_rowid[r] for r in rowids if r in by_rowid]

    def rows(self, query: PaperQuery) -> list[sqlite3.Row]:
        sql, params = build_select(query, "p.*")
        return self.conn.execute(sql, params).fetchall()

    def digests_of(self, rowid: int) -> list[str]:
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT d.id FROM digest_papers dp JOIN digests d ON d.id = dp.digest_id "
                "WHERE dp.paper_rowid = ? ORDER BY d.date",
                (rowid,),
            )
        ]

    def digests(self) -> list[DigestRow]:
        rows = self.conn.execute(
            "SELECT d.id, d.date, d.title, count(dp.paper_rowid) FROM digests d "
            "LEFT JOIN digest_papers dp ON dp.digest_id = d.id "
            "GROUP BY d.id ORDER BY d.date DESC, d.id"
        )
        return [DigestRow(r[0], r[1], r[2], r[3]) for r in rows]

    def topic_counts(self) -> dict[str, int]:
        counts = {
            r[0]: r[1]
            for r in self.conn.execute("SELECT topic, count(*) FROM paper_topics GROUP BY topic")
        }
        counts["other"] = self.count() - int(
            self.conn.execute("SELECT count(DISTINCT paper_rowid) FROM paper_topics").fetchone()[0]
        )
        return counts

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM papers").fetchone()[0])

    def has_papers(self) -> bool:
        """`count() > 0` without counting: every command asks it as it opens the library, and
        counting reads a whole index (10-190 ms at 100,000 papers, cold or warm)."""
        return self.conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone() is not None

    # ---- user state (state/user_state.py) --------------------------------------------------

    @cached_property
    def state(self) -> UserState:
        """Bookmarks, read marks, tags, notes and reading lists, recorded as ops."""
        from digest_tui.state.user_state import UserState

        return UserState(self)

    def user_state(self, rowid: int) -> dict[str, Any]:
        """{bookmarked, tags, read, note, note_conflicts, lists} of one paper (paper_view.py)."""
        return self.state.user_state(rowid)

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


# INSERT statements by their column names (the same few every import).
_INSERT_SQL: dict[tuple[str, ...], str] = {}


class _PaperKeys(NamedTuple):
    """The keys `Library._find` looks an incoming paper up by, and the same tagged by kind
    (`tags`: "i" id or alias, "a" arXiv id, "t" title key) for set tests."""

    id: str
    arxiv: str | None
    title: str  # title_key
    tags: tuple[str, ...]

    @classmethod
    def of(cls, paper: Paper) -> _PaperKeys:
        arxiv = normalize_arxiv_id(paper.arxiv_id) if paper.arxiv_id else None
        key = title_key(paper.title)
        tags = ("i" + paper.id, "t" + key) + (("a" + arxiv,) if arxiv else ())
        return cls(paper.id, arxiv, key, tags)


class _EnrichInput(NamedTuple):
    """One stored paper to enrich again: the stored fields it was read with (compared before
    writing) and the task for `Enricher.compute_parts`."""

    rowid: int
    snapshot: tuple[Any, ...]
    task: PartsTask


def _kept_warning(paper: Paper, existing: sqlite3.Row, kept: list[str]) -> ImportWarning:
    from digest_tui.models import ImportWarning

    origin, line = where_from(paper)
    parts = []
    for name in kept:
        old, new = str(existing[name]), str(getattr(paper, name))
        how = "a cut-off copy of" if old.startswith(new.rstrip()) else "shorter than"
        parts.append(f"{name} is {how} the stored one ({len(new):,} of {len(old):,} characters)")
    return ImportWarning(
        origin=origin,
        line=line,
        message=f"entry {paper.title[:80]!r}: {'; '.join(parts)}: kept the stored text "
        "(import --replace takes the new one)",
    )


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
