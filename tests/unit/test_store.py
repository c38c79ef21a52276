"""The SQLite store: migrations, round trip, idempotent and updating imports, search."""

from __future__ import annotations

import sqlite3

import pytest

from digest_tui.errors import StoreError
from digest_tui.models import Paper
from digest_tui.sources.hf_page import parse_file, parse_page
from digest_tui.store.db import connect, migrations, schema_version
from digest_tui.store.library import Library, content_hash
from digest_tui.store.query import PaperQuery
from tests.support.library import import_seed
from tests.support.paths import ALL_SEEDS, SEED_DEC09, SEED_DEC10, SEED_JAN08


@pytest.fixture
def library(tmp_path) -> Library:
    return Library(connect(tmp_path / "library.sqlite3"), None)


def test_migrations_from_an_empty_file(tmp_path):
    path = tmp_path / "new.sqlite3"
    conn = connect(path)
    assert schema_version(conn) == len(migrations()) >= 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"papers", "digests", "digest_papers", "papers_fts", "paper_topics"} <= tables
    conn.close()
    # Opening again applies nothing and keeps the data.
    again = connect(path)
    assert schema_version(again) == len(migrations())


def test_newer_schema_than_known_is_refused(tmp_path):
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(StoreError, match="newer than this digest-tui knows"):
        connect(path)


def test_round_trip_of_a_paper(library):
    import_seed(library, SEED_DEC10)
    row = library.resolve("training-foundation-models-on-a-5554efc8")
    paper = library.stored_paper(row["rowid"])
    original = next(
        p for p in parse_file(SEED_DEC10).papers if p.title.startswith("Training Foundation")
    )
    assert paper == original.model_copy(update={"source_ref": paper.source_ref})
    assert library.digests_of(row["rowid"]) == ["hf-page-2025-12-10"]


def test_reimport_changes_nothing(library, tmp_path):
    for seed in ALL_SEEDS:
        import_seed(library, seed)
    before = library.conn.execute("SELECT * FROM papers ORDER BY rowid").fetchall()
    digests_before = library.conn.execute("SELECT * FROM digests ORDER BY id").fetchall()
    for seed in ALL_SEEDS:
        report = import_seed(library, seed)
        assert report.new == 0 and report.updated == 0
    after = library.conn.execute("SELECT * FROM papers ORDER BY rowid").fetchall()
    assert [tuple(r) for r in before] == [tuple(r) for r in after]
    digests_after = library.conn.execute("SELECT * FROM digests ORDER BY id").fetchall()
    assert [tuple(r) for r in digests_before] == [tuple(r) for r in digests_after]
    assert library.count() == 152


def test_same_paper_in_several_digests_is_one_paper(library):
    for seed in ALL_SEEDS:
        import_seed(library, seed)
    rows = library.rows(PaperQuery(search='"FlashMoE"'))
    assert len(rows) == 1
    assert library.digests_of(rows[0]["rowid"]) == [
        "hf-page-2025-12-09",
        "hf-page-2025-12-10",
        "hf-page-2025-12-30",
        "hf-page-2026-01-08",
    ]
    assert [d.count for d in library.digests()] == [26, 65, 64, 47]


def test_newer_copy_updates_fields_and_older_copy_only_fills_gaps(library):
    import_seed(library, SEED_DEC10)
    text = SEED_DEC10.read_text(encoding="utf-8").replace("Nov 21 1", "Nov 21 9")
    newer = parse_page(text, "dec10-later.txt")
    report = library.import_parsed(newer, content_hash(text))
    assert report.updated == 1
    assert library.resolve("training-foundation-models-on-a-5554efc8")["upvotes"] == 9
    # An older digest (Dec 9) does not overwrite what the newer one said.
    flash_abstract = library.resolve("flashmoe")["abstract"]
    older = SEED_DEC09.read_text(encoding="utf-8").replace("Mar 13\n", "Mar 13 42\n")
    older = older.replace("We provide code at https://github.com/osayamenja/FlashMoE.", "Old.")
    library.import_parsed(parse_page(older, "dec09.txt"))
    # Filled, because the newer copy had no upvotes for Galvatron ...
    assert library.resolve("galvatron")["upvotes"] == 42
    # ... but not overwritten where the newer copy said something.
    assert library.resolve("flashmoe")["abstract"] == flash_abstract


