"""Golden tests for link extraction: every link in the four fixture digests, then odd cases.

The golden table was written by reading each abstract: url, host, kind, owner, name, path, and
for repos whether the abstract presents it as its own code ("official") or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from digest_tui.enrich.links import (
    canonical_link,
    extract_links,
    repos_from_links,
    repos_from_text,
)
from digest_tui.models import Link
from digest_tui.urls import is_openable

DIGESTS = Path(__file__).resolve().parents[2] / "fixtures" / "digests"
FILES = {path.name[:3]: path for path in sorted(DIGESTS.glob("*.txt"))}

# (file, line, url, host, kind, owner, name, path, repo kind)
GOLDEN = [
    (
        "000",
        19,
        "https://www.deepspeed.ai/tutorials/ulysses-alst-sequence-pallellism/",
        "www.deepspeed.ai",
        "docs",
        None,
        None,
        None,
        None,
    ),
    (
        "000",
        19,
        "https://github.com/snowflakedb/ArcticTraining/blob/main/projects/sequence-parallelism/README.md",
        "github.com",
        "repo",
        "snowflakedb",
        "ArcticTraining",
        "blob/main/projects/sequence-parallelism/README.md",
        "official",
    ),
    (
        "000",
        27,
        "https://github.com/tyler-griggs/melange-release",
        "github.com",
        "repo",
        "tyler-griggs",
        "melange-release",
        None,
        "official",
    ),
    (
        "000",
        59,
        "https://github.com/flairox/jaxmarl",
        "github.com",
        "repo",
        "flairox",
        "jaxmarl",
        None,
        "official",
    ),
    (
        "000",
        67,
        "https://github.com/osayamenja/FlashMoE",
        "github.com",
        "repo",
        "osayamenja",
        "FlashMoE",
        None,
        "official",
    ),
    (
        "000",
        115,
        "https://github.com/pavlyhalim/GPPerf",
        "github.com",
        "repo",
        "pavlyhalim",
        "GPPerf",
        None,
        "official",
    ),
    (
        "000",
        187,
        "https://github.com/PJLAB-CHIP/HPCTransCompile",
        "github.com",
        "repo",
        "PJLAB-CHIP",
        "HPCTransCompile",
        None,
        "official",
    ),
    (
        "000",
        195,
        "https://github.com/yimjinkyu1/date2024_pipette",
        "github.com",
        "repo",
        "yimjinkyu1",
        "date2024_pipette",
        None,
        "official",
    ),
    (
        "000",
        255,
        "https://github.com/deepreinforce-ai/CUDA-L2",
        "github.com",
        "repo",
        "deepreinforce-ai",
        "CUDA-L2",
        None,
        "official",
    ),
    (
        "000",
        267,
        "https://github.com/rayleizhu/GLMix",
        "github.com",
        "repo",
        "rayleizhu",
        "GLMix",
        None,
        "official",
    ),
    (
        "000",
        275,
        "https://github.com/wzzll123/MultiKernelBench",
        "github.com",
        "repo",
        "wzzll123",
        "MultiKernelBench",
        None,
        "official",
    ),
    (
        "000",
        299,
        "https://github.com/nvidia/megatron-lm",
        "github.com",
        "repo",
        "nvidia",
        "megatron-lm",
        None,
        "official",
    ),
    (
        "000",
        315,
        "https://github.com/OptimAI-Lab/CudaForge",
        "github.com",
        "repo",
        "OptimAI-Lab",
        "CudaForge",
        None,
        "official",
    ),
    (
        "000",
        323,
        "https://github.com/IST-DASLab/Quartet",
        "github.com",
        "repo",
        "IST-DASLab",
        "Quartet",
        None,
        "official",
    ),
    (
        "000",
        327,
        "https://github.com/FlyFoxPlayer/FlexQ",
        "github.com",
        "repo",
        "FlyFoxPlayer",
        "FlexQ",
        None,
        "official",
    ),
    (
        "000",
        367,
        "https://github.com/abbasiReza/super-pipeline",
        "github.com",
        "repo",
        "abbasiReza",
        "super-pipeline",
        None,
        "official",
    ),
    (
        "000",
        387,
        "https://github.com/PKU-SEC-Lab/HybriMoE",
        "github.com",
        "repo",
        "PKU-SEC-Lab",
        "HybriMoE",
        None,
        "official",
    ),
    (
        "000",
        407,
        "https://github.com/THUDM/GLM-130B",
        "github.com",
        "repo",
        "THUDM",
        "GLM-130B",
        None,
        "official",
    ),
    (
        "000",
        471,
        "https://github.com/DLYuanGod/TinyGPT-V",
        "github.com",
        "repo",
        "DLYuanGod",
        "TinyGPT-V",
        None,
        "official",
    ),
    (
        "000",
        471,
        "https://huggingface.co/Tyrannosaurus/TinyGPT-V",
        "huggingface.co",
        "model",
        "Tyrannosaurus",
        "TinyGPT-V",
        None,
        None,
    ),
    (
        "001",
        31,
        "https://github.com/intel/intel-extension-for-transformers",
        "github.com",
        "repo",
        "intel",
        "intel-extension-for-transformers",
        None,
        "official",
    ),
    (
        "001",
        55,
        "https://langsplat-v2.github.io",
        "langsplat-v2.github.io",
        "project",
        "langsplat-v2",
        None,
        None,
        None,
    ),
    (
        "001",
        111,
        "https://github.com/hmarkc/parallel-prompt-decoding",
        "github.com",
        "repo",
        "hmarkc",
        "parallel-prompt-decoding",
        None,
        "official",
    ),
    (
        "001",
        143,
        "https://github.com/NX-AI/flashrnn",
        "github.com",
        "repo",
        "NX-AI",
        "flashrnn",
        None,
        "official",
    ),
    (
        "001",
        159,
        "https://github.com/mengchuang123/VASparse-github",
        "github.com",
        "repo",
        "mengchuang123",
        "VASparse-github",
        None,
        "official",
    ),
    (
        "001",
        187,
        "https://github.com/bytedance/ShadowKV",
        "github.com",
        "repo",
        "bytedance",
        "ShadowKV",
        None,
        "official",
    ),
    (
        "001",
        195,
        "https://smerf-3d.github.io",
        "smerf-3d.github.io",
        "project",
        "smerf-3d",
        None,
        None,
        None,
    ),
    (
        "001",
        211,
        "https://github.com/mit-han-lab/once-for-all",
        "github.com",
        "repo",
        "mit-han-lab",
        "once-for-all",
        None,
        "official",
    ),
    (
        "001",
        219,
        "https://github.com/weiliu89/caffe/tree/ssd",
        "github.com",
        "repo",
        "weiliu89",
        "caffe",
        "tree/ssd",
        "official",
    ),
    (
        "001",
        235,
        "https://github.com/Coderx7/SimpleNet",
        "github.com",
        "repo",
        "Coderx7",
        "SimpleNet",
        None,
        "official",
    ),
    (
        "001",
        267,
        "https://github.com/SINTEFMedtek/FAST-Pathology",
        "github.com",
        "repo",
        "SINTEFMedtek",
        "FAST-Pathology",
        None,
        "official",
    ),
    (
        "001",
        283,
        "https://github.com/HayeonLee/HELP",
        "github.com",
        "repo",
        "HayeonLee",
        "HELP",
        None,
        "official",
    ),
    (
        "001",
        307,
        "https://github.com/osayamenja/FlashMoE",
        "github.com",
        "repo",
        "osayamenja",
        "FlashMoE",
        None,
        "official",
    ),
    (
        "001",
        347,
        "https://sparebenchmark.github.io/",
        "sparebenchmark.github.io",
        "project",
        "sparebenchmark",
        None,
        None,
        None,
    ),
    (
        "001",
        355,
        "https://github.com/nvidia/megatron-lm",
        "github.com",
        "repo",
        "nvidia",
        "megatron-lm",
        None,
        "official",
    ),
    (
        "001",
        379,
        "https://github.com/XiandaGuo/OpenStereo",
        "github.com",
        "repo",
        "XiandaGuo",
        "OpenStereo",
        None,
        "official",
    ),
    (
        "002",
        15,
        "https://github.com/microsoft/mscclpp",
        "github.com",
        "repo",
        "microsoft",
        "mscclpp",
        None,
        "official",
    ),
    (
        "002",
        23,
        "https://github.com/osayamenja/FlashMoE",
        "github.com",
        "repo",
        "osayamenja",
        "FlashMoE",
        None,
        "official",
    ),
    (
        "002",
        103,
        "https://github.com/ACA-Lab-SJTU/token-ring",
        "github.com",
        "repo",
        "ACA-Lab-SJTU",
        "token-ring",
        None,
        "official",
    ),
    (
        "002",
        119,
        "https://github.com/nvidia/megatron-lm",
        "github.com",
        "repo",
        "nvidia",
        "megatron-lm",
        None,
        "official",
    ),
    (
        "002",
        127,
        "https://github.com/HKUST-Aerial-Robotics/SG-Reg",
        "github.com",
        "repo",
        "HKUST-Aerial-Robotics",
        "SG-Reg",
        None,
        "official",
    ),
    (
        "002",
        135,
        "https://github.com/Ledzy/StreamBP",
        "github.com",
        "repo",
        "Ledzy",
        "StreamBP",
        None,
        "official",
    ),
    (
        "002",
        143,
        "https://computer-use-agents.github.io/dart-gui",
        "computer-use-agents.github.io",
        "project",
        "computer-use-agents",
        "dart-gui",
        None,
        None,
    ),
    (
        "002",
        187,
        "https://github.com/CentML/lorafusion",
        "github.com",
        "repo",
        "CentML",
        "lorafusion",
        None,
        "official",
    ),
    (
        "004",
        15,
        "https://github.com/scu-zjz/IMDLBenCo",
        "github.com",
        "repo",
        "scu-zjz",
        "IMDLBenCo",
        None,
        "official",
    ),
    (
        "004",
        39,
        "https://github.com/tyler-griggs/melange-release",
        "github.com",
        "repo",
        "tyler-griggs",
        "melange-release",
        None,
        "official",
    ),
    (
        "004",
        63,
        "https://github.com/pavlyhalim/GPPerf",
        "github.com",
        "repo",
        "pavlyhalim",
        "GPPerf",
        None,
        "official",
    ),
    (
        "004",
        127,
        "https://github.com/OptimAI-Lab/CudaForge",
        "github.com",
        "repo",
        "OptimAI-Lab",
        "CudaForge",
        None,
        "official",
    ),
    (
        "004",
        159,
        "https://github.com/HazyResearch/HipKittens",
        "github.com",
        "repo",
        "HazyResearch",
        "HipKittens",
        None,
        "official",
    ),
    (
        "004",
        167,
        "https://github.com/deepreinforce-ai/CUDA-L2",
        "github.com",
        "repo",
        "deepreinforce-ai",
        "CUDA-L2",
        None,
        "official",
    ),
    (
        "004",
        171,
        "https://github.com/zhangzjn/ader",
        "github.com",
        "repo",
        "zhangzjn",
        "ader",
        None,
        "official",
    ),
    (
        "004",
        179,
        "https://github.com/osayamenja/FlashMoE",
        "github.com",
        "repo",
        "osayamenja",
        "FlashMoE",
        None,
        "official",
    ),
    (
        "004",
        195,
        "https://github.com/PJLAB-CHIP/HPCTransCompile",
        "github.com",
        "repo",
        "PJLAB-CHIP",
        "HPCTransCompile",
        None,
        "official",
    ),
    (
        "004",
        263,
        "https://github.com/liangyuwang/zo2",
        "github.com",
        "repo",
        "liangyuwang",
        "zo2",
        None,
        "official",
    ),
    (
        "004",
        279,
        "https://github.com/nvidia/megatron-lm",
        "github.com",
        "repo",
        "nvidia",
        "megatron-lm",
        None,
        "official",
    ),
    (
        "004",
        311,
        "https://github.com/PKU-SEC-Lab/HybriMoE",
        "github.com",
        "repo",
        "PKU-SEC-Lab",
        "HybriMoE",
        None,
        "official",
    ),
    (
        "004",
        343,
        "https://cbysjtu.github.io/Rank2Score/",
        "cbysjtu.github.io",
        "project",
        "cbysjtu",
        "Rank2Score",
        None,
        None,
    ),
    (
        "004",
        359,
        "https://sites.google.com/view/ltnghia/research/DMVTON",
        "sites.google.com",
        "project",
        None,
        None,
        None,
        None,
    ),
    (
        "004",
        375,
        "https://github.com/altair199797/LowFormer",
        "github.com",
        "repo",
        "altair199797",
        "LowFormer",
        None,
        "official",
    ),
    (
        "004",
        415,
        "https://github.com/mit-han-lab/flash-moba",
        "github.com",
        "repo",
        "mit-han-lab",
        "flash-moba",
        None,
        "official",
    ),
    (
        "004",
        423,
        "https://github.com/Wan-Video/Wan2.1",
        "github.com",
        "repo",
        "Wan-Video",
        "Wan2.1",
        None,
        "official",
    ),
    (
        "004",
        435,
        "https://github.com/KwaiVGI/LivePortrait",
        "github.com",
        "repo",
        "KwaiVGI",
        "LivePortrait",
        None,
        "official",
    ),
]


def _lines(prefix: str) -> list[str]:
    return FILES[prefix].read_text(encoding="utf-8").splitlines()


def _expected_by_line() -> dict[tuple[str, int], list[tuple]]:
    grouped: dict[tuple[str, int], list[tuple]] = {}
    for row in GOLDEN:
        grouped.setdefault((row[0], row[1]), []).append(row[2:])
    return grouped


@pytest.mark.parametrize("where", sorted(_expected_by_line()), ids=lambda w: f"{w[0]}:{w[1]}")
def test_golden_fixture_links(where: tuple[str, int]) -> None:
    prefix, number = where
    text = _lines(prefix)[number - 1]
    links = extract_links(text)
    got = [(lk.url, lk.host, lk.kind, lk.owner, lk.name, lk.path) for lk in links]
    expected = _expected_by_line()[where]
    assert got == [row[:6] for row in expected]
    repos = {(r.owner, r.name): r for r in repos_from_links(links, text)}
    for url, host, kind, owner, name, path, repo_kind in expected:
        if kind != "repo":
            continue
        repo = repos[(owner, name)]
        assert repo.kind == repo_kind, url
        assert repo.source == "abstract"
        assert repo.url == f"https://{host}/{owner}/{name}"
        assert repo.path == path


def test_golden_table_covers_every_line_with_a_link() -> None:
    """No line mentioning a URL-ish string is left out of the table, and the others give none."""
    table = _expected_by_line()
    for prefix in FILES:
        for number, line in enumerate(_lines(prefix), 1):
            lowered = line.lower()
            looks_linked = any(
                marker in lowered for marker in ("http", "github.com", ".github.io", "www.")
            )
            if looks_linked:
                assert (prefix, number) in table, f"{prefix}:{number} has a link not in GOLDEN"
            else:
                assert extract_links(line) == [], f"{prefix}:{number}"


def test_whole_digest_dedupes_repeated_repos() -> None:
    text = FILES["000"].read_text(encoding="utf-8")
    links = extract_links(text)
    urls = [lk.url.lower() for lk in links]
    assert len(urls) == len(set(urls))
    repos = repos_from_text(text)
    assert len({(r.owner.lower(), r.name.lower()) for r in repos}) == len(repos)
    assert len(repos) == sum(1 for row in GOLDEN if row[0] == "000" and row[4] == "repo")


def _one(text: str) -> Link:
    links = extract_links(text)
    assert len(links) == 1, links
    return links[0]


GITHUB_CASES = [
    # trailing punctuation
    ("Code: https://github.com/a/b.", "a", "b", None),
    ("at https://github.com/a/b, and more", "a", "b", None),
    ("at https://github.com/a/b; then", "a", "b", None),
    ("at https://github.com/a/b: it", "a", "b", None),
    ("Is it https://github.com/a/b?", "a", "b", None),
    ("at https://github.com/a/b...", "a", "b", None),
    ("at https://github.com/a/b/.", "a", "b", None),
    # wrapping brackets
    ("(https://github.com/a/b)", "a", "b", None),
    ("(see https://github.com/a/b).", "a", "b", None),
    ("[https://github.com/a/b]", "a", "b", None),
    ("<https://github.com/a/b>", "a", "b", None),
    ("&lt;https://github.com/a/b&gt;", "a", "b", None),
    ("[code](https://github.com/a/b)", "a", "b", None),
    ('"https://github.com/a/b"', "a", "b", None),
    ("**https://github.com/a/b**", "a", "b", None),
    ("code at https://github.com/a/b))", "a", "b", None),
    ("見 https://github.com/a/b。", "a", "b", None),
    # paths
    ("https://github.com/a/b/tree/main/sub/dir", "a", "b", "tree/main/sub/dir"),
    ("https://github.com/a/b/blob/main/x/README.md.", "a", "b", "blob/main/x/README.md"),
    ("https://github.com/a/b/tree/main/sub/dir/", "a", "b", "tree/main/sub/dir"),
    # LaTeX leftovers
    ("\\href{https://github.com/a/b}{code}", "a", "b", None),
    ("\\url{https://github.com/a/my\\_repo}", "a", "my_repo", None),
    ("http://github.com/a/b{http://github.com/a/b}", "a", "b", None),
    # no scheme, www, case, .git, fragments, queries
    ("github.com/owner/repo", "owner", "repo", None),
    ("www.github.com/owner/repo", "owner", "repo", None),
    ("https://www.github.com/owner/repo", "owner", "repo", None),
    ("HTTPS://GitHub.COM/nvidia/megatron-lm", "nvidia", "megatron-lm", None),
    ("https://github.com/a/b.git", "a", "b", None),
    ("https://github.com/a/b.git/", "a", "b", None),
    ("https://github.com/a/b#readme", "a", "b", None),
    ("https://github.com/a/b?tab=readme-ov-file#readme", "a", "b", None),
    # mirrors and raw files
    ("https://github.com.cnpmjs.org/a/b", "a", "b", None),
    ("https://hub.fastgit.org/a/b", "a", "b", None),
    ("https://raw.githubusercontent.com/a/b/main/x/y.py", "a", "b", "blob/main/x/y.py"),
    ("https://ghproxy.com/https://github.com/a/b", "a", "b", None),
    ("https://api.github.com/repos/a/b", "a", "b", None),
    # URL-encoded characters
    ("https://github.com/a/my%2Drepo", "a", "my-repo", None),
    # broken by a space
    ("https:// github.com/a/b", "a", "b", None),
    ("Code: https://github.com/ altair199797/LowFormer.", "altair199797", "LowFormer", None),
]


@pytest.mark.parametrize(("text", "owner", "name", "path"), GITHUB_CASES)
def test_github_odd_forms(text: str, owner: str, name: str, path: str | None) -> None:
    link = _one(text)
    assert (link.host, link.kind, link.owner, link.name, link.path) == (
        "github.com",
        "repo",
        owner,
        name,
        path,
    )
    expected = f"https://github.com/{owner}/{name}" + (f"/{path}" if path else "")
    assert link.url == expected


def test_a_space_before_an_ordinary_word_joins_nothing() -> None:
    links = extract_links("see https://github.com/ and more")
    assert [(lk.url, lk.kind, lk.owner) for lk in links] == [("https://github.com/", "other", None)]


def test_bare_forge_hosts_are_not_repos() -> None:
    for text in ("https://github.com/", "https://github.com", "https://github.com/."):
        link = _one(text)
        assert (link.kind, link.owner, link.name) == ("other", None, None)
        assert repos_from_links([link]) == []
    # written without a scheme in prose, a host alone is no link at all
    assert extract_links("hosted on github.com. Also on gitlab.com and arxiv.org") == []


def test_forge_pages_that_are_not_repos() -> None:
    links = extract_links(
        "https://github.com/topics/llm https://github.com/orgs/nvidia "
        "https://github.com/NVIDIA https://gist.github.com/someone/0123abcd"
    )
    assert [(lk.url, lk.kind, lk.owner, lk.name) for lk in links] == [
        ("https://github.com/topics/llm", "other", None, None),
        ("https://github.com/orgs/nvidia", "other", None, None),
        ("https://github.com/NVIDIA", "other", "NVIDIA", None),
        ("https://gist.github.com/someone/0123abcd", "other", None, None),
    ]
    assert repos_from_links(links) == []


def test_dedupe_is_case_insensitive_and_keeps_first_spelling() -> None:
    links = extract_links(
        "https://github.com/nvidia/megatron-lm and https://github.com/NVIDIA/Megatron-LM "
        "and http://www.github.com/NVIDIA/Megatron-LM.git#readme"
    )
    assert [lk.url for lk in links] == ["https://github.com/nvidia/megatron-lm"]


def test_same_repo_at_two_paths_is_two_links_one_repo() -> None:
    text = (
        "Our code is at https://github.com/a/b/tree/main/x. "
        "We build on https://github.com/A/B as well."
    )
    links = extract_links(text)
    assert [lk.url for lk in links] == [
        "https://github.com/a/b/tree/main/x",
        "https://github.com/A/B",
    ]
    repos = repos_from_links(links, text)
    assert len(repos) == 1
    assert (repos[0].url, repos[0].path, repos[0].kind) == (
        "https://github.com/a/b",
        "tree/main/x",
        "official",
    )


def test_other_forges() -> None:
    links = extract_links(
        "https://gitlab.com/group/sub/proj/-/tree/main/x and gitlab.com/a/b.git and "
        "https://gitlab.example.org/team/tool/-/blob/main/README.md and "
        "https://bitbucket.org/o/r/src/main/x and https://codeberg.org/o/r2 and "
        "https://gitee.com/o/r3"
    )
    got = [(lk.url, lk.host, lk.kind, lk.owner, lk.name, lk.path) for lk in links]
    assert got == [
        (
            "https://gitlab.com/group/sub/proj/-/tree/main/x",
            "gitlab.com",
            "repo",
            "group/sub",
            "proj",
            "tree/main/x",
        ),
        ("https://gitlab.com/a/b", "gitlab.com", "repo", "a", "b", None),
        (
            "https://gitlab.example.org/team/tool/-/blob/main/README.md",
            "gitlab.example.org",
            "repo",
            "team",
            "tool",
            "blob/main/README.md",
        ),
        ("https://bitbucket.org/o/r/src/main/x", "bitbucket.org", "repo", "o", "r", "src/main/x"),
        ("https://codeberg.org/o/r2", "codeberg.org", "repo", "o", "r2", None),
        ("https://gitee.com/o/r3", "gitee.com", "repo", "o", "r3", None),
    ]
    repos = repos_from_links(links)
    assert repos[0].url == "https://gitlab.com/group/sub/proj"
    assert [r.host for r in repos] == [
        "gitlab.com",
        "gitlab.com",
        "gitlab.example.org",
        "bitbucket.org",
        "codeberg.org",
        "gitee.com",
    ]


HF_CASES = [
    ("https://huggingface.co/meta-llama/Llama-2-7b", "model", "meta-llama", "Llama-2-7b", None),
    ("https://huggingface.co/org/m/tree/main", "model", "org", "m", "tree/main"),
    ("https://hf-mirror.com/org/m", "model", "org", "m", None),
    ("hf.co/org/m", "model", "org", "m", None),
    (
        "https://hf-2025.pages.dev/Tyrannosaurus/TinyGPT-V",
        "model",
        "Tyrannosaurus",
        "TinyGPT-V",
        None,
    ),
    (
        "https://huggingface.co/datasets/HuggingFaceFW/fineweb",
        "dataset",
        "HuggingFaceFW",
        "fineweb",
        None,
    ),
    ("https://huggingface.co/datasets/squad", "dataset", None, "squad", None),
    ("https://huggingface.co/datasets/o/d/viewer/default", "dataset", "o", "d", "viewer/default"),
    ("https://huggingface.co/spaces/org/demo", "space", "org", "demo", None),
    ("https://huggingface.co/papers/2401.12345", "paper", None, "2401.12345", None),
    ("https://huggingface.co/docs/transformers/index", "docs", None, None, None),
    ("https://huggingface.co/blog/moe", "other", None, None, None),
    ("https://huggingface.co/meta-llama", "other", "meta-llama", None, None),
]


@pytest.mark.parametrize(("text", "kind", "owner", "name", "path"), HF_CASES)
def test_hugging_face(
    text: str, kind: str, owner: str | None, name: str | None, path: str | None
) -> None:
    link = _one(text)
    assert link.host == "huggingface.co"
    assert link.url.startswith("https://huggingface.co/")
    assert (link.kind, link.owner, link.name, link.path) == (kind, owner, name, path)
    assert repos_from_links([link]) == []  # models and datasets are not code repos


SITE_CASES = [
    ("https://langsplat-v2.github.io.", "https://langsplat-v2.github.io", "project"),
    (
        "computer-use-agents.github.io/dart-gui,",
        "https://computer-use-agents.github.io/dart-gui",
        "project",
    ),
    ("https://sites.google.com/view/x/y", "https://sites.google.com/view/x/y", "project"),
    ("www.example.org/project", "https://www.example.org/project", "project"),
    ("http://example.com:8080/x?q=1#section", "http://example.com:8080/x?q=1", "project"),
    ("https://example.com/#/paper/1", "https://example.com/#/paper/1", "project"),
    (
        "https://en.wikipedia.org/wiki/Foo_(bar).",
        "https://en.wikipedia.org/wiki/Foo_(bar)",
        "project",
    ),
    ("https://example.com/caf%C3%A9/ü", "https://example.com/caf%C3%A9/%C3%BC", "project"),
    ("https://arxiv.org/abs/2401.12345v2", "https://arxiv.org/abs/2401.12345v2", "paper"),
    ("https://openreview.net/forum?id=abc", "https://openreview.net/forum?id=abc", "paper"),
    ("https://vllm.readthedocs.io/en/latest/", "https://vllm.readthedocs.io/en/latest/", "docs"),
    ("https://docs.nvidia.com/cuda/", "https://docs.nvidia.com/cuda/", "docs"),
    ("https://www.deepspeed.ai/tutorials/x/", "https://www.deepspeed.ai/tutorials/x/", "docs"),
    ("https://pypi.org/project/vllm/", "https://pypi.org/project/vllm/", "other"),
]


@pytest.mark.parametrize(("text", "url", "kind"), SITE_CASES)
def test_other_sites(text: str, url: str, kind: str) -> None:
    link = _one(text)
    assert (link.url, link.kind) == (url, kind)


def test_github_io_pages_hint_at_their_repo() -> None:
    link = _one("https://cbysjtu.github.io/Rank2Score/")
    assert (link.kind, link.owner, link.name) == ("project", "cbysjtu", "Rank2Score")


def test_arxiv_links_carry_the_id() -> None:
    assert _one("https://arxiv.org/pdf/2401.12345v3.pdf").name == "2401.12345"


NOT_LINKS = [
    "javascript:alert(1)",
    "file:///etc/passwd",
    "data:text/html,<b>hi</b>",
    "ftp://github.com/a/b",
    "vscode://github.com/a/b",
    "ssh://git@github.com/a/b",
    "git@github.com:a/b.git",
    "mailto:someone@github.com",
    "https://user:secret@github.com/a/b",
    "https://github.com@evil.example/a/b",
    "https://exa mple.com",
    "CUDA.jl, AMDGPU.jl and model.py, e.g. i.e. etc.",
    "https://",
    "https://-bad-.com/",
    "a 3.14 value, v1.2.3 and foo.bar",
]


@pytest.mark.parametrize("text", NOT_LINKS)
def test_never_a_non_http_or_unsafe_link(text: str) -> None:
    assert extract_links(text) == []


def test_credentials_and_disguised_hosts_are_dropped() -> None:
    assert extract_links("https://user:secret@github.com/a/b") == []
    assert extract_links("https://github.com@evil.example/a/b") == []
    assert extract_links("ftp://github.com/a/b javascript:alert(1)") == []


def test_control_characters_end_a_url() -> None:
    link = _one("\x1b[31mhttps://github.com/a/b\x1b[0m")
    assert link.url == "https://github.com/a/b"


def test_glued_urls_are_split() -> None:
    links = extract_links("https://github.com/a/b,https://github.com/c/d")
    assert [lk.url for lk in links] == ["https://github.com/a/b", "https://github.com/c/d"]


def test_canonical_link() -> None:
    link = canonical_link("github.com/NVIDIA/Megatron-LM.git")
    assert link is not None and link.url == "https://github.com/NVIDIA/Megatron-LM"
    assert canonical_link("javascript:alert(1)") is None


# --- official or mentioned ------------------------------------------------------------------

KIND_CASES = [
    ("Our code is available at https://github.com/us/ours.", "official"),
    ("Code: https://github.com/us/ours", "official"),
    ("We release our models and code at https://github.com/us/ours.", "official"),
    ("X has been open-sourced in https://github.com/us/ours.", "official"),
    ("The project and code can be found at github.com/us/ours", "official"),
    ("Results are strong. https://github.com/us/ours", "official"),
    ("https://github.com/us/ours", "official"),
    ("Our kernels are released here to help research: https://github.com/us/ours", "official"),
    ("We build on vLLM (https://github.com/us/ours).", "mentioned"),
    ("We compare against FlashAttention https://github.com/us/ours.", "mentioned"),
    ("Our system is implemented on top of https://github.com/us/ours.", "mentioned"),
    ("Baselines such as https://github.com/us/ours perform worse.", "mentioned"),
    ("We evaluate using the harness at https://github.com/us/ours.", "mentioned"),
    ("See also https://github.com/us/ours for context.", "mentioned"),
]


@pytest.mark.parametrize(("text", "kind"), KIND_CASES)
def test_repo_kind_from_the_sentence(text: str, kind: str) -> None:
    repos = repos_from_text(text)
    assert [r.kind for r in repos] == [kind]


def test_two_repos_in_one_sentence() -> None:
    text = (
        "We build on vLLM (https://github.com/vllm-project/vllm). "
        "Our code is available at https://github.com/us/ours, built on "
        "https://github.com/other/base, e.g. with fewer copies."
    )
    kinds = {r.name: r.kind for r in repos_from_text(text)}
    assert kinds == {"vllm": "mentioned", "ours": "official", "base": "mentioned"}


def test_words_inside_urls_are_not_wording() -> None:
    # "code-release" inside the first URL must not make the second one official.
    text = "We compare with https://github.com/x/code-release and https://github.com/y/z."
    assert [r.kind for r in repos_from_text(text)] == ["mentioned", "mentioned"]


def test_repo_without_text_is_mentioned() -> None:
    repos = repos_from_links(extract_links("https://github.com/a/b"))
    assert [(r.kind, r.source) for r in repos] == [("mentioned", "abstract")]


def test_an_official_occurrence_wins() -> None:
    text = (
        "Unlike https://github.com/a/b, we are fast. Our code is at https://github.com/A/B/tree/v2."
    )
    repos = repos_from_text(text)
    assert [(r.kind, r.url) for r in repos] == [("official", "https://github.com/a/b")]


# --- properties -----------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "https://",
        "http://",
        "https:// ",
        "github.com/",
        "www.",
        "hf.co/",
        "huggingface.co/datasets/",
        "gitlab.com/",
        ".github.io",
        "a",
        "B",
        "-",
        "_",
        ".",
        ",",
        ";",
        ":",
        "/",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "<",
        ">",
        " ",
        "\n",
        "@",
        "#",
        "?",
        "=",
        "%",
        "%2F",
        "\\_",
        "\x1b",
        "\u202e",
        "é",
        "。",
        "javascript:",
        "our code is available at ",
        "built on ",
        ".git",
        "tree/main/",
    ]
)


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_any_text_gives_only_safe_links(text: str) -> None:
    links = extract_links(text)
    for link in links:
        assert is_openable(link.url), link.url
        assert link.url.startswith(("https://", "http://"))
        assert link.host == link.host.lower()
    for repo in repos_from_links(links, text):
        assert is_openable(repo.url)
        assert repo.kind in ("official", "mentioned")
