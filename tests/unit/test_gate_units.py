"""Rule patterns run with only the units of alternatives a text's literals allow.

`Gated` cuts a pattern into units of alternatives (those of a `lead_form` that share a first
character, or the top-level branches) and `needs` says what each alternative needs (literals,
and sets of literals one of which). On a text, a unit none of whose alternatives has its
literals cannot match, so the pattern runs without it (enrich/gate.py). Checked here:
`needs` on crafted patterns; on every rule pattern and reference text, every alternative that
matches holds what `needs` says it needs; and the pattern run with the units the text allows
finds exactly the matches of the whole pattern. The whole enrichment output is pinned by
test_enrich_reference.py.
"""

from __future__ import annotations

import random
import re

import pytest

from digest_tui.enrich.gate import (
    Gated,
    GateIndex,
    Lowered,
    _leftmost,
    _literal_head,
    lead_compile,
    merged,
    needs,
)
from digest_tui.enrich.hardware.text import matchers
from digest_tui.enrich.literal_scan import LiteralScanner
from digest_tui.enrich.pipeline import Enricher
from tests.unit.test_enrich_reference import eval_papers, fixture_digest_papers
from tests.unit.test_rules_speed import CRAFTED

Clauses = tuple[frozenset[str], ...]


@pytest.mark.parametrize(
    ("pattern", "literals", "clauses"),
    [
        (r"\bGPUs?\b", ("gpu",), ()),
        ("k(?:ernels?)", ("kernel",), ()),  # a group of one branch reads on
        (r"r(?<!only r)equir(?:e|es)", ("requir",), ()),  # a look-behind takes no character
        (r"\b(?:ab|cd)xy", ("xy",), (frozenset({"ab", "cd"}),)),
        (
            r"(?:billion|trillion) params?",
            ("illion", "param"),
            (frozenset({"billion", "trillion"}),),
        ),
        (r"(?:ab)?cd", ("cd",), ()),  # an optional group needs nothing
        (r"ab{0,2}cd", ("cd",), ()),  # "b" may be absent: "a" alone is too short
        (r"abc{2}de", ("abc", "de"), ()),
        (r"\x41bc\u00e9de", ("bc", "de"), ()),  # escapes are no letters of a literal
        (r"a\d+bc", ("bc",), ()),
        (r"[ab]cd", ("cd",), ()),
        (r"(?P<n>\d+)-GPU", ("gpu",), ()),
        (r"(?:kernels?)+ fused", ("kernel", "fused"), ()),
        (r"x{a}", (), ()),  # "{a}" is literal text: no quantifier, nothing read past it
        (r"\bab\b|cd", (), (frozenset({"ab", "cd"}),)),
        (r"\bab\b|c", (), ()),  # a branch with no literal: the pattern needs nothing
    ],
)
def test_needs(
    pattern: str, literals: tuple[str, ...], clauses: tuple[frozenset[str], ...]
) -> None:
    assert needs(pattern) == (literals, clauses)


def _gated() -> list[Gated]:
    return [g for g in matchers(Enricher().hardware_catalog).gates.gates if g.alternatives]


def _texts() -> list[str]:
    texts = list(CRAFTED)
    for _, paper in [*fixture_digest_papers(), *eval_papers()]:
        texts += [paper.title, paper.abstract]
    return texts


def _run(gated: Gated) -> tuple[re.Pattern[str], bool]:
    """The pattern the units belong to, and whether it runs on the lower-cased text."""
    return (gated.folded, True) if gated.folded is not None else (gated.pattern, False)


def test_most_costly_rule_patterns_are_cut_into_units() -> None:
    assert len(_gated()) >= 60


def test_every_alternative_that_matches_holds_what_it_needs() -> None:
    """`needs` on every alternative of every rule pattern, against the reference texts."""
    texts = _texts()
    lowered = [t.lower() for t in texts]
    checked = 0
    for gated in _gated():
        alternatives = gated.alternatives
        assert alternatives is not None
        pattern, folded = _run(gated)
        for unit, unit_needs in zip(alternatives.units, alternatives.needs, strict=True):
            for source, (literals, clauses) in zip(unit, unit_needs, strict=True):
                if alternatives.led:
                    first, rest = source.split("\x00", 1)
                    source = first + rest  # the first character (after "\b") and the rest
                alone = re.compile(source, pattern.flags)
                for text, low in zip(texts, lowered, strict=True):
                    if alone.search(low if folded else text):
                        checked += 1
                        assert all(t in low for t in literals), (source, text[:80])
                        assert all(any(t in low for t in c) for c in clauses), (source, text[:80])
    assert checked > 5_000


