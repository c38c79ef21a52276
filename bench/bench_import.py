"""Import throughput: page-text files -> parse -> enrich -> SQLite, through the real code path.

    python bench/bench_import.py --papers 10000 [--profile]

Measures, on a fresh DIGEST_TUI_HOME:
1. the real path, `service.import_files` on the generated page files (what `digest-tui import`
   runs): papers/s, and the peak RSS of the process after it;
2. re-importing the same files (every paper unchanged): papers/s;
3. the parts alone, per paper: parsing the page text, enrichment (`Enricher.enrich`), and the
   store (`Library.import_parsed` with the enrichment already computed, so only JSON encoding,
   SQL and the FTS5 triggers remain); and the store with no enrichment at all.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import OUT_DIR, ROOT, peak_rss_mb, table, write_result
from digest_tui.config import AppContext
from digest_tui.enrich.pipeline import Enricher, Enrichment
from digest_tui.models import Paper, ParsedDigest, Repo
from digest_tui.service import import_files, open_library
from digest_tui.sources.hf_page import parse_page
from digest_tui.store.db import connect
from digest_tui.store.library import Library, content_hash
from synthetic import DEFAULT_SEED, cached_pages, digest_home


class PrecomputedEnricher(Enricher):
    """Hands back enrichment computed earlier, so timing the store leaves enrichment out."""

    def __init__(self, results: dict[str, Enrichment]) -> None:
        super().__init__(None)
        self.results = results

    def enrich(self, paper: Paper, extra_repos: list[Repo] | None = None) -> Enrichment:
        return self.results[paper.id]


def layouts(paths: list[Path], counts: list[int], rounds: int) -> list[list[str]]:
    """The real-path import alone (no re-import, no re-enrichment) with each number of
    enrichment workers, the counts interleaved `rounds` times so load swings hit them alike:
    wall papers/s, importer CPU and workers' CPU per paper, one row per run."""
    rows = []
    for round_ in range(1, rounds + 1):
        for count in counts:
            with (
                tempfile.TemporaryDirectory(prefix="bench-layout-") as tmp,
                digest_home(Path(tmp)),
            ):
                library = open_library(AppContext())
                library.enricher.fingerprint  # noqa: B018 - data loading is not per-paper
                children = resource.getrusage(resource.RUSAGE_CHILDREN)
                wall, cpu = time.perf_counter(), time.process_time()
                report = import_files(library, paths, workers=count)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                workers_cpu = (after.ru_utime + after.ru_stime) - (
                    children.ru_utime + children.ru_stime
                )
                library.conn.close()
            n = report.new
            rows.append(
                [
                    str(round_),
                    str(count),
                    f"{n / wall:.0f}",
                    f"{cpu * 1e6 / n:.0f}",
                    f"{workers_cpu * 1e6 / n:.0f}",
                    f"{os.getloadavg()[0]:.1f}",
                ]
            )
    return rows


