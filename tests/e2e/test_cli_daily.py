"""The CLI for everyday use: tables that fit the terminal, short ids that can be typed back,
ambiguous prefixes that say which papers they start, and counts in correct English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.ids import normalize_arxiv_id
from digest_tui.store.short_ids import MIN_SLUG_PREFIX, shortest_prefixes
from tests.support.paths import SEED_DEC10


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def table(capsys, monkeypatch, columns: int, *args: str) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, err = run(capsys, "papers", *args)
    assert code == 0, err
    return out.splitlines()


def open_library():  # type: ignore[no-untyped-def]
    from digest_tui.config import AppContext
    from digest_tui.service import open_library

    return open_library(AppContext())


# ---- 1. tables fit 80 columns; ids are short and typed back ----------------------------------


def test_papers_table_fits_80_columns(home, capsys, monkeypatch):
    lines = table(capsys, monkeypatch, 80)
    assert len(lines) == 153  # header + the 152 sample papers, one line each
    too_wide = [line for line in lines if len(line) > 80]
    assert too_wide == []
    # The title still gets a readable share of the line.
    assert all(len(line.split("  ")[-1]) >= 10 for line in lines[1:])


def test_papers_table_at_160_columns_shows_full_topics_and_longer_titles(home, capsys, monkeypatch):
    wide = table(capsys, monkeypatch, 160)
    narrow = table(capsys, monkeypatch, 80)
    assert all(len(line) <= 160 for line in wide)
    assert any("moe,training-parallelism" in line for line in wide)
    assert not any("moe,training-parallelism" in line for line in narrow)
    assert sum(map(len, wide)) > sum(map(len, narrow)) + 152 * 30


def test_table_ids_are_the_shortest_unique_prefixes_and_resolve(home, capsys, monkeypatch):
    lines = table(capsys, monkeypatch, 80)
    code, out, _ = run(capsys, "papers", "--format", "json")
    full = [paper["id"] for paper in json.loads(out)]  # JSON keeps whole ids
    shown = [line.split()[0] for line in lines[1:]]
    assert len(shown) == len(full)
    library = open_library()
    for short, paper_id in zip(shown, full, strict=True):
        assert paper_id.startswith(short)
        if normalize_arxiv_id(paper_id) == paper_id:
            assert short == paper_id  # arXiv ids whole
        else:
            assert len(short) >= MIN_SLUG_PREFIX
            # Shortest: one character less names another paper too (or is below the minimum).
            if len(short) > MIN_SLUG_PREFIX:
                assert len(library.resolve_candidates(short[:-1])) > 1
        assert library.resolve(short)["id"] == paper_id
    assert max(map(len, shown)) < 30  # today's slugs are up to 49 characters
    # And through the CLI, for one of them.
    code, out, err = run(capsys, "show", shown[0], "--format", "json")
    assert code == 0, err
    assert json.loads(out)["id"] == full[0]


def test_ambiguous_prefix_exits_2_listing_candidates(home, capsys):
    code, out, err = run(capsys, "show", "flash")
    assert code == 2 and out == ""
    first, *candidates = err.splitlines()
    assert first.startswith("digest-tui: id prefix 'flash' is ambiguous")
    assert "3 papers" in first
    titles = {line.split("  ")[-1].strip() for line in candidates}
    assert titles == {
        "FlashAttention-2: Faster Attention with Better Parallelism …",
        "FlashMoE: Fast Distributed MoE in a Single Kernel",
        "FlashRNN: Optimizing Traditional RNNs on Modern Hardware",
    }
    # Their ids are the arXiv ids now; "flash" starts the former ids they keep as aliases.
    assert {line.split()[0] for line in candidates} == {"2307.08691", "2506.04667", "2412.07752"}
    # Other commands that take ids say the same, and change nothing.
    code, _, err = run(capsys, "bookmark", "flash")
    assert code == 2 and "is ambiguous" in err
    code, _, err = run(capsys, "show", "no-such-paper")
    assert code == 2 and "no paper with id 'no-such-paper'" in err


def test_prefix_is_case_insensitive_and_long_prefix_lists_are_capped(home, capsys):
    code, out, _ = run(capsys, "show", "GALVATRON", "--format", "json")
    assert code == 0 and json.loads(out)["title"].startswith("Galvatron")
    code, _, err = run(capsys, "show", "s")  # starts 14 ids
    assert code == 2
    assert "more than 10 papers" in err.splitlines()[0]
    assert err.splitlines()[-1].strip() == "…"


def test_shortest_prefixes_count_aliases_of_other_papers_only():
    a, b, c, arxiv = "flashmoe-fast-0001", "flashrnn-rnns-0002", "flashmoe-slow-0003", "2506.04667"
    names = [
        (a, a),
        ("flashmoe-fast-old-id", a),  # a's own former id does not lengthen a's prefix
        (b, b),
        (c, c),
        (arxiv, arxiv),
    ]
    short = shortest_prefixes(names, [a, b, c, arxiv])
    assert short == {a: "flashmoe-f", b: "flashrn", c: "flashmoe-s", arxiv: arxiv}
    # Another paper's former id counts like its id.
    short = shortest_prefixes([*names, ("flashrnn-rnns-old", "9999.00001")], [b])
    assert short[b] == "flashrnn-rnns-0"


# ---- plurals ---------------------------------------------------------------------------------


def test_counts_of_one_are_singular(home, capsys, tmp_path: Path):
    code, _, err = run(
        capsys, "export", "--limit", "1", "--format", "json", "-o", str(tmp_path / "x.json")
    )
    assert code == 0 and f"exported 1 paper to {tmp_path / 'x.json'}" in err
    code, _, err = run(capsys, "export", "--limit", "2", "-o", str(tmp_path / "y.bib"))
    assert "exported 2 papers to" in err
    assert run(capsys, "list", "create", "one")[0] == 0
    assert run(capsys, "list", "add", "one", "galvatron")[0] == 0
    code, out, _ = run(capsys, "list", "show", "one")
    assert out.splitlines()[0] == "one (1 paper)"
    code, out, _ = run(capsys, "list", "delete", "one")
    assert out.strip() == "deleted list 'one' (1 paper)"


def test_import_of_one_file_is_singular(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DIGEST_TUI_HOME", str(tmp_path / "home"))
    code, out, _ = run(capsys, "import", str(SEED_DEC10))
    assert code == 0 and out.splitlines()[-1].startswith("imported 1 of 1 file: 64 new")


@pytest.mark.parametrize(("count", "text"), [(0, "0 authors"), (1, "1 author"), (3, "3 authors")])
def test_show_text_counts_authors_in_english(count, text):
    from digest_tui.commands.library_cmds import render_text

    paper = {
        "title": "T",
        "id": "t-00000000",
        "published": None,
        "upvotes": None,
        "authors": [],
        "authors_count": count,
        "topics": [],
        "topic_evidence": {},
        "repos": [],
        "tags": [],
        "digests": [],
        "abstract": "",
    }
    shown = render_text(paper)
    if count:
        assert f"authors:   {text}\n" in shown
    else:
        assert "authors:" not in shown


# ---- 2. papers a reader can cite and open ------------------------------------------------------


def test_sample_papers_get_the_catalogs_arxiv_ids_and_keep_their_old_ids(home, capsys):
    from digest_tui.enrich.repro_catalog import load_catalog
    from digest_tui.ids import title_paper_id

    code, out, err = run(capsys, "show", "2506.04667", "--format", "json")  # as the docs do
    assert code == 0, err
    paper = json.loads(out)
    assert paper["id"] == paper["arxiv_id"] == "2506.04667"
    assert paper["title"] == "FlashMoE: Fast Distributed MoE in a Single Kernel"
    # The title-derived id it had is an alias; the docs' `show flashmoe` prefix still works.
    old_id = title_paper_id(paper["title"])
    for ident in (old_id, "flashmoe"):
        code, out, _ = run(capsys, "show", ident, "--format", "json")
        assert code == 0 and json.loads(out)["id"] == "2506.04667"
    # Every arXiv id in the sample came from the catalog, for exactly that title: none invented.
    catalog = load_catalog(None)
    code, out, _ = run(capsys, "papers", "--format", "json")
    with_arxiv = [p for p in json.loads(out) if p["arxiv_id"]]
    assert len(with_arxiv) >= 40
    for p in with_arxiv:
        entry = catalog.lookup(None, p["title"])
        assert entry is not None and entry.arxiv_key == p["arxiv_id"] == p["id"]


def test_a_library_made_before_catches_up_and_keeps_the_readers_state(home, capsys):
    """A library imported without the catalog's ids (as every library before this change):
    on the next open the papers are re-keyed, and a bookmark made on the old id stays."""
    from digest_tui.config import AppContext
    from digest_tui.data_files import sample_digest_paths
    from digest_tui.ids import title_paper_id
    from digest_tui.service import import_files
    from digest_tui.store.db import connect
    from digest_tui.store.library import Library

    ctx = AppContext()
    old = Library(connect(ctx.paths.database))  # no enricher: no catalog at import
    import_files(old, sample_digest_paths())
    old.set_meta("sample_loaded", "1")
    old_id = title_paper_id("FlashMoE: Fast Distributed MoE in a Single Kernel")
    assert old.resolve(old_id)["arxiv_id"] is None
    old.state.bookmark(old_id)
    old.close()
    ctx.close()

    code, out, err = run(capsys, "papers", "--bookmarked", "--format", "json")
    assert code == 0, err
    [paper] = json.loads(out)
    assert paper["id"] == paper["arxiv_id"] == "2506.04667" and paper["bookmarked"]
    code, out, _ = run(capsys, "show", old_id, "--format", "json")
    assert code == 0 and json.loads(out)["id"] == "2506.04667"


def test_undated_papers_sort_by_the_date_of_the_digest_that_listed_them(home, capsys):
    _, out, _ = run(capsys, "papers", "--format", "json")
    papers = json.loads(out)
    library = open_library()
    first_seen = dict(library.conn.execute("SELECT id, first_seen FROM papers").fetchall())
    undated = [p["id"] for p in papers if not p["published"]]
    assert len(undated) == 9
    shown_dates = [p["published"] or first_seen[p["id"]] for p in papers]
    assert shown_dates == sorted(shown_dates, reverse=True)
    # So they are not all at the bottom any more.
    assert papers[-1]["published"] is not None


def test_exports_cite_the_arxiv_paper(home, capsys):
    code, out, _ = run(capsys, "export", "--search", "flashmoe", "--format", "bibtex")
    assert code == 0
    assert out.count("@article{") == 1
    assert "  eprint = {2506.04667},\n" in out
    assert "  archivePrefix = {arXiv},\n" in out
    assert "  url = {https://arxiv.org/abs/2506.04667},\n" in out
    code, out, _ = run(capsys, "export", "--search", "flashmoe", "--format", "csl-json")
    [item] = json.loads(out)
    assert item["URL"] == "https://arxiv.org/abs/2506.04667"
    assert item["number"] == "2506.04667" and item["DOI"] == "10.48550/arXiv.2506.04667"


# ---- 3. quiet offline ----------------------------------------------------------------------------


def test_show_offline_says_once_that_github_is_unreachable(home, capsys):
    # The home fixture points GITHUB_API_URL at a closed loopback port: connection refused.
    code, out, err = run(capsys, "show", "2307.08691")  # FlashAttention-2: two GitHub repos
    assert code == 0 and err == ""
    code_lines = out.split("\ncode:\n")[1].split("\nhardware:")[0].splitlines()
    assert [line for line in code_lines if "github.com" in line] == [
        "  [official/curated] https://github.com/Dao-AILab/flash-attention",
        "  [framework/curated] https://github.com/vllm-project/vllm",
    ]
    assert code_lines[-1] == "  GitHub unreachable — no cached health"
    assert len(code_lines) == 3  # no line per repo about the failure
    assert "cannot reach" not in out and "refused" not in out.lower()


def test_show_offline_shows_the_cached_health_and_its_date(home, capsys, monkeypatch):
    import datetime as dt

    from digest_tui.repohealth import HealthCache
    from tests.e2e.test_cli_links import GITHUB_FIXTURE
    from tests.support.loopback import Recorded, serve

    closed = "http://127.0.0.1:9"
    with serve({"/repos/osayamenja/FlashMoE": Recorded(200, GITHUB_FIXTURE)}) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        code, out, _ = run(capsys, "show", "flashmoe")
        # The repo for its health, and its root listing for its readiness (404 here, so the
        # README is not asked for).
        assert code == 0 and sorted(github.requests) == [
            "/repos/osayamenja/FlashMoE",
            "/repos/osayamenja/FlashMoE/contents/",
        ]
        [health] = [line for line in out.splitlines() if "★" in line]
        assert "unreachable" not in out
    # A day-old cache entry, and GitHub out of reach.
    with HealthCache(home / "cache" / "repo_health.sqlite3") as cache:
        cache.touch("osayamenja", "FlashMoE", dt.datetime(2025, 1, 2, 9, 30, tzinfo=dt.UTC))
    monkeypatch.setenv("GITHUB_API_URL", closed)
    for _ in range(2):  # the second time the client remembers the failure and asks nothing
        code, out, err = run(capsys, "show", "flashmoe")
        assert code == 0 and err == ""
        lines = out.splitlines()
        assert lines.count("  GitHub unreachable — showing health cached on 2025-01-02") == 1
        assert health in lines  # the cached figures, without a status or error
        assert "cannot reach" not in out and "stale" not in out
    code, out, _ = run(capsys, "show", "flashmoe", "--offline")
    assert "  offline — showing health cached on 2025-01-02" in out.splitlines()


def test_show_asks_github_nothing_when_repo_health_is_off(home, capsys, monkeypatch):
    from tests.e2e.test_cli_links import GITHUB_FIXTURE
    from tests.support.loopback import Recorded, serve

    (home / "config").mkdir(parents=True)
    (home / "config" / "config.yaml").write_text("repo_health: false\n", encoding="utf-8")
    with serve({"/repos/osayamenja/FlashMoE": Recorded(200, GITHUB_FIXTURE)}) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        code, out, _ = run(capsys, "show", "flashmoe")
        assert code == 0 and github.requests == []
        assert "  offline — no cached health" in out.splitlines()
