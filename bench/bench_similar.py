"""Speed and size of the similar-papers index on the synthetic library.

    .venv/bin/python bench/bench_similar.py --papers 100000 [--queries 50]

On a fresh copy of the synthetic library of --papers papers (synthetic.build_library):
1. the first full build of the index (every paper's vector and postings);
2. an incremental refresh after one more page of 50 papers is imported;
3. a refresh with nothing to do (what every `similar` call pays first);
4. `similar_to(rowid, 10)` warm, for --queries papers spread over the library: p50/p95/max;
5. `recommend` from 20 positives, warm;
6. `digest-tui similar ID` end to end in a subprocess (Python start-up included), median of 5;
and the index's size in the file. The goal for (4) is <= 100 ms at 100,000 papers.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import summary_ms, table, write_result
from digest_tui.similar.find import similar_to
from digest_tui.similar.index import SimilarIndex
from digest_tui.similar.recommend import recommend
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from synthetic import DEFAULT_SEED, build_library, database_path, generate, to_parsed


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def index_bytes(conn: sqlite3.Connection) -> int:
    try:
        rows = conn.execute(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'similar%' "
            "OR name LIKE 'sqlite_autoindex_similar%'"
        ).fetchone()
        return int(rows[0] or 0)
    except sqlite3.Error:  # dbstat not compiled in
        return -1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-similar-") as tmp:
        home = build_library(Path(tmp) / "home", args.papers, args.seed)
        conn = connect(database_path(home))
        library = Library(conn)
        index = SimilarIndex(conn)
        results: dict[str, object] = {"papers": args.papers}

        full = timed(index.refresh)
        results["full_build_s"] = round(full, 2)

        # One more page of papers, as a daily fetch would bring (a later day than any stored).
        page = next(iter(generate(50, args.seed + 1)))
        parsed = to_parsed(page)
        library.import_parsed(parsed)
        results["incremental_50_ms"] = round(timed(index.refresh) * 1e3, 1)
        results["noop_refresh_ms"] = round(timed(index.refresh) * 1e3, 2)

        rowids = [r[0] for r in conn.execute("SELECT rowid FROM papers ORDER BY rowid")]
        rng = random.Random(7)
        sample = rng.sample(rowids, min(args.queries, len(rowids)))
        similar_to(conn, sample[0], 10)  # warm the page cache once
        times = [timed(lambda r=r: similar_to(conn, r, 10)) for r in sample]
        results["similar_warm"] = summary_ms(times)

        positives = rng.sample(rowids, 20)
        recommend(conn, positives, limit=10)
        results["recommend_20_warm"] = summary_ms(
            [timed(lambda: recommend(conn, positives, limit=10)) for _ in range(5)]
        )
        results["index_bytes"] = index_bytes(conn)
        results["postings"] = conn.execute("SELECT count(*) FROM similar_postings").fetchone()[0]
        paper = conn.execute("SELECT id FROM papers WHERE rowid = ?", (sample[0],)).fetchone()[0]
        conn.close()

        env = {**os.environ, "DIGEST_TUI_HOME": str(home)}
        command = [sys.executable, "-m", "digest_tui", "similar", paper, "--format", "json"]
        subprocess.run(command, env=env, capture_output=True, check=True)
        cli = []
        for _ in range(5):
            cli.append(timed(lambda: subprocess.run(command, env=env, capture_output=True)))
        results["cli_similar_ms_median"] = round(statistics.median(cli) * 1e3, 1)

    rows = [[k, str(v)] for k, v in results.items()]
    print(table(rows, ["figure", "value"]))
    write_result("similar", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
