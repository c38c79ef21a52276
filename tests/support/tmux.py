"""The real app in a real terminal: a tmux server of its own runs it, send-keys types,
capture-pane reads the screen."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path


class Terminal:
    def __init__(
        self,
        home: Path,
        *,
        width: int = 150,
        height: int = 45,
        env: dict[str, str] | None = None,
        keep_open: bool = False,
        history: bool = False,
    ) -> None:
        """Start `python -m digest_tui` in a WIDTHxHEIGHT pane. `keep_open`: the pane outlives
        the app and prints its exit status; `history`: screens include the scrollback."""
        self.socket = f"digest-tui-test-{uuid.uuid4().hex[:8]}"
        self.env = {
            **os.environ,
            "DIGEST_TUI_HOME": str(home),
            "TERM": "xterm-256color",
            **(env or {}),
        }
        self.history = history
        app = f"{shlex.quote(sys.executable)} -m digest_tui"
        command = f'{app}; echo "app exited with status $?"; sleep 600' if keep_open else app
        self.tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), command)

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=30,
        ).stdout

    def screen(self) -> str:
        scrollback = ("-S", "-") if self.history else ()
        return self.tmux("capture-pane", "-p", *scrollback, "-t", "app")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def wait_until(self, check: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what} never happened; the screen was:\n{screen}")

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        return self.wait_until(lambda screen: text in screen, f"{text!r} on screen", timeout)

    def alive(self) -> bool:
        return "app" in self.tmux("list-sessions", "-F", "#{session_name}")

    def close(self) -> None:
        self.tmux("kill-server")
