"""`digest-tui fetch --arxiv` end to end, against a fake arXiv API on 127.0.0.1.

The server (tests/support/fake_arxiv.py) serves the recorded entries of tests/fixtures/arxiv/
filtered by the query's window and paged, as arXiv does; tests queue failures in front of it.
ARXIV_REQUEST_INTERVAL is shortened through the environment, as a user could.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from tests.support.fake_arxiv import (
    FIXTURES,
    Canned,
    FakeArxiv,
    crafted_entry,
    fixture_entries,
    serve_arxiv,
)
from tests.support.loopback import Recorded, serve
from tests.support.paths import ROOT
from tests.support.pilot import find_node
from tests.ui.settle import settle

DAY = "2025-06-04"
DC_DIGEST = f"arxiv-cs.DC-{DAY}"


@pytest.fixture
def arxiv(home, monkeypatch):
    with serve_arxiv() as fake:
        fake.add(fixture_entries("cs.DC_2025-06-04.xml", "cs.DC"))
        fake.add(fixture_entries("cs.LG_2025-06-04.xml", "cs.LG"))
        monkeypatch.setenv("ARXIV_API_ENDPOINT", fake.url)
        monkeypatch.setenv("ARXIV_REQUEST_INTERVAL", "0.01")
        yield fake


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def papers(capsys, *args: str) -> list[dict]:
    code, out, err = cli(capsys, "papers", "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(text, encoding="utf-8")


@pytest.mark.timeout(120)
def test_a_day_of_a_category_becomes_a_digest_that_papers_lists(arxiv, capsys):
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.DC", "--date", DAY)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == DC_DIGEST
    assert lines[-1].startswith("arXiv: fetched 1/1 category; 4 papers: 4 new, 0 updated")
    assert [r.params["search_query"] for r in arxiv.requests] == [
        "cat:cs.DC AND submittedDate:[202506040000 TO 202506042359]"
    ]
    listed = papers(capsys, "--digest", DC_DIGEST)
    assert sorted(p["id"] for p in listed) == [
        "2506.03802",
        "2506.03877",
        "2506.03921",
        "2506.09101",
    ]
    paged = next(p for p in listed if p["id"] == "2506.09101")
    assert paged["categories"] == ["cs.DC", "cs.LG"]
    assert paged["authors"] == ["Ana Lindqvist", "Rohan Mehta"]
    assert paged["published"] == DAY and paged["source"] == "arxiv"
    assert paged["digests"] == [DC_DIGEST]
    # Markup in a title is the characters it is, in JSON and in the table.
    markup = next(p for p in listed if p["id"] == "2506.03802")
    assert markup["title"].startswith("<b>Markup</b> [bold red]in[/bold red]")
    code, out, _ = cli(capsys, "papers", "--digest", DC_DIGEST)
    assert "<b>Markup</b> [bold red]in[/bold red]" in out
    # Fetching the day again changes nothing, and asks nothing while the cache is fresh.
    code, out, _ = cli(capsys, "fetch", "--arxiv", "cs.DC", "--date", DAY)
    assert "0 new, 0 updated, 4 unchanged" in out
    assert len(arxiv.requests) == 1  # the cached answer was fresh: no second request


@pytest.mark.timeout(120)
def test_a_paper_on_daily_papers_and_arxiv_is_one_paper_in_both_digests(arxiv, capsys, monkeypatch):
    recorded = (ROOT / "fixtures" / "hf_api" / "date_2025-06-05.json").read_bytes()
    with serve({"/api/daily_papers": Recorded(200, recorded)}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, err = cli(capsys, "fetch", "--date", "2025-06-05")
        assert code == 0, err
    code, _, err = cli(capsys, "fetch", "--arxiv", "cs.DC,cs.LG", "--date", DAY)
    assert code == 0, err
    matches = papers(capsys, "--search", "PagedSpec")
    assert [p["id"] for p in matches] == ["2506.09101"]  # v2 in the feed, one paper
    code, out, err = cli(capsys, "show", "2506.09101v2", "--format", "json")
    assert code == 0, err
    paper = json.loads(out)
    assert sorted(paper["digests"]) == [DC_DIGEST, f"arxiv-cs.LG-{DAY}", "hf-api-2025-06-05"]
    assert paper["categories"] == ["cs.DC", "cs.LG"]
    assert paper["upvotes"] is not None  # what only Hugging Face knows stays
    flash = papers(capsys, "--search", "FlashMoE")[0]
    assert flash["categories"] == []  # a paper no arXiv listing gave: the field, empty


@pytest.mark.timeout(120)
def test_the_keyword_filter_of_config_keeps_systems_papers_of_a_broad_feed(arxiv, capsys, home):
    write_config(
        home,
        "arxiv:\n  keep_if_any: [GPU, kernel, memory bandwidth]\n  filter_categories: [cs.LG]\n",
    )
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.LG,cs.DC", "--date", DAY)
    assert code == 0, err
    assert "keyword filter kept 2, dropped 2" in out
    assert sorted(p["id"] for p in papers(capsys, "--digest", f"arxiv-cs.LG-{DAY}")) == [
        "2506.04011",
        "2506.09101",
    ]
    assert len(papers(capsys, "--digest", DC_DIGEST)) == 4  # cs.DC is not filtered
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.LG", "--date", DAY, "--no-filter")
    assert code == 0, err
    assert "keyword filter" not in out and "4 papers" in out


@pytest.mark.timeout(120)
def test_pages_are_read_until_the_window_is_passed(arxiv, capsys):
    # 230 entries on the day: three pages of 100, 100 and 30.
    arxiv.entries.clear()
    arxiv.add(
        [
            crafted_entry(
                "cs.AR",
                f"2506.{10000 + n}",
                f"{DAY}T{n // 60 % 24:02d}:{n % 60:02d}:00Z",
                f"Crafted Accelerator Paper {n:03d}",
                "An abstract.",
            )
            for n in range(230)
        ]
    )
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.AR", "--date", DAY)
    assert code == 0, err
    assert "230 papers: 230 new" in out
    assert [r.params["start"] for r in arxiv.requests] == ["0", "100", "200"]
    assert len(papers(capsys, "--digest", f"arxiv-cs.AR-{DAY}", "--limit", "1000")) == 230


@pytest.mark.timeout(120)
def test_a_server_ignoring_the_date_filter_is_read_only_until_the_window_is_passed(arxiv, capsys):
    # 100 entries a day from 06-01 to 06-06, newest first, the window never applied.
    arxiv.entries.clear()
    arxiv.ignore_window = True
    arxiv.add(
        [
            crafted_entry(
                "cs.PF",
                f"2506.{20000 + day * 100 + n}",
                f"2025-06-{day:02d}T{n // 60:02d}:{n % 60:02d}:00Z",
                f"Crafted Performance Paper {day}-{n:02d}",
                "An abstract.",
            )
            for day in range(1, 7)
            for n in range(100)
        ]
    )
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.PF", "--date", DAY)
    assert code == 0, err
    assert "100 papers: 100 new" in out
    # Pages 06-06, 06-05, 06-04 and 06-03 (where the window is passed); never 06-02 or 06-01.
    assert [r.params["start"] for r in arxiv.requests] == ["0", "100", "200", "300"]
    assert out.splitlines()[0] == f"arxiv-cs.PF-{DAY}"


@pytest.mark.timeout(120)
def test_retries_after_429_and_503_then_imports(arxiv, capsys):
    arxiv.fail_next(
        Canned(429, b"", {"Retry-After": "0"}),
        Canned(503, b"Rate exceeded.", {"Content-Type": "text/plain"}),
    )
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.DC", "--date", DAY)
    assert code == 0, err
    assert [r.status for r in arxiv.requests] == [429, 503, 200]
    assert "4 papers: 4 new" in out and "3 requests" in out


@pytest.mark.timeout(60)
def test_a_billion_laughs_answer_is_refused_and_nothing_is_imported(arxiv, capsys):
    arxiv.fail_next(Canned(200, (FIXTURES / "billion_laughs.xml").read_bytes()))
    code, _, err = cli(capsys, "fetch", "--arxiv", "cs.DC", "--date", DAY)
    assert code == 1
    assert err.startswith("digest-tui: nothing fetched: cs.DC: GET ")
    assert "refused: the answer declares a DOCTYPE" in err
    assert "Traceback" not in err
    assert papers(capsys, "--digest", DC_DIGEST) == []


@pytest.mark.timeout(120)
def test_offline_imports_from_the_cache_and_says_when_there_is_none(arxiv, capsys, home):
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.DC", "--offline", "--date", DAY)
    assert code == 1
    assert "offline, and no cached copy" in err
    assert err.rstrip().endswith("fetch once without --offline to fill the cache")
    assert arxiv.requests == []
    assert cli(capsys, "fetch", "--arxiv", "cs.DC", "--date", DAY)[0] == 0
    # A new library on this machine: the cache alone fills it.
    for name in ("library.sqlite3", "library.sqlite3-wal", "library.sqlite3-shm"):
        (home / "data" / name).unlink(missing_ok=True)
    code, out, err = cli(capsys, "fetch", "--arxiv", "cs.DC", "--offline", "--date", DAY)
    assert code == 0, err
    assert "(1 from cache); 4 papers: 4 new" in out
    assert len(arxiv.requests) == 1


def test_an_unreachable_host_is_one_clear_error(home, capsys, monkeypatch):
    monkeypatch.setenv("ARXIV_API_ENDPOINT", "http://127.0.0.1:9")
    code, _, err = cli(capsys, "fetch", "--arxiv", "cs.DC,cs.AR", "--date", DAY)
    assert code == 1
    assert err.startswith("digest-tui: cannot reach http://127.0.0.1:9")
    assert "not fetched: cs.DC, cs.AR" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--arxiv", "cs.DC OR all:x"], "--arxiv: 'cs.DC OR all:x' is not an arXiv category"),
        (["--arxiv", "cs.DC", "--week", "2025-W23"], "--week: not with --arxiv"),
        (["--no-filter"], "--no-filter: only with --arxiv"),
    ],
)
def test_usage_mistakes_exit_2_with_one_line(home, capsys, args, message):
    code, _, err = cli(capsys, "fetch", *args)
    assert code == 2
    assert err.startswith(f"digest-tui: {message}")


def test_a_bad_arxiv_section_in_config_is_named_with_its_line(home, capsys):
    write_config(home, "arxiv:\n  categories:\n    - cs.DC\n    - 'cs.DC OR x'\n")
    code, _, err = cli(capsys, "fetch", "--arxiv", "cs.DC", "--date", DAY)
    assert code == 2
    assert "config.yaml:4: arxiv.categories[1]: " in err
    assert "'cs.DC OR x' is not an arXiv category" in err


@pytest.mark.timeout(180)
async def test_the_app_refresh_fetches_configured_categories_shown_under_their_digest(
    home, monkeypatch
):
    today = dt.datetime.now(dt.UTC).date()
    write_config(home, "arxiv:\n  categories: [cs.DC]\n")
    with serve_arxiv(FakeArxiv()) as fake:
        fake.add(
            [
                crafted_entry(
                    "cs.DC",
                    "2506.30001",
                    f"{today.isoformat()}T08:00:00Z",
                    "Crafted Collective Communication Paper",
                    "An abstract about all-reduce.",
                )
            ]
        )
        monkeypatch.setenv("ARXIV_API_ENDPOINT", fake.url)
        monkeypatch.setenv("ARXIV_REQUEST_INTERVAL", "0.01")
        app = DigestApp(AppContext())
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            await pilot.press("R")
            tree = app.query_one(NavTree)
            digest = f"arxiv-cs.DC-{today.isoformat()}"
            node = None
            for _ in range(200):  # until the fetch worker has posted its results
                await settle(pilot)
                try:
                    node = find_node(tree, "digest", digest)
                    break
                except AssertionError:  # not in the tree yet
                    await pilot.pause(0.05)
            assert node is not None, "the arXiv digest never appeared in the tree"
            assert str(node.label).startswith(f"{today.isoformat()} arXiv cs.DC")
            tree.focus()
            tree.move_cursor(node)
            await settle(pilot, rounds=6)
            rows = app.query_one(PaperList).rows
            assert [row.id for row in rows] == ["2506.30001"]
        window = fake.requests[0].params["search_query"]
        start = (today - dt.timedelta(days=2)).strftime("%Y%m%d")
        assert window == f"cat:cs.DC AND submittedDate:[{start}0000 TO {today:%Y%m%d}2359]"
