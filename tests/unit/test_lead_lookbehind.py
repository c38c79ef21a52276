"""`gate.lead_form` of a pattern whose one leading literal follows literal look-behinds (with
capitals, in a case-sensitive pattern: the catalog's "(?<!Pareto )Frontier"): rewritten to open
with the literal, and the same matches as written, on generated texts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from digest_tui.enrich.gate import lead_compile, lead_form

PATTERNS = [
    r"(?:(?:(?<!Pareto )(?<!Efficient )(?<!New )Frontier\b(?!s\b)(?! (?:[Mm]odels?|of\b))))s?"
    r"(?![A-Za-z0-9])",
    r"(?<!only )requir(?:e|es|ed)\b",
    r"(?<=Big )Iron\b|(?<=big )iron\b",
    r"(?<!No )Go\b",
]
PIECES = ["Pareto ", "Efficient ", "New ", "Frontier", "Frontiers", " models", " of", "s",
          " ", "x", "only ", "requires", "required", "Big ", "big ", "Iron", "iron", "No ",
          "Go", "go", "\n"]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=16).map("".join)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_literal_after_look_behinds_is_led(pattern: str) -> None:
    assert lead_form(pattern) is not None


def test_a_pattern_opening_with_its_literal_is_kept() -> None:
    assert lead_form(r"Frontier\b(?!s)") is None  # re already looks for its prefix


@settings(max_examples=300, deadline=None)
@given(texts)
def test_led_patterns_find_what_the_written_ones_find(text: str) -> None:
    for pattern in PATTERNS:
        written = re.compile(pattern)
        led = lead_compile(pattern)
        assert led.pattern != pattern
        expected = [(m.span(), m.groups()) for m in written.finditer(text)]
        assert [(m.span(), m.groups()) for m in led.finditer(text)] == expected
