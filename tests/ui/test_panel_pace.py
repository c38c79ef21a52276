"""When the side panel follows the list's cursor (tui/panel_pace.py), in the real app (Pilot).

Typing a search no longer loads the panel for every key: the paper under the cursor once keys
pause is loaded (or at once on Enter); a lone arrow key or Escape loads it at once; an answer
for a paper the cursor has left is never drawn over a newer one. The pause's length is real
time, so the tests never depend on it: they set it so long that it cannot end during the test
(whatever happens then happened without it), or so short that settling covers it, and give the
pacer a clock they drive.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from digest_tui.paper_view import PaperView
from digest_tui.tui.app import DigestApp
from digest_tui.tui.panel_pace import PanelPace
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.support.pilot import offline_app
from tests.ui.settle import settle

SIZE = (140, 40)
NEVER = 3600.0  # a pause that cannot end while a test runs
WORD = "memory"


class SteppingClock:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def record_loads(app: DigestApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the papers the app loads for its panel (LibraryService.paper), in order."""
    loads: list[str] = []
    original = app.service.paper

    def paper(ident: str) -> PaperView | None:
        loads.append(ident)
        return original(ident)

    monkeypatch.setattr(app.service, "paper", paper)
    return loads


async def type_one_key_at_a_time(app: DigestApp, pilot: object, word: str) -> list[str]:
    """Types `word` into the search box, each key once the previous one's list is in; returns
    the id of the top paper after each key."""
    tops: list[str] = []
    for key in word:
        await pilot.press(key)  # type: ignore[attr-defined]
        await settle(pilot, groups={"rows", "paper-list-rows"})  # type: ignore[arg-type]
        current = app.query_one(PaperList).current
        assert current is not None
        tops.append(current.id)
    return tops


def test_the_pacer_loads_at_once_only_when_alone_and_not_typing() -> None:
    clock = SteppingClock(0.0)
    pace = PanelPace(settle_s=0.15, clock=clock)
    assert pace.at_once(typing=False)  # the first highlight: nothing came before it
    clock.now += 0.05
    assert not pace.at_once(typing=False)  # 50 ms after the last: a held key
    clock.now += 0.2
    assert pace.at_once(typing=False)  # after a pause: a key on its own
    clock.now += 10
    assert not pace.at_once(typing=True)  # typing always waits for the pause


