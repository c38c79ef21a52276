"""Pilot tests of issue 15 in the app: the Similar section and `m`, the "For you" node, the
similarity index built in the background, and Weights & data plus readiness in the panel
(against loopback Hub and GitHub servers replaying recorded answers)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from rich.console import Console

from digest_tui.config import AppContext
from digest_tui.service import open_library
from digest_tui.similar.index import SimilarIndex
from digest_tui.tui.app import DigestApp
from digest_tui.tui.screens.similar_screen import SimilarScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperPanel, render_paper
from digest_tui.tui.widgets.paper_sections import RenderContext
from tests.support.loopback import Recorded, serve
from tests.support.pilot import find_node
from tests.support.state import import_papers, make_paper
from tests.ui.settle import settle

GITHUB = Path(__file__).resolve().parents[2] / "fixtures" / "github"
HUB = Path(__file__).resolve().parents[2] / "fixtures" / "hf_artifacts"


def panel_text(app: DigestApp) -> str:
    panel = app.query_one(PaperPanel)
    assert panel.paper is not None
    console = Console(width=200, record=True, color_system=None)
    console.print(
        render_paper(panel.paper, RenderContext(health=panel.health, extras=panel.extras)),
        markup=False,
    )
    return console.export_text()


async def test_index_builds_in_the_background_and_the_panel_lists_similar_papers(home):
    library = open_library(AppContext())
    assert SimilarIndex(library.conn).needs_full_build()  # the sample was never indexed
    library.close()
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        panel = app.query_one(PaperPanel)
        assert panel.extras is not None and panel.extras.similar, panel.extras
        assert len(panel.extras.similar) == 5
        text = panel_text(app)
        assert "Similar" in text and "shares " in text
        assert panel.extras.similar[0].title in text


async def test_m_lists_more_and_enter_jumps_to_the_paper(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        shown = app.query_one(PaperPanel).paper
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SimilarScreen)
        assert 5 < len(screen.related) <= 20
        assert shown is not None and all(r.id != shown.id for r in screen.related)
        target = screen.related[1]
        await pilot.press("down", "enter")
        await settle(pilot, rounds=4)
        assert not isinstance(app.screen, SimilarScreen)
        assert app.query_one(PaperPanel).paper.id == target.id
        assert app.query_one(PaperList).current.id == target.id


async def test_for_you_ranks_against_bookmarks_and_explains(home):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        tree = app.query_one(NavTree)
        tree.move_cursor(find_node(tree, "foryou", None))
        await settle(pilot)
        assert list(app.query_one(PaperList).rows) == []  # nothing bookmarked yet
        tree.move_cursor(find_node(tree, "all", None))
        await settle(pilot)
        liked = app.query_one(PaperPanel).paper
        await pilot.press("b")  # a state change: "For you" is ranked again in a worker
        await settle(pilot)
        tree.move_cursor(find_node(tree, "foryou", None))
        await settle(pilot, rounds=4)
        rows = app.query_one(PaperList).rows
        assert rows and liked.id not in [r.id for r in rows]
        panel = app.query_one(PaperPanel)
        assert panel.paper.id == rows[0].id
        assert panel.extras is not None and panel.extras.why is not None
        assert panel.extras.why.startswith("like '") and "you bookmarked" in panel.extras.why
        assert liked.title[:20] in panel.extras.why
        assert "For you" in panel_text(app)


async def test_for_you_ranks_against_a_tag_chosen_in_the_tree(home):
    """Under "For you", one node per tag: the ranking learns from that tag's papers (not the
    bookmarks) and the panel names the tag; the choice is remembered like any view."""
    library = open_library(AppContext())
    moe = [
        r["id"]
        for r in library.conn.execute(
            "SELECT id FROM papers WHERE title LIKE 'FlashMoE%' OR title LIKE '%MoE%' LIMIT 2"
        )
    ]
    assert len(moe) == 2
    for paper_id in moe:
        library.state.add_tags(paper_id, ["moe-picks"])
    library.close()
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        tree = app.query_one(NavTree)
        for_you = find_node(tree, "foryou", None)
        assert not for_you.is_expanded  # the tree's other lines stay where they were
        for_you.expand()
        await settle(pilot)
        tree.move_cursor(find_node(tree, "foryou", "moe-picks"))
        await settle(pilot, rounds=4)
        rows = app.query_one(PaperList).rows
        assert rows and not set(moe) & {r.id for r in rows}  # the tagged ones left out
        panel = app.query_one(PaperPanel)
        assert panel.paper.id == rows[0].id
        why = panel.extras.why if panel.extras is not None else None
        assert (
            why is not None and why.startswith("like '") and why.endswith("you tagged 'moe-picks'")
        ), why
        assert "you tagged 'moe-picks'" in panel_text(app)
        # Nothing is bookmarked: plain "For you" has nothing to learn from.
        tree.move_cursor(for_you)
        await settle(pilot, rounds=3)
        assert list(app.query_one(PaperList).rows) == []

        tree.move_cursor(find_node(tree, "foryou", "moe-picks"))
        await settle(pilot, rounds=3)
    # Launched again: the tag's ranking is the view it opens on, its node shown.
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, rounds=5)
        assert app.selection.key == ("foryou", "moe-picks")
        tree = app.query_one(NavTree)
        assert tree.cursor_node is not None and tree.cursor_node.data.key == app.selection.key
        assert app.query_one(PaperList).rows


async def test_weights_and_readiness_in_the_panel(home, monkeypatch):
    library = open_library(AppContext())
    paper = make_paper(
        "FlashMoE zzbeyond",
        arxiv="2601.00042",
        github_repo="https://github.com/sys-lab/flashserve-ae",
        published=dt.date(2026, 1, 9),
    )
    import_papers(library, [paper])
    library.close()
    hub_routes = {
        f"/api/{kind}": Recorded(200, (HUB / f"{kind}_2506.04667.json").read_bytes())
        for kind in ("models", "datasets", "spaces")
    }
    github_routes = {
        "/repos/sys-lab/flashserve-ae/contents/": Recorded(
            200, (GITHUB / "contents_ae_repo.json").read_bytes()
        ),
        "/repos/sys-lab/flashserve-ae/readme": Recorded(
            200, (GITHUB / "readme_ae_repo.json").read_bytes()
        ),
    }
    with serve(hub_routes) as hub, serve(github_routes) as github:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        app = DigestApp(AppContext())
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot, rounds=4)
            await pilot.press("slash", *"zzbeyond", "enter")
            await settle(pilot, rounds=4)
            panel = app.query_one(PaperPanel)
            assert panel.paper.id == "2601.00042"
            text = panel_text(app)
            assert "Weights & data" in text
            assert "[model] flashmoe-org/FlashMoE-8x1B" in text
            assert f"{hub.url}/flashmoe-org/FlashMoE-8x1B" in text
            ready = [line for line in text.splitlines() if "ready: docker" in line]
            assert ready and "AE badge" in ready[0] and ready[0].rstrip().endswith("weights")
            assert "/repos/sys-lab/flashserve-ae/readme" in github.requests


async def test_the_sort_cycle_reaches_reproducible_and_readiness(home):
    from tests.support.pilot import notices

    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for _ in range(6):
            await pilot.press("s")
            await settle(pilot, rounds=1)
        shown = [n for n in notices(app) if n.startswith("Sorted by")]
        assert shown[-2:] == ["Sorted by reproducible.", "Sorted by readiness."]
        assert len(app.query_one(PaperList).rows) == 152  # a sort, never a filter
