"""Getting pages of the arXiv API politely: one request at a time, spaced, cached, offline.

arXiv's terms of use ask for no more than one request every three seconds, one connection
at a time. So every request of a client waits its turn behind a `RateLimiter`: the next one
starts at least `interval` seconds after the previous one ended (retries included: their
backoff starts at the interval). The interval is 3 s; `$ARXIV_REQUEST_INTERVAL` (seconds)
changes it, which is how tests run against a loopback server without waiting.

Everything else follows the Hugging Face client's rules through `digest_tui.net`: retries of
429/5xx with backoff and `Retry-After`, a total deadline per page, a capped body; answers
cached by URL with their ETag and revalidated once older than the caller's TTL; a cached copy
of any age answers when the network fails; a host that cannot be reached is not asked again in
the run. The host is `$ARXIV_API_ENDPOINT` when set (a mirror, or a test server).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from digest_tui.errors import (
    ArxivApiError,
    DeadlineExceeded,
    FeedFormatError,
    FetchCancelled,
    FetchError,
    HostUnreachable,
    NetworkError,
    RequestCancelled,
    Unreachable,
)
from digest_tui.net.retry import RetryPolicy
from digest_tui.net.session import HttpSession, Limits
from digest_tui.net.urls import http_url_problem
from digest_tui.sources.arxiv_atom import MAX_FEED_BYTES, FeedPage, parse_feed
from digest_tui.sources.cached_get import CachePolicy, Counter, PageOrigin
from digest_tui.sources.hf_cache import ResponseCache
from digest_tui.textsafe import one_line

if TYPE_CHECKING:  # annotations only: httpx loads with the first session (net/session.py)
    import httpx

DEFAULT_ENDPOINT = "https://export.arxiv.org"
ENDPOINT_ENV = "ARXIV_API_ENDPOINT"
INTERVAL_ENV = "ARXIV_REQUEST_INTERVAL"
API_PATH = "/api/query"
REQUEST_INTERVAL = 3.0  # seconds between requests, as arXiv's terms of use ask
DEADLINE = 90.0  # seconds for one page, retries and their waits included: arXiv is slow
CACHE_SUBDIR = "arxiv_api"


def resolve_endpoint(base_url: str | None = None) -> str:
    """The API host: `base_url`, else $ARXIV_API_ENDPOINT, else export.arxiv.org."""
    value = (base_url or os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).strip().rstrip("/")
    if http_url_problem(value) is not None:
        source = "base URL" if base_url else ENDPOINT_ENV
        raise ValueError(
            f"{source}: expected an http(s) URL such as {DEFAULT_ENDPOINT}, got {value!r}"
        )
    return value


def resolve_interval(interval: float | None = None) -> float:
    """Seconds between requests: `interval`, else $ARXIV_REQUEST_INTERVAL, else 3."""
    if interval is not None:
        return max(0.0, interval)
    raw = os.environ.get(INTERVAL_ENV)
    if raw is None or not raw.strip():
        return REQUEST_INTERVAL
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:  # nan fails this too
        raise ValueError(f"{INTERVAL_ENV}: expected seconds between 0 and 3600, got {raw!r}")
    return value


class RateLimiter:
    """At most one request at a time, each starting `interval` s after the previous ended."""

    def __init__(self, interval: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._next = 0.0  # clock value before which no request may start

    @contextlib.contextmanager
    def turn(self, cancel: threading.Event) -> Iterator[None]:
        """Hold the only turn; waits out the interval first (ends early on `cancel`)."""
        with self._lock:
            wait = self._next - self._clock()
            if wait > 0 and cancel.wait(wait):
                raise RequestCancelled("cancelled while waiting for arXiv's request interval")
            try:
                yield
            finally:
                self._next = self._clock() + self.interval


class ArxivCache(ResponseCache):
    """The response cache, in a directory of its own (`<cache dir>/arxiv_api/`)."""

    def __init__(self, cache_dir: Path) -> None:
        self.directory = cache_dir / CACHE_SUBDIR


@dataclass(frozen=True)
class Page:
    url: str
    feed: FeedPage
    origin: PageOrigin
    fetched_at: float
    note: str = ""  # why a fallback copy was used


@dataclass
class ClientStats:
    requests: int = 0
    downloaded: int = 0
    not_modified: int = 0
    cached: int = 0
    fallback: int = 0
    bytes: int = 0


class ArxivClient:
    """Fetches pages of `/api/query`, one request at a time."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        cache: ResponseCache | None = None,
        offline: bool = False,
        interval: float | None = None,
        transport: httpx.BaseTransport | None = None,
        cancel: threading.Event | None = None,
        now: Callable[[], float] = time.time,
        max_attempts: int = 5,
        deadline: float | None = None,
        max_body: int = MAX_FEED_BYTES,
    ) -> None:
        self.base_url = resolve_endpoint(base_url)
        self.interval = resolve_interval(interval)
        self.cache = cache
        self.offline = offline
        self.cancel = cancel or threading.Event()
        self.limiter = RateLimiter(self.interval)
        self.stats = ClientStats()
        self.unreachable: str | None = None
        self._policy = CachePolicy[FeedPage](
            cache=cache,
            read_cached=_read_cached_feed,
            decode=lambda body, label, headers: parse_feed(body, label),  # FeedFormatError
            cache_text=lambda body: body.decode("utf-8"),
            count=self._count,
            now=now,
        )
        self._session: HttpSession | None = None
        if not offline:
            self._session = HttpSession(
                limits=Limits(
                    connect=5.0,
                    read=30.0,
                    deadline=DEADLINE if deadline is None else deadline,
                    max_body=max_body,
                ),
                # The first backoff is in [interval, 2 * interval]: a retry keeps the spacing.
                retry=RetryPolicy(
                    max_attempts=max(1, max_attempts),
                    backoff_base=2 * self.interval,
                    backoff_cap=max(30.0, 2 * self.interval),
                ),
                headers={"Accept": "application/atom+xml"},
                transport=transport,
                cancel=self.cancel,
                now=now,
            )

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def __enter__(self) -> ArxivClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, params: Mapping[str, str | int]) -> str:
        # Parameter order is fixed by the caller so equal queries share a cache entry.
        return f"{self.base_url}{API_PATH}?{urlencode(list(params.items()))}"

    def get_page(self, url: str, *, ttl: float, refresh: bool = False, what: str = "") -> Page:
        """The feed page at `url`: from the cache when fresh, else the network (see module)."""
        label = f"GET {url}" + (f" ({what})" if what else "")
        if self.cancel.is_set():
            raise FetchCancelled(f"{label}: cancelled")
        answer = self._policy.get(
            url,
            label,
            ttl=ttl,
            refresh=refresh,
            offline=self.offline,
            unreachable=self.unreachable,
            send=lambda headers: self._send(url, label, headers),
        )
        return Page(url, answer.body, answer.origin, answer.fetched_at, answer.note)

    def _count(self, name: Counter) -> None:
        setattr(self.stats, name, getattr(self.stats, name) + 1)

    def _send(
        self, url: str, label: str, headers: dict[str, str]
    ) -> tuple[int, httpx.Headers, bytes]:
        assert self._session is not None
        try:
            with self.limiter.turn(self.cancel):
                reply = self._session.request("GET", url, label=label, headers=headers)
        except RequestCancelled as exc:
            raise FetchCancelled(str(exc)) from None
        except (HostUnreachable, DeadlineExceeded) as exc:
            self.unreachable = self.unreachable or str(exc)
            raise Unreachable(str(exc)) from None
        except NetworkError as exc:
            raise FetchError(str(exc)) from None
        finally:
            self.stats.requests = self._session.requests
        if reply.status in (200, 304):
            self.stats.bytes += len(reply.body)
            return reply.status, reply.headers, reply.body
        if reply.status == 400:
            # A malformed query is answered 400 with an error entry saying what was wrong:
            # parse_feed raises ArxivApiError quoting it; any other body is quoted below.
            try:
                parse_feed(reply.body, label)
            except ArxivApiError:
                raise
            except FeedFormatError:
                pass
        # arXiv throttles with a plain-text "Rate exceeded."; quoted printable, never raw.
        snippet = one_line(reply.body[:400].decode("utf-8", "replace"), 160)
        detail = f": {snippet}" if snippet else ""
        raise FetchError(f"{label}: HTTP {reply.status} {reply.reason}{detail}".rstrip())


def _read_cached_feed(text: str, label: str) -> FeedPage | None:
    try:
        return parse_feed(text.encode("utf-8"), label)
    except FeedFormatError:
        return None  # only parsed answers are stored; a damaged file is no copy at all