def test_the_units_a_text_allows_find_every_match() -> None:
    """Run with only the units a text's literals allow, each rule pattern finds the matches
    (spans, in order) of the whole pattern, on every reference text and crafted edge."""
    m = matchers(Enricher().hardware_catalog)
    every = [g for g in m.gates.gates if g.alternatives]
    narrowed = 0
    for text in _texts():
        lowered = m.lowered(text)
        for gated in every:
            pattern, folded = _run(gated)
            expected = [x.span() for x in pattern.finditer(lowered.text if folded else text)]
            found = [x.span() for x in gated.finditer(text, lowered)]
            assert found == expected, (pattern.pattern[:80], text[:80])
            search = gated.search(text, lowered)
            assert (search.span() if search else None) == (expected[0] if expected else None)
            assert gated.alternatives is not None
            narrowed += gated.alternatives.mask(lowered.present or frozenset()) not in (
                gated.alternatives.full,
                0,
            )
    assert narrowed > 10_000


def test_a_text_whose_case_folding_changes_its_length_runs_the_whole_pattern() -> None:
    """ "İ" lower-cases to two characters: the pattern as written runs on the text as written,
    with its units all (the literals were looked for in the lower-cased text)."""
    gated = Gated.compile(r"\bkernels?\b|\bcuda\b|\btriton\b", re.IGNORECASE)
    assert gated.alternatives is not None
    index = GateIndex([gated])
    scanner = LiteralScanner(index.literals)
    for text, spans in [("İ CUDA kernels", [(2, 6), (7, 14)]), ("I CUDA kernels", [(2, 6)])]:
        low = text.lower()
        lowered = Lowered(low, scanner.scan(low).present, index)
        if len(low) == len(text):
            spans = [(2, 6), (7, 14)]
        assert [x.span() for x in gated.finditer(text, lowered)] == spans
    # Without "cuda" or "kernel" in the text, the pattern is not run at all.
    assert gated.alternatives.mask(scanner.scan("triton").present) == 0b100


def test_top_level_branches_are_the_units_of_a_pattern_without_a_lead_form() -> None:
    gated = Gated.compile(r"\d+x\b|\bkernels?\b|[Cc]uda\b")
    assert gated.alternatives is not None and not gated.alternatives.led
    assert gated.alternatives.needs == [[((), ())], [(("kernel",), ())], [(("uda",), ())]]
    index = GateIndex([gated])
    scanner = LiteralScanner(index.literals)
    plain = re.compile(gated.pattern.pattern)
    for text in ["8x kernels", "Cuda 8x", "kernels and cuda", "no match", "3x"]:
        low = text.lower()
        lowered = Lowered(low, scanner.scan(low).present, index)
        expected = [x.span() for x in plain.finditer(text)]
        assert [x.span() for x in gated.finditer(text, lowered)] == expected
    mask = gated.alternatives.mask(scanner.scan("8x cuda").present)
    assert mask == 0b101  # the digits always (no literal), "uda"; not "kernel"


def test_a_pattern_whose_literals_were_not_looked_for_runs_whole() -> None:
    """A gated pattern that is not in the index the text was scanned with (its literals may not
    have been looked for) runs as written, whatever the scan found."""
    indexed = Gated.compile(r"\bkernels?\b", re.IGNORECASE)
    other = Gated.compile(r"\bmemory budgets?\b|\bcuda\b", re.IGNORECASE)
    assert other.alternatives is not None
    index = GateIndex([indexed])
    scanner = LiteralScanner(index.literals)
    text = "kernels under a memory budget"
    lowered = Lowered(text.lower(), scanner.scan(text.lower()).present, index)
    assert [m.span() for m in other.finditer(text, lowered)] == [(16, 29)]
    assert [m.span() for m in indexed.finditer(text, lowered)] == [(0, 7)]


def test_open_gates_are_those_with_a_branch_whose_literals_are_all_present() -> None:
    m = matchers(Enricher().hardware_catalog)
    index = m.gates
    lists = [m.gated_aliases, m.gated_cues, m.gated_features, m.gated_vendors, m.gated_models]
    literals = sorted(index.literals)
    rng = random.Random(3)
    for size in [0, 1, 5, 30, 120, len(literals)]:
        for _ in range(20):
            present = frozenset(rng.sample(literals, size))
            expected = {
                id(g) for g in index.gates if any(all(t in present for t in b) for b in g.triggers)
            }
            assert index.open_gates(present) == {None, *expected}
            lowered = Lowered("", present, index)
            for gate in index.gates:  # asked one by one, before the whole index is worked out
                assert gate.may_match(lowered) == (not gate.triggers or id(gate) in expected)
            assert lowered.open == {None, *expected}
            for tagged in lists:  # each gated list of the extractor, filtered in order
                keys = [None] * len(tagged.values)
                for key, at in tagged.positions.items():
                    for i in at:
                        keys[i] = key
                assert lowered.opened(tagged) == [
                    item
                    for key, item in zip(keys, tagged.values, strict=True)
                    if key is None or key in expected
                ]
            for gate in index.gates:  # and after
                assert gate.may_match(lowered) == (not gate.triggers or id(gate) in expected)


