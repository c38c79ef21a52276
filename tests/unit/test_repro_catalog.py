"""The curated repro-links catalog: the shipped data, the checker, overrides and lookup."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from digest_tui.enrich.repro_catalog import (
    CatalogProblem,
    catalog_dirs,
    catalog_repos,
    check_catalog,
    load_catalog,
    load_catalog_dirs,
    packaged_dir,
    parse_repo_url,
    url_problem,
)

ROOT = Path(__file__).resolve().parents[2]


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def problems_in(tmp_path: Path, text: str) -> list[CatalogProblem]:
    write(tmp_path / "cat", "papers.yaml", text)
    return check_catalog([tmp_path / "cat"])


GOOD = """
papers:
  - arxiv: "2205.14135"
    title: "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness"
    topics: [kernels]
    hardware: ["A100 40GB"]
    repos:
      - url: https://github.com/Dao-AILab/flash-attention
        kind: official
        framework: CUDA
        notes: "flash-attn"
  - title: "Mélange: Cost Efficient Large Language Model Serving by Exploiting GPU Heterogeneity"
    repos:
      - url: https://github.com/tyler-griggs/melange-release
"""


# --- the shipped catalog --------------------------------------------------------------------


def test_packaged_catalog_checks_clean_and_is_large() -> None:
    shipped = packaged_dir()
    assert shipped is not None and shipped == ROOT / "repro_links"
    assert check_catalog([shipped]) == []
    catalog = load_catalog_dirs([shipped])
    assert len(catalog) >= 150
    assert sum(1 for entry in catalog.entries if entry.hardware) >= 20
    for entry in catalog.entries:
        assert entry.repos, entry.origin
        for repo in entry.repos:
            assert url_problem(repo.url) is None


def test_every_catalog_repo_is_recorded_as_confirmed() -> None:
    """Each repo must have a line in CONFIRMED.md saying how it was confirmed to exist."""
    confirmed = (ROOT / "repro_links" / "CONFIRMED.md").read_text(encoding="utf-8").lower()
    catalog = load_catalog_dirs([ROOT / "repro_links"])
    for entry in catalog.entries:
        for repo in entry.repos:
            parsed = parse_repo_url(repo.url)
            assert parsed is not None
            assert f"- {parsed.owner}/{parsed.name} (".lower() in confirmed, repo.url


@pytest.mark.parametrize(
    ("arxiv_id", "title", "repo"),
    [
        (
            None,
            "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
            "https://github.com/NVIDIA/Megatron-LM",
        ),
        (
            None,
            "FlashMoE: Fast Distributed MoE in a Single Kernel",
            "https://github.com/osayamenja/FlashMoE",
        ),
        (
            None,
            "Mélange: Cost Efficient Large Language Model Serving by Exploiting GPU Heterogeneity",
            "https://github.com/tyler-griggs/melange-release",
        ),
        (
            None,
            "TorchTitan: One-stop PyTorch native solution for production ready LLM pre-training",
            "https://github.com/pytorch/torchtitan",
        ),
        (
            None,
            "HipKittens: Fast and Furious AMD Kernels",
            "https://github.com/HazyResearch/HipKittens",
        ),
        (
            None,
            "Nexus:Proactive Intra-GPU Disaggregation of Prefill and Decode in LLM Serving",
            None,
        ),
        ("2309.06180", "", "https://github.com/vllm-project/vllm"),
        ("arXiv:1910.02054v3", "", "https://github.com/deepspeedai/DeepSpeed"),
    ],
)
def test_shipped_catalog_knows_fixture_and_landmark_papers(
    arxiv_id: str | None, title: str, repo: str | None
) -> None:
    entry = load_catalog().lookup(arxiv_id, title)
    if repo is None:
        assert entry is None  # a fixture paper without public code is not invented
    else:
        assert entry is not None
        assert repo in [r.url for r in entry.repos]


def test_fixture_papers_linking_code_are_covered() -> None:
    """Fixture papers whose abstract links a repo we could confirm are all in the catalog."""
    from digest_tui.sources.hf_page import parse_file

    catalog = load_catalog()
    missing = []
    left_out = {"CudaForge", "Superpipeline", "ShadowKV", "VASparse", "StreamBP", "LangSplatV2"}
    for path in sorted((ROOT / "fixtures" / "digests").glob("*.txt")):
        for paper in parse_file(path).papers:
            if "github.com/" not in paper.abstract.lower():
                continue
            if any(word in paper.title for word in left_out):
                continue
            if catalog.lookup(paper.arxiv_id, paper.title) is None:
                missing.append(paper.title)
    assert missing == []


# --- loading, lookup, conversion ------------------------------------------------------------


def test_good_file_loads_and_looks_up_by_id_and_title_variants(tmp_path: Path) -> None:
    write(tmp_path / "cat", "a.yaml", GOOD)
    catalog = load_catalog_dirs([tmp_path / "cat"])
    assert catalog.problems == []
    assert len(catalog) == 2
    flash = catalog.lookup("2205.14135", "")
    assert flash is not None and flash.hardware == ["A100 40GB"]
    assert flash.origin.endswith("a.yaml:2")
    for variant in ("arXiv:2205.14135", "2205.14135v2", " 2205.14135 "):
        assert catalog.lookup(variant, "") is flash
    for title in (
        "flashattention fast and memory efficient exact attention with io awareness",
        "FLASHATTENTION: Fast and Memory-Efficient Exact Attention with IO-Awareness.",
        "Flashattention - fast and memory efficient exact attention with IO awareness",
    ):
        assert catalog.lookup(None, title) is flash
    # An unknown id still falls back to the title.
    assert (
        catalog.lookup(
            "9999.99999",
            "FlashAttention: fast and memory-efficient exact attention with IO-awareness",
        )
        is flash
    )
    melange = catalog.lookup(
        None, "Melange: cost-efficient large language model serving by exploiting GPU heterogeneity"
    )
    assert melange is not None and melange.arxiv is None
    assert catalog.lookup(None, "A paper nobody curated") is None
    assert catalog.lookup(None, "") is None


def test_unquoted_arxiv_id_keeps_its_trailing_zero(tmp_path: Path) -> None:
    write(
        tmp_path / "cat",
        "a.yaml",
        """
        papers:
          - arxiv: 2309.06180
            repos:
              - url: https://github.com/vllm-project/vllm
        """,
    )
    catalog = load_catalog_dirs([tmp_path / "cat"])
    assert catalog.problems == []
    assert catalog.entries[0].arxiv == "2309.06180"
    assert catalog.lookup("2309.06180", "") is not None


def test_catalog_repos_become_curated_repo_records(tmp_path: Path) -> None:
    write(
        tmp_path / "cat",
        "a.yaml",
        """
        papers:
          - title: "Arctic Long Sequence Training"
            repos:
              - url: https://github.com/snowflakedb/ArcticTraining/tree/main/projects/sequence-parallelism
                kind: official
                framework: PyTorch
              - url: https://github.com/deepspeedai/DeepSpeed
                kind: framework
                notes: "upstream"
              - url: https://huggingface.co/spaces/someone/demo
                kind: community
        """,
    )
    entry = load_catalog_dirs([tmp_path / "cat"]).entries[0]
    repos = catalog_repos(entry)
    assert [(r.host, r.owner, r.name, r.kind, r.source) for r in repos] == [
        ("github.com", "snowflakedb", "ArcticTraining", "official", "curated"),
        ("github.com", "deepspeedai", "DeepSpeed", "framework", "curated"),
        ("huggingface.co", "someone", "demo", "community", "curated"),
    ]
    assert repos[0].path == "tree/main/projects/sequence-parallelism"
    assert repos[0].framework == "PyTorch"
    assert repos[1].notes == "upstream" and repos[1].path is None


def test_fingerprint_is_stable_and_tracks_content(tmp_path: Path) -> None:
    write(tmp_path / "cat", "a.yaml", GOOD)
    first = load_catalog_dirs([tmp_path / "cat"]).fingerprint
    assert first == load_catalog_dirs([tmp_path / "cat"]).fingerprint
    write(tmp_path / "cat", "a.yaml", GOOD.replace("A100 40GB", "A100 80GB"))
    assert load_catalog_dirs([tmp_path / "cat"]).fingerprint != first


# --- user overrides -------------------------------------------------------------------------


def test_catalog_dirs_puts_packaged_first_then_user(tmp_path: Path) -> None:
    assert catalog_dirs(tmp_path) == [ROOT / "repro_links"]  # no user dir yet
    (tmp_path / "repro_links").mkdir()
    assert catalog_dirs(tmp_path) == [ROOT / "repro_links", tmp_path / "repro_links"]
    assert catalog_dirs(None) == [ROOT / "repro_links"]


def test_user_entries_add_to_and_override_packaged_ones(tmp_path: Path) -> None:
    write(
        tmp_path / "repro_links",
        "mine.yaml",
        """
        papers:
          # replaces the packaged FlashAttention entry (matched by arXiv id)
          - arxiv: "2205.14135"
            title: "FlashAttention (my notes)"
            hardware: ["my RTX 4090"]
            repos:
              - url: https://github.com/Dao-AILab/flash-attention
                notes: "use v2.6"
          # replaces the packaged entry matched by title only
          - title: "MEGATRON-LM: training multi-billion parameter language models using
              model parallelism"
            repos:
              - url: https://github.com/NVIDIA/Megatron-LM
                kind: official
              - url: https://github.com/bigscience-workshop/Megatron-DeepSpeed
                kind: community
          # a paper the packaged catalog does not have
          - title: "My Own Paper"
            repos:
              - url: https://codeberg.org/me/my-own-paper
        """,
    )
    packaged = load_catalog()
    catalog = load_catalog(tmp_path)
    assert catalog.problems == []
    assert len(catalog) == len(packaged) + 1
    flash = catalog.lookup("2205.14135", "")
    assert flash is not None and flash.hardware == ["my RTX 4090"]
    assert flash.origin.startswith(str(tmp_path))
    megatron = catalog.lookup("1909.08053", "")
    assert megatron is None  # the packaged entry was replaced by a title-only user entry
    megatron = catalog.lookup(
        None,
        "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism",
    )
    assert megatron is not None and len(megatron.repos) == 2
    assert catalog.lookup(None, "my own paper") is not None
    assert catalog.fingerprint != packaged.fingerprint


def test_bad_user_file_is_reported_and_packaged_catalog_still_loads(tmp_path: Path) -> None:
    bad = write(tmp_path / "repro_links", "broken.yaml", "papers:\n  - title: [unclosed\n")
    catalog = load_catalog(tmp_path)
    assert len(catalog) == len(load_catalog())
    assert len(catalog.problems) == 1
    assert str(catalog.problems[0]).startswith(f"{bad}:")


# --- the checks -----------------------------------------------------------------------------


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    [problem] = problems_in(
        tmp_path,
        """
        papers:
          - title: "ok"
            repos:
              - url: https://github.com/a/b
          - title: "broken
            repos: []
        """,
    )
    assert problem.line == 7  # where the parser gave up: the end of the file
    assert "not valid YAML" in problem.message
    assert "at line 5" in problem.message  # where the unclosed quote opened
    assert str(problem) == f"{tmp_path / 'cat' / 'papers.yaml'}:{problem.line}: {problem.message}"


def test_unknown_field_in_entry_and_in_repo(tmp_path: Path) -> None:
    found = problems_in(
        tmp_path,
        """
        papers:
          - title: "One"
            framwork: PyTorch
            repos:
              - url: https://github.com/a/one
          - title: "Two"
            repos:
              - url: https://github.com/a/two
                stars: 10
        """,
    )
    assert [(p.line, p.message.split(" (")[0]) for p in found] == [
        (3, "unknown field 'framwork'"),
        (9, "unknown field 'stars' in repos[0]"),
    ]
    assert "allowed: url, kind, framework, notes" in found[1].message


def test_schema_errors_name_the_field_and_line(tmp_path: Path) -> None:
    found = problems_in(
        tmp_path,
        """
        papers:
          - title: "Bad kind"
            repos:
              - url: https://github.com/a/b
                kind: offical
          - title: "Bad hardware"
            hardware: "8x H100"
            repos:
              - url: https://github.com/a/c
          - title: "Bad topic"
            topics: [gpus]
            repos:
              - url: https://github.com/a/d
          - title: "No url"
            repos:
              - kind: official
          - just a string
        """,
    )
    by_line = {p.line: p.message for p in found}
    assert by_line[5].startswith("field repos[0].kind:")
    assert by_line[7].startswith("field hardware:")
    assert by_line[11].startswith("field topics[0]:")
    assert by_line[16].startswith("field repos[0].url:")
    assert "entry must be a mapping" in by_line[17]
    assert len(found) == 5


def test_top_level_shape(tmp_path: Path) -> None:
    [problem] = problems_in(tmp_path, "- title: x\n")
    assert problem.line == 1 and "papers" in problem.message
    [problem] = problems_in(tmp_path, "paper:\n  - title: x\n")
    assert problem.line == 1 and "unknown field 'paper'" in problem.message
    [problem] = problems_in(tmp_path, "papers:\n  title: x\n")
    assert problem.line == 1 and problem.message.startswith("field papers:")
    assert problems_in(tmp_path, "") == []  # an empty file is an empty catalog


def test_duplicate_papers_within_and_across_files(tmp_path: Path) -> None:
    write(
        tmp_path / "cat",
        "a.yaml",
        """
        papers:
          - arxiv: "2205.14135"
            repos:
              - url: https://github.com/a/one
          - arxiv: "arXiv:2205.14135v2"
            repos:
              - url: https://github.com/a/two
        """,
    )
    write(
        tmp_path / "cat",
        "b.yaml",
        """
        papers:
          - title: "Some Paper: A Study"
            repos:
              - url: https://github.com/a/three
        """,
    )
    write(
        tmp_path / "cat",
        "c.yaml",
        """
        papers:
          - title: "some paper - a study"
            repos:
              - url: https://github.com/a/four
        """,
    )
    found = check_catalog([tmp_path / "cat"])
    assert [(p.path.name, p.line) for p in found] == [("a.yaml", 5), ("c.yaml", 2)]
    assert "same arXiv id 2205.14135 as a.yaml:2" in found[0].message
    assert "same title as b.yaml:2" in found[1].message
    catalog = load_catalog_dirs([tmp_path / "cat"])
    assert [r.url for e in catalog.entries for r in e.repos] == [
        "https://github.com/a/one",
        "https://github.com/a/three",
    ]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://github.com/a/b", "only https"),
        ("https://example.com/a/b", "not a known code host"),
        ("https://www.github.com/a/b", "bare host"),
        ("https://github.com/a", "owner/name"),
        ("https://github.com/a/b.git", ".git"),
        ("https://github.com/a/b/", "must not end with '/'"),
        ("https://github.com/a/b?tab=readme", "query"),
        ("https://user@github.com/a/b", "credentials"),
        ("https://github.com/a b/c", "whitespace"),
    ],
)
def test_url_shape_is_checked(tmp_path: Path, url: str, reason: str) -> None:
    [problem] = problems_in(
        tmp_path,
        f"""
        papers:
          - title: "Paper"
            repos:
              - url: "{url}"
        """,
    )
    assert problem.line == 4
    assert problem.message.startswith("field repos[0].url:")
    assert reason in problem.message


def test_accepted_urls() -> None:
    for url in (
        "https://github.com/NVIDIA/Megatron-LM",
        "https://github.com/weiliu89/caffe/tree/ssd",
        "https://gitlab.com/group/project",
        "https://bitbucket.org/team/repo",
        "https://codeberg.org/user/repo",
        "https://huggingface.co/spaces/owner/demo",
        "https://huggingface.co/owner/model",
    ):
        assert url_problem(url) is None, url


def test_duplicate_repo_within_an_entry(tmp_path: Path) -> None:
    [problem] = problems_in(
        tmp_path,
        """
        papers:
          - title: "Paper"
            repos:
              - url: https://github.com/NVIDIA/Megatron-LM
              - url: https://github.com/nvidia/megatron-lm
        """,
    )
    assert problem.line == 5
    assert "duplicate repo" in problem.message and "repos[0]" in problem.message


def test_entry_needs_arxiv_or_title_and_a_valid_id(tmp_path: Path) -> None:
    found = problems_in(
        tmp_path,
        """
        papers:
          - repos:
              - url: https://github.com/a/b
          - arxiv: "22.05"
            title: "Has a bad id"
            repos:
              - url: https://github.com/a/c
          - title: "Fine"
            repos:
              - url: https://github.com/a/d
        """,
    )
    assert [(p.line, p.message.split(":")[0]) for p in found] == [
        (2, "entry has neither 'arxiv' nor 'title'"),
        (4, "field arxiv"),
    ]
    assert "not an arXiv id" in found[1].message
    catalog = load_catalog_dirs([tmp_path / "cat"])
    assert [e.title for e in catalog.entries] == ["Fine"]


def test_duplicate_yaml_key_is_reported(tmp_path: Path) -> None:
    [problem] = problems_in(
        tmp_path,
        """
        papers:
          - title: "Paper"
            title: "Paper again"
            repos:
              - url: https://github.com/a/b
        """,
    )
    assert problem.line == 3 and "duplicate key 'title'" in problem.message


def test_missing_directory_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    [problem] = check_catalog([tmp_path / "nope"])
    assert problem.line is None and "does not exist" in str(problem)
