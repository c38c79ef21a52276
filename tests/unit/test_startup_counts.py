"""What the app counts at start-up (tree counts, stale enrichment) must not read the wide
`papers` rows: at 100,000 papers each such scan costs a few hundred milliseconds."""

from __future__ import annotations

from digest_tui.config import AppContext
from digest_tui.enrich.pipeline import Enricher
from digest_tui.service import import_files, open_library
from digest_tui.store.library import Library
from tests.support.paths import SEED_DEC10


def _statements(library: Library, call) -> list[str]:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    library.conn.set_trace_callback(seen.append)
    try:
        call()
    finally:
        library.conn.set_trace_callback(None)
    return seen


def test_stale_count_reads_no_paper_once_a_check_found_none_stale(home):
    library = open_library(AppContext())
    import_files(library, [SEED_DEC10])
    library.conn.execute("DELETE FROM meta WHERE key = 'enriched_fp'")  # as after an upgrade
    assert library.stale_count() == 0  # counted: nothing says every paper is current
    # A check that found none stale (every command's has_stale, a re-enrichment) says so in
    # meta; stale_count then reads no paper. It never writes itself: the app calls it at
    # start-up, where a write made the app's list reload under the user's first keys.
    assert library.has_stale() is False
    seen = _statements(library, library.stale_count)
    assert seen and not [s for s in seen if "FROM papers" in s], seen
    assert library.stale_count() == 0

    # New enrichment data (the user's taxonomy): every paper is counted stale again.
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "taxonomy.yaml").write_text("topics: []\n", encoding="utf-8")
    changed = Library(library.conn, Enricher(config))
    assert changed.stale_count() == library.count() > 0
    library.close()


def test_tree_counts_come_off_indexes(home):
    library = open_library(AppContext())
    import_files(library, [SEED_DEC10])
    seen = _statements(
        library,
        lambda: (library.state.counts(new_since=""), library.topic_counts(), library.digests()),
    )
    assert seen
    for sql in seen:
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        plan = [r[3] for r in library.conn.execute(f"EXPLAIN QUERY PLAN {sql}", _params(sql))]
        wide = [step for step in plan if "papers " in f"{step} " and "COVERING" not in step]
        assert not [s for s in wide if s.startswith(("SCAN papers", "SEARCH papers"))], (sql, plan)
    library.close()


def _params(sql: str) -> tuple[str, ...]:
    return ("",) * sql.count("?")
