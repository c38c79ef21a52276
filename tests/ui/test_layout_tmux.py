"""The real app in a real 80x24 terminal (tmux): a readable title, Enter shows the paper full
screen, Esc comes back to the list."""

from __future__ import annotations

import os
import shlex
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

# The first paper of the sample library, newest first, as the list shows it.
FIRST_TITLE = "Efficient Multi-turn RL for GUI Agents via Decoupled Tr"


class Terminal:
    def __init__(self, home: Path, width: int, height: int) -> None:
        self.socket = f"digest-tui-layout-{uuid.uuid4().hex[:8]}"
        self.env = {**os.environ, "DIGEST_TUI_HOME": str(home), "TERM": "xterm-256color"}
        app = f"{shlex.quote(sys.executable)} -m digest_tui"
        script = f'{app}; echo "app exited with status $?"; sleep 600'
        self.tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), script)

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=30,
        ).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def wait_until(self, check, what: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what} never happened; the screen was:\n{screen}")


def longest_title_run(screen: str) -> int:
    """The longest title a list line shows: what follows the votes column's ▲."""
    runs = [len(line.split("▲ ", 1)[1].rstrip()) for line in screen.splitlines() if "▲ " in line]
    return max(runs, default=0)


@pytest.mark.timeout(180)
def test_80x24_titles_readable_enter_and_escape(home: Path) -> None:
    (home / "config").mkdir(exist_ok=True)
    term = Terminal(home, 80, 24)
    try:
        screen = term.wait_until(lambda s: "152 papers" in s, "the list")
        assert longest_title_run(screen) >= 40, screen
        assert FIRST_TITLE[:40] in screen
        term.tmux("send-keys", "-t", "app", "Enter")
        screen = term.wait_until(
            lambda s: "Topics" in s and "Back to the list" in s, "the full-screen paper"
        )
        assert "152 papers" not in screen, screen
        assert "Efficient Multi-turn RL for GUI Agents via Decoupled Training" in screen
        term.tmux("send-keys", "-t", "app", "Escape")
        screen = term.wait_until(lambda s: "152 papers" in s, "the list again")
        assert FIRST_TITLE[:40] in screen
        term.tmux("send-keys", "-t", "app", "q")
        screen = term.wait_until(lambda s: "app exited with status" in s, "the exit")
    finally:
        term.tmux("kill-server")
    assert "app exited with status 0" in screen and "Traceback" not in screen
