"""Start-up: launch to first paint with the list filled, beside an empty app of the same layout.

    python bench/bench_startup.py --papers 50000 [--runs 5]

Each run is a fresh `python` subprocess, so interpreter start and every import are counted. The
clock starts in the parent just before the subprocess is spawned (time.monotonic is system-wide
on Linux, so the child's readings are on the same clock) and stops in the child when the frame
showing the filled paper list has been composed: a `call_after_refresh` callback, which Textual
runs only once the screen has no dirty widgets left, i.e. after the compositor rendered it.
The apps run with `App.run(headless=True, size=...)`: everything but writing escape sequences to
a terminal happens.

- digest: the real DigestApp on a DIGEST_TUI_HOME holding --papers synthetic papers (before
  composing it reads the first window of the list, a screen of rowids off an index and their
  rows, and shows it in on_mount; the whole order, the sample check, stale enrichment and tree
  counts come after that paint);
- baseline: a bare Textual app with the same shape (a Horizontal of a Tree, an empty
  ScrollView-based list and a Static, plus a Footer), no data: Textual's own floor.

Each child also reports its process CPU time (every thread, from exec) at that frame: on a
loaded machine wall time measures the scheduler as much as the app, CPU is the honest A/B. The
digest child lists which heavy modules (pydantic, yaml, httpx, ...) were loaded by then.

Each child also records a timeline of its launch (imports done, compose, mount, the first
window read, rows handed to the list, first frame, rows painted: wall and process CPU), printed
as medians beside the empty app's.

Also measured, each over --runs fresh processes: `python -c pass` (interpreter floor),
`import digest_tui.cli`, `digest-tui --help`, and `import digest_tui.tui.app`; plus the modules
that dominate `digest-tui --help` and the TUI's imports according to `python -X importtime`.
"""

from __future__ import annotations

import time

_T_CHILD_START = time.monotonic()  # before any other import: what the child's imports cost

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

SIZE = (160, 48)
SPAWN_ENV = "BENCH_SPAWN_T"
# Reported when loaded by the time the list is painted: none of them draws the first screen.
HEAVY_MODULES = ("pydantic", "yaml", "httpx", "digest_tui.enrich.pipeline", "digest_tui.models")


# ---- child processes ------------------------------------------------------------------------


def _rss_mb() -> tuple[float, float]:
    import resource

    with open("/proc/self/statm") as handle:
        current = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return round(current, 1), round(peak, 1)


def _heavy_loaded() -> list[str]:
    """Which of the modules the first frame should not need are loaded by now."""
    return sorted(name for name in HEAVY_MODULES if name in sys.modules)


def child_digest(out: Path) -> None:
    from digest_tui.config import AppContext
    from digest_tui.tui.app import DigestApp
    from digest_tui.tui.library_service import ListWindow

    imported = time.monotonic()
    record: dict[str, Any] = {"child_start": _T_CHILD_START, "imported": imported}
    # The launch's timeline: (stage, monotonic, process CPU) in the order they happened.
    timeline: list[tuple[str, float, float]] = [("imported", imported, time.process_time())]
    record["timeline"] = timeline

    def mark(stage: str) -> None:
        timeline.append((stage, time.monotonic(), time.process_time()))

    import inspect

    class Probe(DigestApp):
        # A relative CSS_PATH resolves against the defining class's file: keep the app's own.
        CSS_PATH = str(Path(inspect.getfile(DigestApp)).parent / str(DigestApp.CSS_PATH))

        # Textual dispatches on_mount to every class in the MRO that defines it, so the app's
        # own on_mount still runs; this one only adds the first-frame probe.
        def compose(self) -> Any:
            mark("compose starts")
            yield from super().compose()
            mark("compose ends")

        def on_mount(self) -> None:
            mark("mounted")
            self.call_after_refresh(self._first_frame)

        def _first_frame(self) -> None:
            record["first_frame"] = time.monotonic()
            mark("first frame")

        def _first_view(self) -> Any:
            mark("first window: query starts")
            found = super()._first_view()
            mark("first window: read")
            return found

        def _show_rows(self, window: ListWindow) -> None:
            if "rows_shown" not in record:
                mark("rows handed to the list")
                record["rows_shown"] = time.monotonic()
                record["rows"] = len(window.rowids)
                # Queued before the app's own after-first-frame work (the footer, the workers
                # waiting for the frame): read right after the frame, not after that work.
                self.call_after_refresh(self._rows_painted)
            super()._show_rows(window)

        def _rows_painted(self) -> None:
            record["rows_painted"] = time.monotonic()
            mark("rows painted")
            # CPU of the whole process (every thread) from exec to this frame: on a loaded
            # machine the honest A/B, since wall time there measures the scheduler too.
            record["cpu_s"] = time.process_time()
            record["rss_mb"], record["peak_rss_mb"] = _rss_mb()
            record["first_rows_seconds"] = self.first_rows_seconds
            record["heavy_loaded"] = _heavy_loaded()
            self.exit()

    app = Probe(AppContext())
    try:
        app.run(headless=True, size=SIZE)
    finally:
        out.write_text(json.dumps(record))


