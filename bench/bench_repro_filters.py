"""What `has:weights`, `has:runnable` and the `reproducible`/`readiness` sorts cost per query.

    python bench/bench_repro_filters.py --papers 20000 [--repeat 10]

On the synthetic library (bench/synthetic.py), with a synthetic Hub artifact index (every 10th
paper with an arXiv id cited by a model) and readiness rows for every 3rd GitHub repo (a
Dockerfile and a reproduce section), it times `Library.list_rows` for each query after the SQL
functions of store/repro_sql.py are installed (with one configured machine), as the app does.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
import time
from pathlib import Path

from _common import summary_ms, table, write_result
from digest_tui.config import Machine
from digest_tui.repohealth.cache import HealthCache
from digest_tui.sources.hf_artifacts import ArtifactIndex, Artifacts
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery
from digest_tui.store.repro_sql import install_repro_functions
from synthetic import DEFAULT_SEED, build_library, database_path

QUERIES = [
    ("all papers (baseline)", ""),
    ("has:weights", "has:weights"),
    ("has:runnable", "has:runnable"),
    ("sort:readiness", "sort:readiness"),
    ("sort:reproducible", "sort:reproducible"),
    ("topic:moe has:weights", "topic:moe has:weights"),
]


def seed_caches(conn, cache_dir: Path) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    # The synthetic papers have no arXiv ids: give each one (a throw-away copy of the library).
    with conn:
        conn.execute("UPDATE papers SET arxiv_id = printf('2601.%05d', rowid)")
    index = ArtifactIndex(cache_dir)
    cited = 0
    for i, (arxiv_id,) in enumerate(
        conn.execute("SELECT arxiv_id FROM papers WHERE arxiv_id IS NOT NULL")
    ):
        if i % 10 == 0:
            found = Artifacts(arxiv_id)
            found.models.append(None)  # type: ignore[arg-type] # counted only
            index.record(found)
            cited += 1
    checked = 0
    now = dt.datetime.now(dt.UTC)
    with HealthCache(cache_dir / "repo_health.sqlite3") as cache:
        for i, (repos,) in enumerate(conn.execute("SELECT repos FROM papers WHERE has_code = 1")):
            for repo in json.loads(repos):
                if repo.get("host") == "github.com" and i % 3 == 0:
                    cache.put_readiness(
                        repo["owner"],
                        repo["name"],
                        state="ok",
                        labels={"files": ["docker"], "sections": ["reproduce"], "badges": []},
                        contents_etag=None,
                        readme_etag=None,
                        fetched_at=now,
                    )
                    checked += 1
    return cited, checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-repro-") as tmp:
        home = build_library(Path(tmp), args.papers, args.seed)
        conn = connect(database_path(home))
        cache_dir = Path(tmp) / "cache"
        cited, checked = seed_caches(conn, cache_dir)
        machine = Machine.model_validate({"name": "node", "devices": [{"id": "h100", "count": 8}]})
        library = Library(conn)
        install_repro_functions(conn, cache_dir, [machine])
        rows, results = [], []
        for label, search in QUERIES:
            query = PaperQuery(search=search)
            times = []
            count = 0
            for _ in range(args.repeat):
                started = time.perf_counter()
                count = len(library.list_rows(query))
                times.append(time.perf_counter() - started)
            stats = summary_ms(times)
            rows.append([label, count, stats["p50_ms"], stats["p95_ms"]])
            results.append({"label": label, "rows": count, **stats})
        conn.close()
    print(f"\n{args.papers} papers; {cited} cited on the Hub, {checked} repos with readiness\n")
    print(table(rows, ["query", "rows", "p50 ms", "p95 ms"]))
    path = write_result(f"repro-filters-{args.papers}", {"papers": args.papers, "queries": results})
    print(f"\nwritten {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
