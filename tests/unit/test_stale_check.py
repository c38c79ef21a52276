"""Every command asks whether stored enrichment is stale (`Library.has_stale`). On a large
library that was a count over every row; now a meta key says which fingerprint every paper is
known to carry. The answer must stay right: after imports with and without an enricher, after
the data files change, after a re-enrichment."""

from __future__ import annotations

from digest_tui.config import AppContext
from digest_tui.enrich.pipeline import Enricher
from digest_tui.service import import_files, open_library
from digest_tui.sources.hf_page import parse_file
from digest_tui.store.library import Library
from tests.support.paths import SEED_DEC09, SEED_DEC10


def test_has_stale_follows_the_enrichment_data(home):
    library = open_library(AppContext())
    import_files(library, [SEED_DEC10])
    assert library.has_stale() is False
    assert library.get_meta("enriched_fp") == library.enricher.fingerprint  # next time: 1 read
    assert library.has_stale() is False

    # papers stored without enrichment (enrich_fp NULL): stale, and the shortcut is dropped
    bare = Library(library.conn, None)
    bare.import_parsed(parse_file(SEED_DEC09))
    assert library.get_meta("enriched_fp") is None
    assert library.has_stale() is True and library.stale_count() > 0
    library.reenrich()
    assert library.has_stale() is False and library.stale_count() == 0

    # the user overrides the taxonomy: a new fingerprint, every paper stale again
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "taxonomy.yaml").write_text("topics: []\n", encoding="utf-8")
    changed = Library(library.conn, Enricher(config))
    assert changed.enricher.fingerprint != library.enricher.fingerprint
    assert changed.has_stale() is True
    library.close()


def test_reenrich_leaves_the_library_writable_while_it_enriches(home, monkeypatch):
    """Enrichment (most of a re-enrichment's time) runs outside any transaction: another
    connection can take the write lock meanwhile; a paper it changed is enriched again from
    its new text before the write."""
    import sqlite3

    library = open_library(AppContext())
    import_files(library, [SEED_DEC10])
    other = sqlite3.connect(library.conn.execute("PRAGMA database_list").fetchone()[2])
    other.execute("PRAGMA busy_timeout = 0")  # locked now: fail at once, never wait
    changed: list[str] = []
    original = Enricher.compute_parts

    def enrich_while_another_writes(self, paper, *args):  # type: ignore[no-untyped-def]
        result = original(self, paper, *args)
        if not changed:
            other.execute("BEGIN IMMEDIATE")  # raises "database is locked" under a write lock
            other.execute(
                "UPDATE papers SET abstract = abstract || ' We route tokens to mixture-of-"
                "experts layers on 8 H100 GPUs.' WHERE id = ?",
                (paper.id,),
            )
            other.execute("COMMIT")
            changed.append(paper.id)
        return result

    monkeypatch.setattr(Enricher, "compute_parts", enrich_while_another_writes)
    assert library.reenrich(only_stale=False) > 10
    monkeypatch.undo()
    rowid = library.resolve(changed[0])["rowid"]
    stored = library.conn.execute(
        "SELECT topics, topic_evidence, hardware FROM papers WHERE rowid = ?", (rowid,)
    ).fetchone()
    expected = library._enrichment_columns(library.stored_paper(rowid), [])
    assert tuple(stored) == (expected["topics"], expected["topic_evidence"], expected["hardware"])
    assert "mixture-of-experts" in library.stored_paper(rowid).abstract
    other.close()
    library.close()
