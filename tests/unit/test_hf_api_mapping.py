"""Mapping Daily Papers API items to Papers and Digests, and the pure helpers around fetching."""

from __future__ import annotations

import datetime as dt
import email.utils
import json
from pathlib import Path

import pytest

from digest_tui.ids import title_paper_id
from digest_tui.sources.hf_api import Period, build_digests, parse_item, parse_items
from digest_tui.sources.hf_client import parse_retry_after, resolve_endpoint
from digest_tui.sources.hf_fetch import FetchReport, FetchSpec, cache_ttl

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_api"
ORIGIN = "https://hf.test/api/daily_papers?date=2025-06-05&limit=50&p=0"


def load(name: str) -> list:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def messages(warnings) -> list[str]:
    return [w.message for w in warnings]


# ---- one item ---------------------------------------------------------------------------


def test_full_item_maps_every_field():
    entry, warnings = parse_item(load("date_2025-06-05.json")[0], 0, ORIGIN)
    assert warnings == []
    paper = entry.paper
    assert paper.id == paper.arxiv_id == "2506.04667"
    assert paper.title == "FlashMoE: Fast Distributed MoE in a Single Kernel"
    assert paper.abstract.startswith("The computational sparsity of Mixture-of-Experts")
    assert paper.published == dt.date(2025, 6, 5)
    assert paper.upvotes == 9
    assert paper.authors == ["Osayamen Jonathan Aimuyo", "Byungsoo Oh", "Rachee Singh"]
    assert paper.authors_count == 3
    assert paper.github_repo == "https://github.com/osayamenja/FlashMoE"
    assert paper.github_stars == 143
    assert "Mixture-of-Experts" in paper.keywords
    assert paper.withdrawn is False
    assert paper.source == "hf-api"
    assert paper.source_ref == f"{ORIGIN}#0"
    assert entry.submitted == dt.date(2025, 6, 5)


def test_organization_project_page_and_hidden_authors():
    entry, warnings = parse_item(load("date_2025-06-05.json")[1], 1, ORIGIN)
    assert warnings == []
    paper = entry.paper
    assert (paper.organization, paper.organization_name) == ("fixture-lab", "Fixture Lab")
    assert paper.project_page == "https://pagedspec.example.org/"
    # A hidden author is still an author of the paper.
    assert paper.authors == ["Ada Example", "Hidden Person"]


def test_withdrawn_at_marks_the_paper_withdrawn():
    entry, _ = parse_item(load("date_2025-06-05.json")[2], 2, ORIGIN)
    assert entry.paper.withdrawn is True


def test_minimal_and_all_null_items_import_with_defaults():
    items = load("sparse_fields.json")
    for index in (0, 1):
        entry, warnings = parse_item(items[index], index, ORIGIN)
        assert warnings == [], messages(warnings)
        paper = entry.paper
        assert paper.abstract == ""
        assert paper.published is None and paper.upvotes is None
        assert paper.authors == [] and paper.authors_count is None
        assert paper.keywords == [] and paper.github_repo is None
        assert paper.organization is None and paper.withdrawn is False
        assert entry.submitted is None


def test_wrong_optional_fields_are_dropped_with_warnings_and_the_item_imports():
    entry, warnings = parse_item(load("sparse_fields.json")[2], 2, ORIGIN)
    assert entry is not None
    paper = entry.paper
    assert paper.id == "2506.09303"  # version suffix dropped
    assert paper.upvotes is None and paper.github_repo is None and paper.github_stars is None
    assert paper.project_page is None and paper.keywords == [] and paper.published is None
    assert paper.authors == ["Good Name"]
    text = "\n".join(messages(warnings))
    for expected in (
        "item 2: paper.upvotes: expected a count, got 'many'; ignored",
        "item 2: paper.githubRepo: not an http(s) URL: 'javascript:alert(1)'; ignored",
        "item 2: paper.githubStars: expected a count, got -5; ignored",
        "item 2: paper.projectPage: expected a string, got number; ignored",
        "item 2: paper.ai_keywords: expected a list, got string; ignored",
        "item 2: paper.organization: expected an object, got list; ignored",
        "item 2: paper.publishedAt: not an ISO timestamp: 'not a date'; ignored",
        "item 2: paper.authors[1]: no name; left out",
    ):
        assert expected in text
    assert all(w.origin == ORIGIN for w in warnings)


def test_title_and_summary_fall_back_to_the_item_level_copies():
    entry, warnings = parse_item(load("sparse_fields.json")[3], 3, ORIGIN)
    assert warnings == []
    assert entry.paper.title == "Title Only at the Top Level (synthetic fixture)"
    assert entry.paper.abstract == "Summary only at the top level."


