"""The windowed paper list in the real app at 100,000 papers (Pilot).

The library is built once per session straight into SQLite (tests/support/big_library.py) and
copied per test. What the list shows is checked against an oracle computed in Python from the
builder's own rules (the order of dates, votes and rowids), not against the query under test.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from digest_tui.config import AppContext
from digest_tui.errors import RowNotFetched
from digest_tui.store.library import ListRow
from digest_tui.tui import messages as msg
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import Selection
from digest_tui.tui.widgets.paper_list import PAGE_ROWS, PaperList
from tests.support import big_library
from tests.support.home import isolate_home
from tests.ui.settle import settle

pytestmark = pytest.mark.timeout(300)

SIZE = (140, 40)
N = big_library.PAPERS


@pytest.fixture(scope="session")
def big_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big-ui") / "home"
    big_library.build(root)
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config" / "config.yaml").write_text("repo_health: false\n", encoding="utf-8")
    return root


@pytest.fixture
def big_home(big_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    shutil.copytree(big_template, root, ignore=shutil.ignore_patterns("*-wal", "*-shm"))
    isolate_home(root, monkeypatch)
    return root


def _by_date(i: int) -> tuple[str, int, int]:
    date = big_library.published(i) or big_library.first_seen(i)
    return (date, big_library.upvotes(i) or 0, i)


# The default order (newest first, then most upvoted, then newest rowid), computed in Python.
ORACLE_DATE = sorted(range(1, N + 1), key=_by_date, reverse=True)


def line_text(papers: PaperList, index: int) -> str:
    top = int(papers.scroll_offset.y)
    assert top <= index < top + papers.size.height, "that line is not on screen"
    return papers.render_line(index - top).text


def shown_title(i: int) -> str:
    """As much of paper i's title as any line of a 140-column list shows."""
    return big_library.title(i)[:30]


async def started(pilot) -> PaperList:  # type: ignore[no-untyped-def]
    await settle(pilot)
    papers = pilot.app.query_one(PaperList)
    assert papers.count == N
    return papers


