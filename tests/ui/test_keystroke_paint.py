"""What a keystroke costs the screen (Pilot): typing repaints the search box and the list, never
reflows the whole screen when nothing changed size, and a burst of keys ends with the panel on
the paper under the cursor, whatever order the workers' answers arrive in."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from digest_tui.config import AppContext
from digest_tui.tui import messages as msg
from digest_tui.tui.app import DigestApp
from digest_tui.tui.library_service import ListWindow
from digest_tui.tui.paper_extras import ExtrasLoaded, PaperExtras
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperBody, PaperPanel
from digest_tui.tui.widgets.search_box import SearchBox
from digest_tui.tui.widgets.search_notes import SearchNotes
from tests.ui.settle import settle

SIZE = (140, 40)


@contextmanager
def layout_passes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts Textual's layout passes (a reflow of the whole screen) while the block runs."""
    passes = [0]
    original = Screen._refresh_layout

    def counted(self: Screen, *args: object, **kwargs: object) -> None:
        passes[0] += 1
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    yield passes
    monkeypatch.setattr(Screen, "_refresh_layout", original)


def app_without_network(home: Path) -> DigestApp:
    ctx = AppContext()
    ctx.paths.config_file.write_text("repo_health: false\n", encoding="utf-8")
    return DigestApp(ctx)


async def test_typing_that_changes_no_size_reflows_nothing(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"zzqx")
        await settle(pilot)
        papers = app.query_one(PaperList)
        assert papers.count == 0
        # A start-up toast timing out meanwhile (a loaded machine) would be a layout pass of
        # its own: none is left to expire.
        app.clear_notifications()
        await settle(pilot)
        with layout_passes(monkeypatch) as passes:
            await pilot.press("y", "w")
            await settle(pilot)
        # The box shows the text and the list says what found nothing: both repainted...
        assert app.query_one("#search").value == "zzqxyw"  # type: ignore[attr-defined]
        assert "zzqxyw" in papers.render_line(0).text
        # ...without a layout pass: the box, the list and the notes kept their sizes.
        assert passes[0] == 0


