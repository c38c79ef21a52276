"""Short paper ids for tables: the shortest prefix that names one paper, like git's.

Title-derived ids are ~45-character slugs; a table at 80 columns cannot spend half its width
on them. A slug is cut to the shortest prefix that no other paper's id or former id (alias)
shares, never shorter than `MIN_SLUG_PREFIX`; an arXiv id is short already and stays whole.
`Library.resolve_candidates` accepts exactly these prefixes (case-insensitively, over ids and
aliases), so every id a table shows can be typed back.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from collections.abc import Iterable, Sequence

from digest_tui.ids import normalize_arxiv_id

MIN_SLUG_PREFIX = 7


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def shortest_prefixes(names: Iterable[tuple[str, str]], wanted: Sequence[str]) -> dict[str, str]:
    """id -> the short form to show, for each id in `wanted`.

    `names` are (name, paper id) pairs: every paper's id and every alias with the paper it
    names. A prefix is unique when every name it starts belongs to one paper; names are
    compared case-folded because prefix lookup ignores case.
    """
    ordered = sorted((name.casefold(), owner) for name, owner in names)
    keys = [name for name, _ in ordered]
    short: dict[str, str] = {}
    for paper_id in wanted:
        if normalize_arxiv_id(paper_id) == paper_id:
            short[paper_id] = paper_id
            continue
        folded = paper_id.casefold()
        at = bisect_left(keys, folded)
        shared = 0
        # The nearest name of another paper on each side shares the longest prefix with it
        # (names sharing a longer prefix sort between them).
        for step in (-1, 1):
            i = at if step == 1 else at - 1
            while 0 <= i < len(ordered) and ordered[i][1] == paper_id:
                i += step
            if 0 <= i < len(ordered):
                shared = max(shared, _common_prefix(folded, keys[i]))
        short[paper_id] = paper_id[: max(MIN_SLUG_PREFIX, shared + 1)]
    return short


# Wanted ids up to this many are shortened from the names that can matter (below); a longer
# list (a whole table) reads every name once.
_FEW = 500

_EVERY = "SELECT id, id FROM papers UNION ALL SELECT alias, paper_id FROM paper_aliases"
# Names in [?1, ?2): both tables' unique indexes answer a range, no row of the library is read
# beyond it (a scan of 100,000 ids cost ~0.06-0.3 s; a page of a listing needs ~50 seeks).
_RANGE = (
    "SELECT id, id FROM papers WHERE id >= ?1 AND id < ?2 "
    "UNION ALL SELECT alias, paper_id FROM paper_aliases WHERE alias >= ?1 AND alias < ?2"
)
_ANY_IN_RANGE = (
    "SELECT 1 FROM papers WHERE id >= ?1 AND id < ?2 "
    "UNION ALL SELECT 1 FROM paper_aliases WHERE alias >= ?1 AND alias < ?2 LIMIT 1"
)
_FROM = (
    "SELECT id, id FROM papers WHERE id >= ?1 "
    "UNION ALL SELECT alias, paper_id FROM paper_aliases WHERE alias >= ?1"
)
# SQLite compares TEXT as UTF-8 bytes (BINARY), which orders strings as Python orders their
# code points, so a Python prefix bound is an index bound.


def names_for(conn: sqlite3.Connection, wanted: Sequence[str]) -> list[tuple[str, str]]:
    """The (name, paper id) pairs `shortest_prefixes` needs for `wanted`: every id and alias.

    For a few ASCII ids (a page of a listing at 100,000 papers) only the names that can share
    `MIN_SLUG_PREFIX` or more leading characters with one of them, case-folded, are read
    (`_names_near`); a shorter shared prefix gives the minimum length anyway, so the result is
    the same as from all the names."""
    if len(wanted) > _FEW or not all(ident.isascii() for ident in wanted):
        return [(r[0], r[1]) for r in conn.execute(_EVERY)]
    heads = sorted({ident[:MIN_SLUG_PREFIX].lower() for ident in wanted})
    found: dict[tuple[str, str], None] = {}
    for head in heads:
        for name, owner in _names_near(conn, head):
            found[(name, owner)] = None
    return list(found)


def _successor(prefix: str) -> str:
    """The least string above every string that starts with `prefix` (non-empty)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _names_near(conn: sqlite3.Connection, head: str) -> list[tuple[str, str]]:
    """Every name whose case-folded start can equal the ASCII `head`, read by index ranges.

    Walks `head` a character at a time, keeping the raw prefixes some name starts with that
    equal `head`'s start ignoring ASCII case (almost always one: ids are lower-case; an
    old-style arXiv id such as `math.AG/0601001` has capitals). At each step the names that
    continue such a prefix with a non-ASCII character are read whole: some fold to ASCII
    (the Kelvin sign to `k`, `ﬁ` to `fi`), and Python compares them exactly afterwards. Extra
    names are harmless; a name that can share the head is never missed."""
    rows: list[tuple[str, str]] = []

    def non_ascii_after(prefix: str) -> None:
        if prefix:
            bounds: tuple[str, ...] = (prefix + "\x80", _successor(prefix))
            rows.extend(conn.execute(_RANGE, bounds).fetchall())
        else:
            rows.extend(conn.execute(_FROM, ("\x80",)).fetchall())

    frontier = [""]
    for char in head:
        grown = []
        for prefix in frontier:
            non_ascii_after(prefix)
            for variant in dict.fromkeys((char, char.upper())):
                candidate = prefix + variant
                if conn.execute(_ANY_IN_RANGE, (candidate, _successor(candidate))).fetchone():
                    grown.append(candidate)
        frontier = grown
        if not frontier:
            return rows
    for prefix in frontier:
        rows.extend(conn.execute(_RANGE, (prefix, _successor(prefix))).fetchall())
    return rows
