"""`digest-tui similar` and `recommend` on the sample library of a fresh DIGEST_TUI_HOME."""

from __future__ import annotations

import json

from digest_tui.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def papers_by_id(capsys) -> dict[str, dict]:
    code, out, err = run(capsys, "papers", "--format", "json")
    assert code == 0, err
    return {p["id"]: p for p in json.loads(out)}


def test_similar_prints_paper_objects_with_score_and_reason(home, capsys):
    papers = papers_by_id(capsys)
    flash = next(p for p in papers.values() if p["title"].startswith("FlashMoE"))
    code, out, err = run(capsys, "similar", flash["id"][:12], "--limit", "5", "--format", "json")
    assert code == 0, err
    found = json.loads(out)
    assert len(found) == 5
    assert flash["id"] not in {p["id"] for p in found}
    scores = [p["score"] for p in found]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    for paper in found:
        # Exactly the object `papers --format json` prints, plus score and reason.
        assert set(paper) == set(papers[paper["id"]]) | {"score", "reason"}
        assert {k: v for k, v in paper.items() if k not in ("score", "reason")} == (
            papers[paper["id"]]
        )
        assert paper["reason"].startswith("shares ")
    assert sum("moe" in p["topics"] for p in found) >= 3

    code, out, _ = run(capsys, "similar", flash["id"], "--limit", "2", "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [p["id"] for p in lines] == [p["id"] for p in found[:2]]


def test_similar_table(home, capsys):
    papers = papers_by_id(capsys)
    paper = next(iter(papers.values()))
    code, out, err = run(capsys, "similar", paper["id"], "--limit", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["ID", "SCORE", "WHY", "TITLE"]
    assert len(lines) == 4
    assert all(any(i.startswith(line.split()[0]) for i in papers) for line in lines[1:])


def test_similar_unknown_id_and_bad_limit_are_one_line_errors(home, capsys):
    code, out, err = run(capsys, "similar", "no-such-paper")
    assert code == 2 and out == ""
    assert err.startswith("digest-tui: no paper with id 'no-such-paper'")
    try:
        main(["similar", "x", "--limit", "0"])
    except SystemExit as exc:
        assert exc.code == 2
    else:  # pragma: no cover - argparse always exits
        raise AssertionError("--limit 0 was accepted")
    assert "at least 1" in capsys.readouterr().err


def test_recommend_learns_from_bookmarks_and_leaves_out_bookmarked_and_read(home, capsys):
    papers = papers_by_id(capsys)
    moe = sorted(p["id"] for p in papers.values() if "moe" in p["topics"])
    assert len(moe) >= 6
    liked, read = moe[:3], moe[3]
    assert run(capsys, "bookmark", *liked)[0] == 0
    assert run(capsys, "read", read)[0] == 0
    code, out, err = run(capsys, "recommend", "--limit", "8", "--format", "json")
    assert code == 0, err
    found = json.loads(out)
    assert len(found) == 8
    ids = [p["id"] for p in found]
    assert not set(ids) & {*liked, read}
    assert sum("moe" in p["topics"] for p in found) >= 5
    scores = [p["score"] for p in found]
    assert scores == sorted(scores, reverse=True)
    liked_titles = {papers[i]["title"][:40] for i in liked}
    for paper in found:
        assert set(paper) == set(papers[paper["id"]]) | {"score", "reason"}
        assert paper["reason"].startswith("like '") and paper["reason"].endswith("you bookmarked")
        assert any(title in paper["reason"] for title in liked_titles), paper["reason"]


def test_recommend_from_a_tag_and_without_positives(home, capsys):
    code, out, err = run(capsys, "recommend")
    assert (code, out) == (2, "")
    assert err.startswith("digest-tui: no bookmarked papers to learn from")
    code, _, err = run(capsys, "recommend", "--tag", "nothing-here")
    assert code == 2 and "no papers are tagged 'nothing-here'" in err

    papers = papers_by_id(capsys)
    serving = sorted(p["id"] for p in papers.values() if p["topics"] == ["serving"])[:4]
    assert run(capsys, "tag", serving[0], "Later")[0] == 0
    for ident in serving[1:]:
        assert run(capsys, "tag", ident, "later")[0] == 0
    code, out, err = run(capsys, "recommend", "--tag", "later", "--limit", "5")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["ID", "SCORE", "WHY"] and len(lines) == 6
    assert not {line.split()[0] for line in lines[1:]} & set(serving)
    assert all("you tagged later" in line or "…" in line for line in lines[1:])


def test_similar_table_shows_ids_that_show_takes_back(home, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, "similar", "2506.04667", "--limit", "8")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["ID", "SCORE"] and len(lines) == 9
    papers = papers_by_id(capsys)
    shortened = 0
    for line in lines[1:]:
        shown = line.split()[0]
        code, shown_out, err = run(capsys, "show", shown, "--format", "json")
        assert code == 0, err
        full = json.loads(shown_out)["id"]
        assert full in papers and full.startswith(shown)
        shortened += len(shown) < len(full)
    # Title-derived ids (~45 characters) show as their shortest unique prefix, as in `papers`.
    assert shortened >= 1


def test_the_first_similar_says_it_builds_the_index_and_later_ones_do_not(home, capsys):
    papers = papers_by_id(capsys)
    first = next(iter(papers))
    code, out, err = run(capsys, "similar", first, "--format", "json")
    assert code == 0 and "building the similarity index" in err
    assert json.loads(out)  # stdout is the result alone
    code, _, err = run(capsys, "similar", first, "--format", "json")
    assert code == 0 and err == ""


def test_import_keeps_an_existing_index_current(home, capsys, tmp_path):
    """`import` rebuilds the vectors of what it brought in: the next `similar` has nothing
    left to catch up and already knows the new paper."""
    from digest_tui.config import AppContext
    from digest_tui.service import open_library
    from digest_tui.similar.index import SimilarIndex

    papers = papers_by_id(capsys)
    flash = next(p for p in papers.values() if p["title"].startswith("FlashMoE"))
    assert run(capsys, "similar", flash["id"], "--limit", "1")[0] == 0  # builds the index
    page = tmp_path / "page.txt"
    page.write_text(
        "Daily Papers\n\nJun 9\n\nFlashMoE twin: expert routing zzimportcheck\n\n"
        "Sparse mixture-of-experts routing with FlashMoE kernels, zzimportcheck.\n\n"
        "  \u2022 2 authors\n\u00b7\nJun 9\n",
        encoding="utf-8",
    )
    code, _out, err = run(capsys, "import", str(page))
    assert code == 0, err
    library = open_library(AppContext())
    try:
        assert SimilarIndex(library.conn).pending() == 0
        rowid = library.conn.execute(
            "SELECT rowid FROM papers WHERE title LIKE '%zzimportcheck%'"
        ).fetchone()[0]
        assert SimilarIndex(library.conn).vector(rowid)
    finally:
        library.close()


def test_fetch_arxiv_keeps_an_existing_index_current(home, capsys, monkeypatch):
    """`fetch --arxiv` (a fake arXiv API on 127.0.0.1) leaves nothing for `similar` to catch
    up: the fetched papers have their vectors when the fetch returns."""
    from digest_tui.config import AppContext
    from digest_tui.service import open_library
    from digest_tui.similar.index import SimilarIndex
    from tests.support.fake_arxiv import fixture_entries, serve_arxiv

    papers = papers_by_id(capsys)
    assert run(capsys, "similar", next(iter(papers)), "--limit", "1")[0] == 0  # the index
    with serve_arxiv() as fake:
        fake.add(fixture_entries("cs.DC_2025-06-04.xml", "cs.DC"))
        monkeypatch.setenv("ARXIV_API_ENDPOINT", fake.url)
        monkeypatch.setenv("ARXIV_REQUEST_INTERVAL", "0.01")
        code, _out, err = run(capsys, "fetch", "--arxiv", "cs.DC", "--date", "2025-06-04")
    assert code == 0, err
    library = open_library(AppContext())
    try:
        assert SimilarIndex(library.conn).pending() == 0
        rowid = library.conn.execute("SELECT rowid FROM papers WHERE id = '2506.03802'").fetchone()
        assert rowid is not None and SimilarIndex(library.conn).vector(rowid[0])
    finally:
        library.close()


def test_the_apps_refresh_keeps_an_existing_index_current(home, capsys, monkeypatch):
    """What the app's `R` runs in its worker (service.fetch_sources: Daily Papers, then the
    configured arXiv categories, both from servers on 127.0.0.1) leaves the index current.
    Checked on the library right after, before any `similar` could catch it up."""
    import datetime as dt

    from digest_tui.config import AppContext
    from digest_tui.service import fetch_sources, open_library
    from digest_tui.similar.index import SimilarIndex
    from digest_tui.sources.hf_fetch import FetchSpec
    from tests.support.fake_arxiv import FakeArxiv, crafted_entry, serve_arxiv
    from tests.support.loopback import Recorded, serve

    papers = papers_by_id(capsys)
    assert run(capsys, "similar", next(iter(papers)), "--limit", "1")[0] == 0  # the index
    (home / "config" / "config.yaml").write_text("arxiv:\n  categories: [cs.DC]\n")
    today = dt.datetime.now(dt.UTC).date()
    entry = crafted_entry(
        "cs.DC",
        "2506.30002",
        f"{today.isoformat()}T08:00:00Z",
        "Mixture of experts routing zzrefreshcheck",
        "Expert routing and load balancing for sparse MoE training.",
    )
    with serve_arxiv(FakeArxiv()) as fake, serve({"/api/daily_papers": Recorded(200, b"[]")}) as hf:
        fake.add([entry])
        monkeypatch.setenv("ARXIV_API_ENDPOINT", fake.url)
        monkeypatch.setenv("ARXIV_REQUEST_INTERVAL", "0.01")
        monkeypatch.setenv("HF_ENDPOINT", hf.url)
        ctx = AppContext()
        library = open_library(ctx)
        try:
            report = fetch_sources(ctx, FetchSpec.build(), library=library)
            assert report.arxiv is not None and report.arxiv.ok, report.errors
            index = SimilarIndex(library.conn)
            assert index.pending() == 0
            rowid = library.conn.execute(
                "SELECT rowid FROM papers WHERE id = '2506.30002'"
            ).fetchone()
            assert rowid is not None and index.vector(rowid[0])
        finally:
            library.close()