def test_units_run_one_by_one_find_what_their_alternation_finds() -> None:
    """`merged` and `_leftmost` (the units of a lead_form run one pattern each) against the
    alternation of the same patterns, on random texts where their matches overlap."""
    parts = (
        re.compile(r"a(?<=\b.)(?:b\w*|c)"),
        re.compile(r"b\w*"),
        re.compile(r"c(?:ab|a)"),
        re.compile(r"d(?<=\b.)\s*a"),
    )
    whole = re.compile("|".join(p.pattern for p in parts))
    rng = random.Random(9)
    for _ in range(3000):
        text = "".join(rng.choice("abcd _x") for _ in range(rng.randint(0, 24)))
        expected = [m.span() for m in whole.finditer(text)]
        assert [m.span() for m in merged(parts, text)] == expected, text
        first = _leftmost(parts, text)
        assert (first.span() if first else None) == (expected[0] if expected else None), text


@pytest.mark.parametrize(
    ("fragment", "head", "rest"),
    [
        (r"(?:ernels?\b)x", "ernel", r"s?\bx"),
        (r"his (?:paper|work)", "his ", r"(?:paper|work)"),
        (r"(?:(?:e))", "e", ""),
        (r"(?:ab)?c", "", r"(?:ab)?c"),
        (r"ulti-?gpu", "ulti", r"-?gpu"),
        (r"(?<!only r)equir", "", r"(?<!only r)equir"),
        (r"a{2}b", "", r"a{2}b"),
    ],
)
def test_literal_head(fragment: str, head: str, rest: str) -> None:
    assert _literal_head(fragment) == (head, rest)


@pytest.mark.parametrize(
    "pattern",
    [
        r"\bkernels?\b|\bkern\b|\bkernel-level\b|\bcuda\b",
        r"\bthe proposed\b|\bthe\b|\bthis (?:paper|work)\b|\bthat\b",
        r"\bq?lora\b|\blow-rank\b",
        r"\b(?:a|an|one)\s+(?:single\s+)?gpu\b",
        r"\bmulti-?gpu\b|\bmulti-node\b|mult\b|\bm\b",
        r"\b(?:(?<!only )requir(?:e|es)\b|typically)",
    ],
)
def test_lead_forms_with_a_shared_literal_match_as_written(pattern: str) -> None:
    led = lead_compile(pattern)
    assert led.pattern != pattern
    written = re.compile(pattern)
    words = [
        "kern",
        "kernel",
        "kernels",
        "-level",
        "cuda",
        "the",
        " proposed",
        "this",
        " paper",
        "that",
        "qlora",
        "lora",
        "low-rank",
        "a",
        "an",
        "one",
        " ",
        "  single ",
        "gpu",
        "multi",
        "-",
        "node",
        "mult",
        "m",
        "only ",
        "requires",
        "require",
        "typically",
        "x",
    ]
    rng = random.Random(len(pattern))
    for _ in range(2000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        assert [m.span() for m in led.finditer(text)] == [m.span() for m in written.finditer(text)]


@pytest.mark.parametrize(
    ("pattern", "literals", "clauses"),
    [
        (
            r"(?P<n>\d+)-(?:gpu|npu)\s+x",
            (),  # "x" alone is too short
            (frozenset({"-gpu", "-npu"}), frozenset({"gpu", "npu"})),
        ),
        (r"\bm[1-4] (?:pro|max)\b", (), (frozenset({" pro", " max"}), frozenset({"pro", "max"}))),
        (r"a-b?c", ("a-",), ()),
        (r"x\.y", (), ()),  # escaped punctuation is not read
    ],
)
def test_needs_read_wide(pattern: str, literals: tuple[str, ...], clauses: Clauses) -> None:
    assert needs(pattern, wide=True) == (literals, clauses)


def test_patterns_without_literals_hold_their_substrings_where_they_match() -> None:
    """A gated pattern with no literal to gate it is tested for `substrings` in the lower-cased
    text: on every reference text where it matches, it holds them."""
    gates = [g for g in matchers(Enricher().hardware_catalog).gates.gates if g.substrings]
    assert gates
    matched = 0
    crafted = [
        "8-GPU nodes",
        "a 128-NPU System",
        "two 4-card\tboxes",
        "16-Gpu-scale",
        "8 -GPU node",
    ]
    for text in [*crafted, *_texts()]:
        low = text.lower()
        for gated in gates:
            pattern, folded = _run(gated)
            if pattern.search(low if folded else text):
                matched += 1
                assert all(any(t in low for t in c) for c in gated.substrings), text[:80]
    assert matched >= 10