def child_baseline(out: Path) -> None:
    from textual.app import App, ComposeResult
    from textual.containers import Horizontal
    from textual.scroll_view import ScrollView
    from textual.strip import Strip
    from textual.widgets import Footer, Static, Tree

    imported = time.monotonic()
    record: dict[str, Any] = {"child_start": _T_CHILD_START, "imported": imported}
    timeline: list[tuple[str, float, float]] = [("imported", imported, time.process_time())]
    record["timeline"] = timeline

    def mark(stage: str) -> None:
        timeline.append((stage, time.monotonic(), time.process_time()))

    class EmptyList(ScrollView):
        def render_line(self, y: int) -> Strip:
            return Strip.blank(self.size.width, self.rich_style)

    class Baseline(App[None]):
        CSS = """
        Tree { width: 30; }
        EmptyList { width: 3fr; }
        Static { width: 2fr; }
        """

        def compose(self) -> ComposeResult:
            mark("compose starts")
            with Horizontal():
                yield Tree("Library")
                yield EmptyList()
                yield Static("")
            yield Footer()
            mark("compose ends")

        def on_mount(self) -> None:
            mark("mounted")
            self.call_after_refresh(self._painted)

        def _painted(self) -> None:
            now = time.monotonic()
            mark("first frame")
            record["first_frame"] = record["rows_shown"] = record["rows_painted"] = now
            record["cpu_s"] = time.process_time()
            record["rss_mb"], record["peak_rss_mb"] = _rss_mb()
            self.exit()

    Baseline().run(headless=True, size=SIZE)
    out.write_text(json.dumps(record))


def child_steps(out: Path) -> None:
    """What the start-up worker does, step by step, timed in a fresh process (no UI)."""
    record: dict[str, Any] = {}

    def step(name: str, started: float) -> float:
        now = time.monotonic()
        record[name] = now - started
        return now

    now = time.monotonic()
    from digest_tui.config import AppContext
    from digest_tui.tui.library_service import LibraryService, Selection

    now = step("import config + library_service", now)
    service = LibraryService(AppContext())
    library = service.library
    now = step("open library (connect, migrate, Enricher)", now)
    window = service.list_window(Selection(), "")
    record["rows"] = len(window.rowids)
    now = step("list_window: ordered rowids + first rows (first paint)", now)
    from digest_tui.service import load_sample_if_empty

    load_sample_if_empty(library)
    now = step("load_sample_if_empty (count)", now)
    if library.enricher is not None:
        library.enricher.fingerprint  # noqa: B018 - what stale_count needs first
    now = step("enrichment data: taxonomy, catalogs, fingerprint", now)
    record["stale papers"] = library.stale_count()
    now = step("stale_count", now)
    service.tree_data()
    now = step("tree_data (counts, digests)", now)
    service.paper(window.rows[window.rowids[0]].id)
    now = step("paper panel: first paper", now)
    out.write_text(json.dumps(record))


# ---- parent ---------------------------------------------------------------------------------


