"""Keystroke to updated list, in the real app under Textual's Pilot, with 100,000 papers.

    python bench/bench_keystroke.py --papers 100000 [--rounds 3]

The app runs headless (`run_test`) on a DIGEST_TUI_HOME with the synthetic library, its
similarity index built as in a library that has been open a while (`--index-pending`: not yet
built, as after a large import, so the app builds it while the keys are timed). After `/`
opens the search box, queries are typed one character at a time. Per keystroke it measures the
time from `pilot.press(char)` until
- rows: the list has been given the list *for the text typed so far* (its ordered rowids and
  the rows of the first screen, `DigestApp._show_rows`; results of an older query that arrive
  late do not count), and
- painted: the frame showing them has been composed (a `call_after_refresh` callback);
- the CPU time spent meanwhile, by the UI thread alone (`time.thread_time` in the event loop's
  thread: the app's own cost, without the query, which runs in worker threads) and by the
  whole process. On a loaded machine wall time mostly measures the scheduler; CPU does not.
The next key is pressed only once the previous one's rows are painted ("one key at a time").

With `--profile FILE` the one-key-at-a-time phase runs under cProfile on the UI thread alone
(a profiler hooks the thread that enables it: the workers' queries are not in it), the stats are
written to FILE (pstats) and the UI thread's time is printed by part: list, panel, footer, header
and notes, search box, Textual's compositor.

A second measure types each query in one burst and times until the rows for the whole query
are painted: with thread workers, the queries for the intermediate prefixes may still be
running when the last key lands. The burst's keys are handed to the app's driver all at once,
as a terminal delivers fast typing or a paste (`send_burst`): `pilot.press(*keys)` waits for
the app to go idle after every key, which made this a one-key-at-a-time figure (0.8–1.6 s).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _common import current_rss_mb, summary_ms, table, write_result
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import ListWindow, Selection
from digest_tui.tui.widgets.paper_list import PaperList
from synthetic import DEFAULT_SEED, build_library, digest_home

QUERIES = ["flash attention", "expert routing", "kv cache", "pipeline"]
SIZE = (160, 48)
TIMEOUT_S = 60.0


class Recorder:
    """Tags each result list with the search that produced it and notes when it is shown."""

    def __init__(self, app: DigestApp) -> None:
        self.app = app
        self.by_list: dict[int, str] = {}
        self.shown: dict[str, float] = {}
        self.painted: dict[str, float] = {}
        # CPU seconds at paint: the UI thread's own (the app's cost, not the query's, which
        # runs in worker threads) and the whole process's (UI + workers).
        self.painted_cpu: dict[str, tuple[float, float]] = {}
        self.row_counts: dict[str, int] = {}
        self.error: BaseException | None = None
        service_window = app.service.list_window
        show_rows = app._show_rows

        def window(selection: Selection, search: str = "", *rest: Any, **kw: Any) -> ListWindow:
            try:
                result = service_window(selection, search, *rest, **kw)
            except BaseException as exc:  # a worker's error is otherwise silent
                self.error = exc
                raise
            self.by_list[id(result)] = search
            return result

        def shown(listed: ListWindow) -> None:
            show_rows(listed)
            search = self.by_list.pop(id(listed), None)
            if search is None:
                return
            self.shown[search] = time.perf_counter()
            self.row_counts[search] = len(listed.rowids)
            app.call_after_refresh(self._painted, search)

        service_windows = getattr(app.service, "list_windows", None)

        def windows(selection: Selection, search: str = "", *rest: Any, **kw: Any) -> Any:
            # A long list comes in two steps (its first rows, then the whole order): the
            # first one shown is the keystroke's answer on screen.
            assert service_windows is not None
            try:
                for result in service_windows(selection, search, *rest, **kw):
                    self.by_list[id(result)] = search
                    yield result
            except GeneratorExit:
                raise
            except BaseException as exc:
                self.error = exc
                raise

        # Instance attributes shadow the methods: the workers look them up at call time.
        app.service.list_window = window  # type: ignore[method-assign]
        if service_windows is not None:  # the code before it had one step only
            app.service.list_windows = windows  # type: ignore[method-assign]
        app._show_rows = shown  # type: ignore[method-assign]

    def _painted(self, search: str) -> None:
        if search not in self.painted:
            self.painted_cpu[search] = (time.thread_time(), time.process_time())
        self.painted.setdefault(search, time.perf_counter())

    async def wait_whole_list(self) -> None:
        """Until the list holds every paper of the request shown (its second step, if any)."""
        deadline = time.perf_counter() + TIMEOUT_S
        while getattr(self.app, "_first_rows_of", None) is not None:
            if time.perf_counter() > deadline:
                raise TimeoutError("the whole list never followed its first rows")
            await asyncio.sleep(0.0005)

    def forget(self, search: str) -> None:
        self.shown.pop(search, None)
        self.painted.pop(search, None)
        self.painted_cpu.pop(search, None)

    async def wait_painted(self, search: str) -> float:
        deadline = time.perf_counter() + TIMEOUT_S
        while search not in self.painted:
            if self.error is not None:
                raise RuntimeError(f"loading rows for {search!r} failed") from self.error
            if time.perf_counter() > deadline:
                raise TimeoutError(f"rows for {search!r} never painted")
            await asyncio.sleep(0.0005)
        return self.painted[search]


class WorkerCpu:
    """CPU seconds spent in worker threads per LibraryService method (the per-thread split).

    Each public method of the app's service is wrapped (instance attributes shadow the
    methods) so that a call made outside the UI thread adds its `time.thread_time` to that
    method's total; a generator's time counts while it is being iterated. What the process
    spends beyond the UI thread and these methods is Textual's and the workers' own overhead.
    The UI thread's figure over the phase includes the benchmark's own polling between keys.
    """

    def __init__(self, app: DigestApp) -> None:
        self.totals: dict[str, float] = {}
        self.enabled = False
        self._ui = threading.get_ident()
        self._depth = threading.local()
        service = app.service
        for name in dir(type(service)):
            attr = getattr(service, name, None)
            if name.startswith("_") or not callable(attr) or isinstance(attr, type):
                continue
            setattr(service, name, self._wrap(name, attr))

    def _add(self, name: str, seconds: float) -> None:
        if self.enabled and threading.get_ident() != self._ui:
            self.totals[name] = self.totals.get(name, 0.0) + seconds

    def _timed(self, name: str, step: Callable[[], Any]) -> Any:
        """`step()`, its thread's CPU added to `name` unless a wrapped method called it (a
        method's time is counted once, under the outermost one)."""
        if getattr(self._depth, "n", 0):
            return step()
        self._depth.n = 1
        start = time.thread_time()
        try:
            return step()
        finally:
            self._depth.n = 0
            self._add(name, time.thread_time() - start)

    def _wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        import inspect

        if inspect.isgeneratorfunction(method):

            def gen(*args: Any, **kw: Any) -> Iterator[Any]:
                inner = method(*args, **kw)
                done = object()
                try:
                    while True:
                        item = self._timed(name, lambda: next(inner, done))
                        if item is done:
                            return
                        yield item
                finally:
                    inner.close()

            return gen

        def call(*args: Any, **kw: Any) -> Any:
            return self._timed(name, lambda: method(*args, **kw))

        return call


