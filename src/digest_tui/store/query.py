"""Turning a PaperQuery (CLI flags, or the search box) into one SQL SELECT.

Filters become indexed lookups (topic, digest, dates); text goes through the FTS5 index and is
ranked with bm25, title hits weighing most. All values are bound parameters.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from digest_tui.search_syntax import ParsedSearch, fts_query, parse_search
from digest_tui.store.fit_keys import fits_where
from digest_tui.store.repro_sql import READINESS_SQL, REPRODUCIBLE_SQL, runnable_where

# bm25 weights for (title, abstract, search_extra = tags and notes).
_BM25 = "bm25(papers_fts, 10.0, 1.0, 4.0)"
# A paper without a date sorts by the date of the first digest that listed it (first_seen),
# not below every dated paper.
_DATE = "coalesce(p.published, p.first_seen)"
_SORTS = {
    "date": f"{_DATE} IS NULL, {_DATE} DESC, coalesce(p.upvotes, 0) DESC, p.rowid DESC",
    "upvotes": f"coalesce(p.upvotes, 0) DESC, {_DATE} DESC, p.rowid DESC",
    "stars": "coalesce(p.max_stars, -1) DESC, coalesce(p.upvotes, 0) DESC, p.rowid DESC",
    "title": "p.title COLLATE NOCASE, p.rowid",
    # Reproducible on my machines: code + Hub weights + a machine that fits first, then the
    # readiness of the code; readiness: the best-prepared repo first (store/repro_sql.py).
    "reproducible": f"{REPRODUCIBLE_SQL} DESC, {READINESS_SQL} DESC, {_DATE} DESC, p.rowid DESC",
    "readiness": f"{READINESS_SQL} DESC, p.has_code DESC, {_DATE} DESC, p.rowid DESC",
}
# has:VALUE filters that are sets of rowids, probed by rowid while the sort index is walked:
# - hardware (a known hardware scale): a narrow set kept by triggers (migration 008), never the
#   enrichment JSON of each wide row;
# - weights: the papers whose arXiv id the cached Hub index cites, found through the arXiv id
#   index (`paper_weight_ids()` is that set as a JSON array, store/repro_sql.py), not by
#   reading every paper's id off its wide row and asking a Python function about each.
# has:runnable reads the health cache through guarded SQL functions (repro_sql.runnable_where).
_HAS_SETS = {
    "hardware": "SELECT paper_rowid FROM papers_with_hardware",
    "weights": "SELECT rowid FROM papers "
    "WHERE arxiv_id IN (SELECT value FROM json_each(paper_weight_ids()))",
}


@dataclass
class PaperQuery:
    topic: str | None = None  # a topic id, or "other" for papers in no topic
    digest: str | None = None
    search: str = ""
    since: dt.date | None = None
    until: dt.date | None = None
    has_code: bool | None = None
    sort: str | None = None  # date | upvotes | stars | title | relevance; default by context
    limit: int | None = None
    tag: str | None = None
    bookmarked: bool | None = None
    read: bool | None = None
    # Only papers in this reading list (its name in any case, or its id); with no other sort
    # and no search words, in the list's own order. A field, not `list:"…"` search syntax, so
    # any name works, quotes included.
    reading_list: str | None = None
    # Only papers new since `new_since` (what `is:new` selects).
    new_only: bool = False
    # `is:new` means added at or after this ISO time; None: the last visit stored in meta.
    new_since: str | None = None
    extra_where: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    @property
    def parsed(self) -> ParsedSearch:
        return parse_search(self.search)


@dataclass
class _Plan:
    """A query's parts before they become SQL: the rowid path and the row path share them."""

    where: list[str]
    params: list[Any]  # for `where`, in order
    fts: str | None  # the FTS5 expression, when there are words to match
    order: str
    order_params: list[Any]
    relevance: bool  # ordered by bm25 (only with `fts`)