async def test_typing_loads_no_panel_until_the_pause_then_the_final_top_paper(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        before = panel.paper
        assert before is not None
        loads = record_loads(app, monkeypatch)
        app._panel_pace = PanelPace(settle_s=NEVER, clock=SteppingClock(NEVER))
        await pilot.press("slash")
        tops = await type_one_key_at_a_time(app, pilot, WORD)
        assert len(set(tops)) > 1, "the word should move the top paper: pick another"
        # Every key's list is on screen; the panel loaded nothing while typing went on.
        assert loads == []
        assert panel.paper is not None and panel.paper.id == before.id
        # Enter ends typing: the final top paper at once, not after the pause.
        await pilot.press("enter")
        await settle(pilot, groups={"paper"})
        assert loads == [tops[-1]]
        assert panel.paper is not None and panel.paper.id == tops[-1]
        assert not any(w.group == "panel-pause" and not w.is_finished for w in app.workers)


async def test_a_typed_word_shows_its_top_paper_once_typing_pauses(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        loads = record_loads(app, monkeypatch)
        app._panel_pace = PanelPace(settle_s=0.05)
        await pilot.press("slash", *WORD)  # a burst: all keys before any answer
        await settle(pilot, rounds=5)  # the pause worker and the load it starts
        current = app.query_one(PaperList).current
        panel = app.query_one(PaperPanel)
        assert current is not None and panel.paper is not None
        assert panel.paper.id == current.id
        assert loads and loads[-1] == current.id
        assert app.focused is not None and app.focused.id == "search"  # still typing


async def test_an_arrow_key_on_its_own_loads_the_panel_at_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        panel = app.query_one(PaperPanel)
        papers.focus()
        # Each highlight comes long after the last (the clock moves an hour per read), and a
        # deferred load could not happen during the test: only a load at once shows.
        app._panel_pace = PanelPace(settle_s=NEVER, clock=SteppingClock(2 * NEVER))
        for key in ("down", "down", "up", "end"):
            await pilot.press(key)
            await settle(pilot, groups={"paper", "paper-list-rows"})
            current = papers.current
            assert current is not None and panel.paper is not None
            assert panel.paper.id == current.id, key


async def test_a_held_arrow_key_loads_the_paper_it_stops_on(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        papers.focus()
        loads = record_loads(app, monkeypatch)
        # Highlights 10 ms apart by the pacer's clock (a key's auto-repeat): only the first
        # loads at once; the rest wait for the pause: a real sleep, 1 s here so that presses
        # that come > 50 ms apart in real time (a loaded machine) still fall inside it.
        app._panel_pace = PanelPace(settle_s=1.0, clock=SteppingClock(0.01))
        app._panel_pace.at_once(typing=False)  # a highlight "just before": the burst is on
        await pilot.press(*["down"] * 6)
        await settle(pilot, rounds=5)
        current = papers.current
        panel = app.query_one(PaperPanel)
        assert current is not None and panel.paper is not None
        assert panel.paper.id == current.id
        assert papers.cursor == 6
        assert loads[-1] == current.id
        assert len(loads) < 6  # not one load per key


async def test_escape_after_typing_shows_the_full_lists_paper_never_the_searchs(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        panel = app.query_one(PaperPanel)
        top_of_all = papers.current
        assert top_of_all is not None
        app._panel_pace = PanelPace(settle_s=NEVER, clock=SteppingClock(2 * NEVER))
        await pilot.press("slash")
        tops = await type_one_key_at_a_time(app, pilot, WORD)
        searched = tops[-1]
        assert searched != top_of_all.id
        # The search's top paper is being loaded (Enter) and its answer is held back until
        # after Escape has brought the whole list back and asked for its top paper.
        release = threading.Event()
        original = app.service.paper

        def slow(ident: str) -> PaperView | None:
            paper = original(ident)
            if ident == searched:
                release.wait(timeout=60)
            return paper

        monkeypatch.setattr(app.service, "paper", slow)
        await pilot.press("enter")  # leaves the box: loads the search's top paper (held)
        await pilot.press("slash", "escape")  # back to the whole list
        await settle(pilot, groups={"rows", "paper-list-rows"})
        assert papers.current is not None and papers.current.id == top_of_all.id
        release.set()  # the old answer lands now, after the newer one was asked for
        await settle(pilot, rounds=5)
        await asyncio.sleep(0)
        assert panel.paper is not None and panel.paper.id == top_of_all.id


async def test_a_searchs_counts_are_asked_once_typing_pauses_for_the_final_text(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header's counts ("N of M papers match") cost more than the list: no key's list
    shares the GIL with them, only the text typing stopped at is counted."""
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        counted: list[str] = []
        original = app.service.search_scope

        def search_scope(selection, search):  # type: ignore[no-untyped-def]
            counted.append(search)
            return original(selection, search)

        monkeypatch.setattr(app.service, "search_scope", search_scope)
        app._panel_pace = PanelPace(settle_s=NEVER, clock=SteppingClock(NEVER))
        await pilot.press("slash")
        await type_one_key_at_a_time(app, pilot, WORD)
        assert counted == []  # every key's list is in; typing has not paused
        app._panel_pace = PanelPace(settle_s=0.01)  # typing pauses after the next key
        await pilot.press("s")
        # Not every group: the panel's wait from the keys before is still the endless one.
        await settle(pilot, rounds=5, groups={"rows", "paper-list-rows", "scope-pause", "scope"})
        assert counted == [WORD + "s"]
        assert f"match '{WORD}s'" in str(app.query_one("#list-title").render())
