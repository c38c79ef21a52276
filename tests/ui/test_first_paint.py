"""The path to the app's first frame: the list's first screen and nothing else.

The real app runs headless in a fresh interpreter on a copy of the sample library, so what it
imports is what a user's launch pays. The modules are read when the first window of rows is
handed to the list, i.e. before the frame that shows it: the start-up worker and the panel's
first load wait for that frame before the settings (pydantic), the taxonomy (YAML) and the
repo health (httpx) come in. Then the app goes on to a full start: footer, tree and panel.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_PROBE = r"""
import inspect, json, sys, time
from pathlib import Path


from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_panel import PaperPanel

record = {}
DEADLINE = time.monotonic() + 120


class Probe(DigestApp):
    CSS_PATH = str(Path(inspect.getfile(DigestApp)).parent / str(DigestApp.CSS_PATH))

    def _show_rows(self, window):
        if "modules" not in record:
            record["modules"] = sorted(sys.modules)
            record["rows"] = len(window.rowids)
            record["footers_before_first_frame"] = len(self.main_screen.query("KeyBar"))
        super()._show_rows(window)

    def on_library_ready(self, message):
        super().on_library_ready(message)
        self.set_interval(0.05, self._when_panel_filled)

    def _when_panel_filled(self):
        panel = self.main_screen.query_one(PaperPanel)
        bars = self.main_screen.query("KeyBar")
        keys = bars.first().shown_keys() if bars else []
        # Polled until the panel and the footer's keys are there, or a generous deadline.
        if (panel.paper is None or not keys) and time.monotonic() < DEADLINE:
            return
        record["footers"] = len(self.main_screen.query("KeyBar"))
        record["footer_keys"] = len(keys)
        record["tree_nodes"] = len(self.main_screen.query_one(NavTree).views())
        record["panel_paper"] = panel.paper.id if panel.paper is not None else None
        record["modules_after"] = sorted(sys.modules)
        # Printed before leaving: the way out is not what this checks (a worker still in
        # SQLite while the app closes its connection has crashed the process there).
        print(json.dumps(record), flush=True)
        self.exit()


