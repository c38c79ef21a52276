"""Opening the library the way both the CLI and the TUI need it.

Keeps the policy in one place: where the database lives, that a first run loads the bundled
sample digests, and that papers enriched with older data are enriched again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from digest_tui.config import AppContext
from digest_tui.data_files import sample_digest_paths
from digest_tui.enrich.pipeline import Enricher
from digest_tui.errors import PageFormatError
from digest_tui.models import ImportWarning
from digest_tui.sources.hf_page import parse_page, read_page_text
from digest_tui.store.db import connect
from digest_tui.store.fits import install_fits
from digest_tui.store.library import ImportReport, Library, content_hash
from digest_tui.store.repro_sql import install_repro_functions

if TYPE_CHECKING:
    from digest_tui.sources.arxiv_fetch import ArxivReport
    from digest_tui.sources.hf_fetch import FetchReport, FetchSpec


def open_library(ctx: AppContext, *, enricher: Enricher | None = None) -> Library:
    conn = connect(ctx.paths.database)
    enricher = enricher or Enricher(ctx.paths.config_dir)
    library = Library(conn, enricher)
    ctx.track(library)  # checkpointed and closed with the context, on every exit path
    # Loaded on the first `fits:` query only: a bad config.yaml must not break other commands.
    install_fits(conn, lambda: ctx.settings.machines, lambda: enricher.hardware_catalog)
    install_repro_functions(  # has:weights, has:runnable, sort reproducible/readiness
        conn, ctx.paths.cache_dir, lambda: ctx.settings.machines, lambda: enricher.hardware_catalog
    )
    return library


def import_files(
    library: Library,
    paths: Iterable[Path],
    *,
    year: int | None = None,
    on_file: Callable[[Path, ImportReport], None] | None = None,
    replace: bool = False,
) -> ImportReport:
    """Import page-text digests; a file that cannot be read is reported and the rest go on.

    Files are read within hf_page.MAX_PAGE_BYTES and only when they are regular files.
    `replace` lets a shorter copy of a digest drop papers and shorten stored text.
    """
    total = ImportReport()
    for path in paths:
        try:
            text = read_page_text(path)
            parsed = parse_page(text, str(path), year=year)
        except PageFormatError as exc:
            report = _failed(path, str(exc))
        except OSError as exc:
            report = _failed(path, f"{path}: {exc.strerror or exc}")
        else:
            report = library.import_parsed(parsed, content_hash(text), replace=replace)
        total.merge(report)
        if on_file is not None:
            on_file(path, report)
    library.checkpoint()  # the imported papers into library.sqlite3 itself, not only its log
    return total


def _failed(path: Path, message: str) -> ImportReport:
    return ImportReport(
        warnings=[ImportWarning(origin=str(path), message=message.removeprefix(f"{path}: "))],
        failed=[str(path)],
    )


def load_sample_if_empty(library: Library) -> ImportReport | None:
    """On a first run with an empty library, load the bundled sample digests.

    Both views call this as they open the library, so it also lets a library made before
    the curated catalog knew a paper's arXiv id catch up (`adopt_catalog_arxiv_ids`: once
    per data change, otherwise one meta read)."""
    if library.count() or library.get_meta("sample_loaded"):
        library.adopt_catalog_arxiv_ids()
        return None
    report = import_files(library, sample_digest_paths())
    library.set_meta("sample_loaded", "1")
    library.adopt_catalog_arxiv_ids()  # nothing to change: records the data it was checked with
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
        return SourcesReport(hf)
    keep = None
    if settings.keep_if_any:
        keep = KeywordFilter(tuple(settings.keep_if_any), tuple(settings.filter_categories))
    arxiv_spec = ArxivSpec.build(settings.categories, keep=keep)
    arxiv = fetch_arxiv(
        arxiv_spec, library=library, cache_dir=cache_dir, progress=progress, cancel=cancel
    )
    return SourcesReport(hf, arxiv)
