"""One path for failed workers: a literal one-line notice, the traceback in errors.log, and an
app that goes on answering keys."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Static

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_list import PaperList
from tests.support.pilot import assert_literal_toasts, labels, notices, toast_texts
from tests.support.sample_counts import kernels_label
from tests.ui.settle import settle as settle_workers


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """tests/ui/settle.py's settle, for workers expected to fail (their errors are the test)."""
    await settle_workers(pilot, rounds, expect_failures=True)


async def test_a_bad_user_taxonomy_is_named_on_screen_and_the_built_in_one_used(home):
    """Issue 10: an invalid user taxonomy.yaml is named (file, line, problem) on screen, and
    the app goes on with the built-in taxonomy (it was left with an empty list)."""
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    bad = config / "taxonomy.yaml"
    bad.write_text("topics: [unclosed\n", encoding="utf-8")
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot, rounds=5)
        expected = f"{bad}:2: not valid YAML"
        shown = [m for m in notices(app) if m.startswith(expected)]
        assert shown and "Using the built-in taxonomy" in shown[0], notices(app)
        assert any(expected in " ".join(t.split()) for t in toast_texts(app)), toast_texts(app)
        assert_literal_toasts(app)
        # Usable: the whole library listed, the built-in topics in the tree and on papers.
        title = str(app.query_one("#list-title", Static).render())
        assert "Could not load" not in title and "152 papers" in title, title
        assert app.query_one(PaperList).count == 152
        tree = app.query_one("#nav")
        assert labels(tree)["Kernels"] == kernels_label()
        await pilot.press("j")
        await settle(pilot)
        assert app.query_one("#panel").paper is not None
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


async def test_a_worker_result_after_the_screens_are_gone_is_dropped(home) -> None:
    """A worker posting while the app closes (its screens already popped) must not raise on
    the missing main screen (seen once under load right after a start)."""
    from digest_tui.tui import messages as msg

    app = DigestApp(AppContext())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
    assert not app.screen_stack
    await app._on_message(msg.StatusChanged("late progress", "fetch"))  # no IndexError
    await app._on_message(msg.Notice("late notice", "information", None))


def _interrupted_statement() -> Exception:
    """The error a worker's statement raises when LibraryService.close interrupts it."""
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.create_function("stop", 0, lambda: conn.interrupt() or 1)
    try:
        conn.execute("SELECT stop()").fetchone()
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("the statement was not interrupted")


async def test_a_statement_interrupted_on_the_way_out_is_no_failure(home) -> None:
    from types import SimpleNamespace

    from textual.worker import WorkerState

    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        error = _interrupted_statement()
        failed = SimpleNamespace(state=WorkerState.ERROR, worker=SimpleNamespace(error=error))
        failed.worker.name = "similar-index"
        shown = notices(app)
        app._quitting.set()  # LibraryService.close interrupts statements only when quitting
        app.on_worker_state_changed(failed)  # type: ignore[arg-type]
        assert notices(app) == shown
        assert not app.ctx.paths.error_log.exists()
        app._quitting.clear()  # the same error at any other time is a failure, reported
        app.on_worker_state_changed(failed)  # type: ignore[arg-type]
        assert len(notices(app)) == len(shown) + 1 and "interrupted" in notices(app)[-1]
