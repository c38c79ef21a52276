"""The hardware rules' patterns in their `lead_form` match exactly as written.

`Gated.compile` compiles a pattern that opens with `\\b` and a word (or an alternation of them)
in a form that opens with the class of its first characters, which `re` looks for with a
fast loop (enrich/gate.py). Every rule pattern of the packaged catalog and of
hardware/text.py is run here both ways, as written and rewritten, on the texts of the
reference papers and on crafted edge cases: the spans, the groups and their order must be
the same. The whole enrichment output is pinned by test_enrich_reference.py.
"""

from __future__ import annotations

import re

import pytest

from digest_tui.enrich.gate import Gated, lead_compile, lead_form, lower_pattern, triggers
from digest_tui.enrich.hardware.text import (
    _OWN_NAME,
    _PER_MACHINE,
    _TOKENS,
    _word_hits,
    matchers,
)
from digest_tui.enrich.pipeline import Enricher
from tests.unit.test_enrich_reference import eval_papers, fixture_digest_papers

CRAFTED = [
    "",
    "kernels kernel_ cuda-kernels xkernel kernel's kernel-level  Kernels\nkernel",
    "only requires; it requires only; required; typically often usually",
    "we our us ourselves this paper this work the proposed proposed-method unproposed",
    "speed-up speedups faster latency throughput tflops flop/s outperforms",
    "é kernels ükernel 8-gpu 8 gpus gpu nodes node clusters tpu v4 pods",
    "pre-training pretrain post-train training trains trained train-free",
    "a single gpu; a single 24gb consumer gpu; the single-gpu setup; one gpu",
]


def _gated_patterns() -> list[Gated]:
    m = matchers(Enricher().hardware_catalog)
    return list(m.gates.gates)


def _texts() -> list[str]:
    texts = list(CRAFTED)
    for _, paper in [*fixture_digest_papers(), *eval_papers()][::2]:
        texts.append(paper.title)
        texts.append(paper.abstract)
    return texts


def _outcome(pattern: re.Pattern[str], text: str) -> list[tuple[object, ...]]:
    return [(m.span(), m.groups(), m.groupdict()) for m in pattern.finditer(text)]


def test_most_rule_patterns_have_a_lead_form() -> None:
    """The rewrite applies to the word alternations that cost the most."""
    gated = _gated_patterns()
    led = [
        g
        for g in gated
        if g.folded is not None and g.folded.pattern != lower_pattern(g.pattern.pattern)
    ]
    assert len(led) >= 40


def test_every_rule_pattern_matches_as_written_in_its_lead_form() -> None:
    texts = _texts()
    lowered = [t.lower() for t in texts]
    checked = matched = 0
    for gated in _gated_patterns():
        if gated.folded is not None:
            written = re.compile(lower_pattern(gated.pattern.pattern))
            led, subjects = gated.folded, lowered
        else:
            written = re.compile(gated.pattern.pattern, gated.pattern.flags)
            led, subjects = gated.pattern, texts
        if led.pattern == written.pattern:
            continue
        checked += 1
        for text in subjects:
            expected = _outcome(written, text)
            assert _outcome(led, text) == expected, (written.pattern[:120], text[:120])
            matched += len(expected)
    assert checked >= 40 and matched > 1_000


@pytest.mark.parametrize(
    ("pattern", "texts"),
    [
        (r"\bkernels?\b|\bcuda\b|h100", ["kernels h100 xh100 cuda xcuda", "ah100kernel"]),
        (r"\b(?:(?<!only )requir(?:e|es)\b|typically)", ["only requires; requires; typically"]),
        (r"\b(?:the )?proposed\b|\bthe\b", ["the proposed the theproposed proposed"]),
        (r"(?:ab|a)c?|\bb", ["abc ac a b ab xb"]),
        (r"\bq?lora\b|\bqx?y", ["qlora lora xlora qloras qy qxy q"]),
        (r"\b(?:x(?P<n>\d+)|y(?P<m>\d+))", ["x12 y3 ax4"]),
    ],
)
def test_crafted_patterns_match_as_written(pattern: str, texts: list[str]) -> None:
    led = lead_compile(pattern)
    assert led.pattern != pattern, "expected a lead form"
    for text in texts:
        assert _outcome(led, text) == _outcome(re.compile(pattern), text)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?<![\w.])\d+-gpu",  # opens with a class
        r"\b(\w)\1",  # a back-reference
        r"\bkernels?\b|[ab]x",  # a branch opening with a class
        r"perlmutter",  # one literal prefix: `re` already skips to it
        r"\b(?:ab)*c",  # a repeated group
        r"\b(?:(?P<n>a)|b)x(?P<m>y)",  # fine: the named group stays single
    ],
)
def test_patterns_without_a_safe_lead_form_are_kept(pattern: str) -> None:
    led = lead_compile(pattern)
    if lead_form(pattern) is None:
        assert led.pattern == pattern
    for text in ["ab aax 12-gpu perlmutter ababc c ax by bxy axy"]:
        assert _outcome(led, text) == _outcome(re.compile(pattern), text)


