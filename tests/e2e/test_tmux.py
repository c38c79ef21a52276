"""The real app in a real terminal: tmux runs it, send-keys types, capture-pane reads the screen."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.tmux import Terminal

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.fixture
def terminal(home: Path):
    term = Terminal(home)
    try:
        yield term
    finally:
        term.close()


def test_browse_search_bookmark_and_quit_in_a_real_terminal(terminal: Terminal, home: Path):
    screen = terminal.wait_for("All papers 152")
    assert "Kernels" in screen and "Training parallelism" in screen and "2026-01-08 26" in screen
    terminal.keys("/")
    terminal.keys("-l", "flashmoe")
    # A first launch opens the newest digest ("Latest 2026-01-08"); the header says the
    # search's scope and its one match.
    screen = terminal.wait_until(
        lambda s: ": 1 of " in s and "match 'flashmoe'" in s, "one match for flashmoe"
    )
    assert "FlashMoE: Fast" in screen
    terminal.keys("Enter")
    terminal.keys("b")
    screen = terminal.wait_for("★ bookmarked")
    assert "github.com/osayamenja/FlashMoE" in screen
    terminal.keys("q")
    deadline = time.monotonic() + 15
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not terminal.alive()
    # The bookmark was saved when `b` was pressed.
    result = subprocess.run(
        [sys.executable, "-m", "digest_tui", "papers", "--bookmarked", "--format", "jsonl"],
        capture_output=True,
        text=True,
        env=terminal.env,
        timeout=60,
    )
    assert result.returncode == 0
    assert '"FlashMoE: Fast Distributed MoE in a Single Kernel"' in result.stdout
