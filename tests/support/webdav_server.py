"""A real WebDAV server (wsgidav on cheroot) on 127.0.0.1, port 0, for sync tests.

`serve_webdav(root)` serves the directory `root` with Basic authentication. `Flaky` wraps the
WSGI app to fail a share of requests: 500 before the request is handled, 500 after it was
handled (the client cannot tell whether it happened), or a dropped connection (the response
is cut short). Every request is counted, by method.
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp

USER = "sync-user-3f9"
PASSWORD = "pw-Zq8-not-in-output"


class Flaky:
    """WSGI middleware: counts requests; fails a share of them when `rate` > 0."""

    def __init__(self, app: Any, *, rate: float = 0.0, seed: int = 7) -> None:
        self.app = app
        self.rate = rate
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def reset(self) -> None:
        with self.lock:
            self.counts.clear()
            self.failures.clear()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        method = environ.get("REQUEST_METHOD", "?")
        with self.lock:
            self.counts[method] += 1
            roll = self.rng.random()
            mode = self.rng.choice(("before", "after", "drop")) if roll < self.rate else None
            if mode:
                self.failures[mode] += 1
        if mode == "before":
            _drain(environ)
            start_response("500 Internal Server Error", [("Content-Length", "0")])
            return [b""]
        if mode is None:
            return self.app(environ, start_response)
        # Let the server do the work, then lose the answer.
        captured: list[Any] = []

        def capture(status: str, headers: list, exc_info: Any = None) -> Any:
            captured.append(status)
            return lambda _data: None

        body = self.app(environ, capture)
        try:
            for _chunk in body:
                pass
        finally:
            close = getattr(body, "close", None)
            if close:
                close()
        if mode == "after":
            start_response("500 Internal Server Error", [("Content-Length", "0")])
            return [b""]
        # A dropped connection: promise a body and close the connection half-way through it.
        status = captured[0] if captured else "200 OK"
        start_response(status, [("Content-Length", "100000"), ("Connection", "close")])
        return _Truncated()


class _Truncated:
    def __iter__(self) -> Iterator[bytes]:
        yield b"x" * 10
        raise ConnectionResetError("dropped by the test server")


def _drain(environ: dict) -> None:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)


@dataclass
class DavServer:
    url: str  # the root collection, ending with '/'
    root: Path
    flaky: Flaky
    server: Any = field(repr=False)


def make_app(root: Path, *, auth: bool = True) -> Any:
    config: dict[str, Any] = {
        "provider_mapping": {"/": str(root)},
        "verbose": 0,
        "logging": {"enable": False, "enable_loggers": []},
        "property_manager": True,
        "lock_storage": True,
        "http_authenticator": {
            "domain_controller": None,
            "accept_basic": True,
            "accept_digest": False,
            "default_to_digest": False,
        },
        "simple_dc": {
            "user_mapping": {"*": {USER: {"password": PASSWORD}}} if auth else {"*": True}
        },
        "dir_browser": {"enable": False},
    }
    return WsgiDAVApp(config)


@contextmanager
def serve_webdav(root: Path, *, rate: float = 0.0, auth: bool = True) -> Iterator[DavServer]:
    root.mkdir(parents=True, exist_ok=True)
    logging.getLogger("wsgidav").setLevel(logging.ERROR)
    flaky = Flaky(make_app(root, auth=auth), rate=rate)
    server = wsgi.Server(("127.0.0.1", 0), flaky, numthreads=8)
    server.error_log = lambda *args, **kwargs: None  # the dropped connections are on purpose
    server.prepare()
    port = server.bind_addr[1]
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield DavServer(f"http://127.0.0.1:{port}/", root, flaky, server)
    finally:
        server.stop()
        thread.join(timeout=10)
