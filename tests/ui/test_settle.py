"""tests/ui/settle.py: settling waits through workers that replace one another.

Under load several tests/ui tests failed once with WorkerCancelled: `settle` gathered the
workers alive at that moment, and an exclusive worker started meanwhile (the panel loading the
paper under the cursor) cancelled one of them, whose `wait()` then raised. Here that replacement
happens on purpose, while settle waits on the older worker."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.ui.settle import settle


async def test_settle_waits_through_a_worker_its_group_replaced(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        first, second = papers.rows[0], papers.rows[1]
        release = threading.Event()
        load = app.service.paper

        def held(ident: str):  # type: ignore[no-untyped-def]
            release.wait(60)  # the first load is still running when it is replaced
            return load(ident)

        monkeypatch.setattr(app.service, "paper", held)
        app._load_paper(first.id)
        waiting = asyncio.create_task(settle(pilot))
        while not waiting.done() and not any(w.group == "paper" for w in app.workers):
            await asyncio.sleep(0.001)
        await pilot.pause()  # settle is now waiting on that worker
        papers.cursor = 1  # the panel asks for the next paper: its exclusive load replaces it
        await pilot.pause()
        release.set()
        await waiting  # WorkerCancelled here before tests/ui/settle.py
        assert not [w for w in app.workers if not w.is_finished]
        assert app.query_one(PaperPanel).paper is not None
        assert app.query_one(PaperPanel).paper.id == second.id  # type: ignore[union-attr]
