"""Enrichment computed in worker processes (enrich/parallel.py) and handed to the importer must
be exactly what the importer computes itself, for every fixture paper (the four digests and the
self-contained evaluation splits), and an import with workers stores the same rows as one
without."""

from __future__ import annotations

import sqlite3

import yaml

from digest_tui.enrich.parallel import EnrichPool
from digest_tui.enrich.pipeline import (
    ENRICHMENT_FIELDS,
    Enricher,
    encode_columns,
    enrichment_key,
)
from digest_tui.models import Paper
from digest_tui.service import import_files
from digest_tui.sources.hf_page import parse_page
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from tests.support.paths import DIGESTS, ROOT

PAGES = sorted(DIGESTS.glob("*.txt"))


def fixture_papers() -> list[Paper]:
    papers = [p for page in PAGES for p in parse_page(page.read_text(encoding="utf-8"), "x").papers]
    for split in ("topics_test.yaml", "hardware_test.yaml"):
        data = yaml.safe_load((ROOT / "fixtures" / "eval" / split).read_text(encoding="utf-8"))
        for n, item in enumerate(data["papers"]):
            if item.get("abstract"):
                papers.append(
                    Paper(id=f"{split}-{n}", title=item["title"], abstract=item["abstract"])
                )
    return papers


def test_enrichment_from_the_workers_equals_enrichment_here():
    papers = fixture_papers()
    assert len(papers) > 200
    here = Enricher(None)
    expected = {
        enrichment_key(p): encode_columns(
            {name: getattr(here.enrich(p), name) for name in ENRICHMENT_FIELDS}
        )
        for p in papers
    }
    pooled = Enricher(None)
    with EnrichPool(pooled, 2) as pool:
        pool.collect(pool.submit(papers))
        assert set(pooled._prepared) == set(expected)
        for paper in papers:
            key = enrichment_key(paper)
            if key in pooled._prepared:  # a paper listed twice is prepared once
                assert pooled.columns(paper) == expected[key]
    assert not pooled._prepared  # the pool's results do not outlive it


def rows(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute(
        "SELECT id, topics, topic_evidence, links, repos, hardware, has_code, max_stars, "
        "enrich_fp FROM papers ORDER BY id"
    ).fetchall()


def test_import_with_workers_stores_what_an_import_without_them_stores(tmp_path):
    serial = Library(connect(tmp_path / "serial.sqlite3"), Enricher(None))
    parallel = Library(connect(tmp_path / "parallel.sqlite3"), Enricher(None))
    report = import_files(serial, PAGES, workers=0)
    again = import_files(parallel, PAGES, workers=2)
    assert (again.new, again.updated, again.unchanged) == (
        report.new,
        report.updated,
        report.unchanged,
    )
    assert report.new > 100
    assert rows(parallel.conn) == rows(serial.conn)


# A fresh process whose stderr is captured the way Textual captures it inside the app (an object
# whose fileno() is -1), with a second thread running (so workers are spawned, as in the app):
# starting the pool used to fail with "bad value(s) in fds_to_keep".
_CAPTURED_STDERR = """
import sys, threading
from digest_tui.enrich.parallel import EnrichPool
from digest_tui.enrich.pipeline import COMPONENTS, Enricher
from digest_tui.models import Paper

class Captured:
    def write(self, text): return len(text)
    def flush(self): pass
    def fileno(self): return -1

sys.stderr = Captured()
stop = threading.Event()
threading.Thread(target=stop.wait, daemon=True).start()
enricher = Enricher(None)
enricher.load()
paper = Paper(id="p", title="Fused CUDA kernels for attention", abstract="We write Triton kernels.")
try:
    with EnrichPool(enricher, 2) as pool:
        parts = pool.gather(pool.submit_parts([(paper, [], frozenset(COMPONENTS), [])]))
except Exception as exc:  # stderr is the capture: say it where the test reads
    print(f"failed: {exc!r}")
    raise SystemExit(1)
stop.set()
print(parts[0]["topics"])
"""


def test_workers_start_when_stderr_has_no_file_descriptor() -> None:
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CAPTURED_STDERR],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert "kernels" in done.stdout
