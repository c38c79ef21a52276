"""`show` with Hub artifacts and repo readiness, `has:weights`, `has:runnable` and the
`reproducible`/`readiness` sorts, end to end through the CLI against two loopback servers:
the fake Hub of test_cli_artifacts (recorded listings) and a GitHub API replaying recorded
root listings and READMEs (fixtures/github/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from digest_tui.models import Paper
from tests.e2e import test_cli_artifacts as hub_tests
from tests.e2e.test_cli_artifacts import FLASHMOE, add_papers, run
from tests.support.loopback import Recorded, serve

hub = hub_tests.hub  # the fake Hub fixture (sets HF_ENDPOINT)
GITHUB = Path(__file__).resolve().parents[2] / "fixtures" / "github"


def recorded(name: str) -> Recorded:
    return Recorded(200, (GITHUB / name).read_bytes())


# FlashMoE: Hub weights (fixtures/hf_artifacts) and a ready repo; BARE: code, no weights, a
# bare repo; PLAIN: nothing.
FLASH = Paper(
    id=FLASHMOE,
    title="FlashMoE: Fast Distributed MoE",
    arxiv_id=FLASHMOE,
    github_repo="https://github.com/sys-lab/flashserve-ae",
)
BARE = Paper(
    id="2506.09101",
    title="Bare kernels",
    arxiv_id="2506.09101",
    github_repo="https://github.com/someone/bare-kernels",
)
PLAIN = Paper(id="2506.09102", title="A plain paper", arxiv_id="2506.09102")

ROUTES = {
    "/repos/sys-lab/flashserve-ae/contents/": recorded("contents_ae_repo.json"),
    "/repos/sys-lab/flashserve-ae/readme": recorded("readme_ae_repo.json"),
    "/repos/someone/bare-kernels/contents/": recorded("contents_bare_repo.json"),
    "/repos/someone/bare-kernels/readme": recorded("readme_bare_repo.json"),
}


def ids(capsys, *args: str) -> list[str]:
    code, out, err = run(capsys, "papers", "--format", "json", *args)
    assert code == 0, err
    return [p["id"] for p in json.loads(out)]


@pytest.fixture
def library(home, hub, monkeypatch):  # type: ignore[no-untyped-def]
    add_papers(FLASH, BARE, PLAIN)
    with serve(dict(ROUTES)) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        yield github


def test_show_json_carries_artifacts_and_readiness(library, capsys) -> None:
    code, out, err = run(capsys, "show", FLASHMOE, "--format", "json")
    assert code == 0, err
    paper = json.loads(out)
    assert [m["id"] for m in paper["artifacts"]["models"]][:1] == ["flashmoe-org/FlashMoE-8x1B"]
    # Its own repo, and the curated catalog's osayamenja/FlashMoE (404 here: gone).
    by_repo = {r["repo"]: r for r in paper["readiness"]}
    assert by_repo["osayamenja/FlashMoE"]["status"] == "gone"
    ready = by_repo["sys-lab/flashserve-ae"]
    assert ready["repo"] == "sys-lab/flashserve-ae" and ready["status"] == "ok"
    assert ready["files"][:2] == ["docker", "reqs"]
    assert "reproduce" in ready["readme_sections"] and ready["badges"] == [
        "available",
        "functional",
    ]
    assert ready["runnable"] is True and ready["weights"] is True
    # The rest of the paper object is the contract as before.
    assert paper["id"] == FLASHMOE and "machine_fit" not in paper


def test_show_text_has_one_readiness_line_per_repo(library, capsys) -> None:
    code, out, _ = run(capsys, "show", FLASHMOE)
    assert code == 0
    lines = out.splitlines()
    start = lines.index("readiness:")
    shown = [line for line in lines[start + 1 : start + 3] if "sys-lab" in line]
    assert shown[0].startswith("  sys-lab/flashserve-ae: ready: docker, reqs")
    assert shown[0].endswith("· weights")
    assert "weights & data:" in lines


def test_filters_and_sorts_read_what_was_fetched(library, capsys) -> None:
    # Nothing fetched yet: no paper is known to have weights or a runnable repo.
    assert ids(capsys, "--search", "has:weights") == []
    assert ids(capsys, "--search", "has:runnable") == []
    for paper in (FLASHMOE, "2506.09101", "2506.09102"):
        assert run(capsys, "show", paper, "--format", "json")[0] == 0
    assert ids(capsys, "--search", "has:weights") == [FLASHMOE]
    assert ids(capsys, "--search", "has:runnable") == [FLASHMOE]
    assert sorted(ids(capsys, "--search=-has:weights")) == ["2506.09101", "2506.09102"]
    # FlashMoE: code + weights; bare kernels: code only; the plain paper: nothing.
    assert ids(capsys, "--sort", "reproducible") == [FLASHMOE, "2506.09101", "2506.09102"]
    assert ids(capsys, "--sort", "readiness")[0] == FLASHMOE
    assert ids(capsys, "--search", "sort:reproducible")[0] == FLASHMOE


def test_offline_show_reads_the_caches_only(library, capsys) -> None:
    assert run(capsys, "show", FLASHMOE, "--format", "json")[0] == 0
    asked = len(library.requests)
    code, out, _ = run(capsys, "show", FLASHMOE, "--format", "json", "--offline")
    assert code == 0 and len(library.requests) == asked
    paper = json.loads(out)
    by_repo = {r["repo"]: r for r in paper["readiness"]}
    assert by_repo["sys-lab/flashserve-ae"]["runnable"] is True and paper["artifacts"]["models"]
