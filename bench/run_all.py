"""Every benchmark of issue 12 ("instant at any size") in one run, and one table of its goals.

    python bench/run_all.py            # quick sizes (minutes): a smoke test of every figure
    python bench/run_all.py --full     # the issue's sizes (a long run: libraries of 50k-100k)
    python bench/run_all.py --only import,sync

Each benchmark runs as its own process, exactly as from the command line (bench_startup.py and
bench_keystroke.py belong to the app's side and are called as they are), and writes its JSON to
bench/out/results/; this script reads those files back and prints, per goal, the figure, the
goal and whether it is met. Quick sizes are smaller than the goals' sizes, so their "met" says
only that nothing is far off: the figures to quote are those of `--full` (docs/performance.md).
Writes bench/out/results/run_all-quick.json (or -full).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from _common import BENCH_DIR, PYTHON, RESULTS_DIR, table, write_result


@dataclass
class Goal:
    what: str
    goal: str
    figure: Callable[[dict[str, Any]], float | None]  # from the benchmark's JSON
    met: Callable[[float], bool]
    unit: str


@dataclass
class Bench:
    name: str
    quick: list[str]
    full: list[str]
    result: Callable[[bool], str]  # the JSON file's name (without .json), quick or full
    goals: list[Goal]


def _get(data: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _cli(label_start: str) -> Callable[[dict[str, Any]], float | None]:
    def figure(data: dict[str, Any]) -> float | None:
        for label, values in (data.get("commands") or {}).items():
            if label.startswith(label_start):
                return float(values["median_s"]) * 1000
        return None

    return figure


def _slowest_other_command(data: dict[str, Any]) -> float | None:
    others = [
        float(v["median_s"]) * 1000
        for label, v in (data.get("commands") or {}).items()
        if not label.startswith(("papers --format jsonl", "--help"))
    ]
    return max(others) if others else None


QUICK_PAPERS, FULL_PAPERS = 10_000, 100_000

BENCHES = [
    Bench(
        "import",
        ["bench_import.py", "--papers", "2000", "--real-only"],
        ["bench_import.py", "--papers", "10000", "--real-only"],
        lambda full: f"import-{10000 if full else 2000}-real",
        [
            Goal(
                "import, real path (parse + enrich + store)",
                ">= 10,000 papers/s",
                lambda d: _get(d, "real_path", "papers_per_s"),
                lambda v: v >= 10_000,
                "papers/s",
            ),
            Goal(
                "re-enrich every component of all papers (100,000 in <= 15 s)",
                ">= 6,667 papers/s",
                lambda d: _get(d, "real_path", "reenrich_papers_per_s"),
                lambda v: v >= 100_000 / 15,
                "papers/s",
            ),
        ],
    ),
    Bench(
        "reenrich",
        ["bench_import.py", "--papers", "10000", "--reenrich-after-taxonomy"],
        ["bench_import.py", "--papers", "100000", "--reenrich-after-taxonomy"],
        lambda full: f"reenrich-taxonomy-{100000 if full else 10000}",
        [
            Goal(
                "re-enrich after a taxonomy edit (100,000 in <= 15 s)",
                ">= 6,667 papers/s",
                lambda d: d.get("papers_per_s"),
                lambda v: v >= 100_000 / 15,
                "papers/s",
            )
        ],
    ),
    Bench(
        "big-page",
        ["bench_import.py", "--big-page", "20"],
        ["bench_import.py", "--big-page", "200"],
        lambda full: f"import-big-page-{200 if full else 20}mb",
        [
            Goal(
                "import one huge page (200 MB; quick: 20 MB): peak RSS",
                "<= 300 MB",
                lambda d: d.get("peak_rss_mb"),
                lambda v: v <= 300,
                "MB",
            )
        ],
    ),
    Bench(
        "sync",
        ["bench_sync.py", "--devices", "10", "--ops", "1000"],
        ["bench_sync.py"],
        lambda full: "sync",
        [
            Goal(
                "sync merge from a folder",
                ">= 50,000 ops/s",
                lambda d: _get(d, "merge_folder", "ops_per_s"),
                lambda v: v >= 50_000,
                "ops/s",
            ),
            Goal(
                "sync merge, 10 devices x 10,000 ops (quick: x 1,000)",
                "< 2 s",
                lambda d: _get(d, "merge_folder", "seconds"),
                lambda v: v < 2,
                "s",
            ),
            Goal(
                "sync with nothing new: requests",
                "1",
                lambda d: _get(d, "nothing_new_folder", "requests"),
                lambda v: v == 1,
                "requests",
            ),
        ],
    ),
    Bench(
        "cli",
        ["bench_cli.py", "--papers", str(QUICK_PAPERS), "--runs", "1"],
        ["bench_cli.py", "--papers", str(FULL_PAPERS), "--runs", "3"],
        lambda full: f"cli-{FULL_PAPERS if full else QUICK_PAPERS}",
        [
            Goal(
                "CLI `papers --format jsonl`, all papers (100k)",
                "<= 5,000 ms",
                _cli("papers --format jsonl"),
                lambda v: v <= 5000,
                "ms",
            ),
            Goal(
                "CLI, slowest other command (100k)",
                "<= 300 ms",
                _slowest_other_command,
                lambda v: v <= 300,
                "ms",
            ),
            Goal("CLI `--help`", "<= 60 ms", _cli("--help"), lambda v: v <= 60, "ms"),
        ],
    ),
    Bench(
        "startup",
        ["bench_startup.py", "--papers", str(QUICK_PAPERS), "--runs", "1"],
        ["bench_startup.py", "--papers", "50000", "--runs", "3"],
        lambda full: f"startup-{50000 if full else QUICK_PAPERS}",
        [
            Goal(
                "first paint / empty Textual app (50k)",
                "<= 1.3x",
                lambda d: d.get("ratio_list_painted"),
                lambda v: v <= 1.3,
                "x",
            )
        ],
    ),
    Bench(
        "keystroke",
        ["bench_keystroke.py", "--papers", str(QUICK_PAPERS), "--rounds", "1"],
        ["bench_keystroke.py", "--papers", str(FULL_PAPERS), "--rounds", "3"],
        lambda full: f"keystroke-{FULL_PAPERS if full else QUICK_PAPERS}",
        [
            Goal(
                "keystroke -> list painted, p50 (100k)",
                "<= 16 ms",
                lambda d: _get(d, "per_key_painted", "p50_ms"),
                lambda v: v <= 16,
                "ms",
            ),
            Goal(
                "keystroke -> list painted, p95 (100k)",
                "<= 50 ms",
                lambda d: _get(d, "per_key_painted", "p95_ms"),
                lambda v: v <= 50,
                "ms",
            ),
            Goal(
                "app RSS with the library open (100k)",
                "<= 150 MB",
                lambda d: d.get("rss_mb"),
                lambda v: v <= 150,
                "MB",
            ),
        ],
    ),
]


def run_bench(bench: Bench, full: bool, timeout: float) -> dict[str, Any]:
    argv = [PYTHON, str(BENCH_DIR / (bench.full if full else bench.quick)[0])]
    argv += (bench.full if full else bench.quick)[1:]
    result_file = RESULTS_DIR / f"{bench.result(full)}.json"
    result_file.unlink(missing_ok=True)  # a figure shown is always one of this run
    print(f"== {bench.name}: {' '.join(argv[1:])}", file=sys.stderr, flush=True)
    begun = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=BENCH_DIR.parent, timeout=timeout, capture_output=True)
        problem = None if done.returncode == 0 else f"exit {done.returncode}"
        if problem:
            sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
    except subprocess.TimeoutExpired:
        problem = f"timed out after {timeout:.0f} s"
    seconds = time.perf_counter() - begun
    data: dict[str, Any] = {}
    if problem is None:
        try:
            data = json.loads(result_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problem = f"no result file {result_file.name}: {exc}"
    return {"argv": argv[1:], "seconds": round(seconds, 1), "problem": problem, "data": data}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the issue's sizes (long)")
    parser.add_argument(
        "--only", help="comma-separated: " + ",".join(b.name for b in BENCHES), default=""
    )
    parser.add_argument(
        "--timeout", type=float, default=3600, help="seconds allowed to each benchmark"
    )
    args = parser.parse_args()
    chosen = [b for b in BENCHES if not args.only or b.name in args.only.split(",")]
    rows: list[list[Any]] = []
    report: dict[str, Any] = {"full": args.full, "benchmarks": {}}
    for bench in chosen:
        outcome = run_bench(bench, args.full, args.timeout)
        goals = []
        for goal in bench.goals:
            value = None if outcome["problem"] else goal.figure(outcome["data"])
            if value is None:
                verdict, shown = outcome["problem"] or "no figure", "-"
            else:
                verdict = "met" if goal.met(float(value)) else "NOT met"
                exact = float(value).is_integer() or value >= 100
                shown = f"{value:,.0f} {goal.unit}" if exact else f"{value:,.1f} {goal.unit}"
            rows.append([goal.what, goal.goal, shown, verdict])
            goals.append(
                {"what": goal.what, "goal": goal.goal, "figure": value, "verdict": verdict}
            )
        report["benchmarks"][bench.name] = {
            "argv": outcome["argv"],
            "seconds": outcome["seconds"],
            "problem": outcome["problem"],
            "goals": goals,
        }
    size = "the issue's sizes" if args.full else "quick sizes (smaller than the goals' sizes)"
    print(f"\nissue 12 benchmarks, {size}\n")
    print(table(rows, ["goal", "target", "figure", ""]))
    path = write_result(f"run_all-{'full' if args.full else 'quick'}", report)
    print(f"\nwritten: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
