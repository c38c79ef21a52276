"""The one retry policy: what is retried, how long to wait, and `Retry-After`.

Retried: 408, 429, 500, 502, 503 and 504 answers (a client may narrow the set: GitHub's 429 is
a rate limit it records instead), read timeouts and dropped connections. A connection that
cannot be made at all is not retried unless the client asks (`retry_connect`): the answer will
not change in a second. Waits grow exponentially with "equal jitter" (half fixed, half random,
so clients that failed together do not retry together), capped; a `Retry-After` (seconds or an
HTTP date) is the least wait. No wait ever runs past the request's deadline.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import random
from dataclasses import dataclass

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    backoff_base: float = 1.0  # the first wait's ceiling, doubled after each failure
    backoff_cap: float = 30.0
    max_retry_after: float = 120.0  # a server asking for longer is not waited for
    statuses: frozenset[int] = RETRY_STATUSES
    retry_connect: bool = False

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The wait after failed attempt number `attempt` (1-based): in [ceiling/2, ceiling]."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date), or None.

    `now` is the wall-clock time (epoch seconds) an HTTP date is measured from.
    """
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        # "nan" and "inf" parse as floats; neither is a wait.
        return max(seconds, 0.0) if seconds == seconds and seconds != float("inf") else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT
        when = when.replace(tzinfo=dt.UTC)
    return max(when.timestamp() - now, 0.0)
