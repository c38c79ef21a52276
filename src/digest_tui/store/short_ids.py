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


def names_for(conn: sqlite3.Connection, wanted: Sequence[str]) -> list[tuple[str, str]]:
    """The (name, paper id) pairs `shortest_prefixes` needs for `wanted`: every id and alias.

    For a few ASCII ids (a page of a listing at 100,000 papers) only the names that can share
    `MIN_SLUG_PREFIX` or more leading characters with one of them are read, plus every
    non-ASCII name (compared in Python, where case folding is exact): a shorter shared prefix
    gives the minimum length anyway, so the result is the same as from all the names."""
    every = "SELECT id, id FROM papers UNION ALL SELECT alias, paper_id FROM paper_aliases"
    if len(wanted) > _FEW or not all(ident.isascii() for ident in wanted):
        return [(r[0], r[1]) for r in conn.execute(every)]
    heads = sorted({ident[:MIN_SLUG_PREFIX].lower() for ident in wanted})
    marks = ",".join("?" * len(heads))
    rows = conn.execute(
        f"SELECT name, owner FROM (SELECT id AS name, id AS owner FROM papers UNION ALL "
        f"SELECT alias, paper_id FROM paper_aliases) "
        f"WHERE lower(substr(name, 1, {MIN_SLUG_PREFIX})) IN ({marks}) "
        "OR name GLOB '*[^ -~]*'",
        heads,
    )
    return [(r[0], r[1]) for r in rows]
