"""Re-enrichment runs only the stale components (issue 12): the stored fingerprint has one
part per component (topics / links / hardware), each a hash of the data files it reads. A
taxonomy edit re-runs the topic classifier (and the hardware target of the papers whose
topics changed: it reads them); a hardware catalog edit re-runs the hardware target only; a
curated catalog edit re-runs links and hardware. Whatever ran, the stored rows must equal a
full enrichment of the same papers with the same data."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from digest_tui.enrich.pipeline import COMPONENTS, Enricher
from digest_tui.sources.hf_page import parse_page
from digest_tui.store.db import connect
from digest_tui.store.library import Library, content_hash
from tests.support.paths import ALL_SEEDS
from tests.unit.test_enrich_parallel import fixture_papers

# Adds "kernels" to every paper saying "GPU": many papers change topics, and with them (the
# hardware target reads "kernels") their hardware suggestion.
USER_TAXONOMY = """
topics:
  - id: kernels
    add_patterns:
      - phrase: gpu
        weight: 4
  - id: quantization
    label: Quantization
    description: Low-bit weights and activations.
    threshold: 3
    patterns:
      - phrase: [quantization, low-bit]
        weight: 3
"""
# The same with a scoring change: no paper can be left as it was, every one is classified again
# (for the tests about batches and workers).
USER_TAXONOMY_RESCORED = USER_TAXONOMY + "scoring:\n  max_repeats: 4\n"
USER_HARDWARE = """
devices:
  - id: a100
    memory_gb: 40
"""
USER_REPRO = """
papers:
  - arxiv: "{arxiv}"
    title: "{title}"
    repos:
      - url: https://github.com/example/reenrich-test
        kind: official
    hardware: ["8x H100 80GB"]
"""


def import_fixtures(library: Library) -> int:
    new = 0
    for page in ALL_SEEDS:
        text = page.read_text(encoding="utf-8")
        new += library.import_parsed(parse_page(text, page.name), content_hash(text)).new
    return new


def stored(conn: sqlite3.Connection) -> tuple[list[tuple], list[tuple]]:
    papers = [
        tuple(row)
        for row in conn.execute(
            "SELECT id, topics, topic_evidence, links, repos, hardware, has_code, max_stars, "
            "enrich_fp FROM papers ORDER BY id"
        )
    ]
    topics = conn.execute(
        "SELECT p.id, t.topic FROM paper_topics t JOIN papers p ON p.rowid = t.paper_rowid "
        "ORDER BY p.id, t.topic"
    ).fetchall()
    return papers, [tuple(row) for row in topics]


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each component ran (the real components, counted)."""
    counts: Counter[str] = Counter()
    for name, method in (("topics", "_classify"), ("links", "_links"), ("hardware", "_hardware")):
        original = getattr(Enricher, method)

        def counted(self, *args, _original=original, _name=name):  # type: ignore[no-untyped-def]
            counts[_name] += 1
            return _original(self, *args)

        monkeypatch.setattr(Enricher, method, counted)
    return counts


def reenrich_after_edit(tmp_path: Path, edit, runs: Counter[str]):  # type: ignore[no-untyped-def]
    """Import the fixtures with the packaged data, `edit` the user's config dir, re-enrich;
    return (the stale components, the components run, the stored rows, a full import's
    rows, papers)."""
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    count = import_fixtures(library)
    edit(config, library)
    edited = Library(library.conn, Enricher(config))
    stale_fp = library.conn.execute("SELECT enrich_fp FROM papers LIMIT 1").fetchone()[0]
    stale = edited.enricher.stale_components(stale_fp)
    runs.clear()
    assert edited.reenrich() == count
    assert edited.stale_count() == 0
    ran = Counter(runs)
    fresh = Library(connect(tmp_path / "b.sqlite3"), Enricher(config))
    import_fixtures(fresh)
    return stale, ran, stored(library.conn), stored(fresh.conn), count


def test_a_taxonomy_edit_re_runs_topics_only(tmp_path: Path, runs: Counter[str]) -> None:
    def edit(config: Path, library: Library) -> None:
        (config / "taxonomy.yaml").write_text(USER_TAXONOMY, encoding="utf-8")

    stale, ran, after, full, count = reenrich_after_edit(tmp_path, edit, runs)
    assert stale == {"topics"}
    # only the papers the edited entries match are classified (test_taxonomy_edit_delta.py)
    assert 0 < ran["topics"] < count and ran["links"] == 0
    # only the papers whose topics changed get a new hardware target (it reads "kernels")
    assert 0 < ran["hardware"] < ran["topics"]
    assert after == full
    assert any("quantization" in row[1] for row in after[0])  # the edit did change topics


def test_a_hardware_catalog_edit_re_runs_hardware_only(tmp_path: Path, runs: Counter[str]) -> None:
    def edit(config: Path, library: Library) -> None:
        (config / "hardware.yaml").write_text(USER_HARDWARE, encoding="utf-8")

    stale, ran, after, full, count = reenrich_after_edit(tmp_path, edit, runs)
    assert stale == {"hardware"}
    assert ran == Counter(hardware=count)
    assert after == full


