"""arXiv listings into the library: one digest per category and day (docs/fetch.md).

For each category, one query covers the whole date window (`cat:cs.DC AND
submittedDate:[… TO …]`, newest first), read page by page (100 entries a page) until the
answer ends or its entries are older than the window, so a server that ignores the date
filter still ends the paging. Each paper goes into the digest `arxiv-CATEGORY-YYYY-MM-DD` of
the UTC day of its first submission (`published`); its id is the arXiv id without version, so
a paper also on the Daily Papers list is one paper in both digests. A keyword pre-filter
(config `arxiv.keep_if_any`) keeps only papers whose title or abstract has one of its words.

A category whose pages could not all be had is not imported at all (a window missing a page
would look complete); the others still are. Requests run one at a time (arxiv_client).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from digest_tui.config import check_arxiv_category
from digest_tui.errors import FetchCancelled, FetchError, Unreachable
from digest_tui.models import Digest, ImportWarning, Paper, ParsedDigest
from digest_tui.sources.arxiv_atom import ArxivEntry
from digest_tui.sources.arxiv_client import ArxivCache, ArxivClient, Page
from digest_tui.sources.hf_api import Period, parse_date
from digest_tui.sources.hf_fetch import cache_ttl, utc_today

if TYPE_CHECKING:
    from digest_tui.store.library import Library

SOURCE = "arxiv"
PAGE_SIZE = 100  # arXiv's examples page by 100; far below its 2,000 cap per request
MAX_PAGES = 100  # 10,000 entries per category and window; a year of cs.LG is more: warned
MAX_DAYS = 366
DEFAULT_DAYS = 3  # arXiv lists a paper a day or more after submission: today alone is empty


def digest_id(category: str, day: dt.date) -> str:
    return f"{SOURCE}-{category}-{day.isoformat()}"


# ---- what to fetch ----------------------------------------------------------------------


@dataclass(frozen=True)
class KeywordFilter:
    """Keep a paper when its title or abstract has one of `words` at the start of a word
    (any case); applies to `categories` only, or to every category when that is empty."""

    words: tuple[str, ...]
    categories: tuple[str, ...] = ()

    def applies_to(self, category: str) -> bool:
        return bool(self.words) and (not self.categories or category in self.categories)

    def keeps(self, entry: ArxivEntry) -> bool:
        return self._pattern.search(f"{entry.title}\n{entry.abstract}") is not None

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        # Spaces in a phrase match any run of whitespace: abstracts come hard-wrapped.
        alternatives = "|".join(r"\s+".join(map(re.escape, w.split())) for w in self.words)
        return re.compile(rf"(?<!\w)(?:{alternatives})", re.IGNORECASE)


@dataclass(frozen=True)
class ArxivSpec:
    categories: tuple[str, ...]
    start: dt.date
    end: dt.date
    refresh: bool = False
    keep: KeywordFilter | None = None
    page_size: int = PAGE_SIZE
    max_pages: int = MAX_PAGES

    @classmethod
    def build(
        cls,
        categories: str | Sequence[str],
        *,
        date: str | None = None,
        since: str | None = None,
        refresh: bool = False,
        keep: KeywordFilter | None = None,
        today: dt.date | None = None,
    ) -> ArxivSpec:
        """From CLI-style options; ValueError naming the option and the problem."""
        today = today or utc_today()
        names = categories.split(",") if isinstance(categories, str) else list(categories)
        try:
            picked = tuple(dict.fromkeys(check_arxiv_category(n) for n in names if n.strip()))
        except ValueError as exc:
            raise ValueError(f"--arxiv: {exc}") from None
        if not picked:
            raise ValueError("--arxiv: expected categories such as cs.DC,cs.AR")
        if date is not None and since is not None:
            raise ValueError("give at most one of --date, --since")
        if date is not None:
            try:
                start = end = parse_date(date)
            except ValueError as exc:
                raise ValueError(f"--date: {exc}") from None
        elif since is not None:
            try:
                start = parse_date(since)
            except ValueError as exc:
                raise ValueError(f"--since: {exc}") from None
            end = today
            if start > today:
                raise ValueError(f"--since: {since} is after today ({today})")
            if (end - start).days + 1 > MAX_DAYS:
                raise ValueError(f"--since: more than {MAX_DAYS} days")
        else:
            start, end = today - dt.timedelta(days=DEFAULT_DAYS - 1), today
        if start > today + dt.timedelta(days=1):
            raise ValueError(f"--date: {start} is in the future (today is {today})")
        return cls(picked, start, end, refresh, keep)

    def describe(self) -> str:
        days = self.start.isoformat()
        return days if self.start == self.end else f"{days}..{self.end.isoformat()}"

    def query(self, category: str, page: int) -> dict[str, str | int]:
        """The API's parameters; submittedDate is in GMT, minutes inclusive."""
        window = f"[{self.start:%Y%m%d}0000 TO {self.end:%Y%m%d}2359]"
        return {
            "search_query": f"cat:{category} AND submittedDate:{window}",
            "sortBy": "submittedDate",
            "sortOrder": "descending",
            "start": page * self.page_size,
            "max_results": self.page_size,
        }


