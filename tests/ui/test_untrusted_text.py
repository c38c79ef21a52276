"""Outside text on screen is text: markup and `@click` actions in it are shown, never run.

Textual parses a notification's message as content markup unless told not to: `[/x]` in a
project page or a server's error body raised a MarkupError that ended the app, and
`[@click=app.screenshot(...)]` became a link that wrote a file where its author chose. Every
message path is driven here with such text: the app keeps running, the text shows literally,
no action runs, no file appears.
"""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

from textual.widgets import Static

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.service import load_sample_if_empty, open_library
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.support.loopback import Recorded, serve
from tests.support.pilot import assert_literal_toasts, notices
from tests.support.state import import_papers, make_paper
from tests.ui.settle import settle

TUI = Path(__file__).resolve().parents[2] / "src" / "digest_tui" / "tui"


def crafted_paper(home: Path, project_page: str, word: str = "zzcrafted") -> str:
    """A paper without an arXiv id (so `O` opens its project page), found by `word`."""
    library = open_library(AppContext())
    try:
        load_sample_if_empty(library)
        paper = make_paper(
            f"A {word} paper", project_page=project_page, published=dt.date(2026, 1, 9)
        )
        import_papers(library, [paper])
    finally:
        library.conn.close()
    return paper.id


async def show(pilot, word: str) -> None:
    await pilot.press("slash", *word, "enter")
    await settle(pilot)
    panel = pilot.app.query_one(PaperPanel)
    assert panel.paper is not None and word in panel.paper.title


async def test_markup_in_a_project_page_is_shown_not_parsed(home):
    crafted_paper(home, "https://example.com/[/x]")
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        await show(pilot, "zzcrafted")
        await pilot.press("O")
        await settle(pilot)
        assert app.is_running
        assert any("https://example.com/[/x]" in m for m in notices(app)), notices(app)
        assert_literal_toasts(app)


async def test_a_click_action_in_a_url_never_runs(home, tmp_path):
    target = tmp_path / "attacker"
    target.mkdir()
    url = f"https://example.com/[@click=app.screenshot('x.svg','{target}')]CLICK[/]"
    crafted_paper(home, url)
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        await show(pilot, "zzcrafted")
        await pilot.press("O")
        await settle(pilot)
        assert any("[@click=app.screenshot(" in m for m in notices(app)), notices(app)
        assert_literal_toasts(app)
        for _ in range(5):
            await pilot.pause(0.05)
        toasts = list(app.screen.query("Toast"))
        assert toasts
        toast = toasts[0]
        # No cell of the toast carries a click action (markup would have put `@click` in the
        # style meta of the link's cells) ...
        lines = toast.render_lines(toast.region.reset_offset)
        metas = [seg.style.meta for strip in lines for seg in strip if seg.style is not None]
        assert not any("@click" in meta for meta in metas), metas
        # ... and clicking on the words of the would-be link does nothing but dismiss it.
        row, col = next(
            (y, line.text.index("CLICK")) for y, line in enumerate(lines) if "CLICK" in line.text
        )
        await pilot.click(offset=(toast.region.x + col, toast.region.y + row))
        await settle(pilot)
        assert list(target.iterdir()) == []
        assert app.is_running
        await pilot.press("question_mark")  # still answering keys
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_markup_in_an_hf_error_body_is_shown_not_parsed(home, monkeypatch):
    body = b'{"error": "[/oops] [@click=app.quit]quit[/]"}'
    with serve({"/api/daily_papers": Recorded(400, body)}) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        app = DigestApp(AppContext())
        async with app.run_test(size=(140, 40), notifications=True) as pilot:
            await settle(pilot)
            await pilot.press("R")
            await settle(pilot, rounds=6)
            assert server.requests, "the fetch never reached the server"
            assert app.is_running
            assert any("[/oops] [@click=app.quit]" in m for m in notices(app)), notices(app)
            assert_literal_toasts(app)


async def test_a_list_name_with_markup_is_shown_as_typed(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        await pilot.press(*"[b]x[/b] [/", "enter")
        await settle(pilot)
        assert app.is_running
        assert "Added to [b]x[/b] [/." in notices(app), notices(app)
        assert_literal_toasts(app)


async def test_a_sync_folder_with_brackets_is_shown_as_it_is(home, tmp_path, capsys):
    folder = tmp_path / "[work]"
    folder.mkdir()
    assert main(["sync", "init", str(folder)]) == 0
    capsys.readouterr()
    folder.rename(tmp_path / "gone")  # the next sync fails and names the folder
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot, rounds=6)
        assert app.is_running
        failures = [m for m in notices(app) if m.startswith("Sync failed")]
        assert failures and "[work]" in failures[0], notices(app)
        assert_literal_toasts(app)


def test_every_message_goes_through_notify_text():
    """`notify(` (Textual's, markup on by default) is called in one place only, and no
    widget is handed an f-string: outside text goes in as Rich Text or through printable."""
    offenders = []
    for path in sorted(TUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "notify"
                and path.name != "notices.py"
            ):
                offenders.append(f"{path.name}:{node.lineno}: .notify")
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                first = node.args[0]
                # (set_status is left out: it wraps its message in Text itself.)
                if name in {"Static", "Label", "update"} and isinstance(
                    first, ast.JoinedStr | ast.BinOp
                ):
                    offenders.append(f"{path.name}:{node.lineno}: {name}(f-string)")
    assert offenders == []


async def test_the_status_line_shows_text_literally(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        app.set_status("Sync: [work] \u202e [@click=app.quit]x[/]")
        await pilot.pause()
        rendered = app.query_one("#status", Static).render()
        assert "[work] \\u202e [@click=app.quit]x[/]" in str(rendered)