@pytest.mark.parametrize(
    ("index", "message"),
    [
        (4, "item 4: paper.title: missing; skipped"),
        (5, "item 5: paper.id: missing; skipped"),
        (6, "item 6: paper: missing; skipped"),
        (7, "item 7: expected an object, got string; skipped"),
    ],
)
def test_unusable_items_are_skipped_naming_index_and_field(index, message):
    entry, warnings = parse_item(load("sparse_fields.json")[index], index, ORIGIN)
    assert entry is None
    assert messages(warnings) == [message]


def test_control_characters_never_reach_the_paper():
    entry, _ = parse_item(load("sparse_fields.json")[8], 8, ORIGIN)
    assert "\x1b" not in entry.paper.title and "\x07" not in entry.paper.title
    assert entry.paper.title.startswith("Escapes [31mRed")
    assert entry.paper.abstract == "Line one line two with tabs."


def test_non_arxiv_id_falls_back_to_a_title_id_with_a_warning():
    raw = {"paper": {"id": "not-arxiv", "title": "Some Title"}}
    entry, warnings = parse_item(raw, 0, ORIGIN)
    assert entry.paper.id == title_paper_id("Some Title")
    assert entry.paper.arxiv_id is None
    assert "paper.id: 'not-arxiv' is not an arXiv id" in warnings[0].message


def test_wrong_type_of_id_or_title_is_named():
    _, warnings = parse_item({"paper": {"id": 2506.04667, "title": "T"}}, 3, ORIGIN)
    assert messages(warnings) == ["item 3: paper.id: expected a string, got number; skipped"]
    _, warnings = parse_item({"paper": {"id": "2506.04667", "title": ["T"]}}, 4, ORIGIN)
    assert messages(warnings)[-1] == "item 4: paper.title: empty or not a string; skipped"


def test_parse_items_keeps_the_valid_ones():
    entries, warnings = parse_items(load("sparse_fields.json"), ORIGIN)
    assert len(entries) == 5
    assert sum("skipped" in w.message for w in warnings) == 4


# ---- periods and digests ----------------------------------------------------------------


def test_periods_parse_and_label():
    week = Period.week("2025-W23")
    assert (week.start, week.end) == (dt.date(2025, 6, 2), dt.date(2025, 6, 8))
    assert week.label == "2025-W23" and week.digest_id == "hf-api-2025-W23"
    month = Period.month("2024-02")
    assert (month.start, month.end) == (dt.date(2024, 2, 1), dt.date(2024, 2, 29))
    assert month.label == "2024-02"
    assert Period.week("2020-W53").end == dt.date(2021, 1, 3)
    assert Period.day(dt.date(2025, 6, 5)).digest_id == "hf-api-2025-06-05"


@pytest.mark.parametrize("text", ["2025-23", "2025-W1", "2025-W00", "2025-W53", "W23"])
def test_bad_weeks_are_refused(text):
    with pytest.raises(ValueError):
        Period.week(text)


@pytest.mark.parametrize("text", ["2025-13", "2025-6", "June"])
def test_bad_months_are_refused(text):
    with pytest.raises(ValueError):
        Period.month(text)


def test_day_digest_keeps_order_dedupes_and_skips_other_days():
    entries, _ = parse_items(load("date_2025-06-05.json"), ORIGIN)
    far = parse_item(
        {"paper": {"id": "2401.00001", "title": "Old", "submittedOnDailyAt": "2024-01-02T00:00Z"}},
        9,
        ORIGIN,
    )[0]
    near = parse_item(
        {"paper": {"id": "2506.00002", "title": "Near", "submittedOnDailyAt": "2025-06-04T23:00Z"}},
        10,
        ORIGIN,
    )[0]
    day = Period.day(dt.date(2025, 6, 5))
    built = build_digests(day, [*entries, entries[0], far, near], ORIGIN)
    assert len(built.digests) == 1
    parsed, content_hash = built.digests[0]
    assert parsed.digest.id == "hf-api-2025-06-05"
    assert parsed.digest.source == "hf-api"
    assert parsed.digest.paper_ids == [*(e.paper.id for e in entries), "2506.00002"]
    assert built.skipped == 1
    assert "submitted on 2024-01-02, not on 2025-06-05; skipped" in built.warnings[0].message
    again = build_digests(day, [*entries, near], ORIGIN)
    assert again.digests[0][1] == content_hash  # same items, same hash


