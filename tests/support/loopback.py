"""A real HTTP server on 127.0.0.1 (port 0) serving recorded responses, for API tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


@contextmanager
def serve(routes: dict[str, Recorded | Callable[[str], Recorded]]) -> Iterator[LoopbackServer]:
    """Serve `routes` (path without query -> response); unknown paths answer 404."""
    requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            route = routes.get(self.path.split("?", 1)[0])
            reply = route(self.path) if callable(route) else route
            reply = reply or Recorded(404, b'{"message": "Not Found"}')
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
        yield LoopbackServer(f"http://127.0.0.1:{server.server_port}", routes, requests)
    finally:
        server.shutdown()
        server.server_close()
