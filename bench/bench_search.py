"""Search latency at the Library.list_rows level: what one keystroke in the search box costs.

    python bench/bench_search.py --papers 100000 [--repeat 20] [--plan] [--fts-optimize]

For each representative query (a word, the prefixes typed on the way to "flash", a phrase,
filters) it runs `Library.list_rows(PaperQuery(search=...))` once cold (the first statement after
opening the library) and then --repeat times, and reports p50/p95/max, the rows returned, and how
much of the time is SQLite (execute + fetchall of the same SELECT) rather than building ListRows.
`--plan` prints SQLite's query plan for each; `--fts-optimize` merges the FTS5 index segments
first (what `INSERT INTO papers_fts(papers_fts) VALUES('optimize')` would buy after a bulk import).
`--experiments` then times, on the same throw-away copy, what alternative designs would cost
(only rowids; a covering index for the list columns; tuples instead of ListRow; a LIMIT).

"window" is what a keystroke costs the app since the list is windowed: the ordered rowids
(`Library.list_rowids`, its memory of earlier lists cleared each time) plus the first 256 rows by
rowid (`list_rows_by_rowid`), i.e. `LibraryService.list_window`. `list_rows` (every matching row)
is what the CLI's listing reads.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from _common import summary_ms, table, write_result
from digest_tui.store.db import connect
from digest_tui.store.library import Library, ListRow
from digest_tui.store.query import PaperQuery, build_select
from synthetic import DEFAULT_SEED, build_library, database_path

QUERIES: list[tuple[str, str]] = [
    ("all papers (list on open)", ""),
    ("word", "attention"),
    ("rare word", "roofline"),
    ("typing f", "f"),
    ("typing fl", "fl"),
    ("typing fla", "fla"),
    ("typing flas", "flas"),
    ("typing flash", "flash"),
    ("two words", "flash attention"),
    ("phrase", '"kv cache"'),
    ("topic", "topic:moe"),
    ("topic + has:code", "topic:moe has:code"),
    ("since (last month)", "since:2025-12-01"),
    ("filters + word", "topic:serving has:code since:2025-06-01 cache"),
    ("word + exclusion", "expert -offloading"),
    ("exclusion only", "-offloading"),
    ("has:hardware", "has:hardware"),
    ("sort:upvotes", "sort:upvotes"),
]
LIST_COLUMNS = "p.rowid, p.id, p.title, p.published, p.upvotes, p.has_code, p.topics, p.max_stars"


def timed(fn, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return times


def experiments(conn: sqlite3.Connection, repeat: int) -> list[list[object]]:
    """Alternatives to today's list query, timed on the same data (p50 ms)."""
    out: list[list[object]] = []

    def p50(fn) -> float:  # type: ignore[no-untyped-def]
        return summary_ms(timed(fn, repeat))["p50_ms"]

    for label, search in (("all papers", ""), ("typing f", "f"), ("topic:moe", "topic:moe")):
        query = PaperQuery(search=search)
        sql, params = build_select(query, LIST_COLUMNS)
        rowid_sql, _ = build_select(query, "p.rowid")
        limited = PaperQuery(search=search, limit=200)
        lsql, lparams = build_select(limited, LIST_COLUMNS)
        rows = conn.execute(sql, params).fetchall()
        out.append(
            [
                label,
                "today: list columns, all rows",
                p50(lambda s=sql, p=params: conn.execute(s, p).fetchall()),
            ]
        )
        out.append(
            [
                label,
                "  only rowids, all rows",
                p50(lambda s=rowid_sql, p=params: conn.execute(s, p).fetchall()),
            ]
        )
        out.append(
            [
                label,
                "  list columns, LIMIT 200",
                p50(lambda s=lsql, p=lparams: conn.execute(s, p).fetchall()),
            ]
        )
        out.append(
            [
                label,
                "  ListRow objects from fetched tuples",
                p50(lambda r=rows: [ListRow(*x[:5], bool(x[5]), *x[6:]) for x in r]),
            ]
        )
        out.append(
            [label, "  plain tuples from fetched tuples", p50(lambda r=rows: [tuple(x) for x in r])]
        )
    started = time.perf_counter()
    conn.execute(
        "CREATE INDEX bench_list_cover ON papers "
        "(published, upvotes, has_code, max_stars, id, title, topics)"
    )
    out.append(["-", f"(building a covering index took {time.perf_counter() - started:.1f} s)", ""])
    for label, search in (("all papers", ""), ("topic:moe", "topic:moe")):
        sql, params = build_select(PaperQuery(search=search), LIST_COLUMNS)
        out.append(
            [
                label,
                "  with a covering index on the list columns",
                p50(lambda s=sql, p=params: conn.execute(s, p).fetchall()),
            ]
        )
    conn.execute("DROP INDEX bench_list_cover")

    # An index on the default sort's own expressions: SQLite walks it in order, so the first
    # screenful (or the ordered rowids) comes without reading and sorting every fat row.
    sort_index = (
        "CREATE INDEX bench_sort ON papers "
        "(published IS NULL, published DESC, coalesce(upvotes, 0) DESC)"
    )
    conn.execute(sort_index)
    query = PaperQuery(search="", limit=200)
    sql, params = build_select(query, LIST_COLUMNS)
    out.append(
        [
            "all papers",
            "  sort-expression index, LIMIT 200",
            p50(lambda s=sql, p=params: conn.execute(s, p).fetchall()),
        ]
    )
    sql, params = build_select(PaperQuery(search=""), "p.rowid")
    out.append(
        [
            "all papers",
            "  sort-expression index, ordered rowids only",
            p50(lambda s=sql, p=params: conn.execute(s, p).fetchall()),
        ]
    )
    conn.execute("DROP INDEX bench_sort")
    window = ",".join(str(r) for r in range(5000, 5060))
    out.append(
        [
            "-",
            "fetch one screen (60 rows) by rowid",
            p50(
                lambda: conn.execute(
                    f"SELECT {LIST_COLUMNS} FROM papers p WHERE p.rowid IN ({window})"
                ).fetchall()
            ),
        ]
    )
    topic_in = (
        f"SELECT {LIST_COLUMNS} FROM papers p WHERE p.rowid IN "
        "(SELECT paper_rowid FROM paper_topics WHERE topic = 'moe') ORDER BY "
        "p.published IS NULL, p.published DESC, coalesce(p.upvotes, 0) DESC, p.rowid DESC"
    )
    out.append(
        [
            "topic:moe",
            "  rowid IN (paper_topics by topic) instead of EXISTS",
            p50(lambda: conn.execute(topic_in).fetchall()),
        ]
    )
    fts_only = (
        "SELECT rowid FROM papers_fts WHERE papers_fts MATCH '\"attention\"*' "
        "ORDER BY bm25(papers_fts, 10.0, 1.0, 4.0)"
    )
    out.append(
        [
            "attention",
            "  ranked FTS rowids only (no papers rows)",
            p50(lambda: conn.execute(fts_only).fetchall()),
        ]
    )
    return out


