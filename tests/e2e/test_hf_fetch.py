"""Fetching from the Daily Papers API, against a real HTTP server on 127.0.0.1.

The server (stdlib ThreadingHTTPServer on port 0) serves the recorded lists in fixtures/hf_api/
the way the API does: paginated by `p` and `limit`, with an ETag and 304 answers to
If-None-Match. Tests queue failures (429, 5xx, malformed bodies) in front of a page and read
back the requests it received. Backoff sleeps are injected, so no test waits for real.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.ids import title_paper_id
from digest_tui.service import open_library
from digest_tui.sources.hf_api import Period
from digest_tui.sources.hf_fetch import FetchReport, FetchSpec, fetch_days
from tests.support.paths import SEED_JAN08

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_api"
FLASHMOE = "FlashMoE: Fast Distributed MoE in a Single Kernel"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


# ---- the fake Hub -----------------------------------------------------------------------


@dataclass
class Canned:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    params: dict[str, str]
    headers: dict[str, str]
    status: int = 0


class FakeHub:
    """Serves lists by query ("date=2025-06-05") and records every request."""

    def __init__(self) -> None:
        self.lists: dict[str, list[Any]] = {}
        self.canned: dict[tuple[str, int], deque[Canned]] = {}
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
        self.url = ""
        self._server: ThreadingHTTPServer | None = None

    def serve(self, key: str, items: list[Any]) -> None:
        self.lists[key] = items

    def fail(self, key: str, page: int, *responses: Canned) -> None:
        self.canned.setdefault((key, page), deque()).extend(responses)

    def answer(self, path: str, query: str, headers: dict[str, str]) -> Canned:
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        seen = Seen(params, headers)
        with self.lock:
            self.requests.append(seen)
        if path != "/api/daily_papers":
            seen.status = 404
            return Canned(404, b'{"error":"Not Found"}')
        key = next((f"{k}={params[k]}" for k in ("date", "week", "month") if k in params), "")
        page, limit = int(params.get("p", 0)), int(params.get("limit", 50))
        with self.lock:
            queue = self.canned.get((key, page))
            canned = queue.popleft() if queue else None
        if canned is None:
            items = self.lists.get(key, [])[page * limit : (page + 1) * limit]
            body = json.dumps(items).encode()
            etag = f'W/"{hashlib.sha1(body).hexdigest()}"'
            if headers.get("if-none-match") == etag:
                canned = Canned(304, b"", {"ETag": etag})
            else:
                canned = Canned(200, body, {"ETag": etag, "Content-Type": "application/json"})
        seen.status = canned.status
        return canned

    def requests_for(self, key: str) -> list[Seen]:
        name, value = key.split("=")
        return [r for r in self.requests if r.params.get(name) == value]

    def start(self) -> None:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                headers = {k.lower(): v for k, v in self.headers.items()}
                canned = hub.answer(parts.path, parts.query, headers)
                self.send_response(canned.status)
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(canned.body)))
                self.end_headers()
                self.wfile.write(canned.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@pytest.fixture
def hub(home: Path, monkeypatch: pytest.MonkeyPatch):
    hub = FakeHub()
    hub.start()
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    # A proxy from the environment must not intercept loopback traffic.
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    yield hub
    hub.stop()


@pytest.fixture
def library(home: Path):
    ctx = AppContext()
    lib = open_library(ctx)
    yield lib
    lib.conn.close()


class Sleeps(list):
    """An injected `sleep` that records instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def day_spec(*days: str, refresh: bool = False) -> FetchSpec:
    periods = tuple(Period.day(dt.date.fromisoformat(d)) for d in days)
    return FetchSpec(periods=periods, refresh=refresh)


