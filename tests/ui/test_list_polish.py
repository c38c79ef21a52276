"""Issue 10's last rough edges in the paper list (Pilot, the real app on the sample library):
a cut title ends with "…" and fills the list's width; an empty view says why on its first line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from digest_tui.tui.widgets.paper_list import TITLE_WORD_SLACK, PaperList
from tests.support.pilot import find_node, offline_app
from tests.ui.settle import settle

pytestmark = pytest.mark.timeout(180)


def list_lines(papers: PaperList) -> list[str]:
    return [papers.render_line(y).text for y in range(papers.size.height)]


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
async def test_a_cut_title_ends_with_an_ellipsis_and_fills_the_list(
    home: Path, size: tuple[int, int]
) -> None:
    app = offline_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, rounds=4)
        papers = app.query_one(PaperList)
        assert papers.count == 152
        # What is visible of a line: the list's region less its scrollbar (152 rows do not
        # fit, so there is one; lines drawn to the full width lost their "…" under it).
        assert papers.show_vertical_scrollbar
        width = papers.region.width - papers.scrollbar_size_vertical
        if size[0] == 160:
            # Three panes: the list is the middle ~78 columns (issue 10 saw 55 of them used).
            assert width >= 70
        cut = 0
        for y, line in enumerate(list_lines(papers)):
            row = papers.row_at(y + int(papers.scroll_offset.y))
            assert row is not None
            assert cell_len(line) == width, line
            shown = line.split("▲ ", 1)[1].rstrip()
            if shown == row.title:
                continue
            # Cut: a prefix of the title, ended with "…", close to the list's right edge.
            cut += 1
            assert shown.endswith("…"), (shown, row.title)
            assert row.title.startswith(shown[:-1]), (shown, row.title)
            assert cell_len(line.rstrip()) >= width - TITLE_WORD_SLACK, line
            title_column = cell_len(line) - cell_len(line.split("▲ ", 1)[1])
            assert title_column + cell_len(row.title) > width, line
        assert cut > 0  # the sample has titles longer than either list


async def test_an_empty_view_says_so_on_its_first_line(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, rounds=4)
        tree = app.query_one("#nav")
        tree.move_cursor(find_node(tree, "bookmarks", None))  # none in the sample library
        await settle(pilot)
        papers = app.query_one(PaperList)
        assert papers.count == 0
        lines = list_lines(papers)
        assert lines[0].strip() == "No papers here.", lines[0]
        assert all(not line.strip() for line in lines[1:])


async def test_a_search_that_finds_nothing_says_where_and_offers_ctrl_g(home: Path) -> None:
    app = offline_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, rounds=4)
        tree = app.query_one("#nav")
        tree.move_cursor(find_node(tree, "topic", "moe"))
        await settle(pilot)
        await pilot.press("slash", *"[b]zzqx")
        await settle(pilot)
        papers = app.query_one(PaperList)
        assert papers.count == 0
        # The search's own words, literally (never markup), and the key that widens it.
        expected = "No paper matches '[b]zzqx' here — ctrl+g searches everywhere."
        assert list_lines(papers)[0].strip() == expected
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.selection.kind == "all"
        assert list_lines(papers)[0].strip() == "No paper matches '[b]zzqx'."
