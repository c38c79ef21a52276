"""The arXiv client against a real HTTP server on 127.0.0.1: request spacing, retries, the
cache and its TTL, offline use, and the host and interval from the environment."""

from __future__ import annotations

import itertools
import threading

import pytest

from digest_tui.errors import (
    ArxivApiError,
    FeedFormatError,
    FetchError,
    RequestCancelled,
    Unreachable,
)
from digest_tui.sources.arxiv_client import (
    ArxivCache,
    ArxivClient,
    RateLimiter,
    resolve_endpoint,
    resolve_interval,
)
from tests.support.fake_arxiv import Canned, FakeArxiv, fixture_entries, serve_arxiv

QUERY = {
    "search_query": "cat:cs.DC AND submittedDate:[202506040000 TO 202506042359]",
    "start": 0,
    "max_results": 100,
}


@pytest.fixture
def fake():
    with serve_arxiv() as server:
        server.add(fixture_entries("cs.DC_2025-06-04.xml", "cs.DC"))
        yield server


def gaps(fake: FakeArxiv) -> list[float]:
    times = [seen.at for seen in fake.requests]
    return [later - earlier for earlier, later in itertools.pairwise(times)]


@pytest.mark.timeout(60)
def test_requests_are_spaced_by_the_interval_retries_included(fake, tmp_path):
    fake.fail_next(Canned(503, b"Rate exceeded.", {"Content-Type": "text/plain"}))
    with ArxivClient(fake.url, cache=ArxivCache(tmp_path), interval=0.4) as client:
        for start in (0, 100, 200):
            page = client.get_page(client.url({**QUERY, "start": start}), ttl=0)
            assert page.origin == "network"
    # Four requests (one retry after the 503), each at least 0.4 s after the previous one.
    assert [seen.status for seen in fake.requests] == [503, 200, 200, 200]
    assert all(gap >= 0.4 for gap in gaps(fake)), gaps(fake)


@pytest.mark.timeout(60)
def test_the_limiter_serialises_threads():
    limiter = RateLimiter(0.2)
    inside = []
    overlap = threading.Event()
    cancel = threading.Event()

    def use() -> None:
        with limiter.turn(cancel):
            inside.append(1)
            if len(inside) > 1:
                overlap.set()
            cancel.wait(0.05)
            inside.pop()

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not overlap.is_set()


def test_a_cancel_ends_the_wait_for_a_turn():
    limiter = RateLimiter(3600)
    cancel = threading.Event()
    with limiter.turn(cancel):
        pass
    cancel.set()
    with pytest.raises(RequestCancelled, match="cancelled"), limiter.turn(cancel):
        pass


@pytest.mark.timeout(60)
def test_a_fresh_cached_page_is_not_asked_for_and_a_stale_one_is_revalidated(fake, tmp_path):
    cache = ArxivCache(tmp_path)
    with ArxivClient(fake.url, cache=cache, interval=0) as client:
        url = client.url(QUERY)
        first = client.get_page(url, ttl=3600)
        assert first.origin == "network" and len(first.feed.entries) == 4
        assert client.get_page(url, ttl=3600).origin == "cache"
        assert len(fake.requests) == 1
        again = client.get_page(url, ttl=0)
        assert again.origin == "revalidated"
        assert fake.requests[-1].headers["if-none-match"] == first_etag(fake)
        assert fake.requests[-1].status == 304
        assert (client.stats.downloaded, client.stats.not_modified) == (1, 1)
    assert (tmp_path / "arxiv_api").is_dir()


def first_etag(fake: FakeArxiv) -> str:
    return fake.feed({k: str(v) for k, v in QUERY.items()}).headers["ETag"]


@pytest.mark.timeout(60)
def test_offline_uses_the_cache_and_says_when_there_is_none(fake, tmp_path):
    cache = ArxivCache(tmp_path)
    with ArxivClient(fake.url, cache=cache, interval=0) as client:
        url = client.url(QUERY)
        client.get_page(url, ttl=0)
    with ArxivClient(fake.url, cache=cache, offline=True) as client:
        assert client.get_page(url, ttl=0).origin == "cache"
        other = client.url({**QUERY, "start": 100})
        with pytest.raises(FetchError, match=r"\(page 1\): offline, and no cached copy"):
            client.get_page(other, ttl=0, what="page 1")
    assert len(fake.requests) == 1


@pytest.mark.timeout(60)
def test_a_failing_server_falls_back_to_a_cached_copy_with_a_note(fake, tmp_path):
    cache = ArxivCache(tmp_path)
    with ArxivClient(fake.url, cache=cache, interval=0, max_attempts=2) as client:
        url = client.url(QUERY)
        client.get_page(url, ttl=0)
        fake.fail_next(Canned(503), Canned(503))
        page = client.get_page(url, ttl=0)
    assert page.origin == "fallback"
    assert "HTTP 503" in page.note and page.note.endswith("used the cached copy")


@pytest.mark.timeout(60)
def test_the_api_error_entry_and_a_billion_laughs_are_errors_and_never_cached(fake, tmp_path):
    from tests.support.fake_arxiv import FIXTURES

    cache = ArxivCache(tmp_path)
    with ArxivClient(fake.url, cache=cache, interval=0) as client:
        bad = client.url({"search_query": "nonsense"})
        with pytest.raises(ArxivApiError, match=r"nonsense: the arXiv API reports an error: start"):
            client.get_page(bad, ttl=0)
        fake.fail_next(Canned(200, (FIXTURES / "billion_laughs.xml").read_bytes()))
        url = client.url(QUERY)
        with pytest.raises(FeedFormatError, match="declares a DOCTYPE"):
            client.get_page(url, ttl=0)
    assert cache.get(bad) is None and cache.get(url) is None


def test_an_unreachable_host_is_not_asked_again(tmp_path):
    with ArxivClient("http://127.0.0.1:9", cache=ArxivCache(tmp_path), interval=0) as client:
        with pytest.raises(Unreachable, match=r"cannot reach http://127\.0\.0\.1:9"):
            client.get_page(client.url(QUERY), ttl=0)
        assert client.unreachable
        with pytest.raises(Unreachable, match="no cached copy"):
            client.get_page(client.url({**QUERY, "start": 100}), ttl=0)
        assert client.stats.requests == 1


def test_host_and_interval_come_from_the_environment(monkeypatch):
    monkeypatch.delenv("ARXIV_API_ENDPOINT", raising=False)
    monkeypatch.delenv("ARXIV_REQUEST_INTERVAL", raising=False)
    assert resolve_endpoint() == "https://export.arxiv.org"
    assert resolve_interval() == 3.0
    monkeypatch.setenv("ARXIV_API_ENDPOINT", "http://127.0.0.1:8080/")
    monkeypatch.setenv("ARXIV_REQUEST_INTERVAL", "0.25")
    assert resolve_endpoint() == "http://127.0.0.1:8080"
    assert resolve_interval() == 0.25
    for bad in ("soon", "-1", "nan", "1e9"):
        monkeypatch.setenv("ARXIV_REQUEST_INTERVAL", bad)
        with pytest.raises(ValueError, match="ARXIV_REQUEST_INTERVAL: expected seconds"):
            resolve_interval()
    monkeypatch.setenv("ARXIV_API_ENDPOINT", "file:///etc/passwd")
    with pytest.raises(ValueError, match="ARXIV_API_ENDPOINT: expected an http"):
        resolve_endpoint()