async def test_first_screen_lists_every_paper_in_order(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        assert list(papers.rowids[:500]) == ORACLE_DATE[:500]
        assert list(papers.rowids[-50:]) == ORACLE_DATE[-50:]
        for index in range(papers.size.height):
            assert shown_title(ORACLE_DATE[index]) in line_text(papers, index)
        assert f"{N} papers" in str(app.query_one("#list-title").render())


async def test_end_home_and_page_moves_fetch_the_rows_they_land_on(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        await pilot.press("end")
        assert papers.cursor == N - 1
        await settle(pilot)
        last = papers.current
        assert last is not None and last.rowid == ORACLE_DATE[-1]
        assert shown_title(last.rowid) in line_text(papers, N - 1)
        assert app.query_one("#panel").paper.id == last.id  # type: ignore[attr-defined]

        await pilot.press("pageup", "pageup")
        await settle(pilot)
        step = papers.size.height - 1
        assert papers.cursor == N - 1 - 2 * step
        assert papers.current is not None and papers.current.rowid == ORACLE_DATE[papers.cursor]
        top = int(papers.scroll_offset.y)
        for index in range(top, top + papers.size.height):
            assert shown_title(ORACLE_DATE[index]) in line_text(papers, index)

        await pilot.press("home")
        await settle(pilot)
        assert papers.cursor == 0 and papers.current is not None
        assert papers.current.rowid == ORACLE_DATE[0]
        await pilot.press("pagedown")
        await settle(pilot)
        assert papers.current is not None and papers.current.rowid == ORACLE_DATE[step]


async def test_search_narrows_and_escape_brings_everything_back(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        await pilot.press("slash", *"zeppelin")
        await settle(pilot)
        assert papers.count == 1
        assert papers.current is not None and papers.current.rowid == big_library.NEEDLE
        assert "Zeppelin" in line_text(papers, 0)
        await pilot.press("escape")
        await settle(pilot)
        assert papers.count == N and list(papers.rowids[:100]) == ORACLE_DATE[:100]

        await pilot.press("slash", *"topic:moe has:code")
        await settle(pilot)
        expected = [i for i in ORACLE_DATE if i % 7 == 0 and i % 3 == 0]
        assert list(papers.rowids) == expected


async def test_sort_change_reorders_the_whole_list(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        await pilot.press("s", "s")  # date, then upvotes
        await settle(pilot)
        assert app.sort == "upvotes"

        def by_votes(i: int) -> tuple[int, str, int]:
            date = big_library.published(i) or big_library.first_seen(i)
            return (big_library.upvotes(i) or 0, date, i)

        expected = sorted(range(1, N + 1), key=by_votes, reverse=True)
        assert list(papers.rowids) == expected
        # The cursor stays on the paper it was on, wherever that paper now sorts.
        assert papers.cursor == expected.index(ORACLE_DATE[0])
        assert papers.current is not None and papers.current.rowid == ORACLE_DATE[0]
        assert shown_title(ORACLE_DATE[0]) in line_text(papers, papers.cursor)
        await pilot.press("home")
        await settle(pilot)
        assert shown_title(expected[0]) in line_text(papers, 0)


async def test_bookmark_mark_shows_and_the_cursor_stays_on_the_paper(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        await pilot.press("end", "up", "up")
        await settle(pilot)
        index = N - 3
        target = ORACLE_DATE[index]
        assert "★" not in line_text(papers, index)
        await pilot.press("b")
        await settle(pilot, rounds=5)
        # The list was reloaded (state changed): same paper under the cursor, mark drawn.
        assert papers.cursor == index
        assert papers.current is not None and papers.current.rowid == target
        assert papers.current.bookmarked
        assert "★" in line_text(papers, index)
        # Reading it takes the unread dot away the same way.
        assert "•" in line_text(papers, index)
        await pilot.press("r")
        await settle(pilot, rounds=5)
        assert papers.current is not None and papers.current.read
        assert "•" not in line_text(papers, index)


async def test_undated_paper_shows_the_date_of_its_digest(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        index = next(i for i, r in enumerate(ORACLE_DATE) if big_library.published(r) is None)
        papers.cursor = index
        await settle(pilot)
        row = papers.current
        assert row is not None and row.published is None
        assert big_library.first_seen(row.rowid) in line_text(papers, index)


async def test_an_older_list_never_replaces_a_newer_one(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        # The answer to a request that is then overtaken by typing...
        old_request = app._rows_request
        old = await asyncio.to_thread(app.service.list_window, Selection(), "kernel")
        await pilot.press("slash", *"zeppelin")
        await settle(pilot)
        assert papers.count == 1
        # ...arrives late: it is dropped.
        app.post_message(msg.RowsLoaded(old, old_request))
        await settle(pilot)
        assert papers.count == 1 and papers.current is not None
        assert papers.current.rowid == big_library.NEEDLE


async def test_rows_fetched_for_a_replaced_list_are_dropped(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        generation = papers.generation
        stale = ListRow(ORACLE_DATE[0], "x", "STALE TITLE", None, 1, False, "[]", None)
        papers.post_message(
            PaperList.WindowLoaded(generation - 1, frozenset({0}), {ORACLE_DATE[0]: stale})
        )
        await settle(pilot)
        assert "STALE TITLE" not in line_text(papers, 0)
        assert shown_title(ORACLE_DATE[0]) in line_text(papers, 0)


async def test_rows_not_fetched_yet_are_placeholders_until_they_arrive(big_home: Path) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        real_source = papers.row_source
        assert real_source is not None
        gate = threading.Event()
        asked: list[int] = []

        def gated(rowids: Sequence[int]) -> Mapping[int, ListRow]:
            asked.extend(rowids)
            gate.wait(timeout=60)
            return real_source(rowids)

        papers.row_source = gated
        middle = N // 2
        papers.cursor = middle
        await pilot.pause()
        assert papers.current is None  # not fetched yet: drawn as a placeholder
        with pytest.raises(RowNotFetched):
            papers.rows[middle]  # indexing it is the point
        assert "⋯" in line_text(papers, middle)
        assert ORACLE_DATE[middle] in asked
        # Only the pages around the viewport were asked for, not the whole list.
        assert len(asked) <= 4 * PAGE_ROWS
        gate.set()
        await settle(pilot)
        assert papers.current is not None and papers.current.rowid == ORACLE_DATE[middle]
        assert shown_title(ORACLE_DATE[middle]) in line_text(papers, middle)


async def _list_width(width: int) -> int:
    app = DigestApp(AppContext())
    async with app.run_test(size=(width, 30)) as pilot:
        # Settled, not one pause: the remembered view (panel shown or hidden) arrives from the
        # start-up worker, and under load one pause could read the width before it.
        await settle(pilot)
        return app.query_one(PaperList).region.width


async def test_the_list_never_narrows_when_the_terminal_widens(home: Path) -> None:
    """At 140 columns (the wide layout) the list was 66 columns, at 139 (medium) 78. Where
    the panel is on demand (100-107 columns, tui/layout.py) the list has the panel's room too:
    the panel appearing at 108 is what narrows it there."""
    assert await _list_width(140) >= await _list_width(139)
    widths = [await _list_width(w) for w in (108, 120, 138, 139, 140, 141, 160)]
    assert widths == sorted(widths), widths
    on_demand = [await _list_width(w) for w in (100, 104, 107)]
    assert on_demand == sorted(on_demand) and on_demand[0] > widths[0], on_demand


async def test_a_long_list_shows_its_first_screen_then_the_whole_order(
    big_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search matching 14,285 papers paints its first rows before SQLite's whole order is
    copied out; when the rest arrives the cursor (moved meanwhile) and the rows stay, and the
    list is the whole oracle order."""
    from digest_tui.tui.library_service import WINDOW_ROWS

    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        papers = await started(pilot)
        release = threading.Event()
        steps = app.service.list_windows

        def held(*args, **kw):  # type: ignore[no-untyped-def]
            for window in steps(*args, **kw):
                yield window
                if not window.complete:
                    assert release.wait(60), "the test never let the rest come"

        monkeypatch.setattr(app.service, "list_windows", held)
        expected = [i for i in ORACLE_DATE if i % 7 == 0]
        await pilot.press("slash", *"topic:moe")
        while papers.count != WINDOW_ROWS:  # bounded by the module's timeout
            await pilot.pause()
        # The first screen is the top of the whole order, drawn, with the cursor on top.
        assert list(papers.rowids) == expected[:WINDOW_ROWS]
        assert papers.cursor == 0 and shown_title(expected[0]) in line_text(papers, 0)
        await pilot.press("enter", "j", "j", "j")  # back to the list, three papers down
        assert papers.cursor == 3
        release.set()
        await settle(pilot)
        assert papers.count == len(expected) and list(papers.rowids) == expected
        assert papers.cursor == 3 and papers.current is not None
        assert papers.current.rowid == expected[3]
        title = str(app.query_one("#list-title").render())
        assert str(len(expected)) in title.replace(",", ""), title
        await pilot.press("G")  # the end is the whole list's end, fetched and drawn
        await settle(pilot)
        assert papers.cursor == len(expected) - 1
        assert papers.current is not None and papers.current.rowid == expected[-1]
