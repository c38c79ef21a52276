"""`digest-tui artifacts`: Hub repos citing a paper, from a real HTTP server on 127.0.0.1.

The server answers `/api/{models,datasets,spaces}?filter=arxiv:<id>` with the listings in
fixtures/hf_artifacts/ (an empty list for any other paper), with an ETag and 304 answers to
If-None-Match, and records every request. Failures are queued per path.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.errors import FetchError
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.service import open_library
from digest_tui.sources.hf_artifacts import cached_hub_artifacts, fetch_artifacts
from digest_tui.sources.hf_cache import ResponseCache
from digest_tui.sources.hf_client import HfClient
from tests.support.loopback import serve_answers

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_artifacts"
FLASHMOE = "2506.04667"


@dataclass
class Reply:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeHub:
    url: str = ""
    requests: list[tuple[str, dict[str, str], dict[str, str]]] = field(default_factory=list)
    queued: dict[str, deque[Reply]] = field(default_factory=dict)
    server: ExitStack = field(default_factory=ExitStack)

    def stop(self) -> None:
        """Stop listening: from now on a connection is refused, as for a host that is down."""
        self.server.close()

    def serve(self, path: str, query: str, headers: dict[str, str]) -> Reply:
        params = {k: v[0] for k, v in parse_qs(query).items()}
        self.requests.append((path, params, headers))
        return self.answer(path, params, headers)

    def queue(self, path: str, *replies: Reply) -> None:
        self.queued.setdefault(path, deque()).extend(replies)

    def answer(self, path: str, params: dict[str, str], headers: dict[str, str]) -> Reply:
        if self.queued.get(path):
            return self.queued[path].popleft()
        kind = path.removeprefix("/api/")
        if kind not in ("models", "datasets", "spaces"):
            return Reply(404, b'{"error": "not found"}')
        arxiv = params.get("filter", "").removeprefix("arxiv:")
        file = FIXTURES / f"{kind}_{arxiv}.json"
        body = file.read_bytes() if file.exists() else b"[]"
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if headers.get("if-none-match") == etag:
            return Reply(304, headers={"ETag": etag})
        return Reply(200, body, {"ETag": etag, "Content-Type": "application/json"})


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    fake = FakeHub()
    fake.url = fake.server.enter_context(serve_answers(fake.serve))
    monkeypatch.setenv("HF_ENDPOINT", fake.url)
    try:
        yield fake
    finally:
        fake.stop()


def add_papers(*papers: Paper) -> None:
    ctx = AppContext()
    library = open_library(ctx)
    library.set_meta("sample_loaded", "1")
    library.import_parsed(
        ParsedDigest(
            digest=Digest(
                id="t",
                source="test",
                date="2025-06-05",
                title="t",
                paper_ids=[p.id for p in papers],
            ),
            papers=list(papers),
        )
    )
    ctx.close()


FLASH = Paper(id=FLASHMOE, title="FlashMoE: Fast Distributed MoE", arxiv_id=FLASHMOE)
NO_ARXIV = Paper(id="a-title-only-paper-1234abcd", title="A Title-Only Paper")
QUIET = Paper(id="2506.09101", title="A paper nobody cites", arxiv_id="2506.09101")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_lists_models_datasets_and_spaces_most_liked_first(home, hub, capsys):
    add_papers(FLASH)
    code, out, err = run(capsys, "artifacts", FLASHMOE)
    assert code == 0, err
    assert json.loads(out) == {
        "models": [
            {
                "id": "flashmoe-org/FlashMoE-8x1B",
                "likes": 42,
                "downloads": 1203,
                "url": f"{hub.url}/flashmoe-org/FlashMoE-8x1B",
            },
            {
                "id": "someone/flashmoe-gguf",  # only `modelId` in the answer
                "likes": 3,
                "downloads": 88,
                "url": f"{hub.url}/someone/flashmoe-gguf",
            },
            {
                "id": "lab/FlashMoE-ablation-no-fusion",
                "likes": 0,
                "downloads": None,
                "url": f"{hub.url}/lab/FlashMoE-ablation-no-fusion",
            },
        ],
        "datasets": [
            {
                "id": "flashmoe-org/moe-kernel-traces",
                "likes": 7,
                "downloads": 315,
                "url": f"{hub.url}/datasets/flashmoe-org/moe-kernel-traces",
            }
        ],
        "spaces": [
            {
                "id": "flashmoe-org/flashmoe-demo",
                "likes": 12,
                "downloads": None,
                "url": f"{hub.url}/spaces/flashmoe-org/flashmoe-demo",
            },
            {
                "id": "fan/moe-explorer",
                "likes": None,  # `true` is not a count
                "downloads": None,
                "url": f"{hub.url}/spaces/fan/moe-explorer",
            },
        ],
    }
    # The escape-laden id and the non-object item were dropped, and said so.
    assert "warning: models: 2 item(s) without a usable repo id skipped" in err
    assert "\x1b" not in out + err
    assert [(path, params["filter"]) for path, params, _ in hub.requests] == [
        ("/api/models", "arxiv:2506.04667"),
        ("/api/datasets", "arxiv:2506.04667"),
        ("/api/spaces", "arxiv:2506.04667"),
    ]


def test_cached_for_a_day_revalidated_on_refresh_and_offline_from_cache(home, hub, capsys):
    add_papers(FLASH)
    first = run(capsys, "artifacts", FLASHMOE)[1]
    assert len(hub.requests) == 3
    assert run(capsys, "artifacts", FLASHMOE)[1] == first
    assert len(hub.requests) == 3  # fresh cache: no request at all

    code, out, _ = run(capsys, "artifacts", FLASHMOE, "--refresh")
    assert code == 0 and out == first
    assert len(hub.requests) == 6
    assert all(headers.get("if-none-match") for _, _, headers in hub.requests[3:])

    code, out, _ = run(capsys, "artifacts", FLASHMOE, "--offline", "--format", "table")
    assert code == 0 and len(hub.requests) == 6
    lines = out.splitlines()
    assert lines[0].split() == ["KIND", "LIKES", "DOWNLOADS", "URL"]
    assert lines[1].split() == ["model", "42", "1,203", f"{hub.url}/flashmoe-org/FlashMoE-8x1B"]
    assert len(lines) == 1 + 3 + 1 + 2


def test_server_down_uses_the_cache_with_a_warning(home, hub, capsys):
    add_papers(FLASH)
    first = run(capsys, "artifacts", FLASHMOE)[1]
    hub.stop()
    code, out, err = run(capsys, "artifacts", FLASHMOE, "--refresh")
    assert code == 0 and out == first
    assert err.startswith("warning: ") and "used the cached copy" in err


def test_no_cache_and_no_network_is_exit_1_in_one_line(home, capsys):
    add_papers(FLASH)  # HF_ENDPOINT is http://127.0.0.1:9 (conftest): refused at once
    code, out, err = run(capsys, "artifacts", FLASHMOE)
    assert (code, out) == (1, "")
    assert err.startswith("digest-tui: ") and err.count("\n") == 1
    assert "127.0.0.1:9" in err and "--offline" in err
    code, _, err = run(capsys, "artifacts", FLASHMOE, "--offline")
    assert code == 1 and "offline, and no cached copy" in err


def test_paper_without_arxiv_id_is_exit_2(home, hub, capsys):
    add_papers(NO_ARXIV)
    code, out, err = run(capsys, "artifacts", NO_ARXIV.id)
    assert (code, out) == (2, "")
    assert err == (
        "digest-tui: a-title-only-paper-1234abcd: no arXiv id is known for this paper, and "
        "the Hub links repos to papers by arXiv id\n"
    )
    assert hub.requests == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(404, b'{"error": "Repository not found"}'), "HTTP 404"),
        (Reply(200, b"<html>captive portal</html>", {"Content-Type": "text/html"}), "not JSON"),
        (Reply(200, b"[" * 100_000 + b"]" * 100_000), "not JSON"),
        (Reply(200, b'{"error": "Invalid filter"}'), "expected a JSON list, got object"),
    ],
)
def test_bad_answers_are_one_line_errors(home, hub, capsys, reply, expected):
    add_papers(FLASH)
    hub.queue("/api/models", reply)
    code, out, err = run(capsys, "artifacts", FLASHMOE)
    assert (code, out) == (1, "")
    assert err.startswith("digest-tui: GET ") and expected in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_retries_a_busy_hub_and_refuses_an_oversized_answer(home, hub, tmp_path):
    hub.queue("/api/models", Reply(503), Reply(429, headers={"Retry-After": "0"}))
    waits: list[float] = []
    with HfClient(cache=ResponseCache(tmp_path), sleep=waits.append) as client:
        found = fetch_artifacts(FLASHMOE, cache_dir=tmp_path, client=client)
    assert [a.id for a in found.models][:1] == ["flashmoe-org/FlashMoE-8x1B"]
    assert [path for path, _, _ in hub.requests].count("/api/models") == 3
    assert waits  # it waited and asked again instead of failing

    with (
        HfClient(cache=None, max_body=1_000, sleep=waits.append) as client,
        pytest.raises(FetchError, match="larger"),
    ):
        hub.queue("/api/models", Reply(200, b"[" + b'{"id": "a/b"},' * 500 + b'{"id": "c"}]'))
        fetch_artifacts(FLASHMOE, cache_dir=tmp_path / "other", client=client)


def test_cached_hub_artifacts_answers_from_the_cache_only(home, hub, capsys):
    add_papers(FLASH, QUIET)
    cache_dir = AppContext().paths.cache_dir
    assert cached_hub_artifacts(FLASHMOE, cache_dir) is None  # never fetched
    assert run(capsys, "artifacts", FLASHMOE)[0] == 0
    assert run(capsys, "artifacts", QUIET.id)[0] == 0
    requests = len(hub.requests)
    assert cached_hub_artifacts(FLASHMOE, cache_dir) is True
    assert cached_hub_artifacts(QUIET.id, cache_dir) is False  # both listings cached, empty
    assert len(hub.requests) == requests


# ---- the artifact index and the bounded prefetch after a fetch (has:weights) -------------------


def test_prefetch_is_bounded_skips_known_papers_and_feeds_the_index(home, hub):
    from digest_tui.sources.hf_artifacts import ArtifactIndex, prefetch_artifacts

    cache_dir = AppContext().paths.cache_dir
    ids = [FLASHMOE, "2506.09101", "2506.09102", "2506.09103"]
    assert prefetch_artifacts(ids, cache_dir, limit=2) == 2
    assert len(hub.requests) == 6  # two papers, three listings each; the rest wait
    index = ArtifactIndex(cache_dir)
    assert index.with_weights() == frozenset({FLASHMOE})
    assert index.known("2506.09101") and not index.known("2506.09102")
    # Known papers are not asked again: the next call takes the next two.
    assert prefetch_artifacts(ids, cache_dir, limit=2) == 2
    assert {p["filter"] for _, p, _ in hub.requests[6:]} == {
        "arxiv:2506.09102",
        "arxiv:2506.09103",
    }
    assert prefetch_artifacts(ids, cache_dir, limit=2) == 0


def test_prefetch_stops_at_the_first_failure(home, hub):
    from digest_tui.sources.hf_artifacts import prefetch_artifacts

    hub.stop()  # connection refused from now on
    cache_dir = AppContext().paths.cache_dir
    assert prefetch_artifacts([FLASHMOE, "2506.09101"], cache_dir, limit=10) == 0


def test_a_corrupt_index_file_is_started_afresh(home, hub):
    from digest_tui.sources.hf_artifacts import ArtifactIndex

    cache_dir = AppContext().paths.cache_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    (cache_dir / ArtifactIndex.FILE).write_bytes(b"not a database" * 100)
    add_papers(FLASH)
    assert run_ok(["artifacts", FLASHMOE])
    assert ArtifactIndex(cache_dir).with_weights() == frozenset({FLASHMOE})


def run_ok(args: list[str]) -> bool:
    return main(args) == 0


def test_fetch_with_artifacts_asks_the_hub_about_the_fetched_papers(home, hub, capsys):
    day = Path(__file__).resolve().parents[2] / "fixtures" / "hf_api" / "date_2025-06-05.json"
    hub.queue("/api/daily_papers", Reply(200, day.read_bytes(), {"ETag": '"d1"'}))
    code = main(["fetch", "--date", "2025-06-05", "--artifacts", "3"])
    _, err = capsys.readouterr()
    assert code == 0 and "Hub artifacts: asked about 3 papers" in err
    listed = [p["filter"] for path, p, _ in hub.requests if path != "/api/daily_papers"]
    # Bounded: three papers (newest arXiv ids first), three listings each; FlashMoE waits.
    assert len(listed) == 9 and "arxiv:2506.04667" not in listed
    assert main(["papers", "--search", "has:weights", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr()[0]) == []
    hub.queue("/api/daily_papers", Reply(200, day.read_bytes(), {"ETag": '"d1"'}))
    assert main(["fetch", "--date", "2025-06-05", "--refresh", "--artifacts"]) == 0
    listed = [p["filter"] for path, p, _ in hub.requests if path != "/api/daily_papers"]
    assert len(listed) == 12 and listed[9:] == ["arxiv:2506.04667"] * 3  # only the one left
    capsys.readouterr()
    code = main(["papers", "--search", "has:weights", "--format", "json"])
    out, _ = capsys.readouterr()
    assert code == 0 and [p["id"] for p in json.loads(out)] == [FLASHMOE]


def test_fetch_without_artifacts_asks_the_hub_nothing_more(home, hub, capsys):
    day = Path(__file__).resolve().parents[2] / "fixtures" / "hf_api" / "date_2025-06-05.json"
    hub.queue("/api/daily_papers", Reply(200, day.read_bytes()))
    assert main(["fetch", "--date", "2025-06-05"]) == 0
    assert [path for path, _, _ in hub.requests] == ["/api/daily_papers"]
