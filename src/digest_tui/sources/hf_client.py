"""Getting pages of `/api/daily_papers` reliably: retries, a response cache, offline use.

HTTP goes through `digest_tui.net` (its retry policy, deadline and capped reader):
- Retries 429 and 5xx answers, read timeouts and dropped connections, a bounded number of
  times, with exponential backoff and jitter; a `Retry-After` (seconds or an HTTP date) is
  honoured, and after a 429 every thread of this client waits, not just the one that was told.
- Every page has a total deadline (`DEADLINE`, 60 s: connect, reads, retries and their waits),
  so a server trickling bytes cannot hold a fetch; an answer over 32 MiB is refused.
- A host that cannot be reached at all (refused, no route, DNS), or that let a page pass its
  deadline, is not asked again in this run: the first such failure switches the client to
  cache-only, so a long fetch offline fails fast, with one cause.
- Answers are cached by URL with their ETag. A cached answer younger than the caller's TTL is
  used without a request; an older one is revalidated (If-None-Match; a 304 reuses it). When
  the network or the server fails, a cached copy of any age is used and the page says so.

Sleeping and the clock are injectable so tests of backoff run instantly.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from digest_tui import jsonsafe
from digest_tui.errors import (
    DeadlineExceeded,
    FetchCancelled,
    FetchError,
    HostUnreachable,
    NetworkError,
    RequestCancelled,
    Unreachable,
)
from digest_tui.net.retry import RetryPolicy
from digest_tui.net.retry import parse_retry_after as parse_retry_after  # the old home
from digest_tui.net.session import HttpSession, Limits
from digest_tui.net.urls import http_url_problem
from digest_tui.sources.cached_get import CachePolicy, PageOrigin
from digest_tui.sources.hf_cache import ResponseCache
from digest_tui.textsafe import one_line

if TYPE_CHECKING:  # annotations only: httpx loads with the first session (net/session.py)
    import httpx

DEFAULT_ENDPOINT = "https://huggingface.co"
ENDPOINT_ENV = "HF_ENDPOINT"
API_PATH = "/api/daily_papers"
MAX_BODY_BYTES = 32 * 1024 * 1024  # a page of 50 items is ~100 kB; anything huge is wrong
DEADLINE = 60.0  # seconds for one page: connect, every read, retries and their waits


def resolve_endpoint(base_url: str | None = None) -> str:
    """The API host: `base_url`, else $HF_ENDPOINT (as huggingface_hub), else huggingface.co."""
    value = (base_url or os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).strip().rstrip("/")
    if http_url_problem(value) is not None:
        source = "base URL" if base_url else ENDPOINT_ENV
        raise ValueError(
            f"{source}: expected an http(s) URL such as {DEFAULT_ENDPOINT}, got {value!r}"
        )
    return value


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
        deadline: float | None = None,
        max_body: int = MAX_BODY_BYTES,
    ) -> None:
        self.base_url = resolve_endpoint(base_url)
        self.cache = cache
        self.offline = offline
        self.cancel = cancel or threading.Event()
        self._stats = ClientStats()
        self.unreachable: str | None = None  # why the host is not asked again, once it fails
        self._lock = threading.Lock()
        self._policy = CachePolicy[list[Any]](
            cache=cache,
            read_cached=_read_cached_list,
            decode=lambda body, label, headers: _decode_list(
                body, label, headers.get("content-type", "")
            ),
            cache_text=lambda body: body.decode("utf-8", errors="replace"),
            count=self._count,
            now=now,
        )
        self._session: HttpSession | None = None
        if not offline:
            self._session = HttpSession(
                limits=Limits(
                    connect=connect_timeout,
                    read=timeout,
                    deadline=DEADLINE if deadline is None else deadline,
                    max_body=max_body,
                ),
                retry=RetryPolicy(
                    max_attempts=max(1, max_attempts),
                    backoff_base=backoff_base,
                    backoff_cap=backoff_cap,
                    max_retry_after=max_retry_after,
                ),
                headers={"Accept": "application/json"},
                transport=transport,
                cancel=self.cancel,
                sleep=sleep,
                now=now,
                rng=rng,
            )

    @property
    def stats(self) -> ClientStats:
        with self._lock:
            stats = ClientStats(**vars(self._stats))
        if self._session is not None:
            stats.requests, stats.retries = self._session.requests, self._session.retries
        return stats

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

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
        network nor the cache can answer (the policy: `digest_tui.sources.cached_get`).
        """
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

    # ---- HTTP (retries, deadline and cap in digest_tui.net) -----------------------------

    def _send(
        self, url: str, label: str, headers: dict[str, str]
    ) -> tuple[int, httpx.Headers, bytes]:
        assert self._session is not None
        if self.unreachable:
            raise Unreachable(self.unreachable)
        try:
            reply = self._session.request("GET", url, label=label, headers=headers)
        except RequestCancelled as exc:
            raise FetchCancelled(str(exc)) from None
        except (HostUnreachable, DeadlineExceeded) as exc:
            # Neither will be better for the next page: the rest of the run uses the cache.
            with self._lock:
                self.unreachable = self.unreachable or str(exc)
            raise Unreachable(str(exc)) from None
        except NetworkError as exc:
            raise FetchError(str(exc)) from None
        if reply.status in (200, 304):
            self._count("bytes", len(reply.body))
            return reply.status, reply.headers, reply.body
        # Quoted from an untrusted server: made printable, never raw escapes.
        snippet = one_line(reply.body[:400].decode("utf-8", "replace"), 160)
        detail = f": {snippet}" if snippet else ""
        raise FetchError(f"{label}: HTTP {reply.status} {reply.reason}{detail}".rstrip())

    def _count(self, name: str, amount: int = 1) -> None:
        with self._lock:
            setattr(self._stats, name, getattr(self._stats, name) + amount)


def _read_cached_list(text: str, label: str) -> list[Any] | None:
    try:
        items = jsonsafe.loads(text)
    except ValueError:
        return None
    return items if isinstance(items, list) else None


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def _decode_list(body: bytes, label: str, content_type: str) -> list[Any]:
    try:
        data = jsonsafe.loads(body)
    except ValueError as exc:
        kind = content_type.split(";")[0].strip() or "no content type"
        start = one_line(body[:200].decode("utf-8", "replace"), 60)
        why = str(exc).removeprefix("not valid JSON: ")
        raise FetchError(f"{label}: not JSON ({one_line(kind, 60)}, {why}): {start!r}") from None
    if isinstance(data, list):
        return data
    got = {dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(
        type(data), "number"
    )
    detail = ""
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        detail = f" ({one_line(data['error'], 120)})"
    raise FetchError(f"{label}: expected a JSON list, got {got}{detail}")
