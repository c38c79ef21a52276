"""`q` while a fetch waits on a stalled server: the real app, in tmux, exits at once.

The server on 127.0.0.1 accepts the request and then says nothing until the test ends; the
client's read timeout (20 s, with retries after it) is far beyond the deadline below, so only
an app that does not wait for its blocked worker passes. The process must also exit 0 with
nothing like a traceback on stderr.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.tmux import Terminal

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


@pytest.mark.timeout(180)
def test_q_during_a_stalled_fetch_exits_promptly_without_a_traceback(home):
    with stalled_server() as (endpoint, arrived):
        # The pane outlives the app so that what it left on the terminal (a traceback) is read.
        term = Terminal(home, env={"HF_ENDPOINT": endpoint}, keep_open=True, history=True)
        try:
            term.wait_for("All papers 152")
            term.keys("R")
            assert arrived.wait(30), "the fetch never reached the server"
            term.wait_for("Fetching")
            term.keys("q")
            screen = term.wait_for("app exited with status", timeout=EXIT_DEADLINE_SECONDS)
        finally:
            term.close()
    assert "app exited with status 0" in screen
    assert "Traceback" not in screen and "Error" not in screen, screen
