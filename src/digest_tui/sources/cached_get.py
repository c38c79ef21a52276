"""One GET answered from a response cache or the network: the policy every API client shares.

The Hugging Face and arXiv clients differ in what a body is (a JSON list, an Atom feed), how a
request is sent (threads at once, or one at a time behind a rate limiter) and how a bad answer
is worded; they agree on when to use the cache, and that agreement lives here:

- offline, or the host already found unreachable in this run: the cached copy of any age, or a
  `FetchError` / `Unreachable` naming the request when there is none;
- a cached copy younger than the caller's TTL (and no `refresh`): used without a request;
- otherwise a request, conditional on the cached copy's ETag / Last-Modified; a 304 reuses the
  copy and restarts its age; a 200 is decoded, then stored (only bodies that decoded are
  stored, so a cached body is always usable);
- when the request fails, a cached copy of any age answers and says why; a cancelled fetch
  never falls back.

A cache that cannot be written costs speed, not correctness: write errors are ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from digest_tui.errors import FetchCancelled, FetchError, Unreachable
from digest_tui.sources.hf_cache import CachedResponse, ResponseCache

PageOrigin = Literal["network", "revalidated", "cache", "fallback"]
Body = TypeVar("Body")

# What `send` returns: status (200 or 304; anything else it raises as FetchError), the
# response headers (read with lower-case names: httpx's are case-insensitive), the raw body.
SentReply = tuple[int, Mapping[str, str], bytes]
# The counters a client keeps: "cached", "fallback", "not_modified", "downloaded".
Counter = Literal["cached", "fallback", "not_modified", "downloaded"]


@dataclass(frozen=True)
class CachedAnswer(Generic[Body]):
    body: Body
    origin: PageOrigin
    fetched_at: float
    note: str = ""  # why a fallback copy was used


@dataclass(frozen=True)
class CachePolicy(Generic[Body]):
    """How one client reads, decodes and stores bodies; `get` applies the shared policy."""

    cache: ResponseCache | None
    # The decoded body of a cached text, or None when it no longer decodes (no copy at all).
    read_cached: Callable[[str, str], Body | None]  # (text, label)
    # The decoded body of a 200 answer; raises FetchError when it is not what was asked for.
    decode: Callable[[bytes, str, Mapping[str, str]], Body]  # (body, label, headers)
    # The text stored for a decoded 200 body.
    cache_text: Callable[[bytes], str]
    count: Callable[[Counter], None]
    now: Callable[[], float]

    def get(
        self,
        url: str,
        label: str,
        *,
        ttl: float,
        refresh: bool,
        offline: bool,
        unreachable: str | None,
        send: Callable[[dict[str, str]], SentReply],
    ) -> CachedAnswer[Body]:
        cached = self._cached(url, label)
        if offline or unreachable:
            if cached is not None:
                self.count("cached" if offline else "fallback")
                note = "" if offline else f"{unreachable}; used the cached copy"
                origin: PageOrigin = "cache" if offline else "fallback"
                return CachedAnswer(cached[1], origin, cached[0].fetched_at, note)
            if offline:
                raise FetchError(f"{label}: offline, and no cached copy")
            raise Unreachable(f"{unreachable}; {label}: no cached copy")
        if cached is not None and not refresh and self.now() - cached[0].fetched_at < ttl:
            self.count("cached")
            return CachedAnswer(cached[1], "cache", cached[0].fetched_at)
        try:
            return self._download(url, label, cached, send)
        except FetchError as exc:
            if cached is None or isinstance(exc, FetchCancelled):
                raise
            self.count("fallback")
            note = f"{exc}; used the cached copy"
            return CachedAnswer(cached[1], "fallback", cached[0].fetched_at, note)

    def _cached(self, url: str, label: str) -> tuple[CachedResponse, Body] | None:
        if self.cache is None:
            return None
        entry = self.cache.get(url)
        if entry is None:
            return None
        body = self.read_cached(entry.body, label)
        return None if body is None else (entry, body)

    def _download(
        self,
        url: str,
        label: str,
        cached: tuple[CachedResponse, Body] | None,
        send: Callable[[dict[str, str]], SentReply],
    ) -> CachedAnswer[Body]:
        headers: dict[str, str] = {}
        if cached is not None and cached[0].etag:
            headers["If-None-Match"] = cached[0].etag
        if cached is not None and cached[0].last_modified:
            headers["If-Modified-Since"] = cached[0].last_modified
        status, reply_headers, raw = send(headers)
        now = self.now()
        if status == 304:
            if cached is None:
                raise FetchError(
                    f"{label}: 304 Not Modified for a request that was not conditional"
                )
            self.count("not_modified")
            entry = cached[0]
            self._store(CachedResponse(url, entry.body, now, entry.etag, entry.last_modified))
            return CachedAnswer(cached[1], "revalidated", now)
        body = self.decode(raw, label, reply_headers)  # raises: nothing is stored
        self.count("downloaded")
        self._store(
            CachedResponse(
                url,
                self.cache_text(raw),
                now,
                reply_headers.get("etag"),
                reply_headers.get("last-modified"),
            )
        )
        return CachedAnswer(body, "network", now)

    def _store(self, entry: CachedResponse) -> None:
        if self.cache is None:
            return
        with contextlib.suppress(OSError):
            self.cache.put(entry)