# ---- what a fetch did ---------------------------------------------------------------------


@dataclass
class ArxivReport:
    categories: int = 0
    fetched: int = 0  # categories whose whole window was read (network or cache)
    from_cache: int = 0
    digests: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)  # categories with no paper in the window
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    kept: int = 0  # papers the keyword filter kept (only counted where it applies)
    dropped: int = 0
    skipped: int = 0  # entries left out: unusable, or outside the window
    warnings: list[ImportWarning] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)
    requests: int = 0
    downloaded: int = 0
    not_modified: int = 0
    bytes: int = 0

    @property
    def ok(self) -> bool:
        return self.fetched > 0

    def summary(self) -> str:
        unit = "category" if self.categories == 1 else "categories"
        head = f"arXiv: fetched {self.fetched}/{self.categories} {unit}"
        detail = []
        if self.from_cache:
            detail.append(f"{self.from_cache} from cache")
        if self.empty:
            detail.append(f"{len(self.empty)} empty")
        if detail:
            head += f" ({', '.join(detail)})"
        papers = self.new + self.updated + self.unchanged
        parts = [
            head,
            f"{papers} paper{_s(papers)}: {self.new} new, {self.updated} updated, "
            f"{self.unchanged} unchanged",
        ]
        if self.kept or self.dropped:
            parts.append(f"keyword filter kept {self.kept}, dropped {self.dropped}")
        if self.skipped:
            parts.append(f"{self.skipped} entr{'y' if self.skipped == 1 else 'ies'} skipped")
        if self.errors:
            parts.append(f"{len(self.errors)} failed")
        parts.append(
            f"{self.requests} request{_s(self.requests)}, {self.not_modified} not modified, "
            f"{self.bytes / 1024:.1f} kB downloaded"
        )
        return "; ".join(parts)


def _s(count: int) -> str:
    return "" if count == 1 else "s"


# ---- fetching -----------------------------------------------------------------------------


@dataclass
class _Window:
    """Every usable entry of one category's window, or why it could not be read."""

    pages: list[Page] = field(default_factory=list)
    entries: list[tuple[ArxivEntry, str]] = field(default_factory=list)  # (entry, page URL)
    outside: int = 0
    error: str | None = None
    unreached: bool = False


def _read_window(
    client: ArxivClient, spec: ArxivSpec, category: str, today: dt.date, report: ArxivReport
) -> _Window:
    window = _Window()
    ttl = cache_ttl(Period.day(spec.end), today)
    seen: set[str] = set()
    for number in range(spec.max_pages):
        url = client.url(spec.query(category, number))
        try:
            page = client.get_page(url, ttl=ttl, refresh=spec.refresh, what=f"page {number}")
        except FetchError as exc:
            window.error = str(exc)
            window.unreached = isinstance(exc, Unreachable)
            if isinstance(exc, FetchCancelled):
                raise
            return window
        window.pages.append(page)
        if page.note:
            report.warnings.append(ImportWarning(origin=url, message=page.note))
        report.warnings.extend(page.feed.warnings)
        report.skipped += page.feed.count - len(page.feed.entries)
        passed = False
        for entry in page.feed.entries:
            day = entry.published.date()
            if day < spec.start:
                passed = True  # newest first: everything after this is older still
                window.outside += 1
            elif day > spec.end:
                window.outside += 1
            elif entry.arxiv_id not in seen:
                seen.add(entry.arxiv_id)
                window.entries.append((entry, url))
        first = page.feed.start if page.feed.start is not None else number * spec.page_size
        total = page.feed.total
        if passed or page.feed.count < spec.page_size:
            break
        if total is not None and first + page.feed.count >= total:
            break
    else:
        report.warnings.append(
            ImportWarning(
                origin=client.url(spec.query(category, 0)),
                message=f"stopped after {spec.max_pages} pages; {category} "
                f"{spec.describe()} may be incomplete (fetch a shorter window)",
            )
        )
    return window


