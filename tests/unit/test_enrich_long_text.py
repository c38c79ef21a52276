"""Enrichment stays linear in the length of the text.

A scraped "abstract" can be megabytes of one phrase repeated. Every test here classifies such a
text under a generous timeout (a quadratic step took 68 s for 460 kB and did not finish a 4 MB
text in 300 s) and checks the result is the short text's result, repeated: the speed-up must
not change what is found.
"""

from __future__ import annotations

import pytest

from digest_tui.enrich.topics import Taxonomy, classify, load_taxonomy

# About 3.5 MB: big enough that a step quadratic in the number of matches cannot finish.
REPEATS = 40_000


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return load_taxonomy()


def spans(evidence: list) -> list[tuple[str, int, int]]:  # type: ignore[type-arg]
    return [(ev.phrase, ev.start, ev.end) for ev in evidence]


@pytest.mark.timeout(60)
def test_megabytes_of_one_sentence_classify_like_the_sentence(taxonomy: Taxonomy) -> None:
    unit = "We fuse the attention kernel into one CUDA kernel. Gaussian kernel smoothing is not. "
    one = classify(taxonomy, "", unit)
    # Today's evidence on the short text: "Gaussian kernel" is a negative and cancels "kernel".
    assert spans(one.evidence["kernels"]) == [("attention kernel", 12, 28), ("CUDA kernel", 38, 49)]

    many = classify(taxonomy, "", unit * REPEATS)
    assert many.topics == ["kernels"]
    expected = [
        (phrase, start + k * len(unit), end + k * len(unit))
        for k in range(REPEATS)
        for phrase, start, end in spans(one.evidence["kernels"])
    ]
    assert spans(many.evidence["kernels"]) == expected


@pytest.mark.timeout(60)
def test_one_keyword_repeated_is_one_piece_of_evidence_per_repeat(taxonomy: Taxonomy) -> None:
    # Overlapping candidates at every repeat: "kernel" (weak) inside "GPU kernel" (strong).
    unit = "GPU kernel "
    many = classify(taxonomy, "", unit * (REPEATS * 8))
    found = spans(many.evidence["kernels"])
    assert len(found) == REPEATS * 8
    assert found[:2] == [("GPU kernel", 0, 10), ("GPU kernel", 11, 21)]


@pytest.mark.timeout(60)
def test_a_megabyte_token_of_domains_is_masked_in_linear_time(taxonomy: Taxonomy) -> None:
    # One whitespace-free token holding 100,000 ".com/" parts: the URL mask widened each of them
    # to the whole token, a quadratic walk. It is a link, not the paper's words.
    token = "x.com/kernel/" * 100_000
    result = classify(taxonomy, "", f"CUDA kernel {token} GPU kernel")
    assert spans(result.evidence["kernels"]) == [
        ("CUDA kernel", 0, 11),
        ("GPU kernel", 12 + len(token) + 1, 12 + len(token) + 11),
    ]
