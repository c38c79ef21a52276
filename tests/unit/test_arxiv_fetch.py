"""What an arXiv fetch asks for and keeps: the window and its query, categories, the keyword
pre-filter, day digests, and the `arxiv:` section of config.yaml."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from digest_tui.config import ArxivSettings, Paths, load_settings
from digest_tui.errors import ConfigError
from digest_tui.sources.arxiv_atom import ArxivEntry, parse_feed
from digest_tui.sources.arxiv_fetch import ArxivSpec, KeywordFilter, build_digests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "arxiv"
TODAY = dt.date(2025, 6, 6)


def entries(name: str) -> list[ArxivEntry]:
    return parse_feed((FIXTURES / name).read_bytes(), name).entries


def test_one_day_is_one_query_window_newest_first():
    spec = ArxivSpec.build("cs.DC", date="2025-06-04", today=TODAY)
    assert spec.query("cs.DC", 2) == {
        "search_query": "cat:cs.DC AND submittedDate:[202506040000 TO 202506042359]",
        "sortBy": "submittedDate",
        "sortOrder": "descending",
        "start": 200,
        "max_results": 100,
    }


def test_since_runs_to_today_and_no_option_means_the_last_three_days():
    since = ArxivSpec.build("cs.DC,cs.AR", since="2025-06-01", today=TODAY)
    assert (since.categories, since.start, since.end) == (
        ("cs.DC", "cs.AR"),
        dt.date(2025, 6, 1),
        TODAY,
    )
    default = ArxivSpec.build(["cs.DC"], today=TODAY)
    assert (default.start, default.end) == (dt.date(2025, 6, 4), TODAY)
    assert default.describe() == "2025-06-04..2025-06-06"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"categories": "cs.DC OR all:x"}, "--arxiv: 'cs.DC OR all:x' is not an arXiv category"),
        ({"categories": "cs.DC,cat:cs.AR"}, "--arxiv: 'cat:cs.AR' is not an arXiv category"),
        ({"categories": " , "}, "--arxiv: expected categories such as cs.DC,cs.AR"),
        ({"date": "2025-06-04", "since": "2025-06-01"}, "give at most one of --date, --since"),
        ({"date": "June 4"}, "--date: expected a date such as 2025-06-05, got 'June 4'"),
        ({"date": "2025-06-09"}, "--date: 2025-06-09 is in the future"),
        ({"since": "2025-06-09"}, "--since: 2025-06-09 is after today"),
        ({"since": "2024-01-01"}, "--since: more than 366 days"),
    ],
)
def test_bad_options_are_refused_naming_the_option(kwargs, message):
    kwargs = {"categories": "cs.DC", **kwargs}
    with pytest.raises(ValueError) as caught:
        ArxivSpec.build(kwargs.pop("categories"), today=TODAY, **kwargs)
    assert str(caught.value).startswith(message)


def test_categories_as_arxiv_spells_them_are_accepted():
    spec = ArxivSpec.build("cs.DC,hep-th,physics.comp-ph,q-bio.NC,cs.DC", today=TODAY)
    assert spec.categories == ("cs.DC", "hep-th", "physics.comp-ph", "q-bio.NC")


def test_the_keyword_filter_matches_word_starts_in_any_case_across_line_wraps():
    keep = KeywordFilter(("gpu", "kernel", "memory bandwidth"), ("cs.LG",))
    kept = [e.arxiv_id for e in entries("cs.LG_2025-06-04.xml") if keep.keeps(e)]
    # "kernels", "GPUs" and "memory\nbandwidth" match; the RL and chemistry papers do not.
    assert kept == ["2506.04011", "2506.09101"]
    assert keep.applies_to("cs.LG") and not keep.applies_to("cs.DC")
    assert KeywordFilter(("gpu",)).applies_to("cs.DC")
    assert not KeywordFilter(()).applies_to("cs.LG")
    # A word inside another word is no match: "pu" is not in "GPUs" at a word start.
    assert not any(KeywordFilter(("pu",)).keeps(e) for e in entries("cs.LG_2025-06-04.xml"))


def test_regex_characters_in_filter_words_are_literal():
    keep = KeywordFilter(("c++", "(x"))
    assert not any(keep.keeps(e) for e in entries("cs.DC_2025-06-04.xml"))


def test_papers_go_to_the_digest_of_their_first_submission_day():
    found = entries("cs.DC_2025-06-04.xml")
    earlier = dataclasses.replace(found[1], published=found[1].published - dt.timedelta(days=1))
    moved = [found[0], earlier]
    built = build_digests("cs.DC", [(e, "http://x/api/query") for e in moved])
    assert [(p.digest.id, p.digest.paper_ids) for p, _ in built] == [
        ("arxiv-cs.DC-2025-06-03", ["2506.03921"]),
        ("arxiv-cs.DC-2025-06-04", ["2506.09101"]),
    ]
    paper = built[1][0].papers[0]
    assert paper.id == paper.arxiv_id == "2506.09101"
    assert paper.categories == ["cs.DC", "cs.LG"]
    assert paper.authors == ["Ana Lindqvist", "Rohan Mehta"] and paper.authors_count == 2
    assert paper.published == dt.date(2025, 6, 4) and paper.source == "arxiv"
    # The same entries hash the same; a changed abstract does not.
    again = build_digests("cs.DC", [(e, "http://y/") for e in moved])
    assert [h for _, h in again] == [h for _, h in built]


def write_config(tmp_path: Path, text: str) -> Paths:
    paths = Paths(tmp_path / "config", tmp_path / "data", tmp_path / "cache").ensure()
    paths.config_file.write_text(text, encoding="utf-8")
    return paths


def test_the_arxiv_section_of_config_yaml(tmp_path):
    paths = write_config(
        tmp_path,
        "arxiv:\n  categories: [cs.DC, cs.LG]\n  keep_if_any: [GPU,  'memory   bandwidth']\n"
        "  filter_categories: [cs.LG]\n",
    )
    settings = load_settings(paths).arxiv
    assert settings == ArxivSettings(
        categories=["cs.DC", "cs.LG"],
        keep_if_any=["GPU", "memory bandwidth"],
        filter_categories=["cs.LG"],
    )
    assert load_settings(write_config(tmp_path / "none", "theme: dark\n")).arxiv == ArxivSettings()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "arxiv:\n  categories:\n    - cs.DC\n    - 'cs.DC OR x'\n",
            "config.yaml:4: arxiv.categories[1]",
        ),
        ("arxiv:\n  keep_if_any: ['  ']\n", "config.yaml:2: arxiv.keep_if_any[0]: an empty word"),
        ("arxiv:\n  categorys: [cs.DC]\n", "config.yaml:2: arxiv.categorys"),
    ],
)
def test_config_mistakes_name_the_file_line_and_field(tmp_path, text, where):
    with pytest.raises(ConfigError) as caught:
        load_settings(write_config(tmp_path, text))
    assert where in str(caught.value)
