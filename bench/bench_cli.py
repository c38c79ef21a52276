"""CLI commands on a large library: each command in a fresh process, as a user runs it.

    python bench/bench_cli.py --papers 100000 [--runs 3] [--skip-similar] [--src DIR]

On a synthetic library of N papers (bench/synthetic.py, built once and copied) with some user
state (bookmarks, tags, notes, a reading list), times `digest-tui ...` from spawn to exit,
output to /dev/null: `--help`, `papers --limit 20`, `show ID` (table and JSON), `tags`,
`list`, `similar ID` (warm: the index built once first), `recommend`, the daily commands
(`papers --search WORD`, `has:runnable`, the reproducible/readiness sorts, `fits:MACHINE`,
`export` of a reading list, `list show`, `show --offline`, `links check`, `tag`/`bookmark`
writes), and `papers --format jsonl` of the whole library. `fits:` runs against a second home
whose config.yaml names a machine and whose data/ is the first home's (so the other commands
keep starting without a config.yaml). Median of `--runs` runs, wall time and the
command's CPU time (user + system, from the child's rusage: steadier than wall time on a loaded
machine). `--src DIR` runs the commands with another checkout's `src/` (e.g. the code before a
change: `git archive COMMIT src | tar -x -C /tmp/before`) for a before/after in one session.

Goals (issue 12): `papers --format jsonl` of 100,000 papers <= 5 s; every other command on a
100,000-paper library <= 300 ms; `--help` <= 60 ms.

The package run is byte-compiled first (`compile_package`), as an installed copy is.

Writes bench/out/results/cli-N.json.
"""

from __future__ import annotations

import argparse
import os
import resource
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
SPLIT_KEYS = ("cpu", "interpreter", "imports", "open", "query_output")


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


MACHINES_YAML = """machines:
  - name: laptop
    devices: [{id: rtx-4090, count: 1}]
"""


def machines_home(home: Path, tmp: Path) -> Path:
    """A DIGEST_TUI_HOME with a config.yaml naming a machine, sharing `home`'s library."""
    with_machines = tmp / "home-with-machines"
    (with_machines / "config").mkdir(parents=True, exist_ok=True)
    (with_machines / "config" / "config.yaml").write_text(MACHINES_YAML)
    data = with_machines / "data"
    if not data.exists():
        data.symlink_to(database_path(home).parent, target_is_directory=True)
    return with_machines


def compile_package(src: Path | None) -> None:
    """Byte-compile the digest_tui the commands will run, as an installed wheel is.

    With PYTHONDONTWRITEBYTECODE set (as on the shared bench machine) nothing is cached and
    every command compiled ~40 of its modules from source first (~0.2 s of CPU under load),
    which no installed copy pays; before and after are compiled alike."""
    import compileall

    if src is not None:
        package = src / "digest_tui"
    else:
        import digest_tui

        package = Path(digest_tui.__file__).parent
    compileall.compile_dir(package, quiet=1)


def daily(*argv: str) -> tuple[str, list[str], float]:
    """A daily command labelled as typed, held to the 300 ms goal."""
    return " ".join(argv), list(argv), GOAL_COMMAND_S


def _child_env(home: Path, src: Path | None) -> dict[str, str]:
    """The environment of a timed command: this home, and another checkout's src/ if given."""
    env = {**os.environ, "DIGEST_TUI_HOME": str(home)}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


# Run in the child for --split: the command's CPU time split into imports (every `import`
# and import_module, nested ones counted once), opening the library (open_for_command, its
# own imports excepted) and the rest (the queries and the output), as JSON on stderr.
_SPLIT_CHILD = """
import builtins, importlib, json, os, sys, time
spent = {"imports": 0.0, "open": 0.0}
depth = [0]
def timed(real):
    def wrapper(*args, **kwargs):
        if depth[0]:
            return real(*args, **kwargs)
        depth[0] += 1
        began = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent["imports"] += time.process_time() - began
            depth[0] -= 1
    return wrapper
builtins.__import__ = timed(builtins.__import__)
importlib.import_module = timed(importlib.import_module)
began = time.process_time()
import digest_tui.commands.common as common
real_open = common.open_for_command
def open_for_command(*args, **kwargs):
    imports, start = spent["imports"], time.process_time()
    try:
        return real_open(*args, **kwargs)
    finally:
        spent["open"] += time.process_time() - start - (spent["imports"] - imports)
common.open_for_command = open_for_command
from digest_tui.cli import main
sys.stdout = open(os.devnull, "w")
try:
    rc = main(sys.argv[1:])
except SystemExit as stop:  # --help
    rc = stop.code or 0
spent["total"] = time.process_time() - began
sys.stderr.write("\\n" + json.dumps([rc, spent]))
"""


