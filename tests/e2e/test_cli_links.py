"""`links check`, `links import-pwc`, `links health` and `open` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from digest_tui.cli import main
from tests.support.loopback import Recorded, serve
from tests.support.paths import ROOT

GITHUB_FIXTURE = (ROOT / "fixtures" / "github" / "repo_megatron_lm.json").read_bytes()


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_links_check_passes_on_the_packaged_catalog(home, capsys):
    code, out, err = run(capsys, "links", "check")
    assert code == 0, err
    assert out.startswith("ok: ") and "papers" in out


def test_links_check_reports_file_line_and_problem(home, capsys, tmp_path: Path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.yaml").write_text(
        "papers:\n"
        "  - title: A Paper\n"
        "    repos:\n"
        "      - url: javascript:alert(1)\n"
        "        kind: official\n"
        "    colour: blue\n",
        encoding="utf-8",
    )
    code, _, err = run(capsys, "links", "check", str(bad))
    assert code == 2
    assert f"{bad / 'x.yaml'}:" in err
    assert "colour" in err
    assert f"digest-tui: 1 problem in {bad}\n" in err


def test_import_pwc_adds_repos_to_library_papers(home, capsys):
    code, out, err = run(
        capsys, "links", "import-pwc", str(ROOT / "fixtures" / "pwc" / "links-sample.json.gz")
    )
    assert code == 0, err
    assert "repos added to" in out
    code, out, _ = run(capsys, "show", "efficient-large-scale-language", "--format", "json")
    paper = json.loads(out)
    sources = {(r["owner"], r["name"]): (r["kind"], r["source"]) for r in paper["repos"]}
    assert sources[("bigscience-workshop", "Megatron-DeepSpeed")] == ("community", "pwc")
    # Importing again adds nothing.
    code, out, _ = run(
        capsys, "links", "import-pwc", str(ROOT / "fixtures" / "pwc" / "links-sample.json.gz")
    )
    assert ": 0 repos added to 0 papers" in out


def test_open_print_and_refusals(home, capsys):
    code, out, _ = run(capsys, "open", "flashmoe", "--print")
    assert code == 0 and out.strip() == "https://github.com/osayamenja/FlashMoE"
    code, out, _ = run(capsys, "open", "galvatron", "--paper", "--print")
    assert out.startswith("https://arxiv.org/search/?searchtype=title&query=Galvatron")
    code, _, err = run(capsys, "open", "flashmoe", "--repo", "9", "--print")
    assert code == 2 and "--repo 9" in err


def test_links_health_against_a_loopback_github(home, capsys, monkeypatch):
    routes = {"/repos/osayamenja/FlashMoE": Recorded(200, GITHUB_FIXTURE)}
    with serve(routes) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        code, out, err = run(capsys, "links", "health", "flashmoe", "--format", "json")
        assert code == 0, err
        [health] = json.loads(out)
        assert health["status"] == "ok" and health["stars"] > 0
        assert github.requests == ["/repos/osayamenja/FlashMoE"]
        # Within the time to live: from the cache, no request.
        code, out, _ = run(capsys, "links", "health", "flashmoe")
        assert "★" in out and len(github.requests) == 1


def test_links_health_offline_is_one_line_and_status_1(home, capsys):
    # The home fixture points GITHUB_API_URL at a closed loopback port: connection refused.
    code, out, err = run(capsys, "links", "health")
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("digest-tui: cannot reach http://127.0.0.1:9: ")
    assert "refused" in err.lower() and "repos not checked" in err
    # It stopped after the first failure: at most one attempt per worker reached the network.
    from digest_tui.repohealth import HealthCache

    with HealthCache(home / "cache" / "repo_health.sqlite3") as cache:
        tried = cache.count()
    unchecked = int(err.split("; ")[-1].split()[0])
    assert 1 <= tried <= 4 < unchecked
