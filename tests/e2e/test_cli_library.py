"""The CLI contract (docs/user-guide.md): import, papers and show, on a fresh DIGEST_TUI_HOME."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from digest_tui.cli import main
from tests.support.paths import ALL_SEEDS, SEED_DEC10

CONTRACT_FIELDS = {
    "id",
    "title",
    "abstract",
    "published",
    "upvotes",
    "topics",
    "topic_evidence",
    "repos",
    "hardware",
    "bookmarked",
    "tags",
    "read",
}
TOPICS = {"kernels", "moe", "serving", "training-parallelism"}
REPO_FIELDS = {"url", "host", "owner", "name", "kind", "source"}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def papers_json(capsys, *args: str) -> list[dict]:
    code, out, err = run(capsys, "papers", "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def test_first_use_loads_the_sample_library_and_json_follows_the_contract(home, capsys):
    papers = papers_json(capsys)
    assert len(papers) == 152
    for paper in papers:
        assert paper.keys() >= CONTRACT_FIELDS
        assert set(paper["topics"]) <= TOPICS
        assert set(paper["topic_evidence"]) == set(paper["topics"])
        for repo in paper["repos"]:
            assert repo.keys() >= REPO_FIELDS
            assert repo["source"] in {"abstract", "curated", "hf", "user", "pwc"}
        hardware = paper["hardware"]
        if hardware is not None:
            assert {"target", "scale", "devices", "memory_gb", "confidence", "evidence"} <= (
                hardware.keys()
            )
            assert hardware["scale"] in {
                "single-device",
                "single-node",
                "multi-node",
                "edge",
                "unknown",
            }
            assert hardware["confidence"] in {"high", "medium", "low"}
        assert paper["bookmarked"] in (True, False) and paper["read"] in (True, False)
        assert isinstance(paper["tags"], list)


def test_jsonl_matches_json(home, capsys):
    as_json = papers_json(capsys, "--topic", "moe")
    code, out, _ = run(capsys, "papers", "--topic", "moe", "--format", "jsonl")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == as_json
    assert as_json and all("moe" in p["topics"] for p in as_json)


def test_flashmoe_has_its_repo_from_the_abstract(home, capsys):
    code, out, _ = run(capsys, "show", "flashmoe", "--format", "json")
    assert code == 0
    paper = json.loads(out)
    assert paper["title"] == "FlashMoE: Fast Distributed MoE in a Single Kernel"
    assert "moe" in paper["topics"]
    urls = {(r["host"], r["owner"].lower(), r["name"].lower()) for r in paper["repos"]}
    assert ("github.com", "osayamenja", "flashmoe") in urls
    assert len(paper["digests"]) == 4


def test_topic_other_and_search_filters(home, capsys):
    other = papers_json(capsys, "--topic", "other")
    assert other and all(p["topics"] == [] for p in other)
    found = papers_json(capsys, "--search", "megatron")
    assert any("Megatron-LM" in p["title"] for p in found)
    limited = papers_json(capsys, "--search", "topic:kernels", "--limit", "3")
    assert len(limited) == 3 and all("kernels" in p["topics"] for p in limited)


def test_table_output_and_show_text(home, capsys):
    code, out, _ = run(capsys, "papers", "--topic", "kernels")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["ID", "PUBLISHED", "UP", "CODE", "TOPICS"]
    assert len(lines) > 10
    code, out, _ = run(capsys, "show", "galvatron")
    assert code == 0
    assert out.startswith("Galvatron: Automatic Distributed Training for Large Transformer")


def test_import_is_idempotent_and_reports(home, capsys):
    code, out, _ = run(capsys, "import", *map(str, ALL_SEEDS))
    assert code == 0
    assert "152 new" in out.splitlines()[-1]
    code, out, _ = run(capsys, "import", str(SEED_DEC10))
    assert code == 0
    assert out.splitlines()[-1].endswith("0 new, 0 updated, 64 unchanged papers")
    assert len(papers_json(capsys)) == 152


def test_import_bad_files_names_them_and_imports_the_rest(home, capsys, tmp_path):
    missing = tmp_path / "missing.txt"
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n\neggs\n", encoding="utf-8")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, out, err = run(capsys, "import", str(missing), str(notes), str(binary), str(SEED_DEC10))
    assert code == 1
    assert f"{missing}:" in err and f"{notes}: no page date found" in err
    assert f"{binary}: not UTF-8" in err
    assert "imported 1 of 4 files: 64 new" in out
    assert len(papers_json(capsys)) == 64  # the sample library is not added after an import


def test_unknown_id_is_a_clear_error(home, capsys):
    code, _, err = run(capsys, "show", "no-such-paper")
    assert code == 2
    assert "no paper with id 'no-such-paper'" in err


@pytest.mark.parametrize("command", ["papers", "export"])
@pytest.mark.parametrize("limit", ["0", "-1", "ten"])
def test_a_limit_below_one_is_refused(home, capsys, command, limit):
    # SQLite reads `LIMIT -1` as no limit at all: `--limit -1` listed every paper.
    with pytest.raises(SystemExit) as stop:
        main([command, "--limit", limit])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "--limit" in err and ("at least 1" in err or "whole number" in err)


@pytest.mark.parametrize(
    "argv", [["-m", "digest_tui", "--help"], ["-m", "digest_tui", "--version"]]
)
def test_python_dash_m_entry_point(home, argv):
    result = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "digest-tui" in result.stdout
