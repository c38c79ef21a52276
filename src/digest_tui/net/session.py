"""The client factory and the one request loop every network client uses.

`HttpSession` holds one httpx client (User-Agent, connect and read timeouts, redirects, auth,
an injectable transport) and sends each request under the retry policy, a total deadline and
a cancel event, reading the body through the capped reader. It answers with a `Reply` for
any status the policy does not retry; it raises a `NetworkError` subclass otherwise:

- `HostUnreachable`: no connection (not retried unless the policy says so);
- `DeadlineExceeded`: connect, reads, retries and waits together passed the deadline;
- `AnswerTooLarge`: the body passed the cap;
- `RequestCancelled`: the cancel event was set (waits and reads end at once);
- `RetriesExhausted` or `NetworkError`: the last problem, or a Retry-After beyond reason.

After a 429 every request of the session waits, not only the one refused: limits are per
client. Sleeping and the wall clock (for Retry-After dates) are injectable for tests.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from digest_tui import __version__
from digest_tui.errors import (
    DeadlineExceeded,
    HostUnreachable,
    NetworkError,
    RetriesExhausted,
)
from digest_tui.net.retry import RetryPolicy, parse_retry_after
from digest_tui.net.urls import origin

if TYPE_CHECKING:
    # httpx (and httpcore, which body/deadline use) costs ~50-100 ms of CPU to import:
    # modules that only hold a client (`show --offline` reading the GitHub cache, `Limits`
    # built in a constructor) pay it when the first session is made, not on import.
    import httpx

    from digest_tui.net.deadline import Budget

USER_AGENT = f"digest-tui/{__version__}"


@dataclass(frozen=True)
class Reply:
    status: int
    reason: str
    headers: httpx.Headers
    body: bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300 or self.status == 304


@dataclass(frozen=True)
class Limits:
    """Time and size limits of one request; every client documents its values."""

    connect: float = 5.0  # seconds to open a connection
    read: float = 20.0  # seconds of silence from the server
    deadline: float = 60.0  # seconds for the whole request: connect, reads, retries, waits
    max_body: int = 32 * 2**20  # bytes of a successful answer


class HttpSession:
    """One httpx client plus the request loop; safe to use from several threads at once."""

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        follow_redirects: bool = True,
        auth: httpx.Auth | None = None,
        transport: httpx.BaseTransport | None = None,
        cancel: threading.Event | None = None,
        sleep: Callable[[float], None] | None = None,
        now: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.limits = limits = limits or Limits()
        self.retry = retry or RetryPolicy()
        self.cancel = cancel or threading.Event()
        self._sleep = sleep
        self._now = now
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._pause_until = 0.0
        self.requests = 0  # attempts sent, retries included
        self.retries = 0
        import httpx

        from digest_tui.net.deadline import enforce_budgets

        self._client = httpx.Client(
            transport=transport,
            auth=auth,
            timeout=httpx.Timeout(limits.read, connect=limits.connect),
            follow_redirects=follow_redirects,
            headers={"User-Agent": USER_AGENT, **(headers or {})},
        )
        enforce_budgets(self._client)

    def close(self) -> None:
        self._client.close()

    def request(
        self,
        method: str,
        url: str,
        *,
        label: str,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        max_body: int | None = None,
        cancel: threading.Event | None = None,
    ) -> Reply:
        """Send with retries; `label` names the request in every message."""
        import httpx

        from digest_tui.net.body import ERROR_BODY_BYTES, read_capped
        from digest_tui.net.deadline import Budget, running

        budget = Budget.start(self.limits.deadline, cancel or self.cancel, label)
        cap = self.limits.max_body if max_body is None else max_body
        policy = self.retry
        problem = ""
        honoured_pause = 0.0
        with running(budget):
            for attempt in range(1, policy.max_attempts + 1):
                honoured_pause = self._wait_for_pause(honoured_pause, budget)
                budget.check()
                with self._lock:
                    self.requests += 1
                asked: float | None = None
                pause_all = False
                try:
                    with self._client.stream(
                        method, url, headers=headers, content=content
                    ) as response:
                        status = response.status_code
                        ok = 200 <= status < 300 or status == 304
                        limit = cap if ok else min(cap, ERROR_BODY_BYTES)
                        body = read_capped(response, limit, label, truncate=not ok)
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                    problem = f"cannot reach {origin(url)}: {_describe(exc)}"
                    if not policy.retry_connect:
                        raise HostUnreachable(problem) from None
                except httpx.TimeoutException:
                    problem = f"no data from the server for {self.limits.read:g} s"
                except httpx.RemoteProtocolError:
                    problem = "the connection was dropped"
                except httpx.TransportError as exc:
                    problem = f"network error: {_describe(exc)}"
                except httpx.HTTPError as exc:
                    raise NetworkError(f"{label}: {_describe(exc)}") from None
                else:
                    if status not in policy.statuses:
                        return Reply(status, response.reason_phrase, response.headers, body)
                    problem = f"HTTP {status} {response.reason_phrase}".rstrip()
                    pause_all = status == 429
                    asked = parse_retry_after(response.headers.get("retry-after"), self._now())
                    if asked is not None and asked > policy.max_retry_after:
                        raise NetworkError(
                            f"{label}: {problem}; the server asks to wait {asked:.0f} s "
                            "(Retry-After); try again later"
                        )
                if attempt == policy.max_attempts:
                    break
                delay = max(asked or 0.0, policy.backoff(attempt, self._rng))
                if delay >= budget.remaining():
                    raise DeadlineExceeded(
                        f"{label}: {problem}; waiting {delay:.0f} s to try again would pass "
                        f"the {self.limits.deadline:g} s deadline for one request"
                    )
                with self._lock:
                    self.retries += 1
                    if pause_all:
                        # Everyone backs off, not just this thread: the limit is per client.
                        self._pause_until = max(self._pause_until, self._now() + delay)
                        continue
                self._wait(delay, budget)
        raise RetriesExhausted(f"{label}: {problem} (gave up after {policy.max_attempts} attempts)")

    def _wait(self, seconds: float, budget: Budget) -> None:
        if seconds > 0:
            if self._sleep is not None:
                self._sleep(seconds)
            else:
                budget.cancel.wait(seconds)  # ends early on cancel
        budget.check()

    def _wait_for_pause(self, honoured: float, budget: Budget) -> float:
        """Wait out a pause another request set after a 429; return the pause honoured."""
        with self._lock:
            until = self._pause_until
        if until > honoured:
            remaining = until - self._now()
            if remaining >= budget.remaining():
                budget.check()
                raise DeadlineExceeded(
                    f"{budget.label}: the server asked to pause {remaining:.0f} s, past the "
                    f"{self.limits.deadline:g} s deadline for one request"
                )
            if remaining > 0:
                self._wait(remaining, budget)
        return max(until, honoured)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
