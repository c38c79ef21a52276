"""The real app in a real 80x24 terminal (tmux): a readable title, Enter shows the paper full
screen, Esc comes back to the list."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from digest_tui.tui.widgets.paper_list import TITLE_WORD_SLACK
from tests.support.sample_counts import kernels_label, sample_topic_count
from tests.support.tmux import Terminal

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# Issue 10's three terminal sizes: narrow, medium, wide.
SIZES = [(80, 24), (100, 30), (160, 48)]
SIZE_IDS = ["80x24", "100x30", "160x48"]

# The first paper of the sample library, newest first, as the list shows it.
FIRST_TITLE = "Efficient Multi-turn RL for GUI Agents via Decoupled Tr"


# What tmux shows of a scrollbar's thumb.
SCROLLBAR = "▁▂▃▄▅▆▇█▉▊▋▌▍▎▏"


def longest_title_run(screen: str) -> int:
    """The longest title a list line shows: what follows the votes column's ▲."""
    runs = [len(line.split("▲ ", 1)[1].rstrip()) for line in screen.splitlines() if "▲ " in line]
    return max(runs, default=0)


@pytest.mark.timeout(180)
def test_80x24_titles_readable_enter_and_escape(home: Path) -> None:
    (home / "config").mkdir(exist_ok=True)
    term = Terminal(home, width=80, height=24, keep_open=True)
    try:
        screen = term.wait_until(lambda s: "152 papers" in s, "the list")
        assert longest_title_run(screen) >= 40, screen
        assert FIRST_TITLE[:40] in screen
        term.keys("Enter")
        screen = term.wait_until(
            lambda s: "Topics" in s and "Back to the list" in s, "the full-screen paper"
        )
        assert "152 papers" not in screen, screen
        assert "Efficient Multi-turn RL for GUI Agents via Decoupled Training" in screen
        term.keys("Escape")
        screen = term.wait_until(lambda s: "152 papers" in s, "the list again")
        assert FIRST_TITLE[:40] in screen
        term.keys("q")
        screen = term.wait_until(lambda s: "app exited with status" in s, "the exit")
    finally:
        term.close()
    assert "app exited with status 0" in screen and "Traceback" not in screen


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "size", [(80, 24), (100, 30), (160, 48)], ids=["80x24", "100x30", "160x48"]
)
def test_a_broken_config_is_named_on_screen_and_q_leaves_no_traceback(
    home: Path, size: tuple[int, int]
) -> None:
    """Issue 10: a typo in config.yaml is named (file, line, field) on screen within a few
    seconds, the list is usable, and `q` exits 0 without a traceback."""
    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "config.yaml").write_text(
        "machines:\n  - name: desk\n    devices: [{id: rtx-4090, count: one}]\n",
        encoding="utf-8",
    )
    width, height = size
    term = Terminal(home, width=width, height=height, keep_open=True)
    try:
        # The notice wraps at narrow widths: look for its parts in the screen's words.
        screen = term.wait_until(
            lambda s: "config.yaml:3:" in s and "152 papers" in s, "the config problem", 20
        )
        assert "machines[0].devices[0]" in " ".join(screen.split()), screen
        term.keys("j", "r")  # keys that read a setting once stopped the app
        term.keys("q")
        screen = term.wait_until(lambda s: "app exited with status" in s, "the exit")
    finally:
        term.close()
    assert "app exited with status 0" in screen, screen
    assert "Traceback" not in screen and "internal error" not in screen, screen


