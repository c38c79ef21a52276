"""`digest-tui links readiness`: the repos of the newest papers checked in bulk against a
loopback GitHub API replaying recorded root listings and READMEs (fixtures/github/), so
`has:runnable` knows papers nobody opened; the cache, `--offline`, a rate limit and an
unreachable host."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from digest_tui.config import AppContext
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.service import open_library
from tests.e2e.test_cli_artifacts import run
from tests.support.loopback import Recorded, serve

GITHUB = Path(__file__).resolve().parents[2] / "fixtures" / "github"

NEW = Paper(
    id="2506.09201",
    title="Newest paper with a ready repo",
    arxiv_id="2506.09201",
    github_repo="https://github.com/sys-lab/flashserve-ae",
)
OLD = Paper(
    id="2506.09202",
    title="Older paper with a bare repo",
    arxiv_id="2506.09202",
    github_repo="https://github.com/someone/bare-kernels",
)
PLAIN = Paper(id="2506.09203", title="No code at all", arxiv_id="2506.09203")


def recorded(name: str, **headers: str) -> Recorded:
    return Recorded(
        200, (GITHUB / name).read_bytes(), {"Content-Type": "application/json", **headers}
    )


ROUTES = {
    "/repos/sys-lab/flashserve-ae/contents/": recorded("contents_ae_repo.json", ETag='"c"'),
    "/repos/sys-lab/flashserve-ae/readme": recorded("readme_ae_repo.json", ETag='"r"'),
    "/repos/someone/bare-kernels/contents/": recorded("contents_bare_repo.json"),
    "/repos/someone/bare-kernels/readme": recorded("readme_bare_repo.json"),
}


def add(paper: Paper, date: str) -> None:
    library = open_library(AppContext())
    library.set_meta("sample_loaded", "1")
    library.import_parsed(
        ParsedDigest(
            digest=Digest(
                id=f"d-{date}", source="test", date=date, title="t", paper_ids=[paper.id]
            ),
            papers=[paper],
        )
    )
    library.close()


@pytest.fixture
def papers(home) -> None:  # type: ignore[no-untyped-def]
    add(OLD, "2025-06-01")
    add(NEW, "2025-06-05")
    add(PLAIN, "2025-06-06")


def ids(capsys, *args: str) -> list[str]:
    code, out, err = run(capsys, "papers", "--format", "json", *args)
    assert code == 0, err
    return [p["id"] for p in json.loads(out)]


def test_newest_first_within_the_limit_then_has_runnable_knows_them(papers, capsys, monkeypatch):
    with serve(dict(ROUTES)) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        assert ids(capsys, "--search", "has:runnable") == []
        code, out, err = run(capsys, "links", "readiness", "--limit", "1")
        assert code == 0, err
        # Only the newest paper with code: its repo, never the older paper's.
        assert all("bare-kernels" not in path for path in github.requests)
        assert out.splitlines() == [
            next(line for line in out.splitlines() if line.startswith("sys-lab/flashserve-ae: "))
        ]
        assert "ready: docker, reqs" in out
        assert "1 paper: 1 repos checked: 1 runnable" in err
        assert ids(capsys, "--search", "has:runnable") == [NEW.id]  # without `show`

        code, out, err = run(capsys, "links", "readiness", "--format", "json")
        assert code == 0, err
        by_repo = {r["repo"]: r for r in json.loads(out)}
        assert list(by_repo) == ["sys-lab/flashserve-ae", "someone/bare-kernels"]
        assert by_repo["someone/bare-kernels"]["status"] == "ok"
        assert by_repo["someone/bare-kernels"]["runnable"] is False
        # The newest repo came from the cache (24 h): asked once in all.
        asked = [p for p in github.requests if "flashserve-ae" in p]
        assert len(asked) == 2

        before = len(github.requests)
        code, out, err = run(capsys, "links", "readiness", "--offline")
        assert code == 0 and len(github.requests) == before
        assert "repos from the cache" in err


def test_offline_without_a_cache_says_not_checked(papers, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{_closed_port()}")
    code, out, err = run(capsys, "links", "readiness", "--offline")
    assert code == 0, err
    assert "sys-lab/flashserve-ae: readiness unknown: not checked yet" in out
    assert "2 repos from the cache: 0 runnable" in err


def test_a_rate_limit_stops_the_batch_with_one_line(papers, capsys, monkeypatch):
    limited = Recorded(
        403,
        (GITHUB / "error_rate_limit.json").read_bytes(),
        {"Content-Type": "application/json", "X-RateLimit-Remaining": "0", "Retry-After": "600"},
    )
    routes = {path: limited for path in ROUTES}
    with serve(routes) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        code, out, err = run(capsys, "links", "readiness")
        assert code == 1 and out == ""
        errors = [line for line in err.splitlines() if line.startswith("digest-tui: ")]
        assert len(errors) == 1, err
        assert errors[0].startswith("digest-tui: GitHub rate limit reached; retrying after ")
        assert errors[0].endswith("2 repos not checked")
        asked = len(github.requests)
        # The back-off is kept in the cache: the next run does not ask at all.
        code, _, err = run(capsys, "links", "readiness")
        assert code == 1 and len(github.requests) == asked
        assert "GitHub rate limit reached" in err


def test_an_unreachable_host_is_one_line_and_exit_1(papers, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{_closed_port()}")
    code, out, err = run(capsys, "links", "readiness")
    assert code == 1 and out == ""
    errors = [line for line in err.splitlines() if line.startswith("digest-tui: ")]
    assert len(errors) == 1 and "cannot reach" in errors[0], err
    assert errors[0].endswith("2 repos not checked")
    assert "Traceback" not in err


def test_limit_must_be_positive(papers, capsys):
    with pytest.raises(SystemExit) as stop:
        run(capsys, "links", "readiness", "--limit", "0")
    assert stop.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
