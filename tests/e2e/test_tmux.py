"""The real app in a real terminal: tmux runs it, send-keys types, capture-pane reads the screen."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class Terminal:
    def __init__(self, home: Path) -> None:
        self.socket = f"digest-tui-test-{uuid.uuid4().hex[:8]}"
        env = {**os.environ, "DIGEST_TUI_HOME": str(home), "TERM": "xterm-256color"}
        self.env = env
        command = f"{sys.executable} -m digest_tui"
        self.tmux("new-session", "-d", "-s", "app", "-x", "150", "-y", "45", command)

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=30,
        )
        return result.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")

    def alive(self) -> bool:
        return "app" in self.tmux("list-sessions", "-F", "#{session_name}")

    def close(self) -> None:
        self.tmux("kill-server")


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
    screen = terminal.wait_for("1 papers")
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
