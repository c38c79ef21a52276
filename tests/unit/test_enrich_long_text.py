"""Enrichment stays linear in the length of the text.

A scraped "abstract" can be megabytes of one phrase repeated. Every test here classifies such a
text under a generous timeout (a quadratic step took 68 s for 460 kB and did not finish a 4 MB
text in 300 s) and checks the result is the short text's result, repeated: the speed-up must
not change what is found.
"""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.catalog import load_hardware_catalog
from digest_tui.enrich.hardware.suggest import suggest_hardware
from digest_tui.enrich.hardware.text import Matchers, TextFacts, extract, matchers
from digest_tui.enrich.links import extract_links, repos_from_links
from digest_tui.enrich.topics.classifier import classify
from digest_tui.enrich.topics.taxonomy import Taxonomy

# About 3.5 MB: big enough that a step quadratic in the number of matches cannot finish.
REPEATS = 40_000


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


# --- hardware -------------------------------------------------------------------------------

HW_SENTENCE = (
    "Unlike prior work, our method beats Mixtral 8x7B and GPT-3 13B, and also LLaMA-7B with "
    "760M active, 8.3B total and 1 billion parameters on 8 A100 GPUs, 3072 GPUs and a 4 node "
    "cluster; "
)


@pytest.fixture(scope="module")
def hardware_matchers() -> Matchers:
    return matchers(load_hardware_catalog())


def size_facts(facts: TextFacts, unit: int) -> list[tuple[object, ...]]:
    """Every size as (unit number, offset in the unit, text, role, total, active, model)."""
    return sorted(
        (s.span.start // unit, s.span.start % unit, s.text, s.role, s.total_b, s.active_b, s.model)
        for s in facts.sizes
    )


@pytest.mark.timeout(120)
def test_one_endless_sentence_of_hardware_facts(hardware_matchers: Matchers) -> None:
    # One sentence (";" does not end one) of model sizes, known models, a comparison word,
    # device counts and device-less counts: each size looked back to the sentence's start, each
    # known model was looked for among all, each count compared with every mention.
    repeats = 10_000  # ~1.8 MB
    unit = len(HW_SENTENCE)
    short = extract(hardware_matchers, "", HW_SENTENCE)
    long = extract(hardware_matchers, "", HW_SENTENCE * repeats)

    per_unit = size_facts(short, unit)
    assert [(text, role, total, active) for _, _, text, role, total, active, _ in per_unit] == [
        ("Mixtral 8x7B", "comparison", 46.7, 12.9),  # its "8x7B" is not counted again
        ("13B", "comparison", 13.0, None),  # "GPT-3 13B": the size written replaces 175B
        ("7B", "comparison", 7.0, None),
        ("8.3B", "comparison", 8.3, 0.76),  # "760M active" folded into the 8.3B total
        ("1 billion parameters", "comparison", 1.0, None),
    ]
    expected = [(k, *fact[1:]) for k in range(repeats) for fact in per_unit]
    assert size_facts(long, unit) == expected
    assert len(long.mentions) == repeats * len(short.mentions)
    assert len(long.counts) == repeats * len(short.counts)
    assert {m.sentence for m in long.mentions} == {0}

    suggestion = suggest_hardware(load_hardware_catalog(), "", HW_SENTENCE * repeats)
    assert suggestion.scale == "multi-node"


@pytest.mark.timeout(120)
def test_many_sentences_each_find_their_own_facts(hardware_matchers: Matchers) -> None:
    sentence = "We train 7B than 13B models on 8 A100 GPUs. "
    repeats = 40_000  # ~1.8 MB
    long = extract(hardware_matchers, "", sentence * repeats)
    assert [m.sentence for m in long.mentions] == list(range(repeats))
    assert [(m.ref, m.count) for m in long.mentions[:1]] == [("a100", 8)]
    roles = [(s.text, s.role) for s in sorted(long.sizes, key=lambda s: s.span.start)]
    assert roles == [("7B", "own"), ("13B", "comparison")] * repeats


# --- links ----------------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_thousands_of_links_in_one_sentence() -> None:
    # The wording before each link was read from the sentence's start again for every link.
    mentioned = " ".join(f"we build on https://github.com/a/b{i} and" for i in range(20_000))
    repos = repos_from_links(extract_links(mentioned), mentioned)
    assert len(repos) == 20_000
    assert {r.kind for r in repos} == {"mentioned"}
    assert repos[7].url == "https://github.com/a/b7"

    official = "Code: " + " ".join(f"https://github.com/a/b{i}" for i in range(20_000))
    repos = repos_from_links(extract_links(official), official)
    assert len(repos) == 20_000
    assert {r.kind for r in repos} == {"official"}