def first_window(library: Library, query: PaperQuery) -> int:
    """One keystroke's database work in the app: ordered rowids, then a screen and more."""
    library._rowid_memo.clear()  # measure the query, not the memory of the last one
    rowids = library.list_rowids(query)
    return len(library.list_rows_by_rowid(rowids[:256]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--plan", action="store_true", help="print each query plan")
    parser.add_argument("--fts-optimize", action="store_true", help="merge FTS5 segments first")
    parser.add_argument("--experiments", action="store_true", help="time alternative designs")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        home = build_library(Path(tmp), args.papers, args.seed)
        conn = connect(database_path(home))
        if args.fts_optimize:
            started = time.perf_counter()
            conn.execute("INSERT INTO papers_fts(papers_fts) VALUES('optimize')")
            print(f"FTS optimize took {time.perf_counter() - started:.1f} s\n")
        library = Library(conn)
        rows: list[list[object]] = []
        results = []
        for label, search in QUERIES:
            query = PaperQuery(search=search)
            started = time.perf_counter()
            count = len(library.list_rows(query))
            cold = time.perf_counter() - started
            total = summary_ms(timed(lambda q=query: library.list_rows(q), args.repeat))
            windowed = summary_ms(timed(lambda q=query: first_window(library, q), args.repeat))
            sql, params = build_select(query, LIST_COLUMNS)
            sql_only = summary_ms(
                timed(lambda s=sql, p=params: conn.execute(s, p).fetchall(), args.repeat)
            )
            results.append(
                {
                    "label": label,
                    "search": search,
                    "rows": count,
                    "cold_ms": round(cold * 1000, 2),
                    **total,
                    "sql_p50_ms": sql_only["p50_ms"],
                    "window_p50_ms": windowed["p50_ms"],
                    "window_p95_ms": windowed["p95_ms"],
                }
            )
            rows.append(
                [
                    label,
                    repr(search),
                    count,
                    f"{cold * 1000:.1f}",
                    total["p50_ms"],
                    total["p95_ms"],
                    total["max_ms"],
                    sql_only["p50_ms"],
                    windowed["p50_ms"],
                    windowed["p95_ms"],
                ]
            )
            if args.plan:
                plan = conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
                print(f"{search!r}:\n" + "\n".join(f"    {r[3]}" for r in plan))
        extra = experiments(conn, args.repeat) if args.experiments else []
        conn.close()
    print(f"\n{args.papers} papers, {args.repeat} runs per query (times in ms)\n")
    headers = ["query", "search", "rows", "cold", "p50", "p95", "max", "sql p50"]
    print(table(rows, [*headers, "window p50", "p95"]))
    if extra:
        print("\nalternatives (p50 ms):\n")
        print(table(extra, ["query", "variant", "p50"]))
    suffix = "-optimized" if args.fts_optimize else ""
    path = write_result(
        f"search-{args.papers}{suffix}",
        {"papers": args.papers, "repeat": args.repeat, "queries": results, "experiments": extra},
    )
    print(f"\nwritten {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
