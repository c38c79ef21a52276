"""The cache-then-network policy shared by the API clients (sources/cached_get.py).

The clients' own tests exercise it through a real loopback server; these pin the policy's
rules directly, with a real on-disk ResponseCache and a scripted `send`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from digest_tui.errors import FetchCancelled, FetchError, Unreachable
from digest_tui.sources.cached_get import CachePolicy, Counter, SentReply
from digest_tui.sources.hf_cache import CachedResponse, ResponseCache

URL = "https://example.org/api?page=1"


def _decode(body: bytes, label: str, headers: Mapping[str, str]) -> list[int]:
    value = json.loads(body)
    if not isinstance(value, list):
        raise FetchError(f"{label}: not a list")
    return value


def _read(text: str, label: str) -> list[int] | None:
    value = json.loads(text)
    return value if isinstance(value, list) else None


class Clock:
    def __init__(self) -> None:
        self.t = 1_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def cache(tmp_path: Path) -> ResponseCache:
    return ResponseCache(tmp_path)


def _policy(cache: ResponseCache, clock: Clock, counts: list[str]) -> CachePolicy[list[int]]:
    def count(name: Counter) -> None:
        counts.append(name)

    return CachePolicy[list[int]](
        cache=cache,
        read_cached=_read,
        decode=_decode,
        cache_text=lambda body: body.decode("utf-8"),
        count=count,
        now=clock,
    )


def _get(policy: CachePolicy[list[int]], send, **kw):  # type: ignore[no-untyped-def]
    args = {"ttl": 60.0, "refresh": False, "offline": False, "unreachable": None}
    args.update(kw)
    return policy.get(URL, "GET page 1", send=send, **args)


def test_download_is_stored_with_validators_then_served_fresh_without_a_request(
    cache: ResponseCache,
) -> None:
    clock, counts, sent = Clock(), list[str](), list[dict[str, str]]()

    def send(headers: dict[str, str]) -> SentReply:
        sent.append(headers)
        return 200, {"etag": '"v1"'}, b"[1, 2]"

    policy = _policy(cache, clock, counts)
    first = _get(policy, send)
    assert (first.body, first.origin) == ([1, 2], "network")
    stored = cache.get(URL)
    assert stored is not None and stored.etag == '"v1"' and stored.body == "[1, 2]"
    clock.t += 30
    second = _get(policy, send)
    assert (second.body, second.origin, len(sent)) == ([1, 2], "cache", 1)
    assert counts == ["downloaded", "cached"]


def test_stale_copy_is_revalidated_and_304_restarts_its_age(cache: ResponseCache) -> None:
    cache.put(CachedResponse(URL, "[7]", 1_000.0, '"v7"', None))
    clock, counts, sent = Clock(), list[str](), list[dict[str, str]]()
    clock.t += 3_600

    def send(headers: dict[str, str]) -> SentReply:
        sent.append(headers)
        return 304, {}, b""

    answer = _get(_policy(cache, clock, counts), send)
    assert (answer.body, answer.origin, answer.fetched_at) == ([7], "revalidated", clock.t)
    assert sent == [{"If-None-Match": '"v7"'}]
    stored = cache.get(URL)
    assert stored is not None and stored.fetched_at == clock.t


def test_a_body_that_does_not_decode_is_never_stored_and_the_old_copy_answers(
    cache: ResponseCache,
) -> None:
    cache.put(CachedResponse(URL, "[3]", 0.0))
    counts: list[str] = []
    answer = _get(_policy(cache, Clock(), counts), lambda h: (200, {}, b'{"no": "list"}'))
    assert (answer.body, answer.origin) == ([3], "fallback")
    assert "not a list" in answer.note
    stored = cache.get(URL)
    assert stored is not None and stored.body == "[3]"
    assert counts == ["fallback"]


def test_offline_and_unreachable_answer_from_any_age_or_name_the_request(
    cache: ResponseCache,
) -> None:
    def never(headers: dict[str, str]) -> SentReply:
        raise AssertionError("no request may be sent")

    policy = _policy(cache, Clock(), [])
    with pytest.raises(FetchError, match="GET page 1: offline, and no cached copy"):
        _get(policy, never, offline=True)
    with pytest.raises(Unreachable, match="refused; GET page 1: no cached copy"):
        _get(policy, never, unreachable="refused")
    cache.put(CachedResponse(URL, "[5]", 0.0))
    assert _get(policy, never, offline=True).origin == "cache"
    fallback = _get(policy, never, unreachable="refused")
    assert (fallback.origin, fallback.note) == ("fallback", "refused; used the cached copy")


def test_a_cancelled_fetch_never_falls_back(cache: ResponseCache) -> None:
    cache.put(CachedResponse(URL, "[5]", 0.0))

    def cancelled(headers: dict[str, str]) -> SentReply:
        raise FetchCancelled("GET page 1: cancelled")

    with pytest.raises(FetchCancelled):
        _get(_policy(cache, Clock(), []), cancelled)


def test_304_to_an_unconditional_request_is_an_error(cache: ResponseCache) -> None:
    with pytest.raises(FetchError, match="304 Not Modified for a request that was not"):
        _get(_policy(cache, Clock(), []), lambda h: (304, {}, b""))