def entry_paper(entry: ArxivEntry, origin: str) -> Paper:
    return Paper(
        id=entry.arxiv_id,
        title=entry.title,
        abstract=entry.abstract,
        published=entry.published.date(),
        authors=list(entry.authors),
        authors_count=len(entry.authors) or None,
        arxiv_id=entry.arxiv_id,
        categories=list(entry.categories),
        source=SOURCE,
        source_ref=f"{origin}#{entry.index}",
    )


def build_digests(
    category: str, entries: Iterable[tuple[ArxivEntry, str]]
) -> list[tuple[ParsedDigest, str]]:
    """One digest per UTC day of first submission, papers in the API's order (newest first)."""
    by_day: dict[dt.date, list[tuple[ArxivEntry, str]]] = {}
    for entry, url in entries:
        by_day.setdefault(entry.published.date(), []).append((entry, url))
    built = []
    for day in sorted(by_day):
        papers = [entry_paper(entry, url) for entry, url in by_day[day]]
        digest = Digest(
            id=digest_id(category, day),
            source=SOURCE,
            date=day,
            title=f"arXiv {category} {day.isoformat()}",
            paper_ids=[p.id for p in papers],
            origin=by_day[day][0][1],
        )
        payload = json.dumps(
            [category, day.isoformat(), [p.model_dump(exclude={"source_ref"}) for p in papers]],
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        content = hashlib.sha256(payload.encode("utf-8")).hexdigest()
        built.append((ParsedDigest(digest=digest, papers=papers), content))
    return built


def fetch_arxiv(
    spec: ArxivSpec,
    *,
    library: Library,
    cache_dir: Path,
    base_url: str | None = None,
    offline: bool = False,
    interval: float | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    transport: httpx.BaseTransport | None = None,
    cancel: threading.Event | None = None,
    now: Callable[[], float] = time.time,
    deadline: float | None = None,
) -> ArxivReport:
    """Fetch every category of `spec` and import it; problems are in the report.

    Blocks (call it from a worker thread in the app). A malformed $ARXIV_API_ENDPOINT or
    $ARXIV_REQUEST_INTERVAL raises ValueError; Ctrl-C / `cancel` stops within 0.2 s.
    """
    report = ArxivReport(categories=len(spec.categories))
    today = utc_today(now)
    cancel = cancel or threading.Event()
    total = len(spec.categories)
    with ArxivClient(
        base_url,
        cache=ArxivCache(cache_dir),
        offline=offline,
        interval=interval,
        transport=transport,
        cancel=cancel,
        now=now,
        deadline=deadline,
    ) as client:
        try:
            for done, category in enumerate(spec.categories, 1):
                if progress is not None:
                    progress(done - 1, total, category)
                window = _read_window(client, spec, category, today, report)
                _import_window(library, spec, category, window, report)
        except FetchCancelled:
            report.errors.append("cancelled")
        except BaseException:
            cancel.set()  # Ctrl-C: a request in flight ends within 0.2 s
            raise
        if progress is not None:
            progress(total, total, "")
        stats, unreachable = client.stats, client.unreachable
    report.requests = stats.requests
    report.downloaded = stats.downloaded
    report.not_modified = stats.not_modified
    report.bytes = stats.bytes
    if unreachable and report.unreached:
        names = ", ".join(report.unreached)
        report.errors.insert(0, f"{unreachable}; not fetched: {names}")
    return report


def _import_window(
    library: Library, spec: ArxivSpec, category: str, window: _Window, report: ArxivReport
) -> None:
    if window.unreached:
        report.unreached.append(category)
        return
    if window.error is not None:
        report.errors.append(f"{category}: {window.error}")
        return
    report.fetched += 1
    if all(page.origin in ("cache", "fallback") for page in window.pages):
        report.from_cache += 1
    if window.outside:
        report.skipped += window.outside
    entries = window.entries
    if spec.keep is not None and spec.keep.applies_to(category):
        kept = [(entry, url) for entry, url in entries if spec.keep.keeps(entry)]
        report.kept += len(kept)
        report.dropped += len(entries) - len(kept)
        entries = kept
    built = build_digests(category, entries)
    if not built:
        report.empty.append(category)
        return
    for parsed, content in built:
        result = library.import_parsed(parsed, content)
        report.digests.append(parsed.digest.id)
        report.warnings.extend(result.warnings)
        report.new += result.new
        report.updated += result.updated
        report.unchanged += result.unchanged
