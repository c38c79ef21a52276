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
is what the CLI's listing reads. "1st screen" is the part of it a keystroke waits for before
the list paints: the first 256 rowids of the order and their rows (`list_rowids_first`); the
app reads the rest of the order after that paint, in the same worker.
"""

from __future__ import annotations

import argparse
import functools
import sqlite3
import tempfile
import time
from pathlib import Path

from _common import summary_ms, table, write_result
from digest_tui.config import DeviceCount, Machine
from digest_tui.store.db import connect, transaction
from digest_tui.store.fits import install_fits
from digest_tui.store.library import Library, ListRow
from digest_tui.store.query import PaperQuery, build_select
from digest_tui.store.repro_sql import install_repro_functions
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
    ("typing ex", "ex"),
    ("typing exp", "exp"),
    ("typing expe", "expe"),
    ("two words", "flash attention"),
    ("phrase", '"kv cache"'),
    ("quoted word", '"kv"'),
    ("topic", "topic:moe"),
    ("not a topic", "-topic:moe"),
    ("no topic", "topic:other"),
    ("topic + has:code", "topic:moe has:code"),
    ("since (last month)", "since:2025-12-01"),
    ("filters + word", "topic:serving has:code since:2025-06-01 cache"),
    ("word + exclusion", "expert -offloading"),
    ("exclusion only", "-offloading"),
    ("digest", "digest:2025-12-10"),
    # Every has:/is:/tag:/list:/fits: filter, alone and with a word (the relevance path).
    ("has:code", "has:code"),
    ("has:code + word", "attention has:code"),
    ("has:hardware", "has:hardware"),
    ("-has:hardware", "-has:hardware"),
    ("has:hardware + word", "attention has:hardware"),
    ("has:weights", "has:weights"),
    ("has:runnable", "has:runnable"),
    ("has:notes", "has:notes"),
    ("has:tags", "has:tags"),
    ("is:bookmarked", "is:bookmarked"),
    ("is:read", "is:read"),
    ("is:unread", "is:unread"),
    ("is:unread + word", "attention is:unread"),
    ("is:new", "is:new"),
    ("is:withdrawn", "is:withdrawn"),
    ("tag:", "tag:todo"),
    ("tag: + word", "attention tag:todo"),
    ("list:", "list:week"),
    ("fits:", "fits:laptop"),
    # Every sort.
    ("sort:upvotes", "sort:upvotes"),
    ("sort:stars", "sort:stars"),
    ("sort:title", "sort:title"),
    ("sort:date + word", "attention sort:date"),
    ("sort:relevance", "sort:relevance"),
    ("sort:reproducible", "sort:reproducible"),
    ("sort:readiness", "sort:readiness"),
]
LIST_COLUMNS = "p.rowid, p.id, p.title, p.published, p.upvotes, p.has_code, p.topics, p.max_stars"


def timed(fn, repeat: int, clock=time.perf_counter) -> list[float]:  # type: ignore[no-untyped-def]
    """`clock`: time.process_time for CPU time (this process), which the load of other work
    on a shared machine inflates far less than wall time."""
    times = []
    for _ in range(repeat):
        started = clock()
        fn()
        times.append(clock() - started)
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


def add_user_state(conn: sqlite3.Connection) -> None:
    """Marks for the state filters to find, written straight into the derived tables the queries
    read (state/materialise.py would write the same rows from ops, ~100x slower to set up): a
    third of the papers read, every 50th bookmarked, every 40th tagged `todo`, every 200th with a
    note, 500 in the reading list `week`."""
    rowids = [r[0] for r in conn.execute("SELECT rowid FROM papers ORDER BY rowid")]
    with transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO paper_state (paper_rowid, read, bookmarked, note) "
            "VALUES (?, ?, ?, ?)",
            (
                (r, int(i % 3 == 0), int(i % 50 == 0), "a note" if i % 200 == 0 else None)
                for i, r in enumerate(rowids)
                if i % 3 == 0 or i % 50 == 0 or i % 200 == 0
            ),
        )
        conn.executemany(
            "INSERT OR IGNORE INTO paper_tags (tag, paper_rowid, added_at) VALUES ('todo', ?, '')",
            ((r,) for i, r in enumerate(rowids) if i % 40 == 0),
        )
        conn.execute(
            "INSERT OR IGNORE INTO lists (list_id, name, created_at, changed_at) "
            "VALUES ('bench-week', 'week', '', '')"
        )
        conn.executemany(
            "INSERT OR IGNORE INTO list_items (list_id, paper_rowid, position, position_at) "
            "VALUES ('bench-week', ?, ?, '')",
            ((r, f"{i:08d}") for i, r in enumerate(rowids[::200][:500])),
        )


def install_functions(conn: sqlite3.Connection, home: Path) -> None:
    """What service.open_library installs: fits:, has:weights/runnable, the repro sorts."""
    from digest_tui.enrich.hardware.catalog import load_hardware_catalog

    laptop = [Machine(name="laptop", devices=[DeviceCount(id="a100", count=1)])]
    catalog = functools.cache(load_hardware_catalog)  # as the enricher's cached property
    install_fits(conn, laptop, catalog)
    install_repro_functions(conn, home / "cache", laptop, catalog)


def first_window(library: Library, query: PaperQuery) -> int:
    """One keystroke's database work in the app: ordered rowids, then a screen and more."""
    library._rowid_memo.clear()  # measure the query, not the memory of the last one
    rowids = library.list_rowids(query)
    return len(library.list_rows_by_rowid(rowids[:256]))