def _plan(query: PaperQuery) -> _Plan:
    parsed = query.parsed
    where: list[str] = []
    params: list[Any] = []

    # Topic sets are broad (thousands of papers): `+p.rowid` keeps SQLite walking the list's
    # order index and probing the set, instead of fetching every member's wide row and sorting.
    topics = ([query.topic] if query.topic else []) + parsed.values("topic")
    for topic in topics:
        if topic == "other":
            where.append("+p.rowid NOT IN (SELECT paper_rowid FROM paper_topics)")
        else:
            where.append("+p.rowid IN (SELECT paper_rowid FROM paper_topics WHERE topic = ?)")
            params.append(topic)
    for topic in parsed.values("-topic"):
        where.append("+p.rowid NOT IN (SELECT paper_rowid FROM paper_topics WHERE topic = ?)")
        params.append(topic)

    digests = ([query.digest] if query.digest else []) + parsed.values("digest")
    for digest in digests:
        # A digest lists tens of papers: fetched by rowid and sorted, rather than a probe of
        # its set for each of the library's papers along the sort index.
        where.append(
            "p.rowid IN (SELECT dp.paper_rowid FROM digest_papers dp "
            "JOIN digests d ON d.id = dp.digest_id WHERE d.id = ? OR d.date = ?)"
        )
        params.extend([digest, digest])

    since = query.since or parsed.since
    if since:
        where.append("p.published >= ?")
        params.append(since.isoformat())
    until = query.until or parsed.until
    if until:
        where.append("p.published <= ?")
        params.append(until.isoformat())

    has_values = parsed.values("has")
    if query.has_code is not None or "code" in has_values:
        where.append("p.has_code = ?")
        params.append(1 if (query.has_code is not False) else 0)
    if "code" in parsed.values("-has"):
        where.append("p.has_code = 0")
    for values, positive in ((has_values, True), (parsed.values("-has"), False)):
        for value in values:
            if value in _HAS_SETS:
                where.append(f"+p.rowid {'' if positive else 'NOT '}IN ({_HAS_SETS[value]})")
            elif value == "runnable":
                where.append(runnable_where(int(positive)))
    if "withdrawn" in parsed.values("is"):
        where.append("p.withdrawn = 1")
    _user_state_filters(query, parsed, where, params)

    for clause, clause_params in query.extra_where:
        where.append(clause)
        params.extend(clause_params)

    fts = fts_query(parsed)
    if fts is None and parsed.excluded:
        # Only exclusions: every paper that does not mention them.
        where.append("p.rowid NOT IN (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)")
        params.append(" OR ".join(f'"{w}"' for w in parsed.excluded))

    sort: str | None = query.sort or next(iter(parsed.values("sort")), None)
    lists = ([query.reading_list] if query.reading_list else []) + parsed.values("list")
    order_params: list[Any] = []
    relevance = False
    if sort is None and fts is None and len(lists) == 1:
        # A reading list reads in its own order unless another sort is asked for.
        order = f"({_LIST_POSITION}), {_SORTS['date']}"
        order_params = [lists[0], lists[0]]
    elif sort == "relevance" or (sort is None and fts is not None):
        relevance = fts is not None
        order = f"{_BM25}, p.rowid DESC" if relevance else _SORTS["date"]
    else:
        order = _SORTS.get(sort or "date", _SORTS["date"])
    return _Plan(where, params, fts, order, order_params, relevance)


def build_select(
    query: PaperQuery, columns: str, *, join_state: bool = False
) -> tuple[str, list[Any]]:
    """`join_state` makes the user's state available as `s` (the list shows its marks)."""
    plan = _plan(query)
    where, params = list(plan.where), list(plan.params)
    joins = ""
    if plan.fts is not None:
        joins = "JOIN papers_fts ON papers_fts.rowid = p.rowid"
        where.append("papers_fts MATCH ?")
        params.append(plan.fts)
    if join_state:
        joins += " LEFT JOIN paper_state s ON s.paper_rowid = p.rowid"
    sql = f"SELECT {columns} FROM papers p {joins}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {plan.order}"
    params.extend(plan.order_params)
    if query.limit is not None:
        sql += " LIMIT ?"
        params.append(int(query.limit))
    return sql, params


# A filter that reads a column of the paper's row (not only its rowid).
_ROW_COLUMN = re.compile(r"\bp\.(?!rowid\b)\w")
_P_ROWID = re.compile(r"\+?\bp\.rowid\b")


def build_rowid_select(query: PaperQuery) -> tuple[str, list[Any]]:
    """The matching papers' rowids in list order, reading as little as possible: the paper
    list fetches the rows it shows by rowid (`Library.list_rows_by_rowid`).

    Ranked by relevance with filters that need only rowids (topics, tags, lists, marks), the
    query never touches `papers`: bm25 over the FTS index alone. Otherwise the order comes
    off the sort indexes of migration 006, which also carry the columns filters read."""
    plan = _plan(query)
    where, params = list(plan.where), list(plan.params)
    if plan.relevance and plan.fts is not None and not any(_ROW_COLUMN.search(w) for w in where):
        # `+`: a rowid constraint handed to FTS5 (`rowid IN (…)`) makes it run the MATCH again
        # for every rowid of the set (`attention is:read`: 17 s at 50,000 papers); unary plus
        # keeps it a filter on the ranked hits.
        rowid_only = [_P_ROWID.sub("+papers_fts.rowid", clause) for clause in where]
        sql = (
            "SELECT papers_fts.rowid FROM papers_fts WHERE "
            + " AND ".join([*rowid_only, "papers_fts MATCH ?"])
            + f" ORDER BY {_BM25}, papers_fts.rowid DESC"
        )
        params.append(plan.fts)
    else:
        sql = "SELECT p.rowid FROM papers p"
        if plan.fts is not None:
            sql += " JOIN papers_fts ON papers_fts.rowid = p.rowid"
            where.append("papers_fts MATCH ?")
            params.append(plan.fts)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {plan.order}"
        params.extend(plan.order_params)
    if query.limit is not None:
        sql += " LIMIT ?"
        params.append(int(query.limit))
    return sql, params


