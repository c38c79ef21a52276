"""`q` while a fetch waits on a stalled server: the real app, in tmux, exits at once.

The server on 127.0.0.1 accepts the request and then says nothing until the test ends; the
client's read timeout (20 s, with retries after it) is far beyond the deadline below, so only
an app that does not wait for its blocked worker passes. The process must also exit 0 with
nothing like a traceback on stderr.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# Far less than one read timeout of the HF client, far more than a quit needs.
EXIT_DEADLINE_SECONDS = 10.0


@contextmanager
def stalled_server() -> Iterator[tuple[str, threading.Event]]:
    arrived, release = threading.Event(), threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            arrived.set()
            release.wait(120)  # the stall: no status line, no bytes

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", arrived
    finally:
        release.set()
        server.shutdown()
        server.server_close()


class Tmux:
    """The app in a tmux pane; when it ends, the shell prints its status and waits, so what
    the app left on the terminal (a traceback, say) can still be read."""

    def __init__(self, home: Path, endpoint: str) -> None:
        self.socket = f"digest-tui-quit-{uuid.uuid4().hex[:8]}"
        self.env = {
            **os.environ,
            "DIGEST_TUI_HOME": str(home),
            "HF_ENDPOINT": endpoint,
            "TERM": "xterm-256color",
        }
        app = f"{shlex.quote(sys.executable)} -m digest_tui"
        script = f'{app}; echo "app exited with status $?"; sleep 600'
        self.tmux("new-session", "-d", "-s", "app", "-x", "150", "-y", "45", script)

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=30,
        ).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", "app")

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


@pytest.mark.timeout(180)
def test_q_during_a_stalled_fetch_exits_promptly_without_a_traceback(home):
    with stalled_server() as (endpoint, arrived):
        term = Tmux(home, endpoint)
        try:
            term.wait_for("All papers 152")
            term.tmux("send-keys", "-t", "app", "R")
            assert arrived.wait(30), "the fetch never reached the server"
            term.wait_for("Fetching")
            term.tmux("send-keys", "-t", "app", "q")
            screen = term.wait_for("app exited with status", timeout=EXIT_DEADLINE_SECONDS)
        finally:
            term.tmux("kill-server")
    assert "app exited with status 0" in screen
    assert "Traceback" not in screen and "Error" not in screen, screen
