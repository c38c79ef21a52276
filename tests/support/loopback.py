"""A real HTTP server on 127.0.0.1 (port 0) serving recorded responses, for API tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol
from urllib.parse import urlsplit


@dataclass
class Recorded:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})


@dataclass
class LoopbackServer:
    url: str
    routes: dict[str, Recorded | Callable[[str], Recorded]]
    requests: list[str]


class Reply(Protocol):
    """What an answer carries (`Recorded`, or a fake server's own reply type)."""

    status: int
    body: bytes
    headers: dict[str, str]


# path (without query), query string, request headers (lower-case names) -> the reply
Answer = Callable[[str, str, dict[str, str]], Reply]


@contextmanager
def serve_answers(answer: Answer, *, http11: bool = False) -> Iterator[str]:
    """A real server on 127.0.0.1 whose every GET is answered by `answer`; yields its URL.
    `http11` keeps connections alive between requests, as the real APIs do."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if http11 else "HTTP/1.0"

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = answer(parts.path, parts.query, headers)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(routes: dict[str, Recorded | Callable[[str], Recorded]]) -> Iterator[LoopbackServer]:
    """Serve `routes` (path without query -> response); unknown paths answer 404."""
    requests: list[str] = []

    def answer(path: str, query: str, headers: dict[str, str]) -> Recorded:
        full = f"{path}?{query}" if query else path
        requests.append(full)
        route = routes.get(path)
        reply = route(full) if callable(route) else route
        return reply or Recorded(404, b'{"message": "Not Found"}')

    with serve_answers(answer) as url:
        yield LoopbackServer(url, routes, requests)