async def test_a_new_list_length_moves_the_scrollbar_without_a_layout_pass(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        everything = papers.count
        assert everything > papers.size.height and papers.show_vertical_scrollbar
        shorter = papers.rowids[: papers.size.height + 5]
        app.clear_notifications()
        await settle(pilot)
        with layout_passes(monkeypatch) as passes:
            papers.set_window(shorter, {})
            await pilot.pause()
        assert passes[0] == 0
        assert papers.virtual_size.height == len(shorter)
        assert papers.vertical_scrollbar.window_virtual_size == len(shorter)
        assert papers.max_scroll_y == len(shorter) - papers.scrollable_content_region.height

        # A list that fits the screen has no scrollbar: that changes the list's width, so
        # it is laid out again, and its lines take the column the scrollbar gave back.
        width = papers.line_width
        papers.set_window(papers.rowids[:3], {})
        await settle(pilot)
        assert not papers.show_vertical_scrollbar
        assert papers.line_width > width


async def test_a_new_list_draws_a_changed_row_anew_though_drawn_rows_are_kept(
    home: Path,
) -> None:
    """The list keeps the lines it drew from one list to the next (the next key's list shares
    most rows): a paper whose row changed meanwhile (a bookmark, a new title from a fetch) is
    drawn as it is now, and going back to the old row draws the old line again."""
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        first = papers.row_at(0)
        assert first is not None and not first.bookmarked
        rowids = papers.rowids[:5]
        rows = {rowid: papers.row_at(i) for i, rowid in enumerate(rowids)}
        assert None not in rows.values()
        line = papers.render_line(0).text
        assert first.title[:12] in line and "★" not in line

        changed = first._replace(title="A Title Changed Since", bookmarked=True)
        papers.set_window(rowids, {**rows, first.rowid: changed})
        await pilot.pause()
        line = papers.render_line(0).text
        assert "A Title Changed Since" in line and "★" in line

        papers.set_window(rowids, rows)
        await pilot.pause()
        line = papers.render_line(0).text
        assert first.title[:12] in line and "★" not in line


async def test_a_burst_of_keys_ends_with_the_last_querys_rows_and_its_paper_in_the_panel(
    home: Path,
) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        first = papers.current
        assert first is not None
        # Every prefix of the word is a search; all keys are sent before any answer lands.
        await pilot.press("slash", *"kernel")
        await settle(pilot, rounds=5)
        expected = await _listed(app, "kernel")
        assert list(papers.rowids) == expected
        current = papers.current
        assert current is not None and current.id != first.id
        panel = app.query_one(PaperPanel)
        assert panel.paper is not None and panel.paper.id == current.id


async def test_a_paper_loaded_for_a_cursor_that_moved_on_is_not_drawn(home: Path) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        panel = app.query_one(PaperPanel)
        shown = panel.paper
        assert shown is not None and papers.current is not None
        other_row = papers.row_at(papers.cursor + 1)
        assert other_row is not None
        other = await asyncio.to_thread(app.service.paper, other_row.id)
        # A worker's answer for a paper the cursor has left (a burst of keys moved it on).
        app.post_message(msg.PaperLoaded(other, {}))
        await settle(pilot)
        assert panel.paper is not None and panel.paper.id == shown.id
        assert other is not None and other.title not in _text(app.query_one(PaperBody))


async def test_the_same_extras_twice_draw_the_panel_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        assert panel.paper is not None
        body = panel.query_one(PaperBody)
        draws: list[object] = []
        original = PaperBody.update

        def update(self: PaperBody, *args: object, **kwargs: object) -> None:
            draws.append(args)
            original(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(PaperBody, "update", update)
        extras = PaperExtras(paper_id=panel.paper.id, similar=(), why="a reason to read it")
        app.post_message(ExtrasLoaded(extras))
        app.post_message(ExtrasLoaded(PaperExtras(**vars(extras))))  # equal, not the same
        await settle(pilot)
        assert len(draws) == 1
        assert body.extras == extras


async def test_search_notes_show_new_words_in_place(home: Path) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = app.query_one(SearchNotes)
        notes.show(["topic:nothing matches no topic"])
        await pilot.pause()
        assert notes.display and "matches no topic" in _text(notes)
        notes.show(["topic:nothingx matches no topic"])  # same height, new words
        await pilot.pause()
        assert "nothingx" in _text(notes)
        notes.show([])
        await pilot.pause()
        assert not notes.has_class("visible")


async def _listed(app: DigestApp, search: str) -> list[int]:
    """The rowids the service lists for `search` in the app's view and sort: the oracle."""
    window = await asyncio.to_thread(app.service.list_window, app.selection, search, app.sort)
    return list(window.rowids)


def _text(widget: Widget) -> str:
    return "\n".join(strip.text for strip in widget.render_lines(widget.region.reset_offset))


async def test_an_answer_that_a_queued_keystroke_replaces_is_not_painted(home: Path) -> None:
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"kern")
        await settle(pilot)
        papers = app.query_one(PaperList)
        kern = list(papers.rowids)
        assert kern
        painted: list[int] = []
        show_rows = app._show_rows

        def recording(window: ListWindow) -> None:
            painted.append(len(window.rowids))
            show_rows(window)

        app._show_rows = recording  # type: ignore[method-assign]
        nothing = await asyncio.to_thread(app.service.list_window, app.selection, "zzqx", None)
        # A key lands in the box (its Changed is queued for the app), and an answer for the
        # current request arrives before the app has handled that key.
        app.query_one("#search", SearchBox).value = "kerne"
        app.post_message(msg.RowsLoaded(nothing, app._rows_request))
        await settle(pilot)
        assert 0 not in painted  # the answer overtaken by the queued key never showed
        assert painted and papers.count == painted[-1]
        expected = await _listed(app, "kerne")
        assert list(papers.rowids) == expected


async def test_keys_that_arrive_in_one_read_start_one_search(home: Path) -> None:
    """A word arriving in one read (the peers harness sends `zeppelin` at once, as a paste or
    SSH does) searched once per letter: eight requests, eight workers, for one list."""
    app = app_without_network(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        asked: list[str] = []
        windows = app.service.list_windows

        def recording(selection, search="", *rest, **kw):  # type: ignore[no-untyped-def]
            asked.append(search)
            return windows(selection, search, *rest, **kw)

        app.service.list_windows = recording  # type: ignore[method-assign]
        before = app._rows_request
        # As the terminal driver does with one read: every key posted before any is handled.
        for char in "kernels":
            app.post_message(events.Key(char, char))
        await settle(pilot)
        assert app.query_one("#search", SearchBox).value == "kernels"
        assert app._rows_request == before + 1, "one search for the whole word"
        assert asked == ["kernels"]
        expected = await _listed(app, "kernels")
        papers = app.query_one(PaperList)
        assert papers.count > 0 and list(papers.rowids) == expected
        assert app.search_text == "kernels"