def test_printed_year_confirms_inferred_year(library):
    import_seed(library, SEED_DEC10)
    flash = library.rows(PaperQuery(search="FlashMoE"))[0]
    assert flash["published"] == "2025-06-05" and flash["published_year_inferred"] == 1
    import_seed(library, SEED_JAN08)
    flash = library.rows(PaperQuery(search="FlashMoE"))[0]
    assert flash["published"] == "2025-06-05" and flash["published_year_inferred"] == 0


def test_arxiv_id_rekeys_a_title_paper_and_keeps_an_alias(library):
    import_seed(library, SEED_JAN08)
    old_id = library.rows(PaperQuery(search="FlashMoE"))[0]["id"]
    parsed = parse_file(SEED_JAN08)
    flash = next(p for p in parsed.papers if p.title.startswith("FlashMoE"))
    from_api = Paper(
        id="2506.04667",
        title=flash.title.upper(),
        arxiv_id="2506.04667",
        source="hf-api",
        upvotes=30,
    )
    digest = parsed.model_copy(
        update={
            "papers": [from_api],
            "digest": parsed.digest.model_copy(update={"id": "hf-api-2026-01-09"}),
        }
    )
    library.import_parsed(digest)
    assert library.count() == 26
    assert library.resolve(old_id)["id"] == "2506.04667"
    assert library.resolve("arXiv:2506.04667v1")["upvotes"] == 30


def test_search_ranks_title_hits_first_and_handles_syntax(library):
    for seed in ALL_SEEDS:
        import_seed(library, seed)
    titles = [r["title"] for r in library.rows(PaperQuery(search="kernel"))]
    assert titles and "kernel" in titles[0].lower()
    # Prefix search while typing, and punctuation that would be FTS5 syntax.
    assert library.rows(PaperQuery(search="megatr"))
    assert library.rows(PaperQuery(search='"unbalanced quote AND ( NEAR')) == []
    assert library.rows(PaperQuery(search="since:2025-11-01 until:2025-11-30"))
    assert all(
        r["published"] >= "2025-11-01" for r in library.rows(PaperQuery(search="since:2025-11-01"))
    )
    excluded = library.rows(PaperQuery(search="moe -flashmoe"))
    assert excluded and all("FlashMoE" not in r["title"] for r in excluded)


def test_resolve_by_unique_prefix_only(library):
    import_seed(library, SEED_DEC10)
    assert library.resolve("galvatron")["title"].startswith("Galvatron")
    assert library.resolve("c") is None  # several ids start with c
    assert library.resolve("nonexistent") is None


def test_stored_paper_of_a_missing_row_is_a_key_error(library):
    with pytest.raises(KeyError):
        library.stored_paper(12345)


def test_bumping_the_enrichment_version_makes_every_stored_paper_stale(tmp_path, monkeypatch):
    # ENRICH_VERSION is the one knob for "the enrichment code changed": it salts the fingerprint
    # stored with each paper (the classifier has no version of its own any more).
    from digest_tui.enrich import pipeline

    library = Library(connect(tmp_path / "library.sqlite3"), pipeline.Enricher(None))
    count = import_seed(library, SEED_DEC10).new
    assert count and library.stale_count() == 0
    monkeypatch.setattr(pipeline, "ENRICH_VERSION", pipeline.ENRICH_VERSION + "-next")
    bumped = Library(library.conn, pipeline.Enricher(None))
    assert bumped.stale_count() == count
    assert bumped.reenrich() == count and bumped.stale_count() == 0