def test_week_is_split_into_day_digests_plus_one_for_unplaced_items():
    entries, _ = parse_items(load("week_2025-W23.json"), ORIGIN)
    built = build_digests(Period.week("2025-W23"), entries, ORIGIN)
    ids = {parsed.digest.id: parsed.digest.paper_ids for parsed, _ in built.digests}
    assert ids == {
        "hf-api-2025-06-02": ["2506.09401", "2506.09402"],
        "hf-api-2025-06-04": ["2506.09403"],
        "hf-api-2025-06-06": ["2506.09404"],
        "hf-api-2025-W23": ["2506.09405", "2506.09406"],
    }
    assert built.skipped == 0
    assert "2 item(s) have no submittedOnDailyAt within 2025-W23" in built.warnings[0].message


def test_an_empty_answer_builds_no_digest():
    assert build_digests(Period.day(dt.date(2025, 6, 7)), [], ORIGIN).digests == []


# ---- fetch helpers ----------------------------------------------------------------------


def test_retry_after_in_seconds_or_as_an_http_date():
    now = 1_750_000_000.0
    assert parse_retry_after("3", now) == 3.0
    assert parse_retry_after("-4", now) == 0.0
    when = email.utils.formatdate(now + 90, usegmt=True)
    assert parse_retry_after(when, now) == pytest.approx(90, abs=1)
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None


def test_endpoint_from_argument_environment_or_default(monkeypatch):
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    assert resolve_endpoint() == "https://huggingface.co"
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:8080/")
    assert resolve_endpoint() == "http://127.0.0.1:8080"
    assert resolve_endpoint("https://hf-mirror.example") == "https://hf-mirror.example"
    monkeypatch.setenv("HF_ENDPOINT", "ftp://nope")
    with pytest.raises(ValueError, match="HF_ENDPOINT: expected an http"):
        resolve_endpoint()


def test_fetch_spec_from_options():
    today = dt.date(2025, 6, 10)
    assert FetchSpec.build(today=today).periods == (Period.day(today),)
    since = FetchSpec.build(since="2025-06-08", today=today)
    assert [p.label for p in since.periods] == ["2025-06-08", "2025-06-09", "2025-06-10"]
    assert since.describe() == "2025-06-08..2025-06-10"
    spec = FetchSpec.build(week="2025-W23", sort="trending", today=today)
    assert spec.query(spec.periods[0], 2) == {
        "week": "2025-W23",
        "sort": "trending",
        "limit": 50,
        "p": 2,
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"date": "2025-6-5x"}, "--date: expected a date such as 2025-06-05"),
        ({"date": "2025-06-20"}, "--date: 2025-06-20 is in the future"),
        ({"week": "2025-23"}, "--week: expected a week such as 2025-W23"),
        ({"month": "2025-13"}, "--month: expected a month such as 2025-06"),
        ({"since": "2025-06-11"}, "--since: 2025-06-11 is after today"),
        ({"since": "2020-01-01"}, "--since: 1988 days is more than 366; use --month"),
        ({"date": "2025-06-01", "week": "2025-W23"}, "at most one of"),
    ],
)
def test_fetch_spec_errors_name_the_option(options, message):
    with pytest.raises(ValueError) as caught:
        FetchSpec.build(today=dt.date(2025, 6, 10), **options)
    assert message in str(caught.value)


def test_cache_ttl_grows_with_the_age_of_the_period():
    today = dt.date(2025, 6, 10)
    ttls = [
        cache_ttl(Period.day(today), today),
        cache_ttl(Period.day(today - dt.timedelta(days=2)), today),
        cache_ttl(Period.day(today - dt.timedelta(days=20)), today),
        cache_ttl(Period.day(today - dt.timedelta(days=200)), today),
    ]
    assert ttls == sorted(ttls) and len(set(ttls)) == 4
    assert cache_ttl(Period.week("2025-W24"), today) == ttls[0]  # the week is not over


def test_report_summary_is_one_line():
    report = FetchReport(
        periods=3,
        fetched=2,
        from_cache=1,
        new=5,
        updated=1,
        unchanged=2,
        skipped=1,
        errors=["x"],
        requests=4,
        not_modified=1,
        bytes=2048,
    )
    assert report.summary() == (
        "fetched 2/3 days (1 from cache); 8 papers: 5 new, 1 updated, 2 unchanged; "
        "1 item skipped; 1 failed; 4 requests, 1 not modified, 2.0 kB downloaded"
    )
    assert report.ok and not FetchReport(periods=1).ok
    assert FetchReport(periods=1, fetched=1, unit="week").summary().startswith("fetched 1/1 week;")
