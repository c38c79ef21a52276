"""The re-enrichment after a taxonomy change runs at start-up without holding the library: a
search and a bookmark made while it runs take effect before it ends (issue 12).

The re-enrichment is held on an event (inside `Enricher.compute_parts`, which it calls for
each paper): it is certainly still running while the test types and bookmarks, with no timing
involved. A hang fails at a generous deadline instead of a timed assertion.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.pilot import Pilot

from digest_tui.config import AppContext, Paths
from digest_tui.enrich.pipeline import Enricher
from digest_tui.service import open_library
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import LibraryService
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.ui.settle import settle

# A scoring change: every paper's topics are stale (the fingerprint covers the taxonomy) and
# every paper is classified again (an edit of a few patterns would leave most papers as they
# are: store/topic_edits.py).
TAXONOMY_EDIT = """\
scoring:
  max_repeats: 4
topics:
  - id: kernels
    add_patterns:
      - phrase: warp specialization
        weight: 4
"""
SAMPLE_PAPERS = 152


async def until(pilot: Pilot[Any], condition: Any, what: str) -> None:
    """Let the app run until `condition()` holds; a hang fails after about a minute."""
    for _ in range(1200):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


async def test_search_and_bookmark_go_on_while_papers_are_re_enriched(
    home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = Paths.discover().config_dir
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "taxonomy.yaml").write_text(TAXONOMY_EDIT, encoding="utf-8")

    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    compute_parts = Enricher.compute_parts
    reenrich = LibraryService.reenrich

    def held(self: Enricher, *args: Any, **kwargs: Any) -> Any:
        started.set()
        assert release.wait(120), "the test never let the re-enrichment go on"
        return compute_parts(self, *args, **kwargs)

    def watched(self: LibraryService, *args: Any, **kwargs: Any) -> int:
        try:
            return reenrich(self, *args, **kwargs)
        finally:
            finished.set()

    monkeypatch.setattr(Enricher, "compute_parts", held)
    monkeypatch.setattr(LibraryService, "reenrich", watched)

    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        try:
            await until(pilot, started.is_set, "the re-enrichment started")
            papers = app.query_one(PaperList)
            await until(pilot, lambda: papers.count == SAMPLE_PAPERS, "the list of every paper")

            await pilot.press("slash", *"mixture of experts", "enter")
            await until(pilot, lambda: 0 < papers.count < SAMPLE_PAPERS, "the search narrowed")
            assert papers.current is not None
            chosen = papers.current.id
            await pilot.press("b")
            panel = app.query_one(PaperPanel)
            await until(
                pilot,
                lambda: (
                    panel.paper is not None and panel.paper.id == chosen and panel.paper.bookmarked
                ),
                "the bookmark was stored and shown",
            )
            # Both happened while the re-enrichment was still held inside its first paper.
            assert not finished.is_set() and not release.is_set()
        finally:
            release.set()
        await until(pilot, finished.is_set, "the re-enrichment ended")
        await settle(pilot)

    library = open_library(AppContext())
    try:
        assert library.stale_count() == 0  # it did its work once let go
        rowid = library.conn.execute("SELECT rowid FROM papers WHERE id = ?", (chosen,))
        assert library.user_state(rowid.fetchone()[0])["bookmarked"] is True
    finally:
        library.close()
