"""Fetching Daily Papers from the Hugging Face API into the library.

`fetch_days` is what both `digest-tui fetch` and the TUI's refresh call (the TUI from a worker
thread). Downloads run on a few threads at once; everything that touches the library (and the
`progress` callback) runs on the calling thread, one period at a time in date order, so the
results do not depend on which download finished first.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import httpx

from digest_tui.errors import FetchError, Unreachable
from digest_tui.models import ImportWarning
from digest_tui.sources.hf_api import Period, build_digests, parse_date, parse_items
from digest_tui.sources.hf_cache import ResponseCache
from digest_tui.sources.hf_client import HfClient, Page

if TYPE_CHECKING:
    from digest_tui.store.library import Library

SortOrder = Literal["trending", "publishedAt"]
SORTS: tuple[str, ...] = ("trending", "publishedAt")
PAGE_SIZE = 50  # the API's documented default; asking for more risks a silent server cap
MAX_PAGES = 200  # 10,000 items: more than any month has had; stops a server that ignores `p`
MAX_SINCE_DAYS = 366
MAX_WORKERS = 4

_MINUTE, _HOUR, _DAY = 60.0, 3600.0, 86400.0


def utc_today(now: Callable[[], float] = time.time) -> dt.date:
    """Today in UTC, the zone of the API's timestamps."""
    return dt.datetime.fromtimestamp(now(), dt.UTC).date()


def cache_ttl(period: Period, today: dt.date) -> float:
    """How long a cached answer for `period` is used without asking the server again.

    Today's list grows and its votes move all day; a list a few days old changes little
    (votes trickle in); an old list practically never. `--refresh` ignores the TTL.
    """
    age = (today - period.end).days
    if age <= 0:
        return 10 * _MINUTE
    if age <= 2:
        return 3 * _HOUR
    if age <= 30:
        return _DAY
    return 30 * _DAY


@dataclass(frozen=True)
class FetchSpec:
    """What to fetch: periods (each one API query) and how to ask for them."""

    periods: tuple[Period, ...]
    sort: SortOrder | None = None
    refresh: bool = False  # revalidate every cached answer, whatever its age
    page_size: int = PAGE_SIZE
    max_pages: int = MAX_PAGES

    @classmethod
    def build(
        cls,
        *,
        date: str | None = None,
        week: str | None = None,
        month: str | None = None,
        since: str | None = None,
        sort: SortOrder | None = None,
        refresh: bool = False,
        today: dt.date | None = None,
    ) -> FetchSpec:
        """From CLI-style options (at most one of date/week/month/since; none means today).

        Raises ValueError with a message naming the option and the problem.
        """
        today = today or utc_today()
        given = [
            (n, v)
            for n, v in (("date", date), ("week", week), ("month", month), ("since", since))
            if v is not None
        ]
        if len(given) > 1:
            raise ValueError("give at most one of --date, --week, --month, --since")
        if sort is not None and sort not in SORTS:
            raise ValueError(f"--sort: expected one of {', '.join(SORTS)}, got {sort!r}")
        # Tomorrow is allowed: the API's day may already have begun where the user is.
        latest = today + dt.timedelta(days=1)
        periods: tuple[Period, ...]
        name, value = given[0] if given else ("date", today.isoformat())
        try:
            if name == "date":
                periods = (Period.day(parse_date(value)),)
            elif name == "week":
                periods = (Period.week(value),)
            elif name == "month":
                periods = (Period.month(value),)
            else:
                start = parse_date(value)
                if start > today:
                    raise ValueError(f"{value} is after today ({today})")
                span = (today - start).days + 1
                if span > MAX_SINCE_DAYS:
                    raise ValueError(
                        f"{span} days is more than {MAX_SINCE_DAYS}; use --month for older periods"
                    )
                periods = tuple(Period.day(start + dt.timedelta(days=n)) for n in range(span))
        except ValueError as exc:
            raise ValueError(f"--{name}: {exc}") from None
        if periods[0].start > latest:
            raise ValueError(f"--{name}: {periods[0].label} is in the future (today is {today})")
        return cls(periods=periods, sort=sort, refresh=refresh)

    def describe(self) -> str:
        if len(self.periods) == 1:
            return self.periods[0].label
        return f"{self.periods[0].label}..{self.periods[-1].label}"

    def query(self, period: Period, page: int) -> dict[str, str | int]:
        params: dict[str, str | int] = {period.kind: period.label}
        if self.sort:
            params["sort"] = self.sort
        params["limit"] = self.page_size
        params["p"] = page
        return params