def test_a_group_repeated_by_the_expansion_keeps_the_pattern_as_written() -> None:
    """Expanding "(?:a|b)(?P<n>x)" would define the group twice: the pattern is kept."""
    pattern = r"\b(?:a|b)(?P<n>x)"
    assert lead_form(pattern) is not None
    assert lead_compile(pattern).pattern == pattern


# --- the paper's own system names, found without a regex per abstract -------------------------


def _regex_word_hits(text: str, names: list[str]) -> list[int]:
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
    return [m.start() for m in pattern.finditer(text)]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("MoEShard: MoEShard, MoEShards xMoEShard MoEShard_ MoEShard-2 MoEShard.", ["MoEShard"]),
        ("TPI-LLM and TPI-LLM-X; TPI-LLMs; (TPI-LLM)", ["TPI-LLM", "TPI-LLM-X"]),
        ("ABC-D ABC- ABC-x ABC-; ABC-", ["ABC-"]),
        ("FlashX FlashXY FlashX2 éFlashX FlashXé", ["FlashX", "FlashXY"]),
        ("AB ABC ABCD", ["ABCD", "ABC", "AB"]),
        ("AB ABC ABCD", ["AB", "ABC", "ABCD"]),
        ("", ["AB"]),
    ],
)
def test_own_names_are_found_where_the_word_regex_finds_them(text: str, names: list[str]) -> None:
    assert _word_hits(text, names) == _regex_word_hits(text, names)


def test_own_names_on_the_reference_abstracts_match_the_regex() -> None:
    checked = 0
    for _, paper in [*fixture_digest_papers(), *eval_papers()]:
        names = [m.group("name") for m in _OWN_NAME.finditer(paper.abstract)][:8]
        names = [n for n in dict.fromkeys(names) if sum(c.isupper() for c in n) >= 2]
        if names:
            assert _word_hits(paper.abstract, names) == _regex_word_hits(paper.abstract, names)
            checked += 1
    assert checked > 100


# --- counts led by a digit class ---------------------------------------------------------------

# (digit-led form, the look-behind written in front): `_PER_MACHINE` also stops at a comma
# before the digit since counts may be comma-grouped ("a 4,000-GPU cluster").
_FORMS = {
    "per-machine": (r"(?P<num>\d(?<![\w.,]\d)", r"(?<![\w.,])(?P<num>\d"),
    "tokens": (r"(?P<num>\d(?<![\w.]\d)", r"(?<![\w.])(?P<num>\d"),
}


@pytest.mark.parametrize(
    ("gated", "form"), [(_PER_MACHINE, "per-machine"), (_TOKENS, "tokens")], ids=list(_FORMS)
)
def test_digit_led_counts_match_the_lookbehind_form(gated: Gated, form: str) -> None:
    """`_PER_MACHINE` and `_TOKENS` open with the count's digit class; with the look-behind
    in front, as they were written before, they find the same spans and groups."""
    digit_led, as_written_before = _FORMS[form]
    assert gated.pattern.pattern.startswith(digit_led)
    before = re.compile(
        gated.pattern.pattern.replace(digit_led, as_written_before, 1), gated.pattern.flags
    )
    crafted = "8-GPU nodes a8-GPU .8-GPU 1.8-GPU setup 128-NPU boxes; 15T tokens x2T tokens "
    crafted += "1.5T tokens .5T tokens 2 trillion tokens _3B tokens é4B tokens "
    crafted += "a 4,000-GPU cluster, 1,024-GPU testbed 12,5-GPU nodes"
    texts = [crafted] + [p.abstract for _, p in [*fixture_digest_papers(), *eval_papers()]]
    found = 0
    for text in texts:
        expected = _outcome(before, text)
        assert _outcome(gated.pattern, text) == expected, text[:120]
        if gated.folded is not None:
            assert _outcome(gated.folded, text.lower()) == _outcome(
                re.compile(lower_pattern(before.pattern)), text.lower()
            )
        found += len(expected)
    assert found >= 4


# --- a literal every branch of an alternation holds gates the pattern -------------------------


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\d+ (?:billion|trillion|million) params?", (("illion", "param"),)),
        (r"\b(?:larger|bigger) than", (("ger", "than"),)),
        (r"(?:ab|cd)x", ()),  # nothing of 3 characters in common: always runs
        (r"(?:kernel|kernels?) (?:fusion|fused)", (("kernel", "fus"),)),
    ],
)
def test_an_alternation_contributes_the_literal_all_its_branches_hold(
    pattern: str, expected: tuple[tuple[str, ...], ...]
) -> None:
    assert triggers(pattern) == expected
    # The gate only skips texts the pattern cannot match.
    for text in ["12 billion params", "3 million param", "larger than", "kernels fused"]:
        if re.search(pattern, text):
            assert any(all(t in text for t in branch) for branch in expected) or not expected
