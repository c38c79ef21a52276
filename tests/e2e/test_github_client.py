"""GitHubHealthClient against a real HTTP server on 127.0.0.1 replaying recorded API answers.

The server is the stdlib ThreadingHTTPServer; bodies come from fixtures/github/*.json (the
real GitHub API shape, abridged). A fake clock drives the TTL and rate-limit resets, so no
test sleeps for them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import email.utils
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from digest_tui.repohealth import GitHubHealthClient, HealthCache, RepoHealth

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "github"
MEGATRON = "/repos/NVIDIA/Megatron-LM"
TOKEN = "ghp_TESTtoken0123456789abcdefSECRET"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def ok(name: str, **headers: str) -> Reply:
    return Reply(200, fixture_bytes(name), {"Content-Type": "application/json", **headers})


Route = Callable[[dict[str, str]], Reply]


class FakeGitHub:
    """Routes by path; each route maps the request headers to a reply. Records requests."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.url = ""

    def route(self, path: str, reply: Reply | Route) -> None:
        self.routes[path] = reply if callable(reply) else (lambda _h, r=reply: r)

    def count(self, path: str | None = None) -> int:
        with self.lock:
            return sum(1 for p, _ in self.requests if path is None or p == path)

    def headers_of(self, index: int = -1) -> dict[str, str]:
        with self.lock:
            return self.requests[index][1]


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with running_fake_github() as fake:
        yield fake


@contextlib.contextmanager
def running_fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            with fake.lock:
                fake.requests.append((self.path, headers))
                fake.in_flight += 1
                fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            try:
                route = fake.routes.get(self.path)
                reply = (
                    route(headers) if route else Reply(404, fixture_bytes("error_not_found.json"))
                )
                if reply.delay:
                    time.sleep(reply.delay)
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                if reply.body:
                    self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)
            finally:
                with fake.lock:
                    fake.in_flight -= 1

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


class FakeClock:
    def __init__(self) -> None:
        self.now = dt.datetime.now(dt.UTC).replace(microsecond=0)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cache_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "cache" / "repo_health.sqlite3"


@pytest.fixture
def make_client(
    github: FakeGitHub, clock: FakeClock, cache_path: Path
) -> Iterator[Callable[..., GitHubHealthClient]]:
    made: list[tuple[GitHubHealthClient, HealthCache]] = []

    def make(**kwargs: object) -> GitHubHealthClient:
        cache = HealthCache(cache_path)
        kwargs.setdefault("base_url", github.url)
        kwargs.setdefault("clock", clock)
        client = GitHubHealthClient(cache, **kwargs)  # type: ignore[arg-type]
        made.append((client, cache))
        return client

    yield make
    for client, cache in made:
        client.close()
        cache.close()


def test_200_gives_the_figures(github: FakeGitHub, make_client, clock: FakeClock) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json", ETag='W/"mega-1"'))
    health = make_client().health("NVIDIA", "Megatron-LM")
    assert health.status == "ok"
    assert (health.stars, health.forks) == (12874, 2915)
    assert health.license == "NOASSERTION"
    assert health.pushed_at == dt.datetime(2025, 6, 1, 22, 47, 3, tzinfo=dt.UTC)
    assert health.archived is False
    assert health.description == "Ongoing research training transformer models at scale"
    assert health.full_name == "NVIDIA/Megatron-LM"
    assert health.fetched_at == clock.now
    assert health.message is None
    sent = github.headers_of()
    assert sent["accept"] == "application/vnd.github+json"
    assert sent["user-agent"].startswith("digest-tui/")
    assert "authorization" not in sent
    assert "if-none-match" not in sent


def test_archived_and_unlicensed_repos(github: FakeGitHub, make_client) -> None:
    github.route("/repos/pytorch/elastic", ok("repo_archived.json"))
    github.route("/repos/tyler-griggs/melange-release", ok("repo_no_license.json"))
    client = make_client()
    archived = client.health("pytorch", "elastic")
    assert (archived.archived, archived.license, archived.stars) == (True, "BSD-3-Clause", 730)
    bare = client.health("tyler-griggs", "melange-release")
    assert (bare.license, bare.description, bare.status) == (None, None, "ok")


