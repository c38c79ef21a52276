"""The literal scanner: exact against a brute-force search; one scan per text in the pipeline."""

from __future__ import annotations

import random

import pytest

from digest_tui.enrich import literal_scan
from digest_tui.enrich.hardware.text import matchers
from digest_tui.enrich.literal_scan import SEPARATORS, LiteralScanner, split_tokens
from digest_tui.enrich.pipeline import Enricher
from digest_tui.models import Paper

SUBSTRINGS = ["gpu", "gpus", "pu", "h100", "100", "rtx", "4090", "ai", "a-b", "x y"]
WORD_STARTS = ["kernel", "kernels", "ker", "moe", "c++", "c", "gpu", "σ", "ς"]


def brute_present(text: str) -> set[str]:
    return {s for s in SUBSTRINGS if s in text}


def brute_starts(text: str) -> list[tuple[int, set[str]]]:
    """Word starts (after neither a word character nor "_") where a literal begins."""
    out = []
    for at in range(len(text)):
        if not text[at].isalnum() or (at and (text[at - 1].isalnum() or text[at - 1] == "_")):
            continue
        found = {s for s in WORD_STARTS if text.startswith(s, at)}
        # A literal of letters and digits must end the word or go on inside it; the scanner
        # reports it whenever the word begins with it.
        if found:
            out.append((at, found))
    return out


def test_scan_is_exact_on_random_text() -> None:
    scanner = LiteralScanner(SUBSTRINGS, WORD_STARTS)
    pieces = [*SUBSTRINGS, *WORD_STARTS, " ", "_", "-", "«", "»", "\u00a0", "x", "8", "é", "."]
    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        scanned = scanner.scan(text)
        assert scanned.present == brute_present(text), text
        assert [(at, set(found)) for at, found in scanned.starts] == brute_starts(text), text


@pytest.mark.parametrize("max_words", [3, 40, 200_000])
def test_substring_scan_is_exact_when_the_word_table_starts_again(
    max_words: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scanner of substrings only (the hardware extractor's) reads the table of tokens after
    entering a text's new ones; when the table is full it starts again, also mid-text."""
    monkeypatch.setattr(literal_scan, "_MAX_WORDS", max_words)
    scanner = LiteralScanner(SUBSTRINGS)
    pieces = [*SUBSTRINGS, " ", "-", "x", "8", "é", ".", "zz", "q"]
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        scanned = scanner.scan(text)
        assert scanned.present == brute_present(text), text
        assert scanned.starts == []
        assert len(scanner._words) <= max(max_words, 200)


def test_tokens_split_where_ascii_punctuation_and_spaces_are() -> None:
    rng = random.Random(11)
    pieces = ["a", "Z", "7", " ", "-", "_", ".", "\u2013", "×", "é", "\u00a0", "\t", "ß", "\x7f"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))
        assert split_tokens(text) == text.translate(SEPARATORS).split(" "), text


def test_word_start_literal_must_begin_a_word() -> None:
    with pytest.raises(ValueError, match="begin with a letter or digit"):
        LiteralScanner(word_starts=["-x"])


def test_the_pipeline_scans_each_text_once() -> None:
    enricher = Enricher(None)
    scanner = matchers(enricher.hardware_catalog).scanner

    scanned: list[str] = []
    original = scanner.scan

    def counting(text: str):  # type: ignore[no-untyped-def]
        if not scanner.remembers(text):
            scanned.append(text)
        return original(text)

    scanner.scan = counting  # type: ignore[method-assign]
    paper = Paper(
        id="p1",
        title="Fused MoE kernels on 8 H100 GPUs",
        abstract="We write CUDA kernels for mixture-of-experts layers and train on 8 H100 GPUs.",
    )
    result = enricher.enrich(paper)
    assert result.topics == ["kernels", "moe"]
    assert result.hardware is not None and result.hardware["device_counts"] == {"h100": 8}
    # Title and abstract, each once: the joined text is worked out from their two scans.
    assert sorted(scanned) == sorted({paper.title.lower(), paper.abstract.lower()})
