"""Pilot tests: the app as a user drives it, on the bundled sample library."""

from __future__ import annotations

import io
import json

from rich.console import Console

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.screens.help import HelpScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel, render_paper
from tests.support.pilot import find_node
from tests.ui.settle import settle


async def test_launch_shows_sample_library_in_three_panes(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        assert len(papers.rows) == 152
        tree = app.query_one(NavTree)
        labels = [str(node.label) for node in tree.root.children]
        assert labels[0] == "All papers 152"
        assert any(label.startswith("Topics") for label in labels)
        topics = [str(n.label) for n in find_node(tree, "topic", "moe").parent.children]
        assert [t.rsplit(" ", 1)[0] for t in topics] == [
            "Kernels",
            "MoE",
            "Serving",
            "Training parallelism",
            "Other",
        ]
        digests = find_node(tree, "digest", "hf-page-2026-01-08")
        assert str(digests.label) == "2026-01-08 26"
        panel = app.query_one(PaperPanel)
        assert panel.paper is not None and panel.paper.id == papers.current.id


async def test_select_topic_move_and_panel_follows(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(NavTree)
        tree.focus()
        moe = find_node(tree, "topic", "moe")
        tree.move_cursor(moe)
        await settle(pilot)
        papers = app.query_one(PaperList)
        # As many papers as the tree said the topic holds.
        expected = int(str(moe.label).rsplit(" ", 1)[1])
        assert len(papers.rows) == expected > 0
        assert all("moe" in json.loads(row.topics) for row in papers.rows)
        await pilot.press("tab")
        assert papers.has_focus
        first = papers.current.id
        await pilot.press("j", "j")
        await settle(pilot)
        assert papers.cursor == 2
        panel = app.query_one(PaperPanel)
        assert panel.paper.id == papers.current.id != first
        await pilot.press("k")
        await settle(pilot)
        assert panel.paper.id == papers.rows[1].id


async def test_search_narrows_the_list_live_and_escape_clears(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        papers = app.query_one(PaperList)
        await pilot.press("slash", *"flash")
        await settle(pilot)
        narrowed = [row.title for row in papers.rows]
        assert 0 < len(narrowed) < 152
        assert any(t.startswith("FlashMoE") for t in narrowed)
        await pilot.press(*"moe")
        await settle(pilot)
        assert papers.rows[0].title.startswith("FlashMoE")
        await pilot.press("escape")
        await settle(pilot)
        assert len(papers.rows) == 152 and papers.has_focus


async def test_help_lists_the_active_bindings(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        descriptions = {description for _, description, _ in app.screen.entries}
        assert {"Quit", "Search", "Help", "Open the highlighted repo"} <= descriptions
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_markup_and_escapes_in_titles_are_shown_literally(home, tmp_path):
    from digest_tui.cli import main

    page = tmp_path / "evil.txt"
    page.write_text(
        "Daily Papers\n\nJan 2\n\n[bold red]Injected[/] \x1b[2J Title\n\n"
        "An abstract with [link=file:///etc/passwd]markup[/link]. It has sentences. Yes.\n\n"
        "  • 2 authors\n·\nJan 1, 2025\n",
        encoding="utf-8",
    )
    assert main(["import", str(page)]) == 0
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"injected")
        await settle(pilot)
        papers = app.query_one(PaperList)
        assert papers.rows[0].title.startswith("[bold red]Injected[/]")
        line = papers.render_line(0).text
        assert "[bold red]Injected[/]" in line and "\x1b" not in line
        panel = app.query_one(PaperPanel)
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(render_paper(panel.paper))
        shown = console.export_text()
        assert "[link=file:///etc/passwd]markup[/link]" in shown
        assert "[bold red]Injected[/]" in shown and "\x1b" not in shown


async def test_code_section_shows_repo_health_and_o_opens_or_copies(home, monkeypatch):
    from tests.support.loopback import Recorded, serve
    from tests.support.paths import ROOT

    payload = (ROOT / "fixtures" / "github" / "repo_megatron_lm.json").read_bytes()
    stars = json.loads(payload)["stargazers_count"]
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    with serve({"/repos/osayamenja/FlashMoE": Recorded(200, payload)}) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        app = DigestApp(AppContext())
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            await pilot.press("slash", *"flashmoe", "enter")
            await settle(pilot, rounds=5)
            panel = app.query_one(PaperPanel)
            assert panel.paper.title.startswith("FlashMoE")
            assert "/repos/osayamenja/FlashMoE" in github.requests
            line = panel.health["https://github.com/osayamenja/FlashMoE"]
            assert line.startswith(f"★ {stars:,}")
            await pilot.press("o")
            await settle(pilot)
            # No display here: the URL is copied to the clipboard rather than opened.
            assert app.clipboard == "https://github.com/osayamenja/FlashMoE"


async def test_R_fetches_in_the_background_and_updates_tree_and_list(home, monkeypatch):
    import datetime as dt

    from tests.support.loopback import Recorded, serve
    from tests.support.paths import ROOT

    today = dt.datetime.now(dt.UTC).date().isoformat()
    recorded = (ROOT / "fixtures" / "hf_api" / "date_2025-06-05.json").read_text("utf-8")
    # The recorded day's items, as if submitted today (the API lists them under their day).
    body = recorded.replace('"submittedOnDailyAt": "2025-06-05', f'"submittedOnDailyAt": "{today}')
    body = body.encode()

    def daily(path: str) -> Recorded:
        # Page 0 of today's list holds the recorded items; later pages are empty.
        return Recorded(200, body if "p=0" in path or "p=" not in path else b"[]")

    with serve({"/api/daily_papers": daily}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        app = DigestApp(AppContext())
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            before = len(app.query_one(PaperList).rows)
            await pilot.press("R")
            await settle(pilot, rounds=6)
            assert any(f"date={today}" in r for r in hub.requests)
            tree = app.query_one(NavTree)
            node = find_node(tree, "digest", f"hf-api-{today}")
            assert str(node.label).startswith(today)
            rows = app.query_one(PaperList).rows
            assert len(rows) > before
            # FlashMoE was already in the sample library: still one paper, now by arXiv id.
            assert [r.id for r in rows if r.title.startswith("FlashMoE")] == ["2506.04667"]


async def test_command_palette_offers_every_action(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for description in (
            "Bookmark or unbookmark the paper",
            "Edit the paper's tags",
            "Write or edit the paper's note (Markdown)",
            "Add the paper to a reading list",
            "Fetch today's papers from Hugging Face",
            "Search",
            "Open the highlighted repo",
            "Open the paper's page (arXiv when known)",
            "Sort by date, upvotes, stars or title",
            "Mark the paper read or unread",
            "Help",
        ):
            assert description in titles
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        commands["Bookmark or unbookmark the paper"].callback()
        await settle(pilot)
        from digest_tui.tui.widgets.paper_panel import PaperPanel as Panel

        assert app.query_one(Panel).paper.bookmarked is True


async def test_keys_typed_right_after_slash_reach_the_search_box(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        # All in one go, as a batch of keys arrives over SSH; then a literal "/" in the box.
        await pilot.press("slash", "f", "l", "a", "s", "h", "slash", "x")
        await settle(pilot)
        from textual.widgets import Input

        assert app.query_one("#search", Input).value == "flash/x"


async def test_the_chosen_theme_is_remembered(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.theme != "nord"
        app.theme = "nord"
        await settle(pilot)
    again = DigestApp(AppContext())
    async with again.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert again.theme == "nord"