def test_ttl_respected_then_stale_then_revalidated_with_etag(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    etag = 'W/"5f1c0a9e"'

    def conditional(headers: dict[str, str]) -> Reply:
        if headers.get("if-none-match") == etag:
            return Reply(304, b"", {"ETag": etag})
        return ok("repo_megatron_lm.json", ETag=etag)

    github.route(MEGATRON, conditional)
    client = make_client()
    first = client.health("NVIDIA", "Megatron-LM")
    clock.advance(hours=23)
    again = client.health("NVIDIA", "Megatron-LM")
    assert github.count() == 1, "no request within the TTL"
    assert again.status == "ok" and again.fetched_at == first.fetched_at

    clock.advance(hours=2)  # 25 h: past the 24 h TTL
    stale = client.cached("NVIDIA", "Megatron-LM")
    assert stale is not None and stale.status == "stale" and stale.stars == 12874
    assert github.count() == 1, "cached() never touches the network"

    revalidated = client.health("NVIDIA", "Megatron-LM")
    assert github.count() == 2
    assert github.headers_of()["if-none-match"] == etag
    assert revalidated.status == "ok"
    assert revalidated.stars == 12874 and revalidated.license == "NOASSERTION"
    assert revalidated.fetched_at == clock.now, "a 304 refreshes fetched_at"
    assert client.health("NVIDIA", "Megatron-LM").status == "ok"
    assert github.count() == 2


def test_refresh_forces_a_request_within_ttl(github: FakeGitHub, make_client) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    client = make_client()
    client.health("NVIDIA", "Megatron-LM")
    client.health("NVIDIA", "Megatron-LM", refresh=True)
    assert github.count() == 2


def test_key_is_case_insensitive(github: FakeGitHub, make_client) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    client = make_client()
    client.health("NVIDIA", "Megatron-LM")
    lower = client.health("nvidia", "megatron-lm")
    assert github.count() == 1
    assert (lower.owner, lower.name, lower.stars) == ("nvidia", "megatron-lm", 12874)
    assert lower.full_name == "NVIDIA/Megatron-LM"
    cached = client.cached("NVIDIA", "MEGATRON-LM")
    assert cached is not None and cached.status == "ok"


def test_rate_limit_403_stops_requests_until_reset(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    client = make_client()
    client.health("NVIDIA", "Megatron-LM")
    clock.advance(hours=25)
    reset = int(clock.now.timestamp()) + 600
    limited = Reply(
        403,
        fixture_bytes("error_rate_limit.json"),
        {
            "Content-Type": "application/json",
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-resource": "core",
        },
    )
    github.route(MEGATRON, limited)
    github.route("/repos/vllm-project/vllm", ok("repo_vllm.json"))

    health = client.health("NVIDIA", "Megatron-LM")
    assert github.count() == 2
    assert health.status == "stale"
    assert health.stars == 12874, "cached figures are still shown"
    assert health.message and "rate limit" in health.message

    # Nothing is requested until the reset, for any repo, even when asked to refresh ...
    clock.advance(seconds=300)
    assert client.health("NVIDIA", "Megatron-LM", refresh=True).status == "stale"
    unknown = client.health("vllm-project", "vllm")
    assert unknown.status == "unknown" and unknown.stars is None
    # ... nor by a second process sharing the cache file.
    other = make_client()
    assert other.health("vllm-project", "vllm").status == "unknown"
    assert github.count() == 2

    clock.advance(seconds=301)  # past the reset
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    assert client.health("NVIDIA", "Megatron-LM").status == "ok"
    assert client.health("vllm-project", "vllm").stars == 49307
    assert github.count() == 4


def test_rate_limit_429_with_retry_after(github: FakeGitHub, make_client, clock: FakeClock) -> None:
    github.route(
        "/repos/vllm-project/vllm",
        Reply(429, fixture_bytes("error_secondary_rate_limit.json"), {"Retry-After": "120"}),
    )
    client = make_client()
    first = client.health("vllm-project", "vllm")
    assert first.status == "unknown" and "rate limit" in (first.message or "")
    clock.advance(seconds=119)
    client.health("vllm-project", "vllm")
    assert github.count() == 1
    clock.advance(seconds=2)
    github.route("/repos/vllm-project/vllm", ok("repo_vllm.json"))
    assert client.health("vllm-project", "vllm").status == "ok"
    assert github.count() == 2


def test_secondary_rate_limit_without_headers_backs_off_a_minute(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    github.route(MEGATRON, Reply(403, fixture_bytes("error_secondary_rate_limit.json")))
    client = make_client()
    assert client.health("NVIDIA", "Megatron-LM").status == "unknown"
    clock.advance(seconds=59)
    client.health("NVIDIA", "Megatron-LM")
    assert github.count() == 1
    clock.advance(seconds=2)
    client.health("NVIDIA", "Megatron-LM")
    assert github.count() == 2


def test_last_request_of_the_window_backs_off_before_being_refused(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    reset = str(int(clock.now.timestamp()) + 900)
    github.route(
        MEGATRON,
        ok("repo_megatron_lm.json", **{"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}),
    )
    client = make_client()
    assert client.health("NVIDIA", "Megatron-LM").status == "ok"
    assert client.health("vllm-project", "vllm").status == "unknown"
    assert github.count() == 1


def test_404_is_gone_and_cached(github: FakeGitHub, make_client, clock: FakeClock) -> None:
    client = make_client()
    gone = client.health("someone", "deleted-repo")  # unrouted paths answer 404
    assert gone.status == "gone" and gone.stars is None
    assert gone.message and "404" in gone.message
    clock.advance(hours=1)
    assert client.health("someone", "deleted-repo").status == "gone"
    cached = client.cached("someone", "deleted-repo")
    assert cached is not None and cached.status == "gone"
    assert github.count() == 1


def test_410_is_gone(github: FakeGitHub, make_client) -> None:
    github.route("/repos/a/b", Reply(410, b'{"message": "Repository access blocked"}'))
    assert make_client().health("a", "b").status == "gone"


def test_malformed_json_is_an_error_and_keeps_cached_figures(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    client = make_client()
    client.health("NVIDIA", "Megatron-LM")
    clock.advance(hours=25)
    github.route(MEGATRON, Reply(200, fixture_bytes("repo_megatron_lm.json")[:300]))
    health = client.health("NVIDIA", "Megatron-LM")
    assert health.status == "error"
    assert health.message and "malformed JSON" in health.message
    assert health.stars == 12874 and health.forks == 2915
    # The cache keeps the old figures and says why they are not fresh.
    cached = client.cached("NVIDIA", "Megatron-LM")
    assert cached is not None and cached.stars == 12874 and cached.status == "error"
    # A failed repo is not asked again at once (a UI re-asking must not hammer the API) ...
    client.health("NVIDIA", "Megatron-LM")
    assert github.count() == 2
    # ... but a refresh does, and a good answer clears the error.
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    assert client.health("NVIDIA", "Megatron-LM", refresh=True).status == "ok"
    again = client.cached("NVIDIA", "Megatron-LM")
    assert again is not None and again.status == "ok" and again.message is None


def test_unexpected_shape_names_the_field(github: FakeGitHub, make_client) -> None:
    github.route(MEGATRON, ok("repo_bad_shape.json"))
    health = make_client().health("NVIDIA", "Megatron-LM")
    assert health.status == "error"
    assert health.message and "stargazers_count" in health.message
    assert health.stars is None


def test_non_object_json_is_an_error(github: FakeGitHub, make_client) -> None:
    github.route(MEGATRON, Reply(200, b'["not", "a", "repo"]'))
    health = make_client().health("NVIDIA", "Megatron-LM")
    assert health.status == "error" and "not an object" in (health.message or "")


def test_timeout_is_an_error_with_cached_figures(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    client = make_client(timeout=0.3)
    client.health("NVIDIA", "Megatron-LM")
    clock.advance(hours=25)
    slow = ok("repo_megatron_lm.json")
    slow.delay = 1.5
    github.route(MEGATRON, slow)
    github.route("/repos/vllm-project/vllm", slow)
    health = client.health("NVIDIA", "Megatron-LM")
    assert health.status == "error"
    assert health.message and "0.3 s" in health.message
    assert health.stars == 12874, "cached figures are still shown"
    never_seen = client.health("vllm-project", "vllm")
    assert never_seen.status == "error" and never_seen.stars is None


def test_token_sent_when_set_and_never_in_messages(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    github.route("/repos/a/b", Reply(401, fixture_bytes("error_bad_credentials.json")))
    slow = ok("repo_vllm.json")
    slow.delay = 1.0
    github.route("/repos/vllm-project/vllm", slow)
    client = make_client(token=TOKEN, timeout=0.3)
    client.health("NVIDIA", "Megatron-LM")
    assert github.headers_of()["authorization"] == f"Bearer {TOKEN}"
    results = [client.health("a", "b"), client.health("vllm-project", "vllm")]
    assert results[0].status == "error" and "401" in (results[0].message or "")
    for result in results:
        assert TOKEN not in json.dumps(result.to_json())
        cached = client.cached(result.owner, result.name)
        assert cached is not None and TOKEN not in json.dumps(cached.to_json())


def test_token_and_base_url_from_environment(
    github: FakeGitHub, make_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github.url + "/")
    client = make_client(base_url=None)
    assert client.health("NVIDIA", "Megatron-LM").status == "ok"
    assert github.headers_of()["authorization"] == f"Bearer {TOKEN}"
    # An explicit empty token overrides the environment.
    make_client(token="").health("NVIDIA", "Megatron-LM", refresh=True)
    assert "authorization" not in github.headers_of()


def test_token_never_sent_over_plain_http_to_another_host(cache_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=fixture_bytes("repo_vllm.json"))

    with HealthCache(cache_path) as cache:
        client = GitHubHealthClient(
            cache,
            base_url="http://ghe.example.test/api/v3",
            token=TOKEN,
            transport=httpx.MockTransport(handler),
        )
        assert client.health("vllm-project", "vllm").status == "ok"
        client.close()
    assert str(seen[0].url) == "http://ghe.example.test/api/v3/repos/vllm-project/vllm"
    assert "authorization" not in seen[0].headers


def test_offline_gives_cached_figures_as_stale_or_unknown(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    github.route(MEGATRON, ok("repo_megatron_lm.json"))
    make_client().health("NVIDIA", "Megatron-LM")
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    clock.advance(hours=25)
    offline = make_client(base_url=dead)
    health = offline.health("NVIDIA", "Megatron-LM")
    assert health.status == "stale" and health.stars == 12874
    assert health.message and "cannot reach" in health.message
    assert offline.health("vllm-project", "vllm").status == "unknown"


def test_refresh_many_bounded_concurrency(github: FakeGitHub, make_client) -> None:
    names = [f"repo{i}" for i in range(8)]
    for name in names:
        reply = ok("repo_vllm.json")
        reply.delay = 0.15
        github.route(f"/repos/org/{name}", reply)
    seen: list[RepoHealth] = []
    lock = threading.Lock()

    def on_result(health: RepoHealth) -> None:
        with lock:
            seen.append(health)

    client = make_client()
    pairs = [("org", n) for n in names] + [("ORG", "REPO0")]  # a duplicate, other casing
    results = client.refresh_many(pairs, max_concurrency=3, on_result=on_result)
    assert [r.name for r in results] == names
    assert all(r.status == "ok" for r in results)
    assert len(seen) == 8
    assert github.count() == 8
    assert 1 <= github.max_in_flight <= 3
    # Within the TTL a second pass costs nothing; forced, it asks again.
    client.refresh_many(pairs, max_concurrency=3)
    assert github.count() == 8
    client.refresh_many(pairs[:2], force=True)
    assert github.count() == 10


def test_invalid_names_are_refused_without_a_request(github: FakeGitHub, make_client) -> None:
    client = make_client()
    for owner, name in [("..", "x"), ("a/b", "c"), ("", "x"), ("a", "b?c"), ("a", "")]:
        assert client.health(owner, name).status == "error"
    assert github.count() == 0


def test_corrupt_cache_file_is_set_aside(cache_path: Path) -> None:
    cache_path.parent.mkdir(parents=True)
    cache_path.write_bytes(b"this is not a database" * 100)
    with HealthCache(cache_path) as cache:
        assert cache.get("a", "b") is None
    assert cache_path.with_name(cache_path.name + ".corrupt").exists()


def test_cache_round_trip_and_backoff(cache_path: Path, clock: FakeClock) -> None:
    with HealthCache(cache_path) as cache:
        health = RepoHealth(owner="A", name="B", status="ok", stars=3, fetched_at=clock.now)
        cache.put(health, etag='"x"')
        got = cache.get("a", "b")
        assert got is not None and got.stars == 3 and got.status == "ok"
        entry = cache.entry("A", "b")
        assert entry is not None and entry.etag == '"x"'
        assert cache.backoff_until("s") is None
        until = clock.now + dt.timedelta(minutes=5)
        cache.set_backoff(until, scope="s")
        assert cache.backoff_until("s") == until
        cache.clear_backoff("s")
        assert cache.backoff_until("s") is None
    raw = json.loads(fixture_bytes("repo_megatron_lm.json"))
    assert raw["full_name"] == "NVIDIA/Megatron-LM"  # the fixtures are the real API shape


def test_absurdly_nested_json_is_an_error_for_that_repo_only(
    github: FakeGitHub, make_client
) -> None:
    github.route(MEGATRON, Reply(200, b'{"a":' * 100_000 + b"1" + b"}" * 100_000))
    github.route("/repos/vllm-project/vllm", ok("repo_vllm.json"))
    results = make_client().refresh_many([("NVIDIA", "Megatron-LM"), ("vllm-project", "vllm")])
    assert [r.status for r in results] == ["error", "ok"]
    assert "malformed JSON" in (results[0].message or "")
    assert "nested too deeply" in (results[0].message or "")


def test_token_is_dropped_when_a_redirect_leaves_the_origin(
    github: FakeGitHub, make_client
) -> None:
    # Two loopback servers on two ports are two origins, as api.github.com and elsewhere.
    with running_fake_github() as elsewhere:
        elsewhere.route("/repos/new/name", ok("repo_vllm.json"))
        github.route(
            "/repos/old/name", Reply(301, b"", {"Location": f"{elsewhere.url}/repos/new/name"})
        )
        github.route("/repos/same/origin", Reply(301, b"", {"Location": "/repos/vllm/moved"}))
        github.route("/repos/vllm/moved", ok("repo_vllm.json"))
        client = make_client(token=TOKEN)
        moved = client.health("old", "name")
        assert moved.status == "ok" and moved.stars == 49307
        assert github.headers_of()["authorization"] == f"Bearer {TOKEN}"
        assert elsewhere.count() == 1
        assert "authorization" not in elsewhere.headers_of()
        # Within the same origin the token goes on (a renamed repo on GitHub itself).
        assert client.health("same", "origin").status == "ok"
        assert github.headers_of()["authorization"] == f"Bearer {TOKEN}"


def test_rate_limit_429_with_retry_after_as_an_http_date(
    github: FakeGitHub, make_client, clock: FakeClock
) -> None:
    when = email.utils.format_datetime(clock.now + dt.timedelta(seconds=300), usegmt=True)
    github.route("/repos/vllm-project/vllm", Reply(429, b"{}", {"Retry-After": when}))
    client = make_client()
    assert client.health("vllm-project", "vllm").status == "unknown"
    clock.advance(seconds=299)
    client.health("vllm-project", "vllm")
    assert github.count() == 1
    clock.advance(seconds=2)
    github.route("/repos/vllm-project/vllm", ok("repo_vllm.json"))
    assert client.health("vllm-project", "vllm").status == "ok"