def run_fetch(library, home: Path, spec: FetchSpec, **kwargs: Any) -> FetchReport:
    kwargs.setdefault("sleep", Sleeps())
    return fetch_days(spec, library=library, cache_dir=home / "cache", **kwargs)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed CLI in a child process (it inherits DIGEST_TUI_HOME and HF_ENDPOINT)."""
    return subprocess.run(
        [sys.executable, "-m", "digest_tui", *args], capture_output=True, text=True, timeout=120
    )


def papers_json(capsys, *args: str) -> list[dict]:
    code, out, err = cli(capsys, "papers", "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def show_json(capsys, ident: str) -> dict:
    code, out, err = cli(capsys, "show", ident, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---- pages ------------------------------------------------------------------------------


def test_pages_are_read_until_a_short_one(hub, capsys):
    hub.serve("date=2025-06-10", fixture("date_2025-06-10_big.json"))
    code, out, err = cli(capsys, "fetch", "--date", "2025-06-10")
    assert code == 0, err
    assert [(r.params["p"], r.params["limit"]) for r in hub.requests] == [
        ("0", "50"),
        ("1", "50"),
        ("2", "50"),
    ]
    assert "hf-api-2025-06-10" in out.splitlines()
    assert "fetched 1/1 day; 120 papers: 120 new, 0 updated, 0 unchanged" in out
    papers = papers_json(capsys, "--digest", "hf-api-2025-06-10")
    assert len(papers) == 120
    assert all(p["source"] == "hf-api" for p in papers)


def test_a_full_last_page_is_followed_by_an_empty_one(hub, library, home):
    hub.serve("date=2025-06-10", fixture("date_2025-06-10_big.json")[:100])
    report = run_fetch(library, home, day_spec("2025-06-10"))
    assert [r.params["p"] for r in hub.requests] == ["0", "1", "2"]
    assert report.new == 100


def test_a_server_that_ignores_p_does_not_loop_forever(hub, library, home):
    page = fixture("date_2025-06-10_big.json")[:50]
    hub.serve("date=2025-06-10", page)
    for number in range(1, 5):
        hub.fail("date=2025-06-10", number, Canned(200, json.dumps(page).encode()))
    report = run_fetch(library, home, day_spec("2025-06-10"))
    assert len(hub.requests) == 2
    assert report.new == 50
    assert any("page 1 repeats earlier pages; stopped" in w.message for w in report.warnings)


def test_an_empty_day_is_fetched_but_makes_no_digest(hub, capsys, library):
    code, out, err = cli(capsys, "fetch", "--date", "2025-06-07")
    assert code == 0, err
    assert "no papers for: 2025-06-07" in out
    assert "fetched 1/1 day (1 empty); 0 papers" in out
    assert library.digests() == []


# ---- retries ----------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_429_is_retried_after_the_time_the_server_asks(hub, library, home, form):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    value = "7" if form == "seconds" else email.utils.formatdate(time.time() + 7, usegmt=True)
    hub.fail("date=2025-06-05", 0, Canned(429, b'{"error":"slow down"}', {"Retry-After": value}))
    sleeps = Sleeps()
    report = run_fetch(library, home, day_spec("2025-06-05"), sleep=sleeps)
    assert report.ok and report.new == 4 and report.errors == []
    assert [r.status for r in hub.requests] == [429, 200]
    assert len(sleeps) == 1
    assert 5.5 < sleeps[0] <= 7.0  # honoured (an HTTP date has one-second resolution)


def test_5xx_is_retried_with_growing_jittered_backoff(hub, library, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    hub.fail("date=2025-06-05", 0, Canned(500), Canned(503), Canned(502))
    sleeps = Sleeps()
    report = run_fetch(library, home, day_spec("2025-06-05"), sleep=sleeps)
    assert report.ok and report.new == 4
    assert [r.status for r in hub.requests] == [500, 503, 502, 200]
    # Base 1 s doubling, "equal jitter": each wait is in [half, all] of its ceiling.
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0 and 2.0 <= sleeps[2] <= 4.0


def test_a_server_that_keeps_failing_is_given_up_on(hub, library, home):
    hub.fail("date=2025-06-05", 0, *(Canned(500) for _ in range(10)))
    sleeps = Sleeps()
    report = run_fetch(library, home, day_spec("2025-06-05"), sleep=sleeps)
    assert not report.ok
    assert len(hub.requests) == 5 and len(sleeps) == 4
    assert report.errors == [
        f"2025-06-05: GET {hub.url}/api/daily_papers?date=2025-06-05&limit=50&p=0 (page 0): "
        "HTTP 500 Internal Server Error (gave up after 5 attempts)"
    ]


def test_a_retry_after_beyond_reason_is_not_waited_for(hub, library, home):
    hub.fail("date=2025-06-05", 0, Canned(429, b"", {"Retry-After": "3600"}))
    sleeps = Sleeps()
    report = run_fetch(library, home, day_spec("2025-06-05"), sleep=sleeps)
    assert sleeps == [] and len(hub.requests) == 1
    assert "HTTP 429 Too Many Requests; the server asks to wait 3600 s" in report.errors[0]


def test_other_client_errors_are_not_retried(hub, library, home):
    hub.fail("date=2025-06-05", 0, Canned(400, b'{"error":"Invalid date"}'))
    report = run_fetch(library, home, day_spec("2025-06-05"))
    assert len(hub.requests) == 1
    assert report.errors[0].endswith('(page 0): HTTP 400 Bad Request: {"error":"Invalid date"}')


# ---- malformed answers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content_type", "expected"),
    [
        ("error_truncated.json", "application/json", "not JSON (application/json, "),
        ("error_proxy.html", "text/html", "not JSON (text/html, Expecting value"),
        (
            "error_object.json",
            "application/json",
            "expected a JSON list, got object (Invalid date format, expected YYYY-MM-DD)",
        ),
    ],
)
def test_an_answer_that_is_not_a_json_list_is_an_error(
    hub, library, home, name, content_type, expected
):
    body = (FIXTURES / name).read_bytes()
    hub.fail("date=2025-06-05", 0, Canned(200, body, {"Content-Type": content_type}))
    report = run_fetch(library, home, day_spec("2025-06-05"))
    assert not report.ok
    assert expected in report.errors[0]
    assert "(page 0)" in report.errors[0]
    assert library.count() == 0


def test_a_bad_later_page_imports_nothing_of_that_day(hub, library, home):
    hub.serve("date=2025-06-10", fixture("date_2025-06-10_big.json"))
    hub.fail("date=2025-06-10", 2, Canned(200, b'{"error": "boom"}'))
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    report = run_fetch(library, home, day_spec("2025-06-05", "2025-06-10"))
    assert report.errors == [
        f"2025-06-10: GET {hub.url}/api/daily_papers?date=2025-06-10&limit=50&p=2 (page 2): "
        "expected a JSON list, got object (boom)"
    ]
    # No partial day: a digest missing a page would look complete.
    assert [d.id for d in library.digests()] == ["hf-api-2025-06-05"]
    assert report.ok and report.fetched == 1


def test_items_with_missing_or_null_fields(hub, capsys):
    hub.serve("date=2025-06-09", fixture("sparse_fields.json"))
    code, out, err = cli(capsys, "fetch", "--date", "2025-06-09")
    assert code == 0, err
    origin = f"{hub.url}/api/daily_papers?date=2025-06-09&limit=50&p=0"
    for line in (
        f"warning: {origin}: item 4: paper.title: missing; skipped",
        f"warning: {origin}: item 5: paper.id: missing; skipped",
        f"warning: {origin}: item 6: paper: missing; skipped",
        f"warning: {origin}: item 7: expected an object, got string; skipped",
        f"warning: {origin}: item 2: paper.upvotes: expected a count, got 'many'; ignored",
    ):
        assert line in err.splitlines()
    assert "5 papers: 5 new, 0 updated, 0 unchanged; 4 items skipped" in out
    papers = {p["id"]: p for p in papers_json(capsys)}
    assert set(papers) == {"2506.09301", "2506.09302", "2506.09303", "2506.09304", "2506.09306"}
    assert papers["2506.09302"]["abstract"] == "" and papers["2506.09302"]["published"] is None
    assert "\x1b" not in papers["2506.09306"]["title"]


# ---- identity ---------------------------------------------------------------------------


def test_withdrawn_paper(hub, capsys):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    assert cli(capsys, "fetch", "--date", "2025-06-05")[0] == 0
    assert show_json(capsys, "2506.09102")["withdrawn"] is True


def test_the_same_paper_on_two_days_is_one_paper_in_two_digests(hub, library, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    hub.serve("date=2025-06-06", fixture("date_2025-06-06.json"))
    report = run_fetch(library, home, day_spec("2025-06-05", "2025-06-06"))
    assert report.digests == ["hf-api-2025-06-05", "hf-api-2025-06-06"]
    assert (report.new, report.updated) == (5, 1)
    row = library.resolve("2506.09101")
    assert library.digests_of(row["rowid"]) == ["hf-api-2025-06-05", "hf-api-2025-06-06"]
    assert row["upvotes"] == 34  # the later day's count
    assert library.count() == 5


def test_a_paper_imported_from_page_text_gets_its_arxiv_id(hub, home):
    # Driven entirely through `python -m digest_tui` in child processes.
    def papers() -> list[dict]:
        result = run_cli("papers", "--format", "json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    # The packaged catalog knows FlashMoE's arXiv id and would give it at import; a user entry
    # without one replaces it, so the page-text copy is known by its title until the API says.
    overrides = home / "config" / "repro_links"
    overrides.mkdir(parents=True)
    (overrides / "flashmoe.yaml").write_text(
        f'papers:\n  - title: "{FLASHMOE}"\n    repos:\n'
        "      - url: https://github.com/osayamenja/FlashMoE\n",
        encoding="utf-8",
    )
    assert run_cli("import", str(SEED_JAN08)).returncode == 0
    old_id = title_paper_id(FLASHMOE)
    before = papers()
    assert [p["id"] for p in before if p["title"] == FLASHMOE] == [old_id]

    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    result = run_cli("fetch", "--date", "2025-06-05")
    assert result.returncode == 0, result.stderr
    assert "4 papers: 3 new, 1 updated, 0 unchanged" in result.stdout

    after = papers()
    flashmoe = [p for p in after if p["title"] == FLASHMOE]
    assert len(flashmoe) == 1 and len(after) == len(before) + 3
    paper = flashmoe[0]
    assert paper["id"] == paper["arxiv_id"] == "2506.04667"
    assert paper["digests"] == ["hf-api-2025-06-05", "hf-page-2026-01-08"]
    assert paper["authors"] == ["Osayamen Jonathan Aimuyo", "Byungsoo Oh", "Rachee Singh"]
    assert "Mixture-of-Experts" in paper["keywords"]
    repo = next(r for r in paper["repos"] if r["url"].rstrip("/").lower().endswith("/flashmoe"))
    # The API's githubRepo is official; a curated entry, when there is one, is trusted more.
    assert (repo["kind"], repo["owner"]) == ("official", "osayamenja")
    assert repo["source"] in ("hf", "curated")
    assert "moe" in paper["topics"]

    # The old, title-derived id still finds the paper.
    shown = run_cli("show", old_id, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["id"] == "2506.04667"


def test_github_repo_and_keywords_feed_enrichment(hub, capsys):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    assert cli(capsys, "fetch", "--date", "2025-06-05")[0] == 0
    paper = show_json(capsys, "2506.09103")
    # githubRepo becomes the official repo, source "hf", with githubStars.
    assert [(r["url"], r["kind"], r["source"], r["stars"]) for r in paper["repos"]] == [
        ("https://github.com/fixture-lab/router-balance", "official", "hf", 12)
    ]
    # ai_keywords are topic evidence: "Mixture-of-Experts" is only in the keywords.
    assert "moe" in paper["topics"]
    assert any(e["field"] == "keywords" for e in paper["topic_evidence"]["moe"])


# ---- periods ----------------------------------------------------------------------------


def test_a_week_becomes_day_digests(hub, capsys, library):
    hub.serve("week=2025-W23", fixture("week_2025-W23.json"))
    code, out, err = cli(capsys, "fetch", "--week", "2025-W23", "--sort", "trending")
    assert code == 0, err
    assert out.splitlines()[:4] == [
        "hf-api-2025-06-02",
        "hf-api-2025-06-04",
        "hf-api-2025-06-06",
        "hf-api-2025-W23",
    ]
    assert "2 item(s) have no submittedOnDailyAt within 2025-W23" in err
    assert "fetched 1/1 week; 6 papers: 6 new" in out
    assert hub.requests[0].params == {
        "week": "2025-W23",
        "sort": "trending",
        "limit": "50",
        "p": "0",
    }
    counts = {d.id: d.count for d in library.digests()}
    assert counts == {
        "hf-api-2025-06-02": 2,
        "hf-api-2025-06-04": 1,
        "hf-api-2025-06-06": 1,
        "hf-api-2025-W23": 2,
    }


def test_a_month_is_one_query(hub, capsys):
    hub.serve("month=2025-06", fixture("date_2025-06-05.json"))
    code, out, err = cli(capsys, "fetch", "--month", "2025-06")
    assert code == 0, err
    assert [r.params.get("month") for r in hub.requests] == ["2025-06"]
    assert out.splitlines()[0] == "hf-api-2025-06-05"


def test_since_fetches_every_day_in_order_with_progress(hub, library, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    hub.serve("date=2025-06-06", fixture("date_2025-06-06.json"))
    hub.serve("date=2025-06-10", fixture("date_2025-06-10_big.json"))
    spec = FetchSpec.build(since="2025-06-04", today=dt.date(2025, 6, 10))
    calls: list[tuple[int, int, str]] = []
    main_thread = threading.get_ident()

    def progress(done: int, total: int, label: str) -> None:
        assert threading.get_ident() == main_thread
        calls.append((done, total, label))

    report = run_fetch(library, home, spec, progress=progress)
    assert calls == [(0, 7, "")] + [(n, 7, f"2025-06-{3 + n:02d}") for n in range(1, 8)]
    assert sorted(r.params["date"] for r in hub.requests if r.params["p"] == "0") == [
        f"2025-06-{d:02d}" for d in range(4, 11)
    ]
    assert report.digests == ["hf-api-2025-06-05", "hf-api-2025-06-06", "hf-api-2025-06-10"]
    assert report.empty == ["2025-06-04", "2025-06-07", "2025-06-08", "2025-06-09"]
    assert report.new == 125 and report.fetched == 7


# ---- cache, offline ---------------------------------------------------------------------


def test_etag_revalidation_and_ttl(hub, library, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    first = run_fetch(library, home, day_spec("2025-06-05"))
    assert (first.requests, first.downloaded, first.new) == (1, 1, 4)
    etag = hub.requests[0]

    # Within the TTL a past day is not asked for again at all.
    again = run_fetch(library, home, day_spec("2025-06-05"))
    assert again.requests == 0 and again.from_cache == 1 and again.unchanged == 4
    assert len(hub.requests) == 1

    # --refresh revalidates: a conditional request, a 304, nothing downloaded.
    refreshed = run_fetch(library, home, day_spec("2025-06-05", refresh=True))
    assert hub.requests[1].headers["if-none-match"].startswith('W/"')
    assert hub.requests[1].status == 304
    assert (refreshed.requests, refreshed.downloaded, refreshed.not_modified) == (1, 0, 1)
    assert refreshed.bytes == 0 and refreshed.unchanged == 4
    assert etag.headers.get("if-none-match") is None

    # Once the TTL has passed, the cache is revalidated without being asked to.
    later = time.time() + 60 * 86400
    run_fetch(library, home, day_spec("2025-06-05"), now=lambda: later)
    assert hub.requests[2].status == 304

    # A changed list is downloaded again and updates the papers.
    changed = fixture("date_2025-06-05.json")
    changed[0]["paper"]["upvotes"] = 99
    hub.serve("date=2025-06-05", changed)
    updated = run_fetch(library, home, day_spec("2025-06-05", refresh=True))
    assert hub.requests[3].status == 200
    assert (updated.downloaded, updated.updated, updated.unchanged) == (1, 1, 3)
    assert library.resolve("2506.04667")["upvotes"] == 99


def test_offline_imports_from_the_cache_only(hub, capsys, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    assert cli(capsys, "fetch", "--date", "2025-06-05")[0] == 0
    shutil.rmtree(home / "data")  # a new library, the same cache
    seen = len(hub.requests)

    code, out, err = cli(capsys, "fetch", "--offline", "--date", "2025-06-05")
    assert code == 0, err
    assert len(hub.requests) == seen
    assert "fetched 1/1 day (1 from cache); 4 papers: 4 new" in out
    assert len(papers_json(capsys)) == 4

    code, out, err = cli(capsys, "fetch", "--offline", "--date", "2025-06-06")
    assert code == 1
    assert "digest-tui: nothing fetched: 2025-06-06: GET " in err
    assert "offline, and no cached copy" in err
    assert len(hub.requests) == seen


def test_a_network_failure_falls_back_to_the_cache(hub, capsys, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    hub.serve("date=2025-06-10", fixture("date_2025-06-10_big.json"))
    assert cli(capsys, "fetch", "--date", "2025-06-05")[0] == 0
    assert cli(capsys, "fetch", "--date", "2025-06-10")[0] == 0
    hub.stop()  # the same URL now refuses connections

    code, out, err = cli(capsys, "fetch", "--refresh", "--date", "2025-06-10")
    assert code == 0, err
    assert "fetched 1/1 day (1 from cache); 120 papers: 0 new, 0 updated, 120 unchanged" in out
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, err  # one line, not one per page
    assert f"cannot reach {hub.url}: " in warnings[0]
    assert "used cached copies for 3 page(s)" in warnings[0]


def test_connection_refused_is_a_clear_error(home, capsys, monkeypatch):
    endpoint = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    code, _, err = cli(capsys, "fetch", "--date", "2025-06-05")
    assert code == 1
    # One line, leading with the cause.
    assert err.startswith(f"digest-tui: cannot reach {endpoint}: ")
    assert err.count("\n") == 1
    assert "refused" in err.lower()
    assert "; 1 day not fetched (2025-06-05); days fetched before can be imported" in err
    assert "--offline" in err


def test_unreachable_host_is_not_retried_and_fails_fast_for_every_day(home, library, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    sleeps = Sleeps()
    spec = FetchSpec.build(since="2025-06-01", today=dt.date(2025, 6, 10))
    report = run_fetch(library, home, spec, sleep=sleeps)
    assert sleeps == []
    assert report.requests <= 4  # at most one per worker before it is known to be down
    assert not report.ok and len(report.unreached) == 10
    # One error for the ten days, leading with the cause.
    assert len(report.errors) == 1
    assert report.errors[0].startswith("cannot reach http://127.0.0.1:")
    assert report.errors[0].endswith("; 10 days not fetched (2025-06-01..2025-06-10)")


def test_bad_options_and_endpoint_are_reported(home, capsys, monkeypatch):
    code, _, err = cli(capsys, "fetch", "--week", "2025-23")
    assert code == 2 and "digest-tui: --week: expected a week such as 2025-W23" in err
    monkeypatch.setenv("HF_ENDPOINT", "huggingface.co")
    code, _, err = cli(capsys, "fetch", "--date", "2025-06-05")
    assert code == 2 and "HF_ENDPOINT: expected an http(s) URL" in err


def test_a_corrupt_cache_file_is_ignored(hub, library, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    run_fetch(library, home, day_spec("2025-06-05"))
    for path in (home / "cache" / "hf_api").glob("*.json"):
        path.write_text('{"format": 1, "url": "trunc', encoding="utf-8")
    report = run_fetch(library, home, day_spec("2025-06-05"))
    assert report.downloaded == 1 and report.unchanged == 4
    assert "if-none-match" not in hub.requests[-1].headers


# ---- cancellation -----------------------------------------------------------------------


def test_cancel_stops_between_periods_and_keeps_what_was_imported(hub, library, home):
    hub.serve("date=2025-06-05", fixture("date_2025-06-05.json"))
    hub.serve("date=2025-06-06", fixture("date_2025-06-06.json"))
    cancel = threading.Event()

    def progress(done: int, total: int, label: str) -> None:
        if done == 1:
            cancel.set()

    spec = day_spec("2025-06-05", "2025-06-06", "2025-06-07")
    report = run_fetch(library, home, spec, progress=progress, cancel=cancel)
    assert report.digests == ["hf-api-2025-06-05"]
    assert report.errors[-1] == "cancelled before 2025-06-06"
    assert [d.id for d in library.digests()] == ["hf-api-2025-06-05"]


def test_cancel_interrupts_a_backoff_wait(hub, library, home):
    hub.fail("date=2025-06-05", 0, *(Canned(503) for _ in range(10)))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    # The real (default) sleep: a wait that the cancel event ends early.
    report = fetch_days(
        day_spec("2025-06-05"), library=library, cache_dir=home / "cache", cancel=cancel
    )
    assert time.monotonic() - started < 3.0  # the backoff schedule alone is over 7 s
    assert not report.ok
    assert "cancelled" in " ".join(report.errors)


# ---- hostile answers --------------------------------------------------------------------


def test_absurdly_nested_json_is_an_error_for_that_day_only(hub, library, home):
    hub.serve("date=2025-06-06", fixture("date_2025-06-06.json"))
    nested = b"[" * 200_000 + b"]" * 200_000
    hub.fail("date=2025-06-05", 0, Canned(200, nested, {"Content-Type": "application/json"}))
    report = run_fetch(library, home, day_spec("2025-06-05", "2025-06-06"))
    assert report.digests == ["hf-api-2025-06-06"]
    assert len(report.errors) == 1
    assert report.errors[0].startswith("2025-06-05: GET ")
    assert "(page 0): not JSON (application/json, JSON nested too deeply" in report.errors[0]