@pytest.mark.timeout(240)
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_enter_escape_and_b_keep_the_view_at_every_size(home: Path, size: tuple[int, int]) -> None:
    """Issue 10 at the three sizes: Enter shows the paper full screen and Esc comes back to
    the list; `b` with a topic selected leaves the tree's cursor on that topic (the next `j`
    in the tree goes to the topic below it)."""
    width, height = size
    term = Terminal(home, width=width, height=height)
    try:
        term.wait_for("152 papers")
        if width >= 100:
            # The list comes first (from an index); the tree once the start-up has counted.
            term.wait_for(kernels_label())
        term.keys("Enter")
        screen = term.wait_until(lambda s: "Back to the list" in s, "the full-screen paper")
        assert "152 papers" not in screen and "Topics" in screen, screen
        term.keys("Escape")
        term.wait_for("152 papers")
        term.keys("\\")  # one `\`: the tree, focused (shown over the list below 100 columns)
        if width < 100:
            # The tree is filled when the start-up has counted (the wide layout waited for it
            # above): keys sent into the still empty tree would move nothing. Its labels on
            # screen mean the library is ready. The header is under the tree here; keys are
            # handled in order, so `b` follows the moves.
            term.wait_until(lambda s: kernels_label() in s, "the tree over the list")
        term.keys(*["j"] * 7)  # All, Latest, New, Bookmarks, Unread, For you, Topics, Kernels
        if width >= 100:
            term.wait_until(
                lambda s: f"Kernels · {sample_topic_count('kernels')} papers" in s, "Kernels listed"
            )
        term.keys("b")
        term.wait_until(lambda s: "Bookmarks 1" in s, "the bookmark counted in the tree")
        term.keys("j")
        if width < 100:
            term.keys("Escape")  # close the tree to read the header
        screen = term.wait_until(lambda s: "MoE · " in s or "Latest digest" in s, "the next node")
        assert "MoE · 14 papers" in screen, screen
        term.keys("q")
    finally:
        term.close()


@pytest.mark.timeout(180)
def test_100x30_hides_the_narrow_panel_until_p_and_cuts_titles_with_an_ellipsis(
    home: Path,
) -> None:
    """Issue 10 at 100x30: the panel (~20 columns, wrapping every few words) is hidden and the
    list has its room; a cut title ends with "…"; `p` shows the panel, which says when the
    undated first paper was listed."""
    term = Terminal(home, width=100, height=30)
    try:
        screen = term.wait_until(lambda s: "152 papers" in s and kernels_label() in s, "the list")
        rows = [line for line in screen.splitlines() if "▲ " in line]
        # Two panes: the tree's border and nothing right of the list.
        assert rows and all(line.count("│") == 1 for line in rows), screen
        assert longest_title_run(screen) >= 45, screen
        cut = [line.rstrip() for line in rows if line.rstrip().endswith("…")]
        assert cut and all(len(line) >= 100 - 2 - TITLE_WORD_SLACK for line in cut), screen
        # The first paper's long title is cut with its "…" in view, not under the scrollbar.
        first = next(line for line in rows if FIRST_TITLE[:30] in line)
        assert first.rstrip().rstrip(SCROLLBAR).rstrip().endswith("…"), screen
        term.keys("p")

        def three_panes(s: str) -> bool:
            # The whole frame: tmux can capture the panel drawn before the list below it is
            # redrawn at its new width (a CI run caught half a frame), so wait for every row.
            rows = [line for line in s.splitlines() if "▲ " in line]
            return (
                "listed 2026-01-08" in s
                and bool(rows)
                and all(line.count("│") == 2 for line in rows)
            )

        screen = term.wait_until(three_panes, "the panel beside the list on every row")
        rows = [line for line in screen.splitlines() if "▲ " in line]
        # The list's cut titles end with "…" at its new width (no sideways scrollbar left).
        assert any(line.split("│")[1].rstrip().endswith("…") for line in rows), screen
        panel = " ".join(line.split("│", 2)[2] for line in screen.splitlines() if "│" in line)
        panel = " ".join(panel.split())
        assert "listed 2026-01-08 in the Daily Papers digest" in panel, screen
        assert "published unknown" not in panel
        term.keys("p")
        term.wait_until(lambda s: "Daily Papers digest" not in s, "the panel hidden again")
        term.keys("q")
    finally:
        term.close()