def run_child(mode: str, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = Path(handle.name)
    try:
        spawn = time.monotonic()
        subprocess.run(
            [sys.executable, __file__, "--child", mode, "--out", str(out)],
            env={**env, SPAWN_ENV: repr(spawn)},
            # Not checked: the figures are written at the painted list; a crash on the way out
            # (seen once in the code before: a worker thread still in SQLite at interpreter
            # exit) does not make them wrong. A run without them still fails below.
            check=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            timeout=300,
        )
        exited = time.monotonic()
        record = json.loads(out.read_text() or "{}")
        if "rows_painted" not in record:
            raise RuntimeError(f"the {mode} app exited before painting its list: {record}")
    finally:
        out.unlink(missing_ok=True)
    return {
        "interpreter_s": record["child_start"] - spawn,
        "imports_s": record["imported"] - record["child_start"],
        "first_frame_s": record["first_frame"] - spawn,
        "rows_painted_s": record["rows_painted"] - spawn,
        "process_s": exited - spawn,
        "cpu_s": record["cpu_s"],
        "heavy_loaded": record.get("heavy_loaded", []),
        "rss_mb": record["rss_mb"],
        "peak_rss_mb": record["peak_rss_mb"],
        "rows": record.get("rows", 0),
        "first_rows_seconds": record.get("first_rows_seconds"),
        # ms since spawn (wall) and ms of process CPU at each stage of the launch
        "timeline": [
            (stage, round((at - spawn) * 1000, 1), round(cpu * 1000, 1))
            for stage, at, cpu in record.get("timeline", [])
        ],
    }


def add_topic_index(home: Path) -> None:
    """The experiment behind a suggestion: topic_counts' NOT EXISTS scans paper_topics per paper
    without it. Applied to the benchmark's throw-away copy only."""
    import sqlite3

    from synthetic import database_path

    conn = sqlite3.connect(database_path(home))
    conn.execute(
        "CREATE INDEX IF NOT EXISTS bench_paper_topics_paper ON paper_topics (paper_rowid)"
    )
    conn.close()


def run_steps(env: dict[str, str]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = Path(handle.name)
    try:
        subprocess.run(
            [sys.executable, __file__, "--child", "steps", "--out", str(out)],
            env=env,
            check=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
        )
        return json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)


def wall(cmd: list[str], runs: int, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def importtime_top(code: str, env: dict[str, str], top: int = 8) -> tuple[float, list[str]]:
    """(total import time in ms, the top-level packages whose modules take longest to import).

    Each package's figure is the sum of its modules' own ("self") times, so nested imports are
    not counted twice: "pydantic 40 ms" is time spent executing pydantic's modules.
    """
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    packages: dict[str, int] = {}
    total = 0
    for line in proc.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if not line.startswith("import time:") or not parts[0].strip().isdigit():
            continue
        own = int(parts[0])
        root = parts[2].strip().split(".")[0]
        packages[root] = packages.get(root, 0) + own
        total += own
    heaviest = sorted(packages.items(), key=lambda kv: -kv[1])[:top]
    return total / 1000, [f"{name} {us / 1000:.0f} ms" for name, us in heaviest]


def median_of(samples: list[dict[str, Any]], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--with-topic-index",
        action="store_true",
        help="what-if: add an index on paper_topics(paper_rowid) to the copied library first",
    )
    parser.add_argument("--child", choices=["digest", "baseline", "steps"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "digest":
        child_digest(args.out)
        return 0
    if args.child == "baseline":
        child_baseline(args.out)
        return 0
    if args.child == "steps":
        child_steps(args.out)
        return 0

    from _common import table, write_result
    from synthetic import DEFAULT_SEED, build_library

    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        home = build_library(Path(tmp), args.papers, DEFAULT_SEED)
        if args.with_topic_index:
            add_topic_index(home)
        env = {**os.environ, "DIGEST_TUI_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "0"}
        # One unmeasured run of each warms the OS file cache and writes .pyc files.
        run_child("baseline", env)
        run_child("digest", env)
        digest, baseline = [], []
        for _ in range(args.runs):  # interleaved, so drift on the machine hits both alike
            baseline.append(run_child("baseline", env))
            digest.append(run_child("digest", env))
        steps = run_steps(env)
        bin_dir = Path(sys.executable).parent
        help_cmd = [str(bin_dir / "digest-tui"), "--help"]
        py = sys.executable
        floors = {
            "python -c pass": wall([py, "-c", "pass"], args.runs * 2, env),
            "import digest_tui.cli": wall([py, "-c", "import digest_tui.cli"], args.runs * 2, env),
            "digest-tui --help": wall(help_cmd, args.runs * 2, env),
            "import digest_tui.tui.app": wall(
                [py, "-c", "import digest_tui.tui.app"], args.runs * 2, env
            ),
        }
        help_code = (
            "import sys; sys.argv = ['digest-tui', '--help']\n"
            "from digest_tui.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass"
        )
        help_total, help_top = importtime_top(help_code, env)
        tui_total, tui_top = importtime_top("import digest_tui.tui.app", env)

    rows = []
    for name, samples in (
        ("empty Textual app", baseline),
        (f"digest-tui, {args.papers} papers", digest),
    ):
        rows.append(
            [
                name,
                f"{median_of(samples, 'interpreter_s') * 1000:.0f}",
                f"{median_of(samples, 'imports_s') * 1000:.0f}",
                f"{median_of(samples, 'first_frame_s') * 1000:.0f}",
                f"{median_of(samples, 'rows_painted_s') * 1000:.0f}",
                f"{max(s['rows_painted_s'] for s in samples) * 1000:.0f}",
                f"{median_of(samples, 'cpu_s') * 1000:.0f}",
                f"{median_of(samples, 'rss_mb'):.0f}",
            ]
        )
    ratio = median_of(digest, "rows_painted_s") / median_of(baseline, "rows_painted_s")
    print(f"\nmedian of {args.runs} fresh processes each, ms since spawn (RSS in MB)\n")
    columns = ["app", "interp", "imports", "1st frame", "list painted", "max", "CPU", "RSS"]
    print(table(rows, columns))
    cpu_ratio = median_of(digest, "cpu_s") / median_of(baseline, "cpu_s")
    print(f"\nratio digest-tui / empty app (list painted): {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU")
    heavy = sorted({name for s in digest for name in s["heavy_loaded"]})
    print(f"loaded by the painted list (of {', '.join(HEAVY_MODULES)}): {heavy or 'none'}")
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    rows_in_worker = statistics.median(s["first_rows_seconds"] for s in digest)
    print(
        f"DigestApp.first_rows_seconds (App __init__ -> rows set): {rows_in_worker * 1000:.0f} ms"
    )
    print("\nthe launch's timeline, median ms since spawn (wall / process CPU):")
    for app_name, samples in (("empty app", baseline), ("digest-tui", digest)):
        stages = [stage for stage, _, _ in samples[0]["timeline"]]
        for stage in stages:
            at = [t[1] for s in samples for t in s["timeline"] if t[0] == stage]
            cpu = [t[2] for s in samples for t in s["timeline"] if t[0] == stage]
            wall_ms, cpu_ms = statistics.median(at), statistics.median(cpu)
            print(f"  {app_name:<10} {stage:<34} {wall_ms:6.0f} {cpu_ms:6.0f}")
    print("\nthe start-up worker's steps, timed alone in a fresh process (ms):")
    for name, value in steps.items():
        shown = f"{value * 1000:6.0f}" if isinstance(value, float) else f"{value:6}"
        print(f"  {name:<50} {shown}")
    print("\nmedian wall time of fresh processes:")
    for name, seconds in floors.items():
        print(f"  {name:<28} {seconds * 1000:6.0f} ms")
    print(
        f"\n-X importtime, `digest-tui --help`: {help_total:.0f} ms; heaviest: "
        + ", ".join(help_top)
    )
    print(
        f"-X importtime, `import digest_tui.tui.app`: {tui_total:.0f} ms; heaviest: "
        + ", ".join(tui_top)
    )
    path = write_result(
        f"startup-{args.papers}" + ("-topic-index" if args.with_topic_index else ""),
        {
            "papers": args.papers,
            "runs": args.runs,
            "with_topic_index": args.with_topic_index,
            "digest": digest,
            "baseline": baseline,
            "ratio_list_painted": round(ratio, 2),
            "ratio_cpu": round(cpu_ratio, 2),
            "load_average": os.getloadavg(),
            "wall_s": floors,
            "worker_steps_s": steps,
            "importtime_help": {"total_ms": help_total, "top": help_top},
            "importtime_tui": {"total_ms": tui_total, "top": tui_top},
        },
    )
    print(f"\nwritten {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
