"""Issue 10: the side panel of an undated paper says when a digest listed it, as the list does
(it said "published unknown"); the JSON contract (`show --format json`) is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.geometry import Region

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperBody, PaperPanel
from tests.ui.settle import settle

pytestmark = pytest.mark.timeout(180)

# An undated paper of the sample library and the digest that listed it.
UNDATED = "2509.05276"
LISTED = "2025-12-10"


def shown_lines(body: PaperBody, rows: int = 6) -> list[tuple[str, list[bool]]]:
    """The body's first lines as drawn: text, and per segment whether it is italic."""
    strips = body.render_lines(Region(0, 0, body.size.width, rows))
    return [(s.text, [bool(seg.style and seg.style.italic) for seg in s]) for s in strips]


async def test_the_panel_of_an_undated_paper_says_when_a_digest_listed_it(home: Path) -> None:
    ctx = AppContext()
    ctx.paths.config_file.write_text("repo_health: false\n", encoding="utf-8")
    app = DigestApp(ctx)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, rounds=4)
        papers = app.query_one(PaperList)
        app._jump_to(UNDATED)
        await settle(pilot)
        assert papers.current is not None and papers.current.id == UNDATED
        assert papers.current.published is None and papers.current.listed == LISTED
        panel = app.query_one(PaperPanel)
        assert panel.paper is not None and panel.paper.id == UNDATED
        lines = shown_lines(panel.query_one(PaperBody))
        text = " ".join(" ".join(line for line, _ in lines).split())
        assert f"listed {LISTED} in the Daily Papers digest" in text, text
        assert "unknown" not in text
        # Dimmed wording as in the list: the listing date is drawn in italics, the rest not.
        date_line = next(line for line in lines if "listed" in line[0])
        assert any(date_line[1]) and not all(date_line[1]), date_line


def test_the_json_contract_of_an_undated_paper_is_unchanged(home: Path, capsys) -> None:
    assert main(["show", UNDATED, "--format", "json"]) == 0
    paper = json.loads(capsys.readouterr().out)
    assert paper["published"] is None
    assert "listed" not in paper and "first_seen" not in paper