def test_a_curated_catalog_edit_re_runs_links_and_hardware(
    tmp_path: Path, runs: Counter[str]
) -> None:
    def edit(config: Path, library: Library) -> None:
        arxiv, title = library.conn.execute(
            "SELECT arxiv_id, title FROM papers WHERE arxiv_id IS NOT NULL ORDER BY id LIMIT 1"
        ).fetchone()
        (config / "repro_links").mkdir()
        (config / "repro_links" / "mine.yaml").write_text(
            USER_REPRO.format(arxiv=arxiv, title=title), encoding="utf-8"
        )

    stale, ran, after, full, count = reenrich_after_edit(tmp_path, edit, runs)
    assert stale == {"links", "hardware"}
    assert ran == Counter(links=count, hardware=count)
    assert after == full
    assert any("reenrich-test" in row[4] for row in after[0])


def test_a_fingerprint_from_before_components_re_runs_everything(tmp_path: Path) -> None:
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(None))
    import_fixtures(library)
    full = stored(library.conn)
    # the single hash stored before the fingerprint had parts, and a never-enriched paper
    assert library.enricher is not None
    assert library.enricher.stale_components("0123456789abcdef") == set(COMPONENTS)
    assert library.enricher.stale_components(None) == set(COMPONENTS)
    with library.conn:
        library.conn.execute("UPDATE papers SET enrich_fp = '0123456789abcdef', topics = '[]'")
        library.conn.execute("DELETE FROM paper_topics")
    assert library.reenrich() == len(full[0])
    assert stored(library.conn) == full


def test_each_component_alone_equals_a_full_enrichment() -> None:
    """For every fixture paper (the four digests, the evaluation splits): running one
    component, with the others' results as stored, gives what a full enrichment gives."""
    enricher = Enricher(None)
    papers = fixture_papers()
    assert len(papers) > 200
    for paper in papers:
        full = enricher.enrich(paper)
        expected = {
            "topics": full.topics,
            "topic_evidence": full.topic_evidence,
            "links": full.links,
            "repos": full.repos,
            "has_code": full.has_code,
            "max_stars": full.max_stars,
            "hardware": full.hardware,
        }
        for component in COMPONENTS:
            fields = enricher.compute_parts(paper, None, frozenset({component}), full.topics)
            assert fields == {k: v for k, v in expected.items() if k in fields}
            assert set(fields) >= set(
                {"topics": ("topics",), "links": ("links",), "hardware": ("hardware",)}[component]
            )
        # topics re-run against different stored topics: the hardware target follows them
        fields = enricher.compute_parts(paper, None, frozenset({"topics"}), ["not-a-topic"])
        assert fields["hardware"] == full.hardware


def test_re_enrichment_in_workers_stores_what_the_serial_one_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`reenrich` with workers: each batch's stale components run in other processes
    (`EnrichPool.submit_parts`) while the previous batch is written; the rows are the same."""
    from digest_tui.enrich.parallel import EnrichPool

    config = tmp_path / "config"
    config.mkdir()
    libraries = []
    for name in ("serial", "workers"):
        library = Library(connect(tmp_path / f"{name}.sqlite3"), Enricher(config))
        import_fixtures(library)
        libraries.append(library)
    (config / "taxonomy.yaml").write_text(USER_TAXONOMY_RESCORED, encoding="utf-8")
    serial, pooled = (Library(library.conn, Enricher(config)) for library in libraries)
    submitted: list[int] = []
    submit_parts = EnrichPool.submit_parts

    def counted(self, tasks):  # type: ignore[no-untyped-def]
        submitted.append(len(tasks))
        return submit_parts(self, tasks)

    monkeypatch.setattr(EnrichPool, "submit_parts", counted)
    count = serial.reenrich(batch=40, workers=0)
    assert not submitted
    assert pooled.reenrich(batch=40, workers=2) == count
    assert len(submitted) > 1 and sum(submitted) == count  # every batch went to the workers
    assert stored(pooled.conn) == stored(serial.conn)
    assert any("quantization" in row[1] for row in stored(pooled.conn)[0])


def test_re_enrichment_pauses_before_each_batch_outside_any_transaction(tmp_path: Path) -> None:
    """`pause` (the app waits there while the reader types) runs before every batch, with no
    write transaction open, so a pause never holds the library's write lock."""
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    count = import_fixtures(library)
    (config / "taxonomy.yaml").write_text(USER_TAXONOMY_RESCORED, encoding="utf-8")
    edited = Library(library.conn, Enricher(config))
    in_transaction: list[bool] = []
    written_before: list[int] = []

    def pause() -> None:
        in_transaction.append(library.conn.in_transaction)
        written_before.append(count - edited.stale_count())

    assert edited.reenrich(batch=40, workers=0, pause=pause) == count
    batches = -(-count // 40)
    assert len(in_transaction) == batches
    assert not any(in_transaction)
    assert written_before == [min(40 * i, count) for i in range(batches)]