# ---- user state: tags, bookmarks, read marks, notes, lists, "new", fits ----------------------
# Each filter is a `p.rowid [NOT] IN (subquery)` over a small derived table with an index made
# for it (migration 002), so it stays fast at 100,000 papers whatever else is filtered.

_IN_LIST = (
    "SELECT li.paper_rowid FROM list_items li JOIN lists l ON l.list_id = li.list_id "
    "WHERE l.deleted = 0 AND (l.name = ? COLLATE NOCASE OR l.list_id = ?)"
)
_LIST_POSITION = (
    "SELECT min(li.position || ' ' || li.position_at) FROM list_items li "
    "JOIN lists l ON l.list_id = li.list_id WHERE li.paper_rowid = p.rowid "
    "AND l.deleted = 0 AND (l.name = ? COLLATE NOCASE OR l.list_id = ?)"
)
_STATE_SETS = {
    "bookmarked": "SELECT paper_rowid FROM paper_state WHERE bookmarked = 1",
    "read": "SELECT paper_rowid FROM paper_state WHERE read = 1",
    "notes": "SELECT paper_rowid FROM paper_state WHERE note IS NOT NULL",
    "tags": "SELECT paper_rowid FROM paper_tags",
}
# is:VALUE -> (set, member?); `is:!read` and `-is:read` negate.
_IS_VALUES = {
    "bookmarked": ("bookmarked", True),
    "unbookmarked": ("bookmarked", False),
    "read": ("read", True),
    "unread": ("read", False),
}


def _user_state_filters(
    query: PaperQuery, parsed: ParsedSearch, where: list[str], params: list[Any]
) -> None:
    def member(set_name: str, positive: bool) -> None:
        # Read marks grow with use (a third of the library, say): walking the sort index and
        # probing the set (`+`) beats fetching that many wide rows by rowid and sorting them.
        # Bookmarks, notes, tags are few: fetched by rowid.
        plus = "+" if set_name == "read" else ""
        where.append(f"{plus}p.rowid {'' if positive else 'NOT '}IN ({_STATE_SETS[set_name]})")

    def new_since(positive: bool) -> None:
        # Through the added_at index (rowid and added_at only), never the wide rows.
        since = "coalesce(?, (SELECT value FROM meta WHERE key = 'last_visit'), '')"
        where.append(
            f"+p.rowid {'' if positive else 'NOT '}IN "
            f"(SELECT rowid FROM papers WHERE added_at >= {since})"
        )
        params.append(query.new_since)

    if query.new_only:
        new_since(True)

    for tag in ([query.tag] if query.tag else []) + parsed.values("tag"):
        where.append("p.rowid IN (SELECT paper_rowid FROM paper_tags WHERE tag = ?)")
        params.append(tag.strip().lower())
    for tag in parsed.values("-tag"):
        where.append("p.rowid NOT IN (SELECT paper_rowid FROM paper_tags WHERE tag = ?)")
        params.append(tag.strip().lower())

    if query.bookmarked is not None:
        member("bookmarked", query.bookmarked)
    if query.read is not None:
        member("read", query.read)
    flags = [(v, True) for v in parsed.values("is")] + [(v, False) for v in parsed.values("-is")]
    for value, positive in flags:
        if value.startswith("!"):
            value, positive = value[1:], not positive
        if value in _IS_VALUES:
            set_name, wanted = _IS_VALUES[value]
            member(set_name, wanted == positive)
        elif value == "new":
            new_since(positive)
        elif value == "withdrawn" and not (positive and "withdrawn" in parsed.values("is")):
            where.append(f"p.withdrawn = {1 if positive else 0}")

    for values, positive in ((parsed.values("has"), True), (parsed.values("-has"), False)):
        for value in values:
            if value in ("notes", "note"):
                member("notes", positive)
            elif value == "tags":
                member("tags", positive)

    for name in ([query.reading_list] if query.reading_list else []) + parsed.values("list"):
        where.append(f"p.rowid IN ({_IN_LIST})")
        params.extend([name, name])
    for name in parsed.values("-list"):
        where.append(f"p.rowid NOT IN ({_IN_LIST})")
        params.extend([name, name])

    # Hardware fit needs the catalog and the user's machines: SQL functions that
    # store/fits.py installs on the connection, asked once per distinct fit key of the library
    # (store/fit_keys.py), never about each paper's JSON.
    for values, positive in ((parsed.values("fits"), True), (parsed.values("-fits"), False)):
        for machine in values:
            where.append(fits_where(positive, limited=query.limit is not None))
            params.extend([machine, machine])