Probe(AppContext()).run(headless=True, size=(160, 48))
"""

# None of these draws the first screen of the list.
NOT_BEFORE_FIRST_FRAME = ("pydantic", "yaml", "httpx", "digest_tui.settings_schema")


def _run(code: str) -> subprocess.CompletedProcess[str]:
    """The app as `code` drives it, in a fresh interpreter (in the test's home)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )


def _start_app() -> dict[str, object]:
    done = _run(_PROBE)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"the app printed no record (exit status {done.returncode}): {done.stderr}"
    result: dict[str, object] = json.loads(lines[-1])
    return result


def test_first_frame_needs_neither_pydantic_nor_yaml_nor_httpx(home: Path) -> None:
    record = _start_app()
    assert record["rows"] == 152  # the sample library's papers: the list did load
    before = {name.split(".")[0] for name in record["modules"]}  # type: ignore[union-attr]
    before |= set(record["modules"])  # type: ignore[arg-type]
    assert not before & set(NOT_BEFORE_FIRST_FRAME), sorted(before & set(NOT_BEFORE_FIRST_FRAME))
    # The footer, too, comes after the list.
    assert record["footers_before_first_frame"] == 0


def test_after_the_first_frame_the_app_is_whole(home: Path) -> None:
    record = _start_app()
    assert record["footers"] == 1  # mounted once, after the first frame
    assert record["footer_keys"] > 5  # and showing the keys (q Quit, / Search, ? Help...)
    assert record["tree_nodes"] > 10  # topics and digests counted after the first frame
    assert record["panel_paper"]  # the panel shows the paper under the cursor
    # The settings were read after all (the first paper's load or the start-up worker).
    assert "digest_tui.settings_schema" in record["modules_after"]  # type: ignore[operator]


_QUIT_AT_FIRST_FRAME = r"""
import inspect, sys
from pathlib import Path

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp


class QuitAtOnce(DigestApp):
    CSS_PATH = str(Path(inspect.getfile(DigestApp)).parent / str(DigestApp.CSS_PATH))

    def _show_rows(self, window):
        # Leave right after the first frame, before the app's own after-frame work runs.
        self.call_after_refresh(self.exit, 0)
        super()._show_rows(window)


app = QuitAtOnce(AppContext())
app.run(headless=True, size=(160, 48))
sys.exit(app.return_code or 0)
"""


def test_quitting_at_the_first_frame_is_no_internal_error(home: Path) -> None:
    # The footer is mounted after the first frame: an app already leaving then has no screen
    # to mount it on, which once ended in "internal error: MountError".
    done = _run(_QUIT_AT_FIRST_FRAME)
    assert "internal error" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert not (home / "state" / "errors.log").exists()


_FIRST_FRAME_ROWS = r"""
import inspect, json, sys, time
from pathlib import Path

import digest_tui.tui.library_service as library_service
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_list import PaperList

# A "long" list for the sample library: its first screen is 40 rows of its 152.
library_service.WINDOW_ROWS = 40
record = {}
DEADLINE = time.monotonic() + 120


class Probe(DigestApp):
    CSS_PATH = str(Path(inspect.getfile(DigestApp)).parent / str(DigestApp.CSS_PATH))

    def on_mount(self):
        self.call_after_refresh(self._first_frame)

    def _first_frame(self):
        papers = self.main_screen.query_one(PaperList)
        record["first_frame_count"] = papers.count
        record["first_frame_line"] = papers.render_line(0).text
        record["first_frame_title"] = str(self.main_screen.query_one("#list-title").render())
        self.set_interval(0.05, self._when_whole)

    def _when_whole(self):
        papers = self.main_screen.query_one(PaperList)
        if papers.count < 152 and time.monotonic() < DEADLINE:
            return
        record["count"] = papers.count
        record["title"] = str(self.main_screen.query_one("#list-title").render())
        record["cursor"] = papers.cursor
        print(json.dumps(record), flush=True)
        self.exit()


Probe(AppContext()).run(headless=True, size=(160, 48))
"""


def test_the_first_frame_shows_the_first_rows_and_the_whole_list_follows(home: Path) -> None:
    # The first window (a screen of rowids and their rows) is read before the widgets are
    # composed and set in on_mount, so the very first frame has the rows; the whole order
    # (and the list's count) comes once that frame is painted.
    done = _run(_FIRST_FRAME_ROWS)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"the app printed no record (exit status {done.returncode}): {done.stderr}"
    record = json.loads(lines[-1])
    assert record["first_frame_count"] == 40, record
    assert record["first_frame_line"].strip(), record  # a paper's line, not a blank list
    assert record["count"] == 152, record
    assert "152" in record["title"], record
    assert record["cursor"] == 0


_ROWS_DRAWN = r"""
import inspect, json
from pathlib import Path

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_list import PaperList

drawn = []
draw_row = PaperList._render_row


def counted(self, row, width, is_cursor, focused):
    drawn.append(row.rowid)
    return draw_row(self, row, width, is_cursor, focused)


PaperList._render_row = counted


class Probe(DigestApp):
    CSS_PATH = str(Path(inspect.getfile(DigestApp)).parent / str(DigestApp.CSS_PATH))

    def on_mount(self):
        self.call_after_refresh(self._first_frame)

    def _first_frame(self):
        papers = self.main_screen.query_one(PaperList)
        print(json.dumps({"drawn": drawn, "height": papers.size.height}), flush=True)
        self.exit()


Probe(AppContext()).run(headless=True, size=(160, 48))
"""


def test_the_first_frame_draws_each_row_once(home: Path) -> None:
    # The list's first layout sends it a Resize after the first render; clearing the drawn
    # lines there (they are keyed by width already) drew every row twice (~10 ms at 160x48).
    done = _run(_ROWS_DRAWN)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"the app printed no record (exit status {done.returncode}): {done.stderr}"
    record = json.loads(lines[-1])
    drawn = record["drawn"]
    assert len(drawn) == record["height"], (len(drawn), record["height"])
    assert len(set(drawn)) == len(drawn)


async def test_keys_typed_at_the_first_frame_are_taken(home: Path) -> None:
    # The footer and the tree's counts come after the first frame; the keys do not wait for
    # them: `/` and a word typed at once land in the search box and narrow the list.
    from textual.widgets import Input

    from digest_tui.config import AppContext
    from digest_tui.tui.app import DigestApp
    from digest_tui.tui.widgets.paper_list import PaperList
    from tests.ui.settle import settle

    app = DigestApp(AppContext())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("slash", *"attention")
        assert app.query_one("#search", Input).value == "attention"
        await settle(pilot)
        papers = app.query_one(PaperList)
        assert 0 < papers.count < 152, papers.count
        assert app.search_text == "attention"
