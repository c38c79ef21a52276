"""One path for failed workers: a literal one-line notice, the traceback in errors.log, and an
app that goes on answering keys."""

from __future__ import annotations

import contextlib

from textual.pilot import Pilot
from textual.widgets import Static
from textual.worker import WorkerFailed

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from tests.support.pilot import assert_literal_toasts, notices


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """conftest.settle, for workers expected to fail: waiting on one re-raises its error."""
    for _ in range(rounds):
        with contextlib.suppress(WorkerFailed):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def test_a_bad_user_taxonomy_is_reported_not_left_loading(home):
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "taxonomy.yaml").write_text("topics: [unclosed\n", encoding="utf-8")
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        title = str(app.query_one("#list-title", Static).render())
        assert "Loading library" not in title
        assert "Could not load the library" in title and "taxonomy.yaml" in title
        shown = notices(app)
        assert any("taxonomy.yaml" in m for m in shown), shown
        log = (home / "state" / "errors.log").read_text(encoding="utf-8")
        assert "Traceback" in log and "_startup" in log
        await pilot.press("question_mark")  # the app still answers
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_a_bug_in_a_worker_shows_its_type_and_message_literally(home, monkeypatch):
    app = DigestApp(AppContext())

    def broken(paper_id: str) -> None:
        raise ValueError(f"cannot load [/oops] {paper_id}")

    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        working = app.service.paper
        monkeypatch.setattr(app.service, "paper", broken)
        await pilot.press("j")
        await settle(pilot)
        assert app.is_running
        shown = [m for m in notices(app) if "ValueError" in m]
        assert shown and shown[0].startswith("ValueError: cannot load [/oops] "), notices(app)
        assert "errors.log" in shown[0]
        assert_literal_toasts(app)
        log = (home / "state" / "errors.log").read_text(encoding="utf-8")
        assert "_load_paper" in log and "ValueError: cannot load [/oops]" in log
        await pilot.press("k")  # and keeps working once the library answers again
        monkeypatch.setattr(app.service, "paper", working)
        await pilot.press("j")
        await settle(pilot)
        assert app.query_one("#panel").paper is not None
