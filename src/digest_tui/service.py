"""Opening the library the way both the CLI and the TUI need it.

Keeps the policy in one place: where the database lives, that a first run loads the bundled
sample digests, and that papers enriched with older data are enriched again.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from digest_tui.config import AppContext
from digest_tui.data_files import sample_digest_paths
from digest_tui.enrich.pipeline import Enricher
from digest_tui.errors import DigestError, PageFormatError
from digest_tui.store.db import connect, transaction
from digest_tui.store.fit_texts import FitTexts
from digest_tui.store.fit_verdicts import FILE_NAME as VERDICTS_FILE
from digest_tui.store.fit_verdicts import VerdictCache, verdict_context
from digest_tui.store.fits import install_fits
from digest_tui.store.fts_bulk import fts_filled_at_end
from digest_tui.store.library import ImportReport, Library, content_hash
from digest_tui.store.repro_sql import install_repro_functions

if TYPE_CHECKING:  # the page parser and the models (pydantic) load only for an import
    from digest_tui.models import Paper, ParsedDigest
    from digest_tui.sources.arxiv_fetch import ArxivReport
    from digest_tui.sources.hf_fetch import FetchReport, FetchSpec
    from digest_tui.sources.hf_page import StreamedPage

if TYPE_CHECKING:  # the worker pool (multiprocessing) is imported only for a large import
    from concurrent.futures import Future

    from digest_tui.enrich.parallel import EnrichPool


def open_library(
    ctx: AppContext, *, enricher: Enricher | None = None, fallback_taxonomy: bool = False
) -> Library:
    """The library with its enricher. `fallback_taxonomy` (the app): an invalid user
    taxonomy.yaml is set aside for the built-in one and named in `enricher.problems`."""
    conn = connect(ctx.paths.database)
    enricher = enricher or Enricher(ctx.paths.config_dir, fallback_taxonomy=fallback_taxonomy)
    library = Library(conn, enricher)
    ctx.track(library)  # checkpointed and closed with the context, on every exit path
    # Loaded on the first `fits:` query only: a bad config.yaml must not break other commands.
    # Verdicts per fit key are kept across commands (store/fit_verdicts.py), written when the
    # context closes; `hardware_catalog` always gives a catalog or raises, as they require.
    verdicts = VerdictCache(
        ctx.paths.cache_dir / VERDICTS_FILE,
        lambda: verdict_context(ctx.machines, ctx.paths.config_dir),
    )
    ctx.track(verdicts)
    # `machine_fit` texts kept the same way, in the same file (store/fit_texts.py).
    library.fit_texts = FitTexts(
        ctx.paths.cache_dir / VERDICTS_FILE,
        lambda: verdict_context(ctx.machines, ctx.paths.config_dir),
    )
    ctx.track(library.fit_texts)
    install_fits(conn, lambda: ctx.machines, lambda: enricher.hardware_catalog, verdicts)
    install_repro_functions(  # has:weights, has:runnable, sort reproducible/readiness
        conn,
        ctx.paths.cache_dir,
        lambda: ctx.machines,
        lambda: enricher.hardware_catalog,
        verdicts,
    )
    return library


# Files stored per transaction: one commit and one bulk fill of the full-text index per group
# instead of per file (both cost ~80 µs per paper when done per 50-paper file).
GROUP_PAPERS = 1000
# Input this large is enriched in worker processes (enrich/parallel.py); ~2 KB per paper.
PARALLEL_BYTES = 3_000_000


# Groups submitted to the workers ahead of the one being stored. With one ahead (before), the
# workers finished it while the writer stored and then waited for the writer to read and submit
# the next: two keep a group queued behind the one they enrich, so neither side waits on the
# other's turn (at the cost of holding three parsed groups, ~3,000 papers, ~6 MB).
AHEAD = 2


# SQLite's page cache while importing, in KiB (the default is 2 MiB). The inserts touch
# pages all over five list-order indexes and the full-text index: with the default cache they
# are read back and rewritten over and over (~8 us of the importer's CPU per paper). Set for
# the import only and put back after it, so SQLite gives the memory back.
IMPORT_CACHE_KIB = 32 * 1024


@contextmanager
def _import_cache(library: Library) -> Iterator[None]:
    conn = library.conn
    before = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    conn.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {before}")


# A page file larger than this is streamed (hf_page.stream_page): read twice, a chunk of
# papers at a time, never held whole; a real day's page is ~100 kB.
STREAM_BYTES = 16 * 1024 * 1024


@dataclass
class _Input:
    path: Path
    parsed: ParsedDigest | None = None
    text_hash: str = ""
    failure: ImportReport | None = None
    stream: StreamedPage | None = None


def import_files(
    library: Library,
    paths: Iterable[Path],
    *,
    year: int | None = None,
    on_file: Callable[[Path, ImportReport], None] | None = None,
    replace: bool = False,
    workers: int | None = None,
) -> ImportReport:
    """Import page-text digests; a file that cannot be read is reported and the rest go on.

    Files are read within hf_page.MAX_PAGE_BYTES and only when they are regular files.
    `replace` lets a shorter copy of a digest drop papers and shorten stored text.
    Files are stored a group at a time (GROUP_PAPERS papers, one transaction); `workers`
    processes enrich the next group meanwhile (None: one per core when the input is large,
    0: enrich here).
    """
    paths = list(paths)
    total = ImportReport()
    pool = _pool(library, paths, workers)
    with _import_cache(library), pool if pool is not None else nullcontext():
        # Groups read and handed to the workers, not stored yet: with workers, AHEAD of them
        # are in the workers' queue while the writer stores the oldest (see AHEAD).
        pending: deque[tuple[list[_Input], list[Future] | None]] = deque()
        for group in _groups(paths, year):
            papers = [p for item in group if item.parsed is not None for p in item.parsed.papers]
            handle = pool.submit(library.needing_enrichment(papers)) if pool is not None else None
            pending.append((group, handle))
            if len(pending) > (AHEAD if pool is not None else 0):
                _store(library, pool, *pending.popleft(), replace, on_file, total)
        while pending:
            _store(library, pool, *pending.popleft(), replace, on_file, total)
    # The curated catalog's arXiv ids for what was just stored, and the data they were checked
    # with recorded, here while writing: otherwise the first read after an import (`papers`,
    # the app) wrote it, and on a full disk a read command failed.
    library.adopt_catalog_arxiv_ids()
    refresh_similar_after_import(library)
    library.checkpoint()  # the imported papers into library.sqlite3 itself, not only its log
    return total


def refresh_similar_after_import(library: Library) -> None:
    """The similarity index catches up with what was imported, bounded (similar/after_import.py);
    a no-op when no index exists yet."""
    from digest_tui.similar.after_import import refresh_after_import

    refresh_after_import(library.conn)


def _pool(library: Library, paths: list[Path], workers: int | None) -> EnrichPool | None:
    if library.enricher is None or workers == 0:
        return None
    from digest_tui.enrich.parallel import EnrichPool, default_workers

    if workers is None:
        size = 0
        for path in paths:
            with suppress(OSError):
                size += path.stat().st_size
        if size < PARALLEL_BYTES:
            return None
        workers = default_workers()
    if workers < 1:
        return None
    return EnrichPool(library.enricher, workers)


def _groups(paths: list[Path], year: int | None) -> Iterator[list[_Input]]:
    """The files read and parsed, in groups of about GROUP_PAPERS papers."""
    from digest_tui.sources.hf_page import parse_page, read_page_text, stream_page

    group: list[_Input] = []
    count = 0
    for path in paths:
        try:
            if _size(path) > STREAM_BYTES:
                if group:
                    yield group
                    group, count = [], 0
                yield [_Input(path, stream=stream_page(path, year=year))]
                continue
            text = read_page_text(path)
            item = _Input(path, parse_page(text, str(path), year=year), content_hash(text))
        except PageFormatError as exc:
            item = _Input(path, failure=_failed(path, str(exc)))
        except OSError as exc:
            item = _Input(path, failure=_failed(path, f"{path}: {exc.strerror or exc}"))
        group.append(item)
        count += len(item.parsed.papers) if item.parsed is not None else 0
        if count >= GROUP_PAPERS:
            yield group
            group, count = [], 0
    if group:
        yield group


def _store(
    library: Library,
    pool: EnrichPool | None,
    group: list[_Input],
    handle: list[Future] | None,
    replace: bool,
    on_file: Callable[[Path, ImportReport], None] | None,
    total: ImportReport,
) -> None:
    if group[0].stream is not None:  # a streamed page is a group of its own
        report = _store_stream(library, pool, group[0].path, group[0].stream, replace)
        total.merge(report)
        if on_file is not None:
            on_file(group[0].path, report)
        return
    if pool is not None and handle is not None:
        pool.collect(handle)
    reports: list[tuple[Path, ImportReport]] = []
    with transaction(library.conn), fts_filled_at_end(library.conn):
        for item in group:
            if item.parsed is None:
                assert item.failure is not None
                reports.append((item.path, item.failure))
            else:
                report = library.import_parsed(item.parsed, item.text_hash, replace=replace)
                reports.append((item.path, report))
    for path, report in reports:
        total.merge(report)
        if on_file is not None:
            on_file(path, report)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # read_page_text says what is wrong with it


def _store_stream(
    library: Library, pool: EnrichPool | None, path: Path, stream: StreamedPage, replace: bool
) -> ImportReport:
    """A streamed page in one transaction; the workers enrich the next chunk of its papers
    while one is stored."""

    def chunks() -> Iterator[list[Paper]]:
        if pool is None:
            yield from stream.papers()
            return
        pending: deque[tuple[list[Paper], list[Future]]] = deque()
        for chunk in stream.papers():
            pending.append((chunk, pool.submit(library.needing_enrichment(chunk))))
            if len(pending) > AHEAD:
                papers, handle = pending.popleft()
                pool.collect(handle)
                yield papers
        while pending:
            papers, handle = pending.popleft()
            pool.collect(handle)
            yield papers

    try:
        return library.import_chunks(
            stream.digest, chunks(), stream.warnings, stream.content_hash, replace=replace
        )
    except PageFormatError as exc:  # the file changed between the two passes
        return _failed(path, str(exc))


def _failed(path: Path, message: str) -> ImportReport:
    from digest_tui.models import ImportWarning

    return ImportReport(
        warnings=[ImportWarning(origin=str(path), message=message.removeprefix(f"{path}: "))],
        failed=[str(path)],
    )


def load_sample_if_empty(library: Library) -> ImportReport | None:
    """On a first run with an empty library, load the bundled sample digests.

    Both views call this as they open the library, so it also lets a library made before
    the curated catalog knew a paper's arXiv id catch up (`adopt_catalog_arxiv_ids`: once
    per data change, otherwise one meta read)."""
    if library.has_papers() or library.get_meta("sample_loaded"):
        # Best effort on a read: a library that cannot be written now (a full disk, a
        # read-only file) catches up on a later open, as `Library.has_stale`'s shortcut does.
        with suppress(sqlite3.Error, DigestError):
            library.adopt_catalog_arxiv_ids()
        return None
    report = import_files(library, sample_digest_paths())  # records the catalog check too
    library.set_meta("sample_loaded", "1")
    return report


# ---- fetching: the app's refresh ------------------------------------------------------------


class SourcesReport:
    """What the app's refresh fetched: Daily Papers, plus the arXiv categories of config.yaml
    (`arxiv.categories`) when there are any; read like a FetchReport (`ok`, `summary()`,
    `errors`)."""

    def __init__(self, hf: FetchReport, arxiv: ArxivReport | None = None) -> None:
        self.hf = hf
        self.arxiv = arxiv

    @property
    def ok(self) -> bool:
        return self.hf.ok or (self.arxiv is not None and self.arxiv.ok)

    @property
    def errors(self) -> list[str]:
        return self.hf.errors + (self.arxiv.errors if self.arxiv is not None else [])

    def summary(self) -> str:
        if self.arxiv is None:
            return self.hf.summary()
        return f"{self.hf.summary()}\n{self.arxiv.summary()}"


def fetch_sources(
    ctx: AppContext,
    spec: FetchSpec,
    *,
    library: Library,
    progress: Callable[[int, int, str], None] | None = None,
    cancel: threading.Event | None = None,
) -> SourcesReport:
    """Fetch Daily Papers for `spec`, then the configured arXiv categories (their last days,
    one request every 3 s); blocks, so call it from a worker thread."""
    from digest_tui.sources.arxiv_fetch import ArxivSpec, KeywordFilter, fetch_arxiv
    from digest_tui.sources.hf_fetch import fetch_days

    cache_dir = ctx.paths.cache_dir
    hf = fetch_days(spec, library=library, cache_dir=cache_dir, progress=progress, cancel=cancel)
    settings = ctx.settings.arxiv
    if not settings.categories or (cancel is not None and cancel.is_set()):
        if cancel is None or not cancel.is_set():  # quitting does not wait for the index
            refresh_similar_after_import(library)
        return SourcesReport(hf)
    keep = None
    if settings.keep_if_any:
        keep = KeywordFilter(tuple(settings.keep_if_any), tuple(settings.filter_categories))
    arxiv_spec = ArxivSpec.build(settings.categories, keep=keep)
    arxiv = fetch_arxiv(
        arxiv_spec, library=library, cache_dir=cache_dir, progress=progress, cancel=cancel
    )
    if cancel is None or not cancel.is_set():
        refresh_similar_after_import(library)
    return SourcesReport(hf, arxiv)