@dataclass
class FetchReport:
    """What a fetch did, for the CLI's summary and the TUI's notification."""

    periods: int = 0  # periods asked for
    unit: str = "day"  # what a period is: day, week or month
    fetched: int = 0  # periods answered (from the network or the cache), empty ones included
    from_cache: int = 0  # ... of which answered entirely from the cache
    digests: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)  # periods with no papers
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0  # items left out (invalid, or not of the requested day)
    warnings: list[ImportWarning] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # periods that could not be fetched
    # Periods not fetched because the host could not be reached (or passed its deadline);
    # `errors` has one line for all of them, leading with the cause.
    unreached: list[str] = field(default_factory=list)
    requests: int = 0
    downloaded: int = 0
    not_modified: int = 0
    bytes: int = 0

    @property
    def ok(self) -> bool:
        """True when at least one period was fetched (from the network or the cache)."""
        return self.fetched > 0

    def summary(self) -> str:
        unit = self.unit if self.periods == 1 else f"{self.unit}s"
        parts = [f"fetched {self.fetched}/{self.periods} {unit}"]
        detail = []
        if self.from_cache:
            detail.append(f"{self.from_cache} from cache")
        if self.empty:
            detail.append(f"{len(self.empty)} empty")
        if detail:
            parts[0] += f" ({', '.join(detail)})"
        papers = self.new + self.updated + self.unchanged
        parts.append(
            f"{papers} paper{_s(papers)}: {self.new} new, {self.updated} updated, "
            f"{self.unchanged} unchanged"
        )
        if self.skipped:
            parts.append(f"{self.skipped} item{_s(self.skipped)} skipped")
        if self.errors:
            parts.append(f"{len(self.errors)} failed")
        parts.append(
            f"{self.requests} request{_s(self.requests)}, {self.not_modified} not modified, "
            f"{_size(self.bytes)} downloaded"
        )
        return "; ".join(parts)


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024**2:
        return f"{count / 1024:.1f} kB"
    return f"{count / 1024**2:.1f} MB"


@dataclass
class _Fetched:
    pages: list[Page]
    warnings: list[ImportWarning]
    error: str | None = None
    unreached: bool = False  # the error is the host being unreachable, not this period


def _fetch_period(client: HfClient, spec: FetchSpec, period: Period, today: dt.date) -> _Fetched:
    """All pages of one query: page after page until a short (or empty) one."""
    pages: list[Page] = []
    warnings: list[ImportWarning] = []
    seen_ids: set[str] = set()
    ttl = cache_ttl(period, today)
    for number in range(spec.max_pages):
        url = client.url(spec.query(period, number))
        try:
            page = client.get_list(url, ttl=ttl, refresh=spec.refresh, what=f"page {number}")
        except FetchError as exc:
            return _Fetched(pages, warnings, str(exc), isinstance(exc, Unreachable))
        pages.append(page)
        if page.note and page.origin == "fallback":
            warnings.append(ImportWarning(origin=url, message=page.note))
        if len(page.items) < spec.page_size:
            break
        ids = {
            str(item["paper"].get("id"))
            for item in page.items
            if isinstance(item, dict) and isinstance(item.get("paper"), dict)
        }
        if ids and ids <= seen_ids:
            # The server ignores `p` (or the list wrapped around): more pages add nothing.
            warnings.append(
                ImportWarning(origin=url, message=f"page {number} repeats earlier pages; stopped")
            )
            break
        seen_ids |= ids
    else:
        warnings.append(
            ImportWarning(
                origin=client.url(spec.query(period, 0)),
                message=f"stopped after {spec.max_pages} pages; the list may be incomplete",
            )
        )
    return _Fetched(pages, warnings)


