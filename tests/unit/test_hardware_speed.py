"""Faster forms of the hardware extractor's patterns find exactly what the patterns find.

Each rewrite in enrich/hardware/text.py and suggest.py that runs a pattern in another way
(tried only where a cheaper pattern says a match can start, or on the lower-cased text) is
checked here against the pattern as written, on every reference text and crafted edges. The
whole enrichment output is pinned by test_enrich_reference.py.
"""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.text import _SIZE, _size_matches
from tests.unit.test_enrich_reference import eval_papers, fixture_digest_papers

CRAFTED = [
    "",
    "7B 7B7B a7B .5B 1.5B 0.5 B 8x7B 8 x 7B 8×7B a8x7B 8x 7B 8xx7B 7Bn 7B-tokens 7B tokens",
    "12.5.3B 1..5B 3.7M active 2T 2 T 10Bx 5x5x5B 7 B 7\u00a0B 7\tB x7B _7B 7_B",
    "\uff18B \u0663B 8\u00d7\uff17B 1,5B 1,000B (7B) [13B] 70B/8x22B",
]


def _texts() -> list[str]:
    texts = list(CRAFTED)
    for _, paper in [*fixture_digest_papers(), *eval_papers()]:
        texts += [paper.title, paper.abstract, paper.abstract.upper()]
    return texts


def _outcome(matches: object) -> list[tuple[object, ...]]:
    return [(m.span(), m.groups()) for m in matches]  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", CRAFTED)
def test_model_sizes_on_crafted_edges(text: str) -> None:
    assert _outcome(_size_matches(text)) == _outcome(_SIZE.finditer(text))


def test_model_sizes_are_found_where_the_pattern_finds_them() -> None:
    found = 0
    for text in _texts():
        expected = _outcome(_SIZE.finditer(text))
        assert _outcome(_size_matches(text)) == expected, text[:120]
        found += len(expected)
    assert found > 500
