"""Real HTTP servers on 127.0.0.1 that misbehave the ways the network clients must survive.

Each is a raw socket server on port 0, one thread per connection, so the bytes on the wire
are exactly what a test says: a server that trickles one byte at a time (headers or body), one
that accepts and never answers, one whose body never ends. Every connection is counted.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

Behaviour = Callable[[socket.socket, threading.Event], None]


@dataclass
class HostileServer:
    url: str
    connections: list[float] = field(default_factory=list)  # monotonic accept times


@contextmanager
def serve(behaviour: Behaviour) -> Iterator[HostileServer]:
    """Run `behaviour(conn, stop)` for every connection until the block ends."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.1)
    stop = threading.Event()
    server = HostileServer(f"http://127.0.0.1:{listener.getsockname()[1]}")

    def handle(conn: socket.socket) -> None:
        with conn:
            try:
                _read_request_head(conn)
                behaviour(conn, stop)
            except OSError:
                pass  # the client gave up: what the tests want

    def accept_loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            server.connections.append(time.monotonic())
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def _read_request_head(conn: socket.socket) -> None:
    conn.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            raise OSError("client closed")
        data += chunk
    conn.settimeout(None)


def trickle_body(interval: float = 0.2, content_type: str = "application/json") -> Behaviour:
    """Headers at once, then the body one byte every `interval` seconds, never finishing."""

    def run(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type.encode() + b"\r\n"
            b"Content-Length: 1000000\r\n\r\n["
        )
        while not stop.wait(interval):
            conn.sendall(b" ")

    return run


def trickle_headers(interval: float = 0.2) -> Behaviour:
    """The status line, then one header byte every `interval` seconds, never finishing."""

    def run(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        while not stop.wait(interval):
            conn.sendall(b"a")

    return run


def stall() -> Behaviour:
    """Accept the request and never answer."""

    def run(conn: socket.socket, stop: threading.Event) -> None:
        stop.wait()

    return run


def endless_body(chunk: bytes = b"[" + b"0," * 32767) -> Behaviour:
    """A 200 with a chunked body that never ends (as fast as the client reads)."""

    def run(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        while not stop.is_set():
            conn.sendall(frame)

    return run
