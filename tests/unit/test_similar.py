"""Similar papers: terms as FTS5 sees them, the incremental index in SQLite, neighbours, quality."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest

from digest_tui.ids import paper_id
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.similar import index as index_module
from digest_tui.similar.find import similar_to
from digest_tui.similar.index import SimilarIndex
from digest_tui.similar.terms import term_counts, tokens
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from tests.support.library import import_seed
from tests.support.paths import ALL_SEEDS, DIGESTS, ROOT

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/evaluation: the evaluation code lives beside the scripts

from evaluation.similar_eval import (  # noqa: E402
    import_labelled,
    load_labelled,
    recommend_quality,
    similar_quality,
)


@pytest.fixture
def library(tmp_path: Path) -> Library:
    return Library(connect(tmp_path / "library.sqlite3"), None)


def add(library: Library, *papers: tuple[str, str], day: int = 1) -> dict[str, int]:
    """Import (title, abstract) papers as one digest; title -> rowid."""
    models = [Paper(id=paper_id(t), title=t, abstract=a, source="test") for t, a in papers]
    library.import_parsed(
        ParsedDigest(
            digest=Digest(
                id=f"test-{day}",
                source="test",
                date=dt.date(2025, 1, day),
                title="t",
                paper_ids=[m.id for m in models],
            ),
            papers=models,
        )
    )
    rows = library.conn.execute("SELECT rowid, title FROM papers").fetchall()
    return {r[1]: int(r[0]) for r in rows}


MOE = ("Expert routing for sparse MoE", "Token routing across experts with load balancing.")
MOE2 = ("Balanced MoE expert dispatch", "Load balancing of experts and token routing in MoE.")
KV = ("Paged KV cache for LLM serving", "A paged key-value cache raises serving throughput.")
KV2 = ("KV cache eviction in serving", "Evicting key-value cache entries during LLM serving.")
GEMM = ("FP8 GEMM kernels on Hopper", "Warp-specialised FP8 GEMM kernels with TMA on Hopper.")


def test_tokens_are_the_words_fts5_indexes(library):
    title = "Café_Kernels: Mixture-of-Experts on A100s (v2.1) — naïve ÜBER-fast"
    add(library, (title, ""))
    indexed = {r[0] for r in library.conn.execute("SELECT term FROM similar_vocab")}
    assert set(tokens(title)) == indexed


def test_title_words_weigh_double_and_stopwords_and_numbers_are_dropped():
    counts = term_counts("Routing experts", "The experts route 2 tokens.", ["MoE"])
    assert counts["routing"] == 2 and counts["experts"] == 3 and counts["moe"] == 2
    assert "the" not in counts and "2" not in counts


def test_neighbours_share_the_subject_and_the_reason_names_shared_terms(library):
    rows = add(library, MOE, MOE2, KV, KV2, GEMM)
    found = similar_to(library.conn, rows[MOE[0]], 4)
    assert found[0].rowid == rows[MOE2[0]]
    assert rows[MOE[0]] not in {f.rowid for f in found}
    assert [f.score for f in found] == sorted((f.score for f in found), reverse=True)
    both = set(term_counts(MOE[0], MOE[1])) & set(term_counts(MOE2[0], MOE2[1]))
    assert found[0].shared and set(found[0].shared) <= both
    assert "moe" in found[0].shared  # in both titles: the strongest shared term
    assert found[0].reason.startswith("shares ")
    kv = similar_to(library.conn, rows[KV[0]], 1)
    assert [f.rowid for f in kv] == [rows[KV2[0]]]


def test_a_paper_without_words_has_no_neighbours(library):
    rows = add(library, MOE, MOE2, ("The Of And", ""))
    assert similar_to(library.conn, rows["The Of And"], 5) == []


def test_only_new_changed_or_deleted_papers_are_rebuilt(library):
    index = SimilarIndex(library.conn)
    add(library, MOE, MOE2, KV, KV2, GEMM)
    first = index.refresh()
    assert first.full and first.built == 5
    assert index.refresh().built == 0  # nothing changed: nothing rebuilt

    rows = add(library, ("Serving with a paged KV cache pool", "KV cache pages for serving."))
    report = index.refresh()
    assert (report.built, report.full) == (1, False)

    # Re-importing the same text marks nothing as changed in the index.
    add(library, MOE, MOE2, KV, KV2, GEMM)
    report = index.refresh()
    assert report.built == 0 and not report.full

    # A changed abstract gives the paper a new vector and new neighbours.
    gemm = rows[GEMM[0]]
    before = {f.rowid for f in similar_to(library.conn, gemm, 2)}
    library.conn.execute(
        "UPDATE papers SET abstract = ? WHERE rowid = ?",
        ("Routing tokens to MoE experts with load balancing.", gemm),
    )
    report = index.refresh()
    assert report.built == 1
    after = similar_to(library.conn, gemm, 2)
    assert after[0].rowid in {rows[MOE[0]], rows[MOE2[0]]} and before != {f.rowid for f in after}

    # A deleted paper leaves the index and every result.
    library.conn.execute("DELETE FROM papers WHERE rowid = ?", (rows[MOE2[0]],))
    report = index.refresh()
    assert report.dropped == 1
    assert (
        library.conn.execute(
            "SELECT count(*) FROM similar_postings WHERE paper_rowid = ?", (rows[MOE2[0]],)
        ).fetchone()[0]
        == 0
    )
    assert rows[MOE2[0]] not in {f.rowid for f in similar_to(library.conn, rows[MOE[0]], 10)}


def test_growth_past_the_factor_or_a_new_version_recomputes_every_vector(library, monkeypatch):
    index = SimilarIndex(library.conn)
    add(library, MOE, MOE2, KV, KV2)
    assert index.refresh().full
    add(library, GEMM, ("Another GEMM kernel paper", "GEMM kernels."))  # 4 -> 6 papers: > 1.25x
    report = index.refresh()
    assert report.full and report.built == 6
    monkeypatch.setattr(index_module, "VERSION", "test-next")
    report = index.refresh()
    assert report.full and report.built == 6


def test_fixture_digests_flashmoe_is_most_like_moe_papers(library):
    for path in ALL_SEEDS:
        import_seed(library, path)
    flash = library.resolve("flashmoe")
    assert flash is not None
    found = similar_to(library.conn, int(flash["rowid"]), 3)
    titles = [
        library.conn.execute("SELECT title FROM papers WHERE rowid = ?", (f.rowid,)).fetchone()[0]
        for f in found
    ]
    assert len(titles) == 3
    assert all("moe" in t.lower() or "expert" in t.lower() for t in titles), titles


def test_quality_on_the_labelled_splits_meets_the_target():
    labelled = load_labelled(
        ROOT / "fixtures" / "eval" / "topics.yaml",
        sorted(DIGESTS.glob("*.txt")),
        ROOT / "fixtures" / "eval" / "topics_test.yaml",
    )
    library = Library(connect(":memory:"))
    rows = import_labelled(library, labelled)
    assert len(rows) == len(labelled) >= 250
    report = similar_quality(library, rows)
    assert report["papers"] >= 140
    assert report["share_top3_sharing_a_topic"] >= 0.75


def test_recommend_centroid_recovers_half_a_topic_from_the_other_half():

    labelled = load_labelled(
        ROOT / "fixtures" / "eval" / "topics.yaml",
        sorted(DIGESTS.glob("*.txt")),
        ROOT / "fixtures" / "eval" / "topics_test.yaml",
    )
    library = Library(connect(":memory:"))
    report = recommend_quality(library, import_labelled(library, labelled))
    assert set(report["per_topic"]) == {"kernels", "moe", "serving", "training-parallelism"}
    assert report["mean_precision_at_10"] >= 0.7
    assert all(t["precision_at_10"] >= 0.5 for t in report["per_topic"].values())


def test_recommend_excludes_positives_and_the_excluded_and_names_the_closest(library):
    from digest_tui.similar.recommend import centroid, recommend

    rows = add(library, MOE, MOE2, KV, KV2, GEMM, ("MoE token routing", "Experts routing."))
    found = recommend(library.conn, [rows[MOE[0]], rows[KV[0]]], limit=10, exclude=[rows[KV2[0]]])
    ids = [f.rowid for f in found]
    assert not set(ids) & {rows[MOE[0]], rows[KV[0]], rows[KV2[0]]}
    assert ids[0] in {rows[MOE2[0]], rows["MoE token routing"]}
    assert found[0].like[0] == rows[MOE[0]]
    assert recommend(library.conn, [], limit=5) == []
    assert centroid([]) == []


def test_terms_held_by_most_papers_do_not_drive_the_search(library, monkeypatch):
    monkeypatch.setattr(index_module, "COMMON_FLOOR", 0)
    monkeypatch.setattr(index_module, "COMMON_SHARE", 0.5)
    monkeypatch.setattr(index_module, "MIN_QUERY_TERMS", 1)
    rows = add(
        library,
        ("Ubiquitous alpha", "ubiquitous"),
        ("Ubiquitous beta", "ubiquitous"),
        ("Ubiquitous gamma", "ubiquitous"),
        ("Alpha only", "alpha"),
    )
    found = similar_to(library.conn, rows["Ubiquitous alpha"], 5)
    # 'ubiquitous' is in 3 of 4 papers (> half): only 'alpha' searches, so the papers sharing
    # nothing but 'ubiquitous' are not candidates; the score is still the whole cosine.
    assert [f.rowid for f in found] == [rows["Alpha only"]]
    assert found[0].score == pytest.approx(
        index_module.cosine(
            SimilarIndex(library.conn).vector(rows["Ubiquitous alpha"]) or [],
            SimilarIndex(library.conn).vector(rows["Alpha only"]) or [],
        ),
        abs=1e-4,
    )
    monkeypatch.setattr(index_module, "MIN_QUERY_TERMS", 2)  # too few left: common ones return
    assert len(similar_to(library.conn, rows["Ubiquitous alpha"], 5)) == 3


def test_refresh_after_import_is_bounded_and_never_starts_a_full_pass(library):
    from digest_tui.similar.after_import import refresh_after_import

    add(library, MOE, MOE2, KV, KV2)
    assert refresh_after_import(library.conn).skipped == "no index"  # never built: left alone
    assert SimilarIndex(library.conn).pending() == 4
    SimilarIndex(library.conn).refresh()
    rows = add(library, ("KV cache paging for serving", "Paged KV cache in LLM serving."))
    done = refresh_after_import(library.conn, limit=1)
    assert (done.report.built, done.left, done.skipped) == (1, 0, None)
    new = rows["KV cache paging for serving"]
    assert {f.rowid for f in similar_to(library.conn, new, 2)} == {rows[KV[0]], rows[KV2[0]]}

    # Over the limit: the oldest marks are rebuilt now, the rest stay for the next refresh.
    library.conn.execute("UPDATE papers SET abstract = abstract || ' Routing.'")
    done = refresh_after_import(library.conn, limit=2)
    assert (done.report.built, done.left) == (2, 3)
    assert SimilarIndex(library.conn).refresh().built == 3

    # A full pass due (the library more than 1.25x its size at the last one): not at import.
    add(library, GEMM, ("Another GEMM kernel paper", "GEMM kernels."), day=2)
    done = refresh_after_import(library.conn)
    assert done.skipped == "full pass due" and done.left == 2 and not done.report.full


def test_a_full_build_lets_other_writers_in_between_its_batches(tmp_path, monkeypatch):
    """The first build of a large library takes a minute or two: it commits batch by batch,
    so a bookmark (or re-enrichment) on another connection is written meanwhile instead of
    failing on a busy library; the index reads as pending until the pass ends."""
    import threading
    import time

    path = tmp_path / "library.sqlite3"
    library = Library(connect(path), None)
    add(
        library,
        *[(f"Paper {n} on expert routing", f"Experts and tokens, case {n}.") for n in range(60)],
    )
    monkeypatch.setattr(index_module, "_FULL_BATCH", 5)
    slow_vector = SimilarIndex._vector

    def vector(self, *args):  # a slower machine: the pass lasts seconds, not milliseconds
        time.sleep(0.01)
        return slow_vector(self, *args)

    monkeypatch.setattr(SimilarIndex, "_vector", vector)
    builder = threading.Thread(target=lambda: SimilarIndex(connect(path)).refresh())
    builder.start()
    other = connect(path)
    other.execute("PRAGMA busy_timeout = 500")
    deadline = time.monotonic() + 30
    while other.execute("SELECT count(*) FROM similar_docs").fetchone()[0] == 0:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert builder.is_alive(), "vectors became visible only when the whole pass ended"
    assert SimilarIndex(other).needs_full_build()  # nobody searches a half-built index
    with other:  # a write between two batches: the lock is free within 500 ms
        other.execute("INSERT INTO meta (key, value) VALUES ('written', 'during the build')")
    builder.join()
    index = SimilarIndex(other)
    assert not index.needs_full_build()
    assert other.execute("SELECT count(*) FROM similar_docs").fetchone()[0] == 60
    assert other.execute("SELECT value FROM meta WHERE key = 'written'").fetchone()[0]


def test_a_full_build_pauses_between_its_batches_outside_any_transaction(library, monkeypatch):
    """The app hands the build a wait for a pause in typing: it runs between batches, with the
    write lock free (a pause inside a batch would keep marks and tags waiting), and the pass
    goes on after it to the same index as a build without pauses."""
    add(
        library,
        *[(f"Paper {n} on expert routing", f"Experts and tokens, case {n}.") for n in range(12)],
    )
    monkeypatch.setattr(index_module, "_FULL_BATCH", 5)
    monkeypatch.setattr(index_module, "_WRITER_GAP", 0.0)
    seen: list[tuple[bool, int]] = []

    def pause() -> None:
        conn = library.conn
        seen.append(
            (conn.in_transaction, conn.execute("SELECT count(*) FROM similar_docs").fetchone()[0])
        )

    report = SimilarIndex(library.conn).refresh(pause=pause)
    assert report.full and report.built == 12
    # Three batches (5, 5, 2), a pause after each; none inside a transaction.
    assert seen == [(False, 5), (False, 10), (False, 12)]
    assert not SimilarIndex(library.conn).needs_full_build()