def real_path(paths: list[Path], profile: bool, workers: int | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp, digest_home(Path(tmp)):
        started = time.perf_counter()
        library = open_library(AppContext())
        library.enricher.fingerprint  # noqa: B018 - load taxonomy and catalogs now
        opened = time.perf_counter()
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        # (no `workers` argument unless given: the same script times older code too)
        options = {} if workers is None else {"workers": workers}

        cpu = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        report = import_files(library, paths, **options)
        if profiler is not None:
            profiler.disable()
        imported = time.perf_counter()
        importer_cpu = time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, joined by now
        workers_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
        rss = peak_rss_mb()
        again = import_files(library, paths)
        reimported = time.perf_counter()
        reenriched = library.reenrich(only_stale=False, **options)
        reenrich_s = time.perf_counter() - reimported
        db_bytes = Path(tmp, "data", "library.sqlite3").stat().st_size
        library.conn.close()
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(30)
        print(out.getvalue())
    papers = report.new
    assert not report.warnings, report.warnings[:3]
    assert again.unchanged == papers, (again.new, again.updated, again.unchanged)
    return {
        "papers": papers,
        "open_and_load_data_s": round(opened - started, 3),
        "import_s": round(imported - opened, 3),
        "papers_per_s": round(papers / (imported - opened), 1),
        "import_cpu_importer_s": round(importer_cpu, 2),
        "import_cpu_workers_s": round(workers_cpu, 2),
        "load_average": round(os.getloadavg()[0], 2),
        "reimport_s": round(reimported - imported, 3),
        "reimport_papers_per_s": round(papers / (reimported - imported), 1),
        "reenrich_s": round(reenrich_s, 3),
        "reenrich_papers_per_s": round(reenriched / reenrich_s, 1),
        "peak_rss_mb": rss,
        "db_mb_per_1000_papers": round(db_bytes / 1e6 / papers * 1000, 2),
    }


def parts(paths: list[Path]) -> dict[str, float]:
    texts = [(p.read_text(encoding="utf-8"), str(p)) for p in paths]
    started = time.perf_counter()
    parsed: list[ParsedDigest] = [parse_page(text, origin) for text, origin in texts]
    parse_s = time.perf_counter() - started
    papers = [paper for digest in parsed for paper in digest.papers]
    n = len(papers)

    enricher = Enricher(None)
    enricher.fingerprint  # noqa: B018 - data loading is not per-paper cost
    started = time.perf_counter()
    results = {paper.id: enricher.enrich(paper) for paper in papers}
    enrich_s = time.perf_counter() - started

    def store(enricher: Enricher | None) -> float:
        with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
            library = Library(connect(Path(tmp) / "library.sqlite3"), enricher)
            if enricher is not None:
                enricher.fingerprint  # noqa: B018
            begun = time.perf_counter()
            for digest, (text, _origin) in zip(parsed, texts, strict=True):
                library.import_parsed(digest, content_hash(text))
            elapsed = time.perf_counter() - begun
            library.conn.close()
        return elapsed

    store_s = store(PrecomputedEnricher(results))
    bare_store_s = store(None)
    per = 1e6 / n
    return {
        "papers": n,
        "parse_us_per_paper": round(parse_s * per, 1),
        "enrich_us_per_paper": round(enrich_s * per, 1),
        "store_us_per_paper": round(store_s * per, 1),
        "store_without_enrichment_us_per_paper": round(bare_store_s * per, 1),
    }


def store_only(paths: list[Path], profile: bool) -> dict[str, float]:
    """The importer alone: `import_files(workers=0)` (read, parse, store, full-text fill,
    similar-index hook, checkpoint) with every paper's enrichment computed beforehand and handed
    to the enricher as the workers would (`Enricher.prepare`), so the rules cost nothing.
    CPU time (`time.process_time`) is the figure to compare on a loaded machine."""
    from digest_tui.enrich.parallel import EnrichPool

    texts = [(p.read_text(encoding="utf-8"), str(p)) for p in paths]
    papers = [paper for text, origin in texts for paper in parse_page(text, origin).papers]
    with tempfile.TemporaryDirectory(prefix="bench-store-only-") as tmp, digest_home(Path(tmp)):
        library = open_library(AppContext())
        enricher = library.enricher
        assert enricher is not None
        enricher.fingerprint  # noqa: B018
        # Enrichment of every paper, computed in workers (not timed), then held as prepared.
        pool = EnrichPool(enricher, 2)
        with pool:
            results = [item for f in pool.submit(papers) for item in f.result()]
        enricher.prepare(results)
        profiler = cProfile.Profile() if profile else None
        wall, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        report = import_files(library, paths, workers=0)
        if profiler is not None:
            profiler.disable()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        library.conn.close()
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(35)
        print(out.getvalue())
    assert not report.warnings, report.warnings[:3]
    n = report.new
    return {
        "papers": n,
        "cpu_us_per_paper": round(cpu * 1e6 / n, 1),
        "wall_us_per_paper": round(wall * 1e6 / n, 1),
        "papers_per_cpu_s": round(n / cpu, 1),
        "load_average": round(os.getloadavg()[0], 2),
    }


def big_page_file(megabytes: int, seed: int = DEFAULT_SEED) -> Path:
    """One Daily Papers page of about `megabytes` MB (every synthetic paper needed on one
    page), written once under bench/out/."""
    import datetime as dt

    from synthetic import OUT_DIR, SynthPage, generate, render_page

    path = OUT_DIR / f"big-page-{megabytes}mb-s{seed}.txt"
    if path.exists():
        return path
    papers = []
    size = 0
    n = megabytes * 1_000_000 // 1_500 + 1_000  # more than enough; cut at the size below
    for page in generate(n, seed):
        for paper in page.papers:
            papers.append(paper)
            size += len(paper.title) + len(paper.abstract) + 40
        if size >= megabytes * 1_000_000:
            break
    text = render_page(SynthPage(dt.date(2025, 12, 31), tuple(papers)))
    building = path.with_suffix(f".{os.getpid()}.tmp")
    building.write_text(text, encoding="utf-8")
    building.rename(path)
    return path


_MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def big_page_import(megabytes: int) -> dict[str, float]:
    """`digest-tui import` of one page of `megabytes` MB in a fresh process and home: wall
    time and the peak RSS of the largest process (the importer, or an enrichment worker).

    The page is written by a process of its own: Linux records a child's peak RSS from the
    parent's memory it starts with (fork, before exec), so this process must stay small."""
    path = OUT_DIR / f"big-page-{megabytes}mb-s{DEFAULT_SEED}.txt"
    if not path.exists():
        subprocess.run(
            [sys.executable, __file__, "--make-page", str(megabytes)], check=True, cwd=ROOT
        )
    with tempfile.TemporaryDirectory(prefix="bench-bigpage-") as tmp:
        env = {**os.environ, "DIGEST_TUI_HOME": tmp}
        begun = time.perf_counter()
        # Through a small wrapper process whose children are only the importer (and, through
        # it, the workers): its RUSAGE_CHILDREN peak is theirs, not the page generator's.
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _MEASURE,
                *(sys.executable, "-m", "digest_tui"),
                "import",
                str(path),
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - begun
    if done.returncode != 0:
        raise SystemExit(f"import failed ({done.returncode}): {done.stderr[-2000:]}")
    peak_kib = int(done.stderr.strip().splitlines()[-1].removeprefix("MAXRSS "))
    summary = done.stdout.strip().splitlines()[-1]
    return {
        "page_mb": round(path.stat().st_size / 1e6, 1),
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(peak_kib / 1024, 1),
        "summary": summary,  # type: ignore[dict-item]
    }


def similar_at_import(paths: list[Path]) -> dict[str, float]:
    """What keeping the similarity index current adds to an import (similar/after_import.py):
    every page but the last imported and indexed (a full pass), then the last page imported
    without the hook, then the hook on its own (the vectors of that page's papers)."""
    import digest_tui.service as service
    from digest_tui.similar.after_import import refresh_after_import
    from digest_tui.similar.index import SimilarIndex

    with tempfile.TemporaryDirectory(prefix="bench-import-sim-") as tmp, digest_home(Path(tmp)):
        library = open_library(AppContext())
        import_files(library, paths[:-1])
        before = library.count()
        begun = time.perf_counter()
        SimilarIndex(library.conn).refresh()
        full_s = time.perf_counter() - begun
        hook = service.refresh_similar_after_import
        service.refresh_similar_after_import = lambda library: None  # type: ignore[assignment]
        try:
            begun = time.perf_counter()
            last = import_files(library, paths[-1:])
            page_s = time.perf_counter() - begun
        finally:
            service.refresh_similar_after_import = hook
        begun = time.perf_counter()
        done = refresh_after_import(library.conn)
        hook_s = time.perf_counter() - begun
        begun = time.perf_counter()
        idle = refresh_after_import(library.conn)
        idle_s = time.perf_counter() - begun
        library.conn.close()
    assert done.report.built == last.new + last.updated and idle.report.built == 0
    return {
        "library_papers": before,
        "full_index_build_s": round(full_s, 2),
        "last_page_papers": last.new,
        "last_page_import_ms": round(page_s * 1000, 1),
        "index_refresh_ms": round(hook_s * 1000, 1),
        "index_refresh_nothing_to_do_ms": round(idle_s * 1000, 2),
    }


# A small edit of the user's taxonomy: one more strong phrase for one topic (what a user adding
# a term does). It changes the topics fingerprint only.
TAXONOMY_EDIT = """topics:
  - id: kernels
    add_patterns:
      - phrase: warp specialization
        weight: 4
"""


def reenrich_after_taxonomy_edit(n: int, workers: int | None) -> dict[str, float]:
    """A library of n synthetic papers (bench/out's cache), the user's taxonomy edited, then
    `Library.reenrich()` as the next command or app start-up runs it: wall and CPU time (this
    process, and the enrichment workers once they have exited)."""

    from digest_tui.config import Paths
    from synthetic import build_library

    with tempfile.TemporaryDirectory(prefix="bench-reenrich-") as tmp, digest_home(Path(tmp)):
        build_library(Path(tmp), n)
        config_dir = Paths.discover().config_dir
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "taxonomy.yaml").write_text(TAXONOMY_EDIT, encoding="utf-8")
        library = open_library(AppContext())
        library.enricher.fingerprint  # noqa: B018
        options = {} if workers is None else {"workers": workers}
        wall, cpu = time.perf_counter(), time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = library.reenrich(**options)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        workers_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
        changed = library.conn.execute(
            "SELECT count(*) FROM paper_topics WHERE topic = 'kernels'"
        ).fetchone()[0]
        library.conn.close()
    return {
        "papers": n,
        "reenriched": done,
        "kernels_papers_after": changed,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "workers_cpu_s": round(workers_cpu, 2),
        "papers_per_s": round(done / wall, 1),
        "load_average": round(os.getloadavg()[0], 2),  # type: ignore[dict-item]
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--profile", action="store_true", help="cProfile the real-path import")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="enrichment worker processes for the real path (default: import_files decides; "
        "0: none)",
    )
    parser.add_argument(
        "--real-only", action="store_true", help="only the real path (skip the parts alone)"
    )
    parser.add_argument(
        "--big-page",
        type=int,
        metavar="MB",
        help="only import one page of MB megabytes with `digest-tui import`: time, peak RSS",
    )
    parser.add_argument(
        "--similar",
        action="store_true",
        help="only what refreshing the similarity index adds to importing one more page",
    )
    parser.add_argument(
        "--reenrich-after-taxonomy",
        action="store_true",
        help="only: a library of --papers papers, the user's taxonomy edited, re-enrich "
        "(wall and CPU; set BENCH_REUSE_STALE=1 to reuse a cached library)",
    )
    parser.add_argument(
        "--store-only",
        action="store_true",
        help="only the importer with enrichment precomputed (parse + store + FTS fill): "
        "CPU and wall per paper (with --profile: its cProfile)",
    )
    parser.add_argument(
        "--layouts",
        metavar="COUNTS",
        help="only the real-path import with each of these enrichment worker counts "
        "(comma-separated, e.g. 0,1,2,3; 0: enrich in the importer), interleaved "
        "--rounds times: wall papers/s and CPU per paper, importer and workers",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds of --layouts")
    parser.add_argument("--make-page", type=int, metavar="MB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reenrich_after_taxonomy:
        result = reenrich_after_taxonomy_edit(args.papers, args.workers)
        print(
            f"re-enrich {result['reenriched']} papers after a taxonomy edit: "
            f"{result['wall_s']} s wall ({result['papers_per_s']:.0f} papers/s), CPU "
            f"{result['cpu_s']} s here + {result['workers_cpu_s']} s in workers; "
            f"load average {result['load_average']}"
        )
        print(f"written {write_result(f'reenrich-taxonomy-{args.papers}', result)}")
        return 0
    if args.make_page:
        print(big_page_file(args.make_page))
        return 0
    if args.big_page:
        big = big_page_import(args.big_page)
        print(
            f"one {big['page_mb']} MB page: {big['seconds']} s, peak RSS {big['peak_rss_mb']} MB"
            f"\n{big['summary']}"
        )
        print(f"written {write_result(f'import-big-page-{args.big_page}mb', big)}")
        return 0

    paths = cached_pages(args.papers, args.seed)
    print(f"{args.papers} papers in {len(paths)} page files\n")
    if args.similar:
        sim = similar_at_import(paths)
        print(
            f"one more page of {sim['last_page_papers']} papers: import "
            f"{sim['last_page_import_ms']} ms, + similarity index {sim['index_refresh_ms']} ms "
            f"({sim['index_refresh_nothing_to_do_ms']} ms with nothing to do); "
            f"full index build {sim['full_index_build_s']} s"
        )
        print(f"written {write_result(f'import-{args.papers}-similar', sim)}")
        return 0
    if args.layouts:
        counts = [int(part) for part in args.layouts.split(",")]
        rows = layouts(paths, counts, args.rounds)
        headers = ["round", "workers", "papers/s", "importer us CPU", "workers us CPU", "load"]
        print(table(rows, headers))
        print(f"written {write_result(f'import-{args.papers}-layouts', {'rows': rows})}")
        return 0
    if args.store_only:
        alone = store_only(paths, args.profile)
        print(
            f"importer alone (enrichment precomputed): {alone['cpu_us_per_paper']} us CPU, "
            f"{alone['wall_us_per_paper']} us wall per paper ({alone['papers_per_cpu_s']:.0f} "
            f"papers per CPU second); load average {alone['load_average']}"
        )
        print(f"written {write_result(f'import-{args.papers}-store-only', alone)}")
        return 0
    real = real_path(paths, args.profile, args.workers)
    real["workers"] = args.workers
    if args.real_only:
        print(
            f"real path: {real['papers_per_s']:.0f} papers/s; re-import "
            f"{real['reimport_papers_per_s']:.0f}/s; re-enrich all "
            f"{real['reenrich_papers_per_s']:.0f}/s; peak RSS {real['peak_rss_mb']} MB\n"
            f"import CPU: {real['import_cpu_importer_s']} s importer + "
            f"{real['import_cpu_workers_s']} s workers; load average {real['load_average']}"
        )
        print(f"written {write_result(f'import-{args.papers}-real', {'real_path': real})}")
        return 0
    split = parts(paths)
    total_us = 1e6 / real["papers_per_s"]
    rows = [
        [
            "real path: import_files (parse+enrich+store)",
            f"{total_us:.0f}",
            f"{real['papers_per_s']:.0f}",
        ],
        [
            "  parse page text",
            split["parse_us_per_paper"],
            f"{1e6 / split['parse_us_per_paper']:.0f}",
        ],
        [
            "  enrich (Enricher.enrich)",
            split["enrich_us_per_paper"],
            f"{1e6 / split['enrich_us_per_paper']:.0f}",
        ],
        [
            "  store (import_parsed, enrichment precomputed)",
            split["store_us_per_paper"],
            f"{1e6 / split['store_us_per_paper']:.0f}",
        ],
        [
            "  store with no enricher at all",
            split["store_without_enrichment_us_per_paper"],
            f"{1e6 / split['store_without_enrichment_us_per_paper']:.0f}",
        ],
        [
            "re-import, all unchanged",
            f"{1e6 / real['reimport_papers_per_s']:.0f}",
            f"{real['reimport_papers_per_s']:.0f}",
        ],
    ]
    print(table(rows, ["stage", "us/paper", "papers/s"]))
    print(f"\nopen library + load taxonomy/catalogs: {real['open_and_load_data_s']} s")
    print(f"peak RSS after the real-path import: {real['peak_rss_mb']} MB")
    print(f"database size: {real['db_mb_per_1000_papers']} MB per 1,000 papers")
    path = write_result(f"import-{args.papers}", {"real_path": real, "parts": split})
    print(f"\nwritten {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
