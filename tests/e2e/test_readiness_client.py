"""ReadinessClient against a loopback server replaying recorded GitHub API answers.

The root listing (`GET /repos/{o}/{r}/contents/`) and the README (`GET /repos/{o}/{r}/readme`)
come from fixtures/github/ in GitHub's shapes; the health client's fake server, clock and
cache fixtures are reused (tests/e2e/test_github_client.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from digest_tui.repohealth import GitHubHealthClient, HealthCache
from digest_tui.repohealth.readiness import ReadinessClient
from tests.e2e import test_github_client as recorded
from tests.e2e.test_github_client import FakeClock, FakeGitHub, Reply, fixture_bytes, ok

# The health client's fixtures: the loopback server, the fake clock, the cache file.
github = recorded.github
clock = recorded.clock
cache_path = recorded.cache_path

AE = "/repos/sys-lab/flashserve-ae"
BARE = "/repos/someone/bare-kernels"


@pytest.fixture
def make_readiness(
    github: FakeGitHub, clock: FakeClock, cache_path: Path
) -> Iterator[Callable[..., ReadinessClient]]:
    made: list[tuple[GitHubHealthClient, HealthCache]] = []

    def make(**kwargs: object) -> ReadinessClient:
        cache = HealthCache(cache_path)
        kwargs.setdefault("base_url", github.url)
        kwargs.setdefault("clock", clock)
        health = GitHubHealthClient(cache, **kwargs)  # type: ignore[arg-type]
        made.append((health, cache))
        return ReadinessClient(health)

    yield make
    for health, cache in made:
        health.close()
        cache.close()


def route_ae(github: FakeGitHub) -> None:
    github.route(AE + "/contents/", ok("contents_ae_repo.json", ETag='"c-1"'))
    github.route(AE + "/readme", ok("readme_ae_repo.json", ETag='"r-1"'))


def test_two_requests_give_the_labels_and_the_line(github: FakeGitHub, make_readiness) -> None:
    route_ae(github)
    result = make_readiness().readiness("sys-lab", "flashserve-ae")
    assert result.status == "ok"
    assert result.files == ("docker", "reqs", "package", "make", "scripts", "configs")
    assert result.sections == ("install", "quickstart", "reproduce", "artifact-evaluation")
    assert result.badges == ("available", "functional")
    assert result.runnable and result.has_readme
    assert github.count() == 2
    line = result.line(weights=True)
    assert line.startswith("ready: docker, reqs, pyproject/setup, make, scripts, configs")
    assert "reproduce section" in line and "AE badge" in line and line.endswith("· weights")
    data = result.to_json(weights=True)
    assert data["repo"] == "sys-lab/flashserve-ae"
    assert data["readme_sections"][2] == "reproduce" and data["runnable"] is True
    assert data["weights"] is True and data["score"] == result.score
    # Nothing of the README itself is kept (the escape and the javascript: link stay there).
    dumped = json.dumps(data)
    assert "javascript" not in dumped and "\x1b" not in dumped


def test_within_the_ttl_the_cache_answers_then_etags_revalidate(
    github: FakeGitHub, make_readiness, clock: FakeClock
) -> None:
    route_ae(github)
    client = make_readiness()
    first = client.readiness("sys-lab", "flashserve-ae")
    assert make_readiness().readiness("sys-lab", "flashserve-ae") == first
    assert github.count() == 2  # a second client, same cache file: no request
    clock.advance(hours=25)
    assert client.cached("sys-lab", "flashserve-ae").status == "stale"  # type: ignore[union-attr]

    def not_modified(etag: str, name: str) -> Callable[[dict[str, str]], Reply]:
        def route(headers: dict[str, str]) -> Reply:
            if headers.get("if-none-match") == etag:
                return Reply(304, b"", {"ETag": etag})
            return ok(name, ETag=etag)

        return route

    github.route(AE + "/contents/", not_modified('"c-1"', "contents_ae_repo.json"))
    github.route(AE + "/readme", not_modified('"r-1"', "readme_ae_repo.json"))
    again = client.readiness("sys-lab", "flashserve-ae")
    assert github.count() == 4
    assert github.headers_of(-1)["if-none-match"] == '"r-1"'
    assert github.headers_of(-2)["if-none-match"] == '"c-1"'
    assert (again.status, again.files, again.sections) == ("ok", first.files, first.sections)


def test_no_readme_and_a_bare_repo(github: FakeGitHub, make_readiness) -> None:
    github.route(BARE + "/contents/", ok("contents_bare_repo.json"))
    # no /readme route: the fake answers 404 Not Found, as GitHub does for a repo without one
    result = make_readiness().readiness("someone", "bare-kernels")
    assert (result.status, result.files, result.sections, result.has_readme) == (
        "ok",
        (),
        (),
        False,
    )
    assert not result.runnable
    assert result.line().startswith("not ready: ")


def test_missing_or_empty_repo_is_gone_with_one_request(github: FakeGitHub, make_readiness) -> None:
    result = make_readiness().readiness("someone", "deleted")
    assert result.status == "gone" and github.count() == 1
    assert "no longer exists" in result.line()


def test_rate_limit_backs_off_for_health_and_readiness_alike(
    github: FakeGitHub, make_readiness, clock: FakeClock
) -> None:
    reset = int(clock.now.timestamp()) + 600
    github.route(
        AE + "/contents/",
        Reply(
            403,
            fixture_bytes("error_rate_limit.json"),
            {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
        ),
    )
    client = make_readiness()
    result = client.readiness("sys-lab", "flashserve-ae")
    assert result.status == "unknown" and "rate limit" in (result.message or "")
    # The back-off is shared with the health client (same cache file, same API base).
    health = client.health_client.health("NVIDIA", "Megatron-LM")
    assert "rate limit" in (health.message or "")
    assert github.count() == 1


def test_bad_answers_keep_the_cached_labels(
    github: FakeGitHub, make_readiness, clock: FakeClock
) -> None:
    route_ae(github)
    client = make_readiness()
    first = client.readiness("sys-lab", "flashserve-ae")
    clock.advance(hours=25)
    github.route(AE + "/contents/", Reply(200, b'{"not": "a list"}', {}))
    broken = client.readiness("sys-lab", "flashserve-ae")
    assert broken.status == "error" and broken.files == first.files
    assert "not an array" in (broken.message or "")
    github.route(AE + "/contents/", Reply(200, b"[" * 100_000, {}))  # absurd nesting
    clock.advance(minutes=10)
    assert client.readiness("sys-lab", "flashserve-ae").status == "error"


def test_unreachable_host_stops_the_batch(make_readiness, tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = make_readiness(base_url=f"http://127.0.0.1:{port}")
    results = client.refresh_many([("a", "one"), ("b", "two"), ("c", "three")], max_concurrency=1)
    assert [r.status for r in results] == ["error", "unknown", "unknown"]
    assert client.unreachable and "cannot reach" in client.unreachable
    assert all("not checked" in (r.message or "") for r in results[1:])
