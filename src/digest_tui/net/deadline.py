"""A total deadline and a cancel switch for each request, enforced in the socket I/O.

httpx's read timeout restarts with every byte, so a server sending one byte a second keeps a
request alive for ever; and a thread blocked in a read does not notice that the user pressed
Ctrl-C. So each request runs under a `Budget` (a monotonic deadline and a cancel event), and
the network streams under httpx read in short slices: before each slice the budget is checked,
and no slice, connect or write outlasts what is left of it. A request therefore ends within
about 0.2 s of its deadline or of a cancel, whatever the server does.

The budget of the running request lives in a context variable (httpx's sync client does its
I/O on the calling thread), so pooled connections shared by requests always see their own
request's budget.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from digest_tui.errors import DeadlineExceeded, RequestCancelled

# How often a blocked read wakes to look at the budget: the latency of a Ctrl-C.
SLICE_SECONDS = 0.2


@dataclass(frozen=True)
class Budget:
    seconds: float  # the deadline as configured, for messages
    until: float  # time.monotonic() value at which the request must be over
    cancel: threading.Event
    label: str  # names the request in messages: "GET https://…"

    @classmethod
    def start(cls, seconds: float, cancel: threading.Event, label: str) -> Budget:
        return cls(seconds, time.monotonic() + seconds, cancel, label)

    def remaining(self) -> float:
        return self.until - time.monotonic()

    def check(self) -> None:
        """Raise RequestCancelled or DeadlineExceeded when the request must stop now."""
        if self.cancel.is_set():
            raise RequestCancelled(f"{self.label}: cancelled")
        if self.remaining() <= 0:
            raise DeadlineExceeded(
                f"{self.label}: no complete answer within {self.seconds:g} s "
                "(the deadline for one request, retries included)"
            )

    def clamp(self, timeout: float | None) -> float:
        """`timeout` shortened to what is left of the budget (after checking it)."""
        self.check()
        left = self.remaining()
        return left if timeout is None else max(min(timeout, left), 0.001)


_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "digest_tui_request_budget", default=None
)


@contextlib.contextmanager
def running(budget: Budget) -> Iterator[Budget]:
    """Make `budget` the one every socket operation of this thread checks."""
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def check_current() -> None:
    """Check the running request's budget, if any (between chunks of a body)."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.check()


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        budget = _CURRENT.get()
        if budget is None:
            return self._inner.read(max_bytes, timeout)
        # The read timeout is kept as the server's silence limit; the slices only add checks.
        silence_until = None if timeout is None else time.monotonic() + timeout
        while True:
            left = budget.clamp(SLICE_SECONDS)
            if silence_until is not None:
                left = min(left, max(silence_until - time.monotonic(), 0.001))
            try:
                return self._inner.read(max_bytes, left)
            except httpcore.ReadTimeout:
                if silence_until is not None and time.monotonic() >= silence_until:
                    raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        budget = _CURRENT.get()
        self._inner.write(buffer, budget.clamp(timeout) if budget else timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        budget = _CURRENT.get()
        wait = budget.clamp(timeout) if budget else timeout
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, wait))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        budget = _CURRENT.get()
        wait = budget.clamp(timeout) if budget else timeout
        return _Stream(self._inner.connect_tcp(host, port, wait, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        budget = _CURRENT.get()
        wait = budget.clamp(timeout) if budget else timeout
        return _Stream(self._inner.connect_unix_socket(path, wait, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def enforce_budgets(client: httpx.Client) -> None:
    """Put the budget-checking streams under every transport httpx made for `client`.

    httpx has no public hook for httpcore's network backend, so this reaches for the pool of
    each `HTTPTransport` (the direct one and those of proxies from the environment). A
    transport the caller supplied (a test's MockTransport) is left alone: the body reader
    still checks the budget between chunks.
    """
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        if not isinstance(transport, httpx.HTTPTransport):
            continue
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            raise RuntimeError("this httpx/httpcore version hides its network backend")
        if not isinstance(backend, _Backend):
            pool._network_backend = _Backend(backend)  # type: ignore[union-attr]
