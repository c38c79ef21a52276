"""Markdown export: a readable list; digest text cannot inject links, HTML or formatting."""

from __future__ import annotations

from digest_tui.export.markdown import link, md_escape, to_markdown
from tests.support.export import exported_papers


def test_reading_list_layout():
    text = to_markdown(exported_papers())
    assert text.startswith("# Reading list\n\n_5 papers, exported by digest-tui._\n")
    assert (
        "## 1. [FlashAttention-3: Fast and Accurate Attention with Asynchrony]"
        "(https://arxiv.org/abs/2407.08608)" in text
    )
    assert "**Published:** 2024-07-11" in text
    assert "**arXiv:** [2407.08608](https://arxiv.org/abs/2407.08608)" in text
    assert "**Topics:** other" in text
    assert "- **Tags:** `kernels`, `to-read`" in text
    assert "> Uses TMA & warp specialisation; 1.5-2x over FA2.\n> See §3." in text


def test_untrusted_text_is_escaped():
    text = to_markdown(exported_papers())
    assert "\x1b" not in text
    assert r"50% of \{GPU\} & $cost \#1 for\_x \~ ^ \\ in Mélange" in text
    assert md_escape("[click](javascript:alert(1)) <b>") == (
        r"\[click\]\(javascript:alert\(1\)\) \<b\>"
    )
    assert link("x", "https://e.org/a b(c)") == "[x](https://e.org/a%20b%28c%29)"


def test_code_and_hardware_lines():
    paper = dict(
        exported_papers()[0],
        repos=[
            {
                "url": "https://github.com/Dao-AILab/flash-attention",
                "host": "github.com",
                "owner": "Dao-AILab",
                "name": "flash-attention",
                "kind": "official",
                "source": "curated",
                "stars": 20000,
            },
            {"url": "javascript:alert(1)", "host": "x", "kind": "community", "source": "user"},
        ],
        hardware={"target": "1x H100 80GB", "scale": "single-device", "confidence": "high"},
    )
    text = to_markdown([paper])
    assert (
        "- **Code:** [Dao-AILab/flash-attention](https://github.com/Dao-AILab/flash-attention) "
        "(official, ★ 20000)" in text
    )
    assert "javascript" not in text
    assert "- **Hardware:** 1x H100 80GB (single-device, high confidence)" in text
