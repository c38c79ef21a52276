"""Enrichment of many papers in worker processes, while the caller stores earlier ones.

Enrichment is a pure function of a paper's text and of the data files (pipeline.py), and most
of an import's time: spread over processes it uses the other cores, and the caller (the single
SQLite writer) stores one batch while the workers enrich the next. The results go back to the
caller's `Enricher` (`prepare`), keyed by every field enrichment reads, so a paper whose fields
were changed before storing (capped, given an arXiv id by the catalog) is simply enriched
again in the caller: the stored result is the same either way.

Workers are started with "fork" when the process has a single thread (cheap: modules already
imported), else with "spawn" (forking a threaded process can deadlock).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from digest_tui.enrich.pipeline import COMPONENTS, Enricher, encode_columns, enrichment_key
from digest_tui.models import Paper, Repo

# Below this many papers in an import the start of the workers costs more than they save.
MIN_PAPERS = 1500
_CHUNK = 100  # papers per task sent to a worker

_worker: Enricher | None = None

# One paper to enrich in part (`Enricher.compute_parts`): the paper, its extra repos, the
# components to run and its stored topics.
PartsTask = tuple[Paper, list[Repo], frozenset[str], list[str]]


def _start_worker(config_dir: Path | None, fallback_taxonomy: bool = False) -> None:
    global _worker
    _worker = Enricher(config_dir, fallback_taxonomy=fallback_taxonomy)
    _worker.load()


def _enrich_chunk(papers: list[Paper]) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Each paper's enrichment, as the encoded columns the caller stores (`encode_columns`)."""
    assert _worker is not None
    every = frozenset(COMPONENTS)
    return [
        (enrichment_key(paper), encode_columns(_worker.compute_parts(paper, None, every)))
        for paper in papers
    ]


def _compute_parts_chunk(tasks: list[PartsTask]) -> list[dict[str, Any]]:
    assert _worker is not None
    return [encode_columns(_worker.compute_parts(*task)) for task in tasks]


@contextmanager
def _real_stderr() -> Iterator[None]:
    """A real file as `sys.stderr` while processes start. multiprocessing hands
    `sys.stderr.fileno()` to its resource tracker; inside the app, Textual captures stderr with
    an object whose fileno() is -1, and starting the workers failed ("bad value(s) in
    fds_to_keep"), so re-enriching a large library in the app never ran. The null device:
    nothing the tracker says may land on the app's screen."""
    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable:
        yield
        return
    saved = sys.stderr
    with open(os.devnull, "w", encoding="utf-8") as null:
        sys.stderr = null
        try:
            yield
        finally:
            sys.stderr = saved


def default_workers() -> int:
    """Worker processes for a large import: one per core (the caller stores meanwhile)."""
    return os.cpu_count() or 1


class EnrichPool:
    """`submit(papers)` starts enriching them in the workers; `collect(handle)` waits and
    hands the results to the enricher. Use as a context manager (the workers stop at exit)."""

    def __init__(self, enricher: Enricher, workers: int) -> None:
        self.enricher = enricher
        self.workers = workers
        # Started on the first papers to enrich: re-importing known files needs none.
        self._executor: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._executor is None:
            method = "fork" if threading.active_count() == 1 else "spawn"
            with _real_stderr():
                self._executor = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=multiprocessing.get_context(method),
                    initializer=_start_worker,
                    initargs=(self.enricher.config_dir, self.enricher.fallback_taxonomy),
                )
        return self._executor

    def _submit(self, work: Callable[[list[Any]], list[Any]], items: Sequence[Any]) -> list[Future]:
        """`work` started in the workers on each chunk of `items`, in order."""
        if not items:
            return []
        executor = self._started()
        with _real_stderr():  # submit starts the worker processes the pool still lacks
            return [
                executor.submit(work, list(items[i : i + _CHUNK]))
                for i in range(0, len(items), _CHUNK)
            ]

    def submit(self, papers: Sequence[Paper]) -> list[Future]:
        return self._submit(_enrich_chunk, papers)

    def collect(self, handle: list[Future]) -> None:
        for future in handle:
            self.enricher.prepare(future.result())

    def submit_parts(self, tasks: Sequence[PartsTask]) -> list[Future]:
        """Start `compute_parts` on each task in the workers (re-enrichment of stored papers:
        only their stale components); `gather` returns the results, encoded as columns
        (`encode_columns`), in the tasks' order."""
        return self._submit(_compute_parts_chunk, tasks)

    @staticmethod
    def gather(handle: list[Future]) -> list[dict[str, Any]]:
        return [fields for future in handle for fields in future.result()]

    def __enter__(self) -> EnrichPool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self.enricher.discard_prepared()
