"""Getting pages of `/api/daily_papers` reliably: retries, a response cache, offline use.

- Retries 429 and 5xx answers, timeouts and dropped connections, a bounded number of times,
  with exponential backoff and jitter; a `Retry-After` (seconds or an HTTP date) is honoured,
  and after a 429 every thread of this client waits, not just the one that was told to.
- A host that cannot be reached at all (refused, no route, DNS) is not retried: the answer will
  not change in a second, and the cache can answer instead. The first such failure switches the
  client to cache-only for the rest of the run, so a long fetch offline fails fast.
- Answers are cached by URL with their ETag. A cached answer younger than the caller's TTL is
  used without a request; an older one is revalidated (If-None-Match; a 304 reuses it). When
  the network or the server fails, a cached copy of any age is used and the page says so.

Sleeping and the clock are injectable so tests of backoff run instantly.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlencode, urlsplit

import httpx

from digest_tui import __version__
from digest_tui.errors import FetchCancelled, FetchError, Unreachable
from digest_tui.sources.hf_cache import CachedResponse, ResponseCache
from digest_tui.textsafe import one_line

DEFAULT_ENDPOINT = "https://huggingface.co"
ENDPOINT_ENV = "HF_ENDPOINT"
API_PATH = "/api/daily_papers"
MAX_BODY_BYTES = 32 * 1024 * 1024  # a page of 50 items is ~100 kB; anything huge is wrong

PageOrigin = Literal["network", "revalidated", "cache", "fallback"]


def resolve_endpoint(base_url: str | None = None) -> str:
    """The API host: `base_url`, else $HF_ENDPOINT (as huggingface_hub), else huggingface.co."""
    value = (base_url or os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).strip().rstrip("/")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        source = "base URL" if base_url else ENDPOINT_ENV
        raise ValueError(
            f"{source}: expected an http(s) URL such as {DEFAULT_ENDPOINT}, got {value!r}"
        )
    return value


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - now, 0.0)


@dataclass(frozen=True)
class Page:
    url: str
    items: list[Any]
    origin: PageOrigin
    fetched_at: float
    note: str = ""  # why a fallback copy was used


@dataclass
class ClientStats:
    requests: int = 0  # HTTP requests sent, retries included
    downloaded: int = 0  # 200 answers
    not_modified: int = 0  # 304 answers
    cached: int = 0  # pages answered from the cache without a request
    fallback: int = 0  # pages answered from the cache because the network failed
    retries: int = 0
    bytes: int = 0


class HfClient:
    """Fetches pages of `/api/daily_papers`; safe to use from several threads at once."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        cache: ResponseCache | None = None,
        offline: bool = False,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
        now: Callable[[], float] = time.time,
        cancel: threading.Event | None = None,
        rng: random.Random | None = None,
        max_attempts: int = 5,
        backoff_base: float = 1.0,
        backoff_cap: float = 30.0,
        max_retry_after: float = 120.0,
        timeout: float = 20.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self.base_url = resolve_endpoint(base_url)
        self.cache = cache
        self.offline = offline
        self.cancel = cancel or threading.Event()
        # By default a wait ends early when the fetch is cancelled; tests inject their own.
        self._sleep = sleep if sleep is not None else self.cancel.wait
        self._now = now
        self._rng = rng or random.Random()
        self.max_attempts = max(1, max_attempts)
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.max_retry_after = max_retry_after
        self.stats = ClientStats()
        self.unreachable: str | None = None  # why the host could not be reached, once it fails
        self._lock = threading.Lock()
        self._pause_until = 0.0
        self._client: httpx.Client | None = None
        if not offline:
            self._client = httpx.Client(
                transport=transport,
                timeout=httpx.Timeout(timeout, connect=connect_timeout),
                follow_redirects=True,
                headers={"User-Agent": f"digest-tui/{__version__}", "Accept": "application/json"},
            )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def __enter__(self) -> HfClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, params: Mapping[str, str | int]) -> str:
        # The order of parameters is fixed by the caller so equal queries share a cache entry.
        return f"{self.base_url}{API_PATH}?{urlencode(list(params.items()))}"

    # ---- one page -----------------------------------------------------------------------

    def get_list(self, url: str, *, ttl: float, refresh: bool = False, what: str = "") -> Page:
        """The JSON list at `url`, from the cache when fresh enough, else from the network.

        `what` names the page in errors ("page 2"). Raises FetchError when neither the
        network nor the cache can answer.
        """
        label = f"GET {url}" + (f" ({what})" if what else "")
        if self.cancel.is_set():
            raise FetchCancelled(f"{label}: cancelled")
        cached = self._cached(url)
        if self.offline or self.unreachable:
            if cached is not None:
                self._count("cached" if self.offline else "fallback")
                note = "" if self.offline else f"{self.unreachable}; used the cached copy"
                return Page(
                    url,
                    cached[1],
                    "cache" if self.offline else "fallback",
                    cached[0].fetched_at,
                    note,
                )
            reason = "offline" if self.offline else self.unreachable
            raise FetchError(f"{label}: {reason}, and no cached copy")
        if cached is not None and not refresh and self._now() - cached[0].fetched_at < ttl:
            self._count("cached")
            return Page(url, cached[1], "cache", cached[0].fetched_at)
        try:
            return self._download(url, label, cached)
        except FetchError as exc:
            if cached is None or isinstance(exc, FetchCancelled):
                raise
            self._count("fallback")
            return Page(
                url, cached[1], "fallback", cached[0].fetched_at, f"{exc}; used the cached copy"
            )

    def _cached(self, url: str) -> tuple[CachedResponse, list[Any]] | None:
        if self.cache is None:
            return None
        entry = self.cache.get(url)
        if entry is None:
            return None
        try:
            items = json.loads(entry.body)
        except ValueError:
            return None
        return (entry, items) if isinstance(items, list) else None

    def _download(
        self, url: str, label: str, cached: tuple[CachedResponse, list[Any]] | None
    ) -> Page:
        headers: dict[str, str] = {}
        if cached is not None and cached[0].etag:
            headers["If-None-Match"] = cached[0].etag
        if cached is not None and cached[0].last_modified:
            headers["If-Modified-Since"] = cached[0].last_modified
        status, response_headers, body = self._send(url, label, headers)
        now = self._now()
        if status == 304:
            if cached is None:
                raise FetchError(
                    f"{label}: 304 Not Modified for a request that was not conditional"
                )
            self._count("not_modified")
            entry = cached[0]
            self._store(CachedResponse(url, entry.body, now, entry.etag, entry.last_modified))
            return Page(url, cached[1], "revalidated", now)
        items = _decode_list(body, label, response_headers.get("content-type", ""))
        self._count("downloaded")
        text = body.decode("utf-8", errors="replace")
        self._store(
            CachedResponse(
                url, text, now, response_headers.get("etag"), response_headers.get("last-modified")
            )
        )
        return Page(url, items, "network", now)

    def _store(self, entry: CachedResponse) -> None:
        if self.cache is None:
            return
        # A cache that cannot be written costs speed, not correctness: carry on.
        with contextlib.suppress(OSError):
            self.cache.put(entry)

    # ---- HTTP with retries --------------------------------------------------------------

    def _send(
        self, url: str, label: str, headers: dict[str, str]
    ) -> tuple[int, httpx.Headers, bytes]:
        assert self._client is not None
        waited_until = 0.0
        problem = ""
        for attempt in range(1, self.max_attempts + 1):
            waited_until = self._wait_for_pause(waited_until)
            if self.cancel.is_set():
                raise FetchCancelled(f"{label}: cancelled")
            if self.unreachable:
                raise Unreachable(self.unreachable)
            self._count("requests")
            try:
                with self._client.stream("GET", url, headers=headers) as response:
                    body = _read_capped(response, label)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                reason = f"cannot reach {self.base_url}: {_describe(exc)}"
                with self._lock:
                    self.unreachable = self.unreachable or reason
                raise Unreachable(reason) from exc
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                problem = _describe(exc)
                delay = self._backoff(attempt)
            except httpx.HTTPError as exc:
                raise FetchError(f"{label}: {_describe(exc)}") from exc
            else:
                status = response.status_code
                if status == 429 or status >= 500:
                    problem = f"HTTP {status} {response.reason_phrase}".rstrip()
                    asked = parse_retry_after(response.headers.get("retry-after"), self._now())
                    if asked is not None and asked > self.max_retry_after:
                        raise FetchError(
                            f"{label}: {problem}; the server asks to wait {asked:.0f} s "
                            "(Retry-After); try again later"
                        )
                    delay = max(asked or 0.0, self._backoff(attempt))
                    if status == 429 and attempt < self.max_attempts:
                        # Everyone backs off, not just this thread: the limit is per client.
                        with self._lock:
                            self._pause_until = max(self._pause_until, self._now() + delay)
                        self._count("retries")
                        continue
                elif status in (200, 304):
                    self._count("bytes", len(body))
                    return status, response.headers, body
                else:
                    # Quoted from an untrusted server: made printable, never raw escapes.
                    snippet = one_line(body[:400].decode("utf-8", "replace"), 160)
                    detail = f": {snippet}" if snippet else ""
                    raise FetchError(
                        f"{label}: HTTP {status} {response.reason_phrase}{detail}".rstrip()
                    )
            if attempt == self.max_attempts:
                break
            self._count("retries")
            self._sleep(delay)
        raise FetchError(f"{label}: {problem} (gave up after {self.max_attempts} attempts)")

    def _wait_for_pause(self, waited_until: float) -> float:
        """Sleep until a pause set after a 429 is over; return the pause this caller honoured."""
        with self._lock:
            until = self._pause_until
        if until > waited_until:
            remaining = until - self._now()
            if remaining > 0:
                self._sleep(remaining)
        return max(until, waited_until)

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with "equal jitter": half fixed, half random, so that clients
        which failed together do not retry together."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def _count(self, name: str, amount: int = 1) -> None:
        with self._lock:
            setattr(self.stats, name, getattr(self.stats, name) + amount)


def _read_capped(response: httpx.Response, label: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise FetchError(f"{label}: answer larger than {MAX_BODY_BYTES // 2**20} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def _decode_list(body: bytes, label: str, content_type: str) -> list[Any]:
    try:
        data = json.loads(body)
    except ValueError as exc:
        kind = content_type.split(";")[0].strip() or "no content type"
        start = one_line(body[:200].decode("utf-8", "replace"), 60)
        raise FetchError(f"{label}: not JSON ({one_line(kind, 60)}, {exc}): {start!r}") from None
    if isinstance(data, list):
        return data
    got = {dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(
        type(data), "number"
    )
    detail = ""
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        detail = f" ({one_line(data['error'], 120)})"
    raise FetchError(f"{label}: expected a JSON list, got {got}{detail}")