def split(home: Path, args: list[str], src: Path | None = None) -> dict[str, float]:
    """CPU seconds of one `digest-tui ARGS` in a fresh process: interpreter (start-up and
    exit, the process's CPU outside the script), imports, open, rest."""
    env = _child_env(home, src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", _SPLIT_CHILD, *args], env=env, capture_output=True, text=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    import json

    rc, spent = json.loads(done.stderr.splitlines()[-1])
    if rc != 0:
        raise SystemExit(f"digest-tui {' '.join(args)} failed: {done.stderr[-1000:]}")
    rest = spent["total"] - spent["imports"] - spent["open"]
    return {
        "cpu": cpu,
        "interpreter": cpu - spent["total"],
        "imports": spent["imports"],
        "open": spent["open"],
        "query_output": rest,
    }


def run(home: Path, args: list[str], src: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one `digest-tui ARGS` process."""
    env = _child_env(home, src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begun = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "digest_tui", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - begun
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"digest-tui {' '.join(args)} failed: {done.stderr[-1000:]}")
    return seconds, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--skip-similar", action="store_true", help="leave out similar/recommend (index build)"
    )
    parser.add_argument(
        "--src", type=Path, help="run the commands with this checkout's src/ (before/after)"
    )
    parser.add_argument(
        "--home",
        type=Path,
        help="time against this DIGEST_TUI_HOME as it is (a copy made and seeded by an earlier "
        "run, its similar index built): no copy, no seeding, no index build",
    )
    parser.add_argument(
        "--only", default="", help="only the commands whose label contains this text"
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="also split each command's CPU (median of --runs) into interpreter, imports, "
        "open and query+output",
    )
    args = parser.parse_args()
    src = args.src.resolve() if args.src else None
    compile_package(src)

    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        if args.home is not None:
            home = args.home.resolve()
            with sqlite3.connect(database_path(home)) as conn:
                ident = conn.execute("SELECT id FROM papers ORDER BY rowid LIMIT 1").fetchone()[0]
        else:
            home = build_library(Path(tmp), args.papers, args.seed)
            ident = seed_state(home)
        count = sqlite3.connect(database_path(home)).execute("SELECT count(*) FROM papers")
        papers = int(count.fetchone()[0])
        fits_home = machines_home(home, Path(tmp))
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
            ("show ID --offline", ["show", ident, "--offline"], GOAL_COMMAND_S),
            ("tags", ["tags"], GOAL_COMMAND_S),
            ("list", ["list"], GOAL_COMMAND_S),
            ("list show LIST", ["list", "show", "bench list"], GOAL_COMMAND_S),
            daily("papers", "--search", "attention", "--limit", "20"),
            daily("papers", "--search", "has:runnable", "--limit", "20"),
            daily("papers", "--sort", "readiness", "--limit", "20"),
            daily("papers", "--sort", "reproducible", "--limit", "20"),
            daily("papers", "--search", "fits:laptop", "--limit", "20"),
            (
                "export list:LIST (bibtex)",
                ["export", "--search", 'list:"bench list"'],
                GOAL_COMMAND_S,
            ),
            daily("links", "check"),
            ("tag ID (write)", ["tag", ident, "benchtag"], GOAL_COMMAND_S),
            ("bookmark ID (write)", ["bookmark", ident], GOAL_COMMAND_S),
        ]
        if not args.skip_similar:
            # With --home the index is already there: this run is then warm too.
            print("building the similar index once (warm runs follow) ...", file=sys.stderr)
            build_s, _ = run(home, ["similar", ident], src)
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
        commands = [c for c in commands if args.only in c[0]]
        rows = []
        splits: list[list[str]] = []
        result: dict = {
            "papers": papers,
            "runs": args.runs,
            "src": str(src) if src else None,
            "load_average": os.getloadavg(),
            "commands": {},
        }
        if not args.skip_similar:
            result["similar_index_build_s"] = round(build_s, 2)
        for label, argv, goal in commands:
            where = fits_home if "fits:" in label else home
            measured = [run(where, argv, src) for _ in range(args.runs)]
            times = [wall for wall, _ in measured]
            median = statistics.median(times)
            cpu = statistics.median(c for _, c in measured)
            met = median <= goal
            result["commands"][label] = {
                "argv": argv,
                "median_s": round(median, 3),
                "max_s": round(max(times), 3),
                "median_cpu_s": round(cpu, 3),
                "goal_s": goal,
                "met": met,
            }
            rows.append(
                [
                    label,
                    f"{median * 1000:.0f}",
                    f"{cpu * 1000:.0f}",
                    f"{goal * 1000:.0f}",
                    "met" if met else "NOT met",
                ]
            )
            print(f"  {label}: {median * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms)", file=sys.stderr)
            if args.split:
                parts = [split(where, argv, src) for _ in range(args.runs)]
                costs = {k: statistics.median(p[k] for p in parts) for k in parts[0]}
                result["commands"][label]["split_cpu_s"] = {
                    k: round(v, 3) for k, v in costs.items()
                }
                splits.append([label] + [f"{costs[k] * 1000:.0f}" for k in SPLIT_KEYS])
    load = " ".join(f"{x:.1f}" for x in result["load_average"])
    print(f"\n{papers:,} papers, median of {args.runs} fresh processes (load average {load})\n")
    print(table(rows, ["command", "ms", "CPU ms", "goal ms", ""]))
    if splits:
        print("\nCPU ms by part (median; a separate set of runs)\n")
        print(table(splits, ["command", "CPU", "interpreter", "imports", "open", "query+out"]))
    name = f"cli-{args.papers}" + (f"-src-{src.parent.name}" if src else "")
    print(f"\nwritten: {write_result(name, result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
