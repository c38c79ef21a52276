"""The Daily Papers page parser against the four real pages in fixtures/digests."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from digest_tui.errors import PageFormatError
from digest_tui.ids import title_paper_id
from digest_tui.sources.hf_page import infer_page_year, parse_file, parse_page
from tests.support.paths import ALL_SEEDS, SEED_DEC09, SEED_DEC10, SEED_DEC30, SEED_JAN08


def by_title(parsed, prefix: str):
    matches = [p for p in parsed.papers if p.title.startswith(prefix)]
    assert len(matches) == 1, [p.title for p in matches]
    return matches[0]


@pytest.mark.parametrize(
    ("path", "count", "digest_id"),
    [
        (SEED_DEC10, 64, "hf-page-2025-12-10"),
        (SEED_DEC09, 47, "hf-page-2025-12-09"),
        (SEED_JAN08, 26, "hf-page-2026-01-08"),
        (SEED_DEC30, 65, "hf-page-2025-12-30"),
    ],
)
def test_entry_counts_and_page_dates(path, count, digest_id):
    parsed = parse_file(path)
    assert len(parsed.papers) == count
    assert parsed.digest.id == digest_id
    assert parsed.digest.paper_ids == [p.id for p in parsed.papers]
    assert parsed.warnings == []


def test_entry_with_organisation_and_upvotes_without_year():
    parsed = parse_file(SEED_DEC10)
    paper = by_title(parsed, "Training Foundation Models on a Full-Stack AMD Platform")
    assert paper.organization == "Zyphra"
    assert paper.organization_name == "Zyphra"
    assert paper.authors_count is None
    assert paper.published == dt.date(2025, 11, 21)
    assert paper.published_year_inferred is True
    assert paper.upvotes == 1
    assert paper.abstract.startswith("We report on the first large-scale mixture-of-experts")
    assert paper.source_ref.endswith("000_994e30a84fb3dacc.txt:41")


def test_entry_with_multiword_org_and_year():
    paper = by_title(parse_file(SEED_DEC09), "ShadowKV")
    assert (paper.organization, paper.organization_name) == ("ByteDance-Seed", "ByteDance Seed")
    assert paper.published == dt.date(2024, 10, 28)
    assert paper.published_year_inferred is False
    assert paper.upvotes == 2


def test_entry_with_authors_year_and_upvotes():
    paper = by_title(parse_file(SEED_DEC10), "Adding NVMe SSDs")
    assert paper.authors_count == 7
    assert paper.published == dt.date(2024, 3, 11)
    assert paper.upvotes == 4


def test_entry_without_upvotes_and_single_author():
    paper = by_title(parse_file(SEED_DEC10), "Galvatron")
    assert paper.authors_count == 1
    assert paper.upvotes is None
    assert paper.published == dt.date(2025, 3, 13)


def test_entries_without_metadata_keep_title_and_abstract():
    parsed = parse_file(SEED_DEC10)
    paper = by_title(parsed, "SpikingBrain Technical Report")
    assert paper.published is None and paper.upvotes is None and paper.authors_count is None
    assert "MetaX C550" in paper.abstract
    # The entry after one without metadata is still its own paper.
    serving = by_title(parsed, "Serving Large Language Models on Huawei CloudMatrix384")
    assert serving.authors_count == 46
    bridging = by_title(parsed, "Bridging the Gap Between Promise and Performance")
    assert bridging.abstract.startswith("The recent hardware-accelerated microscaling")


def test_page_without_year_strings_uses_next_year():
    # Every date on the Jan 8 page prints its year, the latest 2025, so the page is 2026.
    parsed = parse_file(SEED_JAN08)
    assert parsed.digest.date == dt.date(2026, 1, 8)
    flash = by_title(parsed, "FlashMoE")
    assert flash.published == dt.date(2025, 6, 5) and not flash.published_year_inferred


def test_year_override():
    parsed = parse_file(SEED_DEC10, year=2030)
    assert parsed.digest.date == dt.date(2030, 12, 10)
    assert by_title(parsed, "Galvatron").published == dt.date(2030, 3, 13)


def test_infer_page_year_without_explicit_years_uses_today():
    assert infer_page_year((12, 10), [], dt.date(2026, 11, 22)) == 2025
    assert infer_page_year((1, 8), [], dt.date(2026, 11, 22)) == 2026
    assert infer_page_year((3, 1), [2023, 2024], dt.date(2026, 11, 22)) == 2025


def test_same_paper_in_several_digests_has_one_id():
    ids = [
        next(p.id for p in parse_file(seed).papers if p.title.startswith("FlashMoE"))
        for seed in ALL_SEEDS
    ]
    assert len(set(ids)) == 1
    assert ids[0] == title_paper_id("FlashMoE: Fast Distributed MoE in a Single Kernel")
    distinct = {p.id for seed in ALL_SEEDS for p in parse_file(seed).papers}
    assert len(distinct) == 152


HEADER = "Daily Papers\n\nbyAK and the research community\n\nDec 10\n\n"
ABSTRACT = (
    "We study a thing. It is long enough to be an abstract, and it has several sentences. "
    "Results follow."
)


def test_malformed_entries_warn_with_line_and_the_rest_imports():
    text = (
        HEADER
        + f"Good Paper One\n\n{ABSTRACT}\n\n  • 3 authors\n·\nJun 5\n\n"  # lines 7-13
        + f"{ABSTRACT}\n\n  • 2 authors\n·\nJun 6\n\n"  # no title: line 15
        + f"Good Paper Two\n\n{ABSTRACT}\n\n  • 4 authors\n·\nnot a date\n\n"  # bad date
        + "Title Only Paper\n\n  • 1 authors\n·\nJun 7, 2024 3\n"
    )
    parsed = parse_page(text, "digest.txt")
    assert [p.title for p in parsed.papers] == [
        "Good Paper One",
        "Good Paper Two",
        "Title Only Paper",
    ]
    messages = [str(w) for w in parsed.warnings]
    assert "digest.txt:15: entry has an abstract but no title; skipped" in messages
    assert any(
        m.startswith("digest.txt:25:") and "unreadable date 'not a date'" in m for m in messages
    )
    assert any("Title Only Paper" in m and "no abstract" in m for m in messages)
    title_only = parsed.papers[2]
    assert title_only.published == dt.date(2024, 6, 7) and title_only.upvotes == 3


def test_escape_sequences_are_removed_from_text():
    text = HEADER + "Evil \x1b[31mRed\x1b[0m Title\n\n" + ABSTRACT + "\x1b]0;pwned\x07\n"
    paper = parse_page(text, "x.txt").papers[0]
    assert "\x1b" not in paper.title and "\x1b" not in paper.abstract
    assert "\x07" not in paper.abstract


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty file"),
        ("Just some text\n\nwithout a page date at all\n", "no page date found"),
    ],
)
def test_not_a_digest_is_a_clear_error(text, problem):
    with pytest.raises(PageFormatError, match=problem) as info:
        parse_page(text, "notes.txt")
    assert str(info.value).startswith("notes.txt: ")


def test_crlf_and_bom_are_accepted():
    text = "\ufeff" + (HEADER + f"Paper A\n\n{ABSTRACT}\n\n  • 3 authors\n·\nJun 5 2\n")
    parsed = parse_page(text.replace("\n", "\r\n"), "win.txt")
    assert parsed.papers[0].title == "Paper A" and parsed.papers[0].upvotes == 2


# --- titles that read like sentences: told from abstracts by the page's structure ---------------

QUESTION_TITLE = "Is Attention All You Need? A Study of Routing in Sparse Models"


def test_a_title_with_sentence_punctuation_before_its_abstract_stays_a_title():
    text = (
        HEADER
        + f"{QUESTION_TITLE}\n\n{ABSTRACT}\n\n  • 3 authors\n·\nJun 5\n\n"
        + f'Wait, What? Scaling Laws Revisited: "Bigger" Is Not Better!\n\n{ABSTRACT}\n\n'
        + f"Plain Title After\n\n{ABSTRACT}\n\n  • 2 authors\n·\nJun 6\n"
    )
    parsed = parse_page(text, "q.txt")
    assert [p.title for p in parsed.papers] == [
        QUESTION_TITLE,
        'Wait, What? Scaling Laws Revisited: "Bigger" Is Not Better!',
        "Plain Title After",
    ]
    assert all(p.abstract == ABSTRACT for p in parsed.papers)
    assert parsed.warnings == []


def test_a_title_only_entry_that_reads_like_a_sentence_is_kept_as_a_title():
    text = HEADER + f"{QUESTION_TITLE}\n\n  • 1 authors\n·\nJun 7\n\nNext Paper\n\n{ABSTRACT}\n"
    parsed = parse_page(text, "t.txt")
    assert [p.title for p in parsed.papers] == [QUESTION_TITLE, "Next Paper"]
    assert parsed.papers[0].abstract == "" and parsed.papers[1].abstract == ABSTRACT


_WORDS = [
    "Sparse",
    "Attention",
    "Kernels",
    "LLM",
    "Serving",
    "MoE",
    "Scaling",
    "Is",
    "All",
    "You",
    "Need",
    "GPU",
    "Training",
    "Fast",
    "A",
    "Study",
    "of",
    "X",
    "v1.5",
    "Data",
]
_QUOTES = [('"', '"'), ("'", "'"), ("\u201c", "\u201d")]
_PUNCT = ["?", "!", ":", ".", ",", ";", " -"]


@st.composite
def _titles(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6))
        phrase = " ".join(words)
        if draw(st.booleans()):
            opening, closing = draw(st.sampled_from(_QUOTES))
            phrase = f"{opening}{phrase}{closing}"
        parts.append(phrase)
    seps = draw(st.lists(st.sampled_from(_PUNCT), min_size=len(parts), max_size=len(parts)))
    title = "".join(f"{p}{s} " for p, s in zip(parts[:-1], seps, strict=False)) + parts[-1]
    return title + draw(st.sampled_from(["", "?", "!", ""]))


_SENTENCES = st.lists(
    st.sampled_from(
        [
            "We present a system for sparse attention on GPUs.",
            "Existing methods waste memory, time and energy.",
            "Is this the end of dense models? We argue it is not.",
            "Our kernels reach 1.8x the speed of the baseline!",
            'We call it "FastThing": a scheduler, a cache and a planner.',
            "Code is at https://github.com/example/fast-thing.",
        ]
    ),
    min_size=3,
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(_titles(), _SENTENCES, st.booleans(), st.booleans()),
        min_size=1,
        max_size=6,
        unique_by=lambda entry: title_paper_id(entry[0]),
    )
)
def test_fuzz_titles_with_punctuation_and_quotes_are_all_kept(entries):
    parts = [HEADER]
    expected = []
    for title, sentences, has_abstract, has_meta in entries:
        abstract = " ".join(sentences) if has_abstract else ""
        parts.append(f"{title}\n\n")
        if abstract:
            parts.append(f"{abstract}\n\n")
        if has_meta or not abstract:  # a title-only entry is closed by its metadata block
            parts.append("  \u2022 3 authors\n\u00b7\nJun 5 2\n\n")
        expected.append((title, abstract))
    parsed = parse_page("".join(parts), "fuzz.txt")
    assert [(p.title, p.abstract) for p in parsed.papers] == expected
    assert not [w for w in parsed.warnings if "no title" in w.message]