def first_screen(library: Library, query: PaperQuery) -> int:
    """What a keystroke waits for before the list paints since lists come in two steps
    (`Library.list_rowids_first`, `LibraryService.list_windows`): the first 256 rowids in
    order and their rows; the rest of the order is read after the paint."""
    library._rowid_memo.clear()
    steps = library.list_rowids_first(query, 256)
    try:
        rowids, _complete = next(steps)
        return len(library.list_rows_by_rowid(rowids[:256]))
    finally:
        steps.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--plan", action="store_true", help="print each query plan")
    parser.add_argument("--fts-optimize", action="store_true", help="merge FTS5 segments first")
    parser.add_argument("--experiments", action="store_true", help="time alternative designs")
    parser.add_argument(
        "--only", default="", help="only the queries whose label contains one of these (a,b,…)"
    )
    parser.add_argument(
        "--window-only",
        action="store_true",
        help="time only the keystroke's work (window, wall and CPU), not list_rows nor the SQL",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        home = build_library(Path(tmp), args.papers, args.seed)
        conn = connect(database_path(home))
        if args.fts_optimize:
            started = time.perf_counter()
            conn.execute("INSERT INTO papers_fts(papers_fts) VALUES('optimize')")
            print(f"FTS optimize took {time.perf_counter() - started:.1f} s\n")
        add_user_state(conn)
        library = Library(conn)
        install_functions(conn, home)
        rows: list[list[object]] = []
        results = []
        for label, search in QUERIES:
            if not any(part in label for part in args.only.split(",")):
                continue
            query = PaperQuery(search=search)
            sql, params = build_select(query, LIST_COLUMNS)
            started = time.perf_counter()
            if args.window_only:
                library._rowid_memo.clear()
                count = len(library.list_rowids(query))
                cold = time.perf_counter() - started
                total = sql_only = {"p50_ms": "-", "p95_ms": "-", "max_ms": "-"}
            else:
                count = len(library.list_rows(query))
                cold = time.perf_counter() - started
                total = summary_ms(timed(lambda q=query: library.list_rows(q), args.repeat))
                sql_only = summary_ms(
                    timed(lambda s=sql, p=params: conn.execute(s, p).fetchall(), args.repeat)
                )
            windowed = summary_ms(timed(lambda q=query: first_window(library, q), args.repeat))
            window_cpu = summary_ms(
                timed(lambda q=query: first_window(library, q), args.repeat, time.process_time)
            )
            screen_cpu = summary_ms(
                timed(lambda q=query: first_screen(library, q), args.repeat, time.process_time)
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
                    "window_cpu_p50_ms": window_cpu["p50_ms"],
                    "first_screen_cpu_p50_ms": screen_cpu["p50_ms"],
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
                    window_cpu["p50_ms"],
                    screen_cpu["p50_ms"],
                ]
            )
            if args.plan:
                plan = conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
                print(f"{search!r}:\n" + "\n".join(f"    {r[3]}" for r in plan))
        extra = experiments(conn, args.repeat) if args.experiments else []
        conn.close()
    print(f"\n{args.papers} papers, {args.repeat} runs per query (times in ms)\n")
    headers = ["query", "search", "rows", "cold", "p50", "p95", "max", "sql p50"]
    print(table(rows, [*headers, "window p50", "p95", "window cpu p50", "1st screen cpu p50"]))
    if extra:
        print("\nalternatives (p50 ms):\n")
        print(table(extra, ["query", "variant", "p50"]))
    suffix = ("-optimized" if args.fts_optimize else "") + ("-window" if args.window_only else "")
    path = write_result(
        f"search-{args.papers}{suffix}",
        {"papers": args.papers, "repeat": args.repeat, "queries": results, "experiments": extra},
    )
    print(f"\nwritten {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