# Where the UI thread's time per key goes: (label, pstats key fragments); a part's figure is
# the largest cumulative time among its functions (they nest: not summed).
PARTS = [
    ("rows shown in the list (set_window)", ["paper_list.py:set_window"]),
    ("list lines drawn (render_lines)", ["paper_list.py:render_lines"]),
    ("panel (show_paper/refresh)", ["paper_panel.py:show_paper", "app.py:on_paper_loaded"]),
    ("footer (Textual Footer recompose)", ["_footer.py:recompose", "_footer.py:compose"]),
    ("footer line (KeysFooter)", ["footer_line.py:"]),
    ("header and notes", ["app.py:_show_list_header"]),
    ("search box (Input)", ["_input.py:_watch_value", "search_box.py:_watch_value"]),
    ("layout passes (Screen._refresh_layout)", ["screen.py:_refresh_layout"]),
    ("compositor frames (Screen._compositor_refresh)", ["screen.py:_compositor_refresh"]),
    ("key dispatch (App._on_key/check_bindings)", ["app.py:check_bindings"]),
]


def ui_parts(stats_path: str, keys: int) -> list[list[Any]]:
    """Per key, the cumulative ms of each part (the largest function matching it)."""
    import pstats

    stats = pstats.Stats(stats_path).stats  # type: ignore[attr-defined]
    rows = []
    for label, needles in PARTS:
        best = 0.0
        for (filename, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.items():
            key = f"{Path(filename).name}:{name}"
            if any(
                needle == key or (needle.endswith(":") and key.startswith(needle))
                for needle in needles
            ):
                best = max(best, ct)
        rows.append([label, round(1000 * best / max(keys, 1), 2)])
    return rows


def send_burst(app: DigestApp, keys: list[str]) -> None:
    """Every key to the app's driver without waiting between them, as a terminal sends fast
    typing (the events `Pilot.press` builds, without its wait for idle after each)."""
    from textual import events  # after the app's package: it sets Textual's frame rate

    driver = app._driver
    assert driver is not None
    for key in keys:
        event = events.Key(key, " " if key == "space" else key)
        event.set_sender(app)
        driver.send_message(event)


async def run(
    papers: int, rounds: int, profile: str | None = None, *, index_pending: bool = False
) -> dict[str, Any]:
    per_key_rows: list[float] = []
    per_key_painted: list[float] = []
    per_key_ui_cpu: list[float] = []
    per_key_cpu: list[float] = []
    per_length: dict[int, list[float]] = {}
    burst: list[float] = []
    clear: list[float] = []
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-keys-") as tmp:
        home = build_library(Path(tmp), papers, DEFAULT_SEED, similar_index=not index_pending)
        with digest_home(home):
            app = DigestApp(AppContext())
            launched = time.perf_counter()
            async with app.run_test(size=SIZE) as pilot:
                while not app.ready:
                    await asyncio.sleep(0.01)
                ready_s = time.perf_counter() - launched
                await app.workers.wait_for_complete()
                await pilot.pause()
                worker_cpu = WorkerCpu(app)  # before the recorder wraps two of them
                recorder = Recorder(app)
                paper_list = app.query_one(PaperList)
                # Timed in the UI thread's CPU seconds: with the default wall clock a loaded
                # machine's waits for a core filled the profile (x100 the CPU per key).
                profiler = cProfile.Profile(time.thread_time) if profile else None
                phase_ui, phase_cpu = time.thread_time(), time.process_time()
                phase_wall = time.perf_counter()
                worker_cpu.enabled = True
                for _ in range(rounds):
                    if profiler is not None:
                        profiler.enable()
                    for query in QUERIES:
                        await pilot.press("slash")
                        for length in range(1, len(query) + 1):
                            typed = query[:length]
                            recorder.forget(typed)
                            started = time.perf_counter()
                            ui_cpu, cpu = time.thread_time(), time.process_time()
                            await pilot.press(typed[-1] if typed[-1] != " " else "space")
                            painted = await recorder.wait_painted(typed)
                            per_key_rows.append(recorder.shown[typed] - started)
                            per_key_painted.append(painted - started)
                            ui_cpu_end, cpu_end = recorder.painted_cpu[typed]
                            per_key_ui_cpu.append(ui_cpu_end - ui_cpu)
                            per_key_cpu.append(cpu_end - cpu)
                            per_length.setdefault(length, []).append(painted - started)
                            # The first step of a long list is its first screen: the whole
                            # list follows (bounded: TIMEOUT_S) before the next key.
                            await recorder.wait_whole_list()
                            counts[typed] = paper_list.count
                        # Escape clears the search: the full list comes back.
                        recorder.forget("")
                        started = time.perf_counter()
                        await pilot.press("escape")
                        clear.append(await recorder.wait_painted("") - started)
                    if profiler is not None:
                        profiler.disable()
                    await app.workers.wait_for_complete()  # the last key's panel work counts
                    worker_cpu.enabled = False
                    phase_ui = time.thread_time() - phase_ui
                    phase_cpu = time.process_time() - phase_cpu
                    phase_wall = time.perf_counter() - phase_wall
                    for query in QUERIES:
                        await pilot.press("slash")
                        recorder.forget(query)
                        keys = ["space" if c == " " else c for c in query]
                        started = time.perf_counter()
                        send_burst(app, keys)
                        burst.append(await recorder.wait_painted(query) - started)
                        await pilot.press("escape")
                        await recorder.wait_painted("")
                        recorder.forget("")
                rss = current_rss_mb()
                if profiler is not None:
                    profiler.dump_stats(profile)
                await app.workers.wait_for_complete()
    keys = len(per_key_cpu) + len(clear)  # typed keys and Escapes
    split = {"UI thread": phase_ui}
    split.update(sorted(worker_cpu.totals.items(), key=lambda item: -item[1]))
    split["rest (workers' overhead, Textual's threads)"] = (
        phase_cpu - phase_ui - sum(worker_cpu.totals.values())
    )
    return {
        "papers": papers,
        "rounds": rounds,
        "similar_index": "built during the run" if index_pending else "built before",
        "app_ready_s": round(ready_s, 2),
        "per_key_rows": summary_ms(per_key_rows),
        "per_key_painted": summary_ms(per_key_painted),
        "per_key_ui_thread_cpu": summary_ms(per_key_ui_cpu),
        "per_key_process_cpu": summary_ms(per_key_cpu),
        "per_length_painted_p50_ms": {
            length: summary_ms(values)["p50_ms"] for length, values in sorted(per_length.items())
        },
        "burst_typed_query_painted": summary_ms(burst),
        "escape_to_full_list_painted": summary_ms(clear),
        "rows_per_prefix": counts,
        "rss_mb": rss,
        # CPU ms per key (typed keys and Escapes, one at a time) by thread / service method.
        "cpu_split_ms_per_key": {
            name: round(1000 * seconds / max(keys, 1), 2) for name, seconds in split.items()
        },
        "cpu_ms_per_key_process": round(1000 * phase_cpu / max(keys, 1), 2),
        "wall_ms_per_key": round(1000 * phase_wall / max(keys, 1), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3, help="times each query is typed")
    parser.add_argument("--profile", help="cProfile the UI thread while typing; stats to this file")
    parser.add_argument(
        "--index-pending",
        action="store_true",
        help="open a library whose similarity index is not built yet, as after a large import:"
        " the app builds it (about a minute of CPU at 100,000 papers) while the keys are timed",
    )
    args = parser.parse_args()
    result = asyncio.run(
        run(args.papers, args.rounds, args.profile, index_pending=args.index_pending)
    )
    rows = []
    for label, key in (
        ("keystroke -> rows set", "per_key_rows"),
        ("keystroke -> rows painted", "per_key_painted"),
        ("  its CPU: UI thread (the app's own)", "per_key_ui_thread_cpu"),
        ("  its CPU: whole process (UI + query)", "per_key_process_cpu"),
        ("whole query typed in a burst -> painted", "burst_typed_query_painted"),
        ("escape (clear) -> full list painted", "escape_to_full_list_painted"),
    ):
        stats = result[key]
        rows.append([label, stats["n"], stats["p50_ms"], stats["p95_ms"], stats["max_ms"]])
    print(
        f"\n{args.papers} papers, similarity index {result['similar_index']}, "
        f"queries {QUERIES}, {args.rounds} rounds (ms)\n"
    )
    print(table(rows, ["measure", "n", "p50", "p95", "max"]))
    print("\np50 keystroke -> painted by length of the text typed:")
    print("  " + ", ".join(f"{k}: {v}" for k, v in result["per_length_painted_p50_ms"].items()))
    print(
        f"\nCPU per key, one key at a time (typed keys and Escapes), process "
        f"{result['cpu_ms_per_key_process']} ms in {result['wall_ms_per_key']} ms of wall time"
        " (the UI thread's figure includes the benchmark's own polling between keys):"
    )
    split = result["cpu_split_ms_per_key"]
    print(table([[name, ms] for name, ms in split.items()], ["thread / worker method", "ms/key"]))
    print(f"RSS with the app running: {result['rss_mb']} MB")
    print(f"app ready (start-up worker done) after {result['app_ready_s']} s")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if args.profile:
        keys = result["per_key_painted"]["n"] + len(QUERIES) * args.rounds  # + the Escapes
        print(f"\nUI thread under cProfile, ms per key (typing and Escape, {keys} keys):")
        print(table(ui_parts(args.profile, keys), ["part", "ms/key"]))
        print("(profiled: CPU figures above include the profiler's overhead)")
    path = write_result(f"keystroke-{args.papers}", result)
    print(f"\nwritten {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
