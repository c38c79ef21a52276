"""Faster forms of the hardware extractor's patterns find exactly what the patterns find.

Each rewrite in enrich/hardware/text.py and suggest.py that runs a pattern in another way
(tried only where a cheaper pattern says a match can start, or on the lower-cased text) is
checked here against the pattern as written, on every reference text and crafted edges. The
whole enrichment output is pinned by test_enrich_reference.py.
"""

from __future__ import annotations

import re

import pytest

from digest_tui.enrich.gate import folded, folded_parts, folds, lower_pattern, merged
from digest_tui.enrich.hardware import suggest as suggest_module
from digest_tui.enrich.hardware import text as text_module
from digest_tui.enrich.hardware.suggest import _finds
from digest_tui.enrich.hardware.text import _OWN_NAME, _SIZE, _own_name_hits, _size_matches
from digest_tui.enrich.topics import classifier as classifier_module
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


# --- case-insensitive patterns run on the lower-cased text -------------------------------------


def _case_insensitive_patterns() -> list[re.Pattern[str]]:
    """Every case-insensitive pattern of the extractor's and the suggestion's modules and of the
    topic classifier (those run through `folded` and the others: the folding must hold for any
    of them)."""
    found: list[re.Pattern[str]] = []
    for module in (text_module, suggest_module, classifier_module):
        for value in vars(module).values():
            items = value if isinstance(value, tuple) else (value,)
            for item in items:
                for candidate in item if isinstance(item, tuple) else (item,):
                    if isinstance(candidate, re.Pattern) and candidate.flags & re.IGNORECASE:
                        found.append(candidate)
    return list(dict.fromkeys(found))


FOLDING_EDGES = [
    "code at HTTPS://GitHub.com/X/Y and Www.Example.org/a; hTtP://x.io/ http:/ www",
    "This paper Proposes MoEShard, WE Introduce TPI-LLM; we present a NEW system",
    "ıntroduce we ınTroduce Xyz; we preſent AbC; İ we propose AbC",  # do not fold: see folds()
    "the \u212aelvin sign: we propose \u212aV-Cache (K lower-cases to k, as re matches it)",
    "ΣΑΣ we propose ΣYS-2 and ǅx we design Ab-1",
]


def test_folds_only_where_case_insensitive_matching_equals_lower_casing() -> None:
    assert folds("We PROPOSE X", "we propose x")
    assert not folds("ınt", "ınt") and not folds("preſent", "preſent")
    assert not folds("İ", "İ".lower())


def test_folded_patterns_find_what_the_patterns_find() -> None:
    patterns = _case_insensitive_patterns()
    assert len(patterns) >= 40 and _OWN_NAME in patterns
    led = [p for p in patterns if folded(p).pattern != lower_pattern(p.pattern)]
    assert len(led) >= 10  # most open with a word: they open with its first letters
    assert sum(folded_parts(p) is not None for p in patterns) >= 10
    texts = [*FOLDING_EDGES, *_texts()]
    checked = 0
    for text in texts:
        lowered = text.lower()
        if not folds(text, lowered):
            continue
        for pattern in patterns:
            expected = [(m.span(), m.regs) for m in pattern.finditer(text)]
            assert [(m.span(), m.regs) for m in folded(pattern).finditer(lowered)] == expected, (
                pattern.pattern[:80],
                text[:80],
            )
            parts = folded_parts(pattern)
            if parts is not None:  # one pattern per first character, merged
                found = [(m.span(), m.regs) for m in merged(parts, lowered)]
                assert found == expected, (pattern.pattern[:80], text[:80])
            checked += len(expected)
    assert checked > 10_000


def test_own_name_hits_fold_only_where_that_finds_the_same() -> None:
    for text in FOLDING_EDGES:
        names = [m.group("name") for m in _OWN_NAME.finditer(text)]
        hits = _own_name_hits(text, text.lower())
        assert bool(hits) == bool([n for n in names if sum(c.isupper() for c in n) >= 2])


def test_study_checks_fold_only_where_that_finds_the_same() -> None:
    for pattern in _case_insensitive_patterns():
        for text in [*FOLDING_EDGES, "ſurvey", "a ſurvey of ſimulators", "İ SURVEY"]:
            assert _finds(pattern, text) == (pattern.search(text) is not None)
