"""The Papers with Code links dump reader: shape, problems, gzip, and bounded memory."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from digest_tui.errors import PwcFormatError
from digest_tui.sources.pwc_links import (
    PwcLink,
    PwcProblem,
    collect_pwc_repos,
    iter_pwc_links,
    pwc_repo,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "pwc"
SAMPLE = FIXTURES / "links-sample.json"
SAMPLE_GZ = FIXTURES / "links-sample.json.gz"


def split(items: list[PwcLink | PwcProblem]) -> tuple[list[PwcLink], list[PwcProblem]]:
    links = [i for i in items if isinstance(i, PwcLink)]
    problems = [i for i in items if isinstance(i, PwcProblem)]
    return links, problems


@pytest.mark.parametrize("path", [SAMPLE, SAMPLE_GZ], ids=["json", "gz"])
def test_sample_streams_links_and_reports_bad_records(path: Path) -> None:
    links, problems = split(list(iter_pwc_links(path)))
    assert [p.index for p in links] == [0, 1, 2, 3, 4, 7, 8, 10, 12]
    assert [(p.index, p.field) for p in problems] == [
        (5, "repo_url"),
        (6, "is_official"),
        (9, "paper_arxiv_id"),
        (11, None),
    ]
    assert str(problems[0]) == "record 5 field repo_url: missing repository URL"
    by_index = {link.index: link for link in links}
    assert by_index[0].arxiv_id == "2307.08691" and by_index[0].is_official
    assert by_index[3].arxiv_id == "2309.14509"  # "2309.14509v2" in the file
    assert by_index[4].arxiv_id == "2404.14527"  # taken from paper_url_abs
    assert by_index[4].framework is None  # "none"
    assert by_index[8].mentioned_in_paper is False  # null
    assert by_index[10].framework == "TensorFlow"  # "tf"


def test_json_and_gzip_give_the_same_stream() -> None:
    assert list(iter_pwc_links(SAMPLE)) == list(iter_pwc_links(SAMPLE_GZ))


def test_pwc_repo_maps_kind_source_and_url() -> None:
    links = {link.index: link for link in iter_pwc_links(SAMPLE) if isinstance(link, PwcLink)}
    official = pwc_repo(links[1])
    assert (official.host, official.owner, official.name) == ("github.com", "NVIDIA", "Megatron-LM")
    assert (official.kind, official.source, official.framework) == ("official", "pwc", "PyTorch")
    community = pwc_repo(links[2])
    assert community.kind == "community"
    noisy = pwc_repo(links[10])  # ".../lingvo.git/"
    assert noisy.url == "https://github.com/tensorflow/lingvo"
    other_host = pwc_repo(links[7])  # not a known code host: kept as given
    assert other_host.url == "https://git.example.org/lab/pipette-artifact"
    assert (other_host.host, other_host.owner, other_host.name) == (
        "git.example.org",
        "lab",
        "pipette-artifact",
    )
    http_upper = pwc_repo(links[12])  # "http://github.com/flairox/jaxmarl"
    assert http_upper.url == "https://github.com/flairox/jaxmarl"


def test_collect_keeps_only_wanted_papers() -> None:
    result = collect_pwc_repos(
        SAMPLE_GZ,
        arxiv_ids=["2104.04473", "arXiv:2311.10090v2"],
        titles=[
            "Melange: cost efficient large language model serving by exploiting GPU heterogeneity",
            "Pipette: Automatic Fine-grained Large Language Model Training Configurator for "
            "Real-World Clusters",
        ],
    )
    assert result.records == 9
    assert len(result.problems) == 4
    megatron = result.repos_for("2104.04473", "")
    assert [r.name for r in megatron] == ["Megatron-LM", "Megatron-DeepSpeed"]
    assert [r.url for r in result.repos_for("2311.10090", "")] == [
        "https://github.com/flairox/jaxmarl"
    ]
    # Mélange's record has no arXiv id field (one is read from its abstract URL, which was
    # not asked for): it matches by title, accents and punctuation folded.
    melange = result.repos_for(
        None, "Mélange: Cost Efficient Large Language Model Serving by Exploiting GPU Heterogeneity"
    )
    assert [r.name for r in melange] == ["melange-release"]
    assert "2404.14527" not in result.by_arxiv
    assert [
        r.host
        for r in result.repos_for(
            None,
            "pipette: automatic fine-grained large "
            "language model training configurator for "
            "real-world clusters",
        )
    ] == ["git.example.org"]
    assert result.repos_for("2307.08691", "FlashAttention-2") == []  # not wanted


def test_title_match_finds_records_whose_id_is_not_wanted() -> None:
    result = collect_pwc_repos(
        SAMPLE,
        titles=[
            "MÉLANGE: Cost-Efficient Large Language Model Serving by Exploiting GPU Heterogeneity"
        ],
    )
    repos = result.repos_for(
        None, "melange cost efficient large language model serving by exploiting gpu heterogeneity"
    )
    assert [r.name for r in repos] == ["melange-release"]


def write_dump(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def record(i: int, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "paper_url": f"https://paperswithcode.com/paper/p{i}",
        "paper_title": f"Paper number {i}",
        "paper_arxiv_id": f"2401.{i:05d}",
        "paper_url_abs": None,
        "paper_url_pdf": None,
        "repo_url": f"https://github.com/owner{i}/repo{i}",
        "is_official": i % 2 == 0,
        "mentioned_in_paper": False,
        "mentioned_in_github": True,
        "framework": "pytorch",
    }
    base.update(extra)
    return base


def test_syntax_error_in_one_record_does_not_stop_the_stream(tmp_path: Path) -> None:
    good = [json.dumps(record(i)) for i in range(4)]
    broken = '{"paper_title": "broken", "repo_url": "https://github.com/a/b" "is_official": true}'
    text = "[\n" + ",\n".join([good[0], good[1], broken, good[2], good[3]]) + "\n]\n"
    items = list(iter_pwc_links(write_dump(tmp_path / "d.json", text), chunk_chars=16))
    links, problems = split(items)
    assert [p.index for p in problems] == [2]
    assert problems[0].message.startswith("invalid JSON")
    assert [link.paper_title for link in links] == [
        "Paper number 0",
        "Paper number 1",
        "Paper number 2",
        "Paper number 3",
    ]
    assert [link.index for link in links] == [0, 1, 3, 4]


def test_tiny_chunks_split_records_anywhere(tmp_path: Path) -> None:
    records = [record(i, paper_title=f'Títle with ünicode and "quotes" {i}') for i in range(50)]
    path = write_dump(tmp_path / "d.json", json.dumps(records, ensure_ascii=False, indent=2))
    for chunk in (1, 3, 7, 64):
        links, problems = split(list(iter_pwc_links(path, chunk_chars=chunk)))
        assert problems == []
        assert [link.paper_title for link in links] == [r["paper_title"] for r in records]


def test_truncated_and_malformed_files(tmp_path: Path) -> None:
    truncated = write_dump(tmp_path / "t.json", "[" + json.dumps(record(1)) + ", " + '{"paper')
    links, problems = split(list(iter_pwc_links(truncated)))
    assert len(links) == 1 and len(problems) == 1 and problems[0].index == 1
    unclosed = write_dump(tmp_path / "u.json", "[" + json.dumps(record(1)))
    links, problems = split(list(iter_pwc_links(unclosed)))
    assert len(links) == 1 and "closing ']'" in problems[0].message
    assert list(iter_pwc_links(write_dump(tmp_path / "e.json", " [ ] "))) == []
    with pytest.raises(PwcFormatError):
        list(iter_pwc_links(write_dump(tmp_path / "o.json", '{"not": "a list"}')))
    with pytest.raises(PwcFormatError):
        list(iter_pwc_links(write_dump(tmp_path / "z.json", "")))


def test_wrong_types_name_the_field(tmp_path: Path) -> None:
    records = [
        record(0, paper_title=42),
        record(1, repo_url="ftp://example.org/x"),
        record(2, paper_title=None, paper_arxiv_id=None),
        record(
            3,
            framework="none",
            paper_url_abs="https://arxiv.org/abs/2205.14135v2",
            paper_arxiv_id="",
        ),
    ]
    items = list(iter_pwc_links(write_dump(tmp_path / "d.json", json.dumps(records))))
    links, problems = split(items)
    assert [(p.index, p.field) for p in problems] == [
        (0, "paper_title"),
        (1, "repo_url"),
        (2, "paper_title"),
    ]
    assert links[0].arxiv_id == "2205.14135" and links[0].framework is None


def test_large_dump_streams_in_bounded_memory(tmp_path: Path) -> None:
    """50,000 records (~16 MB) stream with a small, size-independent memory peak."""
    path = tmp_path / "links-between-papers-and-code.json.gz"
    count = 50_000
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write("[")
        for i in range(count):
            if i:
                out.write(",\n")
            out.write(json.dumps(record(i, paper_title=f"Paper number {i} " + "x" * 200)))
        out.write("]")
    raw_size = count * 480  # lower bound of the uncompressed text size

    tracemalloc.start()
    try:
        seen = 0
        official = 0
        for item in iter_pwc_links(path):
            assert isinstance(item, PwcLink)
            seen += 1
            official += item.is_official
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == count and official == count // 2
    # Loading the file whole would need well over its text size; streaming needs a window.
    assert peak < 2_000_000 < raw_size