def fetch_days(
    spec: FetchSpec,
    *,
    library: Library,
    cache_dir: Path,
    base_url: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    offline: bool = False,
    transport: httpx.BaseTransport | None = None,
    cancel: threading.Event | None = None,
    sleep: Callable[[float], None] | None = None,
    now: Callable[[], float] = time.time,
    max_workers: int = MAX_WORKERS,
    deadline: float | None = None,
) -> FetchReport:
    """Fetch every period of `spec` and import it into `library`.

    `progress(done, total, label)` is called on the calling thread after each period.
    Setting `cancel` stops the fetch soon (between requests, and during backoff waits); the
    periods imported so far stay imported and the report says the rest were cancelled.
    Never raises for network or data problems: they are in the report's errors and warnings
    (a bad HF_ENDPOINT raises ValueError; a broken library raises its own errors).
    `deadline` bounds each page (connect, reads, retries and waits; default
    `hf_client.DEADLINE`). `sleep` and `now` are for tests.
    """
    kind = spec.periods[0].kind if spec.periods else "date"
    report = FetchReport(periods=len(spec.periods), unit="day" if kind == "date" else kind)
    today = utc_today(now)
    cache = ResponseCache(cache_dir)
    total = len(spec.periods)
    if progress is not None:
        progress(0, total, "")
    cancel = cancel or threading.Event()
    with HfClient(
        base_url,
        cache=cache,
        offline=offline,
        transport=transport,
        sleep=sleep,
        now=now,
        cancel=cancel,
        deadline=deadline,
    ) as client:
        pool = ThreadPoolExecutor(max_workers=max(1, max_workers), thread_name_prefix="hf-fetch")
        try:
            futures: list[tuple[Period, Future[_Fetched]]] = [
                (period, pool.submit(_fetch_period, client, spec, period, today))
                for period in spec.periods
            ]
            for done, (period, future) in enumerate(futures, 1):
                if cancel.is_set():
                    report.errors.append(f"cancelled before {period.label}")
                    break
                _import_period(library, spec, period, future.result(), report)
                if progress is not None:
                    progress(done, total, period.label)
        except BaseException:
            cancel.set()  # Ctrl-C: queued periods never start, running ones stop at once
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        stats = client.stats
        unreachable = client.unreachable
    report.requests = stats.requests
    report.downloaded = stats.downloaded
    report.not_modified = stats.not_modified
    report.bytes = stats.bytes
    if unreachable and report.unreached:
        # One line, leading with the cause, instead of one error per period.
        unit = report.unit if len(report.unreached) == 1 else f"{report.unit}s"
        span = report.unreached[0]
        if len(report.unreached) > 1:
            span += f"..{report.unreached[-1]}"
        report.errors.insert(
            0, f"{unreachable}; {len(report.unreached)} {unit} not fetched ({span})"
        )
    if unreachable and stats.fallback:
        # One line instead of one per page: the cause is the same for all of them.
        report.warnings = [w for w in report.warnings if not w.message.startswith(unreachable)]
        report.warnings.append(
            ImportWarning(
                origin=client.base_url,
                message=f"{unreachable}; used cached copies for {stats.fallback} page(s)",
            )
        )
    return report


def _import_period(
    library: Library, spec: FetchSpec, period: Period, fetched: _Fetched, report: FetchReport
) -> None:
    report.warnings.extend(fetched.warnings)
    if fetched.unreached:
        report.unreached.append(period.label)
        return
    if fetched.error is not None:
        report.errors.append(f"{period.label}: {fetched.error}")
        return
    report.fetched += 1
    if all(page.origin in ("cache", "fallback") for page in fetched.pages):
        report.from_cache += 1
    entries = []
    for page in fetched.pages:
        page_entries, page_warnings = parse_items(page.items, page.url)
        entries.extend(page_entries)
        report.warnings.extend(page_warnings)
        report.skipped += len(page.items) - len(page_entries)
    origin = fetched.pages[0].url if fetched.pages else ""
    built = build_digests(period, entries, origin, spec.sort)
    report.warnings.extend(built.warnings)
    report.skipped += built.skipped
    if not built.digests:
        report.empty.append(period.label)
        return
    for parsed, content_hash in built.digests:
        result = library.import_parsed(parsed, content_hash)
        report.digests.append(parsed.digest.id)
        report.new += result.new
        report.updated += result.updated
        report.unchanged += result.unchanged
