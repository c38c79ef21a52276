"""CLI commands on a large library: each command in a fresh process, as a user runs it.

    python bench/bench_cli.py --papers 100000 [--runs 3] [--skip-similar]

On a synthetic library of N papers (bench/synthetic.py, built once and copied) with some user
state (bookmarks, tags, notes, a reading list), times `digest-tui ...` from spawn to exit,
output to /dev/null: `--help`, `papers --limit 20`, `show ID` (table and JSON), `tags`,
`list`, `similar ID` (warm: the index built once first), `recommend`, and
`papers --format jsonl` of the whole library. Median of `--runs` runs.

Goals (issue 12): `papers --format jsonl` of 100,000 papers <= 5 s; every other command on a
100,000-paper library <= 300 ms; `--help` <= 60 ms.

Writes bench/out/results/cli-N.json.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import table, write_result
from synthetic import DEFAULT_SEED, build_library, database_path, digest_home

GOAL_JSONL_S = 5.0
GOAL_COMMAND_S = 0.300
GOAL_HELP_S = 0.060


def seed_state(home: Path) -> str:
    """Some user state, so tags, lists and notes are not empty; return a paper id."""
    from digest_tui.config import AppContext
    from digest_tui.service import open_library

    with digest_home(home):
        library = open_library(AppContext())
        ids = [r[0] for r in library.conn.execute("SELECT id FROM papers ORDER BY rowid LIMIT 60")]
        state = library.state
        for n, ident in enumerate(ids):
            if n % 2 == 0:
                state.bookmark(ident)
            state.add_tags(ident, ["to-read" if n % 3 else "moe", f"batch{n % 5}"])
        state.set_note(ids[0], "benchmark note")
        state.create_list("bench list")
        state.add_to_list("bench list", ids[:20])
        library.close()
    return ids[0]


def run(home: Path, args: list[str]) -> float:
    env = {**os.environ, "DIGEST_TUI_HOME": str(home)}
    begun = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "digest_tui", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - begun
    if done.returncode != 0:
        raise SystemExit(f"digest-tui {' '.join(args)} failed: {done.stderr[-1000:]}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--skip-similar", action="store_true", help="leave out similar/recommend (index build)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        home = build_library(Path(tmp), args.papers, args.seed)
        ident = seed_state(home)
        count = sqlite3.connect(database_path(home)).execute("SELECT count(*) FROM papers")
        papers = int(count.fetchone()[0])
        commands: list[tuple[str, list[str], float]] = [
            ("--help", ["--help"], GOAL_HELP_S),
            ("papers --limit 20", ["papers", "--limit", "20"], GOAL_COMMAND_S),
            (
                "papers --limit 20 --format json",
                ["papers", "--limit", "20", "--format", "json"],
                GOAL_COMMAND_S,
            ),
            ("show ID", ["show", ident], GOAL_COMMAND_S),
            ("show ID --format json", ["show", ident, "--format", "json"], GOAL_COMMAND_S),
            ("tags", ["tags"], GOAL_COMMAND_S),
            ("list", ["list"], GOAL_COMMAND_S),
        ]
        if not args.skip_similar:
            print("building the similar index once (warm runs follow) ...", file=sys.stderr)
            build_s = run(home, ["similar", ident])
            commands += [
                ("similar ID (warm)", ["similar", ident], GOAL_COMMAND_S),
                ("recommend (warm)", ["recommend"], GOAL_COMMAND_S),
            ]
        commands.append(
            (
                f"papers --format jsonl ({papers:,} papers)",
                ["papers", "--format", "jsonl"],
                GOAL_JSONL_S,
            )
        )
        rows = []
        result: dict = {"papers": papers, "runs": args.runs, "commands": {}}
        if not args.skip_similar:
            result["similar_index_build_s"] = round(build_s, 2)
        for label, argv, goal in commands:
            times = [run(home, argv) for _ in range(args.runs)]
            median = statistics.median(times)
            met = median <= goal
            result["commands"][label] = {
                "argv": argv,
                "median_s": round(median, 3),
                "max_s": round(max(times), 3),
                "goal_s": goal,
                "met": met,
            }
            rows.append(
                [label, f"{median * 1000:.0f}", f"{goal * 1000:.0f}", "met" if met else "NOT met"]
            )
            print(f"  {label}: {median * 1000:.0f} ms", file=sys.stderr)
    print(f"\n{papers:,} papers, median of {args.runs} fresh processes\n")
    print(table(rows, ["command", "ms", "goal ms", ""]))
    print(f"\nwritten: {write_result(f'cli-{args.papers}', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
