"""A topic pattern scanned whole is tried only where a character its matches can start with
stands (`matching._head_class`, `gate.headed_finditer`): the same matches as `finditer`."""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from digest_tui.enrich.gate import headed_finditer
from digest_tui.enrich.topics.matching import (
    CompiledPattern,
    _ascii_class,
    _head_class,
)
from digest_tui.enrich.topics.taxonomy import load_taxonomy

# Patterns with a head class (digits, punctuation) and without one (letters, the empty string).
HEADED = [
    r"(?:\d{3,}|\d{1,3}(?:,\d{3})+)(?:[\s-]+[\w-]+){0,2}[\s-]+(?:gpus|nodes)",
    r"(?<![\w.])\d+(?:\.\d+)?\s?[bm]\b",
    r"\b\d+x\b|\#\d+|\(\d+\)",
    r"(?:[0-9]|[+-])\d*%",
    r"\d+(?:,\d{3})*\b",
]
UNHEADED = [r"\bkernels?\b", r"\d*", r"(?:^|we )frontier", r".\d", r"[^a]\d", r"(?:\s|\d)x"]

# Texts made of the pieces these patterns look for, so that they match often and overlap.
PIECES = ["1", "12", "123", "4,096", ",000", " ", "-", ".", "x", "gpus", "nodes", "b", "m", "%",
          "#", "(", ")", "a", "kernel", "\n", "٣", "k"]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@pytest.mark.parametrize("source", HEADED)
def test_a_pattern_opening_with_rare_characters_has_a_head(source: str) -> None:
    assert _head_class(source, re.VERBOSE) is not None


@pytest.mark.parametrize("source", UNHEADED)
def test_letters_spaces_any_character_or_the_empty_match_give_none(source: str) -> None:
    assert _head_class(source, 0) is None


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from(HEADED))
def test_headed_finditer_finds_what_finditer_finds(text: str, source: str) -> None:
    regex = re.compile(source)
    head = _head_class(source, 0)
    assert head is not None
    expected = [(m.span(), m.groups()) for m in regex.finditer(text)]
    assert [(m.span(), m.groups()) for m in headed_finditer(regex, head, text)] == expected
    if text.isascii():  # the class with 0-9 for \d, which the matcher uses on ASCII texts
        found = headed_finditer(regex, _ascii_class(head), text)
        assert [(m.span(), m.groups()) for m in found] == expected


@cache
def taxonomy_headed() -> list[CompiledPattern]:
    return [p for p in load_taxonomy().index.scan if p.head is not None]


def test_the_taxonomy_has_a_headed_pattern() -> None:
    assert taxonomy_headed()  # the GPU-count pattern of training-parallelism


@settings(max_examples=200, deadline=None)
@given(texts)
def test_the_taxonomys_headed_patterns_find_what_finditer_finds(text: str) -> None:
    for pattern in taxonomy_headed():
        for subject in (text, f"we train on {text} gpus", text.upper()):
            expected = [m.span() for m in pattern.regex.finditer(subject)]
            found = headed_finditer(pattern.regex, pattern.head, subject)  # type: ignore[arg-type]
            assert [m.span() for m in found] == expected
            if subject.isascii():
                ascii_head = pattern.head_ascii
                assert ascii_head is not None
                found = headed_finditer(pattern.regex, ascii_head, subject)
                assert [m.span() for m in found] == expected
