"""Repository health from the GitHub REST API, cached and polite.

`GET {base}/repos/{owner}/{name}` gives stars, forks, licence, last push, archived and the
description. Figures are cached in SQLite for a time to live (24 h by default) and then
revalidated with the ETag (a 304 costs nothing against the rate limit when authenticated).
On a rate limit no request is sent until the reset time, in this process or any other using
the same cache file. Every failure degrades to the cached figures; nothing here raises for a
network or API problem. The token is sent only over https (or to a loopback test server) and
never appears in a log line or a message; httpx drops it when a redirect leaves the origin.

HTTP goes through `digest_tui.net`: 5xx answers, timeouts and dropped connections are retried
(3 attempts), every check has a total deadline (`DEADLINE`, 20 s) and an answer is capped at
`MAX_BODY_BYTES` (1 MiB; a repository object is ~6 kB). `refresh_many` stops asking after the
first connection failure: the rest of the batch is answered from the cache at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from digest_tui import jsonsafe
from digest_tui.errors import HostUnreachable, NetworkError
from digest_tui.net.retry import RETRY_STATUSES, RetryPolicy, parse_retry_after
from digest_tui.net.session import HttpSession, Limits, Reply
from digest_tui.net.urls import http_url_problem, is_private_channel
from digest_tui.repohealth.cache import CacheEntry, HealthCache, ProblemStatus
from digest_tui.repohealth.model import RepoHealth, repo_key

if TYPE_CHECKING:  # a transport for tests only; httpx loads with the first session (net/)
    import httpx

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
API_URL_ENV = "GITHUB_API_URL"
TOKEN_ENV = "GITHUB_TOKEN"

# After a failed check, do not ask again for this long unless told to refresh: a UI that
# re-asks on every keypress must not spend 10 s timeouts in a row.
RETRY_AFTER_PROBLEM = dt.timedelta(minutes=5)
# Secondary rate limits without a Retry-After: GitHub asks for at least a minute.
DEFAULT_BACKOFF = dt.timedelta(seconds=60)
# A reset time further than this is a clock or server bug; never lock ourselves out for days.
MAX_BACKOFF = dt.timedelta(hours=2)
DEADLINE = 20.0  # seconds for one check: connect, reads, retries and their waits
MAX_BODY_BYTES = 2**20
# A 429 is a rate limit, recorded as a back-off (above), not waited for in a retry loop.
_RETRY = RetryPolicy(
    max_attempts=3, backoff_base=0.5, backoff_cap=4.0, statuses=RETRY_STATUSES - {429}
)

_OWNER_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,99})$")
_NAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,100}$")

Clock = Callable[[], dt.datetime]


class GitHubHealthClient:
    def __init__(
        self,
        cache: HealthCache,
        *,
        base_url: str | None = None,
        token: str | None = None,
        ttl: dt.timedelta = dt.timedelta(hours=24),
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
        clock: Clock | None = None,
        deadline: float | None = None,
        max_body: int | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        base = base_url if base_url is not None else os.environ.get(API_URL_ENV) or ""
        self.base_url = (base or DEFAULT_API_URL).rstrip("/")
        if http_url_problem(self.base_url) is not None:
            raise ValueError(f"GitHub API URL must be http(s) with a host: {self.base_url!r}")
        secret = token if token is not None else os.environ.get(TOKEN_ENV)
        self._token = secret or None
        if self._token and not is_private_channel(self.base_url):
            log.warning("not sending the GitHub token to %s: not https", self.base_url)
            self._token = None
        self.cache = cache
        self.ttl = ttl
        self.timeout = timeout
        self.limits = Limits(
            connect=min(timeout, 5.0),
            read=timeout,
            deadline=DEADLINE if deadline is None else deadline,
            max_body=MAX_BODY_BYTES if max_body is None else max_body,
        )
        self._transport = transport
        self._sleep = sleep
        self._clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self._http: HttpSession | None = None
        self._http_lock = threading.Lock()
        # Why the last `refresh_many` stopped asking (the first connection failure), or None.
        self.unreachable: str | None = None

    # --- public API ----------------------------------------------------------------------

    def health(
        self,
        owner: str,
        name: str,
        *,
        refresh: bool = False,
        cancel: threading.Event | None = None,
    ) -> RepoHealth:
        """Health of one repo: from the cache within the TTL, else from the API (sync).

        Setting `cancel` ends a request in flight at once (the figures cached are returned).
        """
        return self._check(owner, name, refresh, _Batch(cancel or threading.Event()))

    def _check(self, owner: str, name: str, refresh: bool, batch: _Batch) -> RepoHealth:
        if not (_OWNER_RE.match(owner or "") and _NAME_RE.match(name or "")):
            return RepoHealth(
                owner=owner or "",
                name=name or "",
                status="error",
                message="not a valid GitHub owner/name",
            )
        now = self._clock()
        entry = self.cache.entry(owner, name)
        if entry is not None and not refresh:
            if self._fresh(entry, now):
                return self._view(entry, owner, name, now)
            if entry.problem_at and now - entry.problem_at < RETRY_AFTER_PROBLEM:
                return self._view(entry, owner, name, now)
        if batch.unreachable:
            return self._degraded(entry, owner, name, "stale", f"not checked: {batch.unreachable}")
        until = self._backoff(now)
        if until is not None:
            return self._degraded(
                entry,
                owner,
                name,
                "stale",
                f"GitHub rate limit reached; retrying after {until:%H:%M} UTC",
            )
        return self._fetch(owner, name, entry, batch)

    def cached(self, owner: str, name: str) -> RepoHealth | None:
        """What the cache holds, with the status the TTL implies; never touches the network."""
        entry = self.cache.entry(owner, name)
        if entry is None:
            return None
        return self._view(entry, owner, name, self._clock())

    def refresh_many(
        self,
        repos: Iterable[tuple[str, str]],
        *,
        max_concurrency: int = 4,
        on_result: Callable[[RepoHealth], object] | None = None,
        force: bool = False,
        cancel: threading.Event | None = None,
    ) -> list[RepoHealth]:
        """Health of many repos, at most `max_concurrency` requests at a time; one result per
        distinct repo, in input order. Repos cached within the TTL cost no request unless
        `force`. `on_result` is called from worker threads as each result arrives (a Textual
        caller should hop back with `call_from_thread`).

        After the first connection failure no more requests are sent: the other repos get
        their cached figures ("not checked: cannot reach …") and `self.unreachable` says why.
        Setting `cancel`, or an exception in the calling thread (Ctrl-C), ends the requests in
        flight at once."""
        unique: dict[str, tuple[str, str]] = {}
        for owner, name in repos:
            unique.setdefault(repo_key(owner, name), (owner, name))
        batch = _Batch(cancel or threading.Event())
        self.unreachable = None
        if not unique:
            return []

        def one(pair: tuple[str, str]) -> RepoHealth:
            result = self._check(*pair, force, batch)
            if on_result is not None:
                on_result(result)
            return result

        workers = max(1, min(max_concurrency, len(unique)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="repohealth")
        try:
            results = list(pool.map(one, unique.values()))
        except BaseException:
            batch.cancel.set()  # Ctrl-C: requests in flight end now, queued ones never start
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        self.unreachable = batch.unreachable
        return results

    def close(self) -> None:
        with self._http_lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    def __enter__(self) -> GitHubHealthClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- cache views ---------------------------------------------------------------------

    def _fresh(self, entry: CacheEntry, now: dt.datetime) -> bool:
        return (
            entry.state in ("ok", "gone")
            and entry.fetched_at is not None
            and now - entry.fetched_at < self.ttl
            and not (entry.problem_at and entry.problem_at >= entry.fetched_at)
        )

    def _view(self, entry: CacheEntry, owner: str, name: str, now: dt.datetime) -> RepoHealth:
        health = entry.health()
        if health.status == "ok" and not self._fresh(entry, now):
            health.status = "stale"
            health.message = _age_message(entry.fetched_at, now)
        return replace(health, owner=owner, name=name)

    def _degraded(
        self,
        entry: CacheEntry | None,
        owner: str,
        name: str,
        status: ProblemStatus,
        message: str,
    ) -> RepoHealth:
        """Cached figures with a status saying they could not be confirmed just now."""
        if entry is not None and entry.state == "gone":
            return replace(entry.health(message=message), owner=owner, name=name)
        has_figures = entry is not None and entry.state == "ok"
        # Nothing cached to be stale: the honest answer is "unknown".
        final = "unknown" if status == "stale" and not has_figures else status
        if entry is None:
            return RepoHealth(owner=owner, name=name, status=final, message=message)
        return replace(entry.health(status=final, message=message), owner=owner, name=name)

    def _problem(
        self, entry: CacheEntry | None, owner: str, name: str, status: ProblemStatus, message: str
    ) -> RepoHealth:
        message = self._scrub(message)
        log.info("repo health %s/%s: %s", owner, name, message)
        self.cache.note_problem(owner, name, message, status, self._clock())
        return self._degraded(entry, owner, name, status, message)

    # --- the request ---------------------------------------------------------------------

    def _session(self) -> HttpSession:
        with self._http_lock:
            if self._http is None:
                self._http = HttpSession(
                    limits=self.limits,
                    retry=_RETRY,
                    headers={
                        "Accept": "application/vnd.github+json",
                        "X-GitHub-Api-Version": "2022-11-28",
                    },
                    # A renamed repo answers 301 to its new home; httpx drops the token when a
                    # redirect leaves the origin.
                    follow_redirects=True,
                    transport=self._transport,
                    sleep=self._sleep,
                )
            return self._http

    def _fetch(self, owner: str, name: str, entry: CacheEntry | None, batch: _Batch) -> RepoHealth:
        headers: dict[str, str] = {}
        if entry is not None and entry.etag and entry.state == "ok":
            headers["If-None-Match"] = entry.etag
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        url = f"{self.base_url}/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
        try:
            reply = self._session().request(
                "GET", url, label="the GitHub API", headers=headers, cancel=batch.cancel
            )
        except HostUnreachable as exc:
            batch.stop(str(exc))
            return self._problem(entry, owner, name, "stale", str(exc))
        except NetworkError as exc:
            return self._problem(entry, owner, name, "error", str(exc))
        now = self._clock()
        self._watch_rate_limit(reply, now)
        code = reply.status
        if code == 304 and entry is not None and entry.state == "ok":
            self.cache.touch(owner, name, now)
            return self._view(self.cache.entry(owner, name) or entry, owner, name, now)
        if code == 200:
            return self._store(owner, name, entry, reply, now)
        if code in (404, 410):
            gone = RepoHealth(
                owner=owner,
                name=name,
                status="gone",
                fetched_at=now,
                message=f"GitHub says the repository no longer exists (HTTP {code})",
            )
            self.cache.put(gone)
            return gone
        until = _rate_limit_until(reply, now)
        if until is not None:
            self.cache.set_backoff(until, scope=self.base_url, reason=f"HTTP {code}")
            return self._degraded(
                entry,
                owner,
                name,
                "stale",
                f"GitHub rate limit reached; retrying after {until:%H:%M} UTC",
            )
        if code == 401:
            return self._problem(
                entry,
                owner,
                name,
                "error",
                f"GitHub rejected the token (HTTP 401); check {TOKEN_ENV}",
            )
        return self._problem(entry, owner, name, "error", f"GitHub API answered HTTP {code}")

    def _store(
        self,
        owner: str,
        name: str,
        entry: CacheEntry | None,
        reply: Reply,
        now: dt.datetime,
    ) -> RepoHealth:
        try:
            data: Any = jsonsafe.loads(reply.body)
        except ValueError as exc:
            return self._problem(
                entry, owner, name, "error", f"malformed JSON from the GitHub API ({exc})"
            )
        if not isinstance(data, dict):
            return self._problem(
                entry, owner, name, "error", "unexpected answer from the GitHub API: not an object"
            )
        from digest_tui.repohealth.github_payload import RepoPayload, ValidationError

        try:
            payload = RepoPayload.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "(top level)"
            return self._problem(
                entry,
                owner,
                name,
                "error",
                f"unexpected answer from the GitHub API: field '{field}': {first['msg']}",
            )
        pushed = payload.pushed_at
        if pushed is not None and pushed.tzinfo is None:
            pushed = pushed.replace(tzinfo=dt.UTC)
        health = RepoHealth(
            owner=owner,
            name=name,
            status="ok",
            stars=payload.stargazers_count,
            forks=payload.forks_count,
            license=payload.license.spdx_id if payload.license else None,
            pushed_at=pushed,
            archived=payload.archived,
            description=payload.description,
            full_name=payload.full_name,
            fetched_at=now,
        )
        self.cache.put(health, etag=reply.headers.get("etag"))
        return health

    # --- rate limits ---------------------------------------------------------------------

    def _backoff(self, now: dt.datetime) -> dt.datetime | None:
        until = self.cache.backoff_until(self.base_url)
        return until if until is not None and until > now else None

    def _watch_rate_limit(self, reply: Reply, now: dt.datetime) -> None:
        """A success that used the last request of the window: stop before being refused."""
        if reply.status >= 400:
            return
        headers = reply.headers
        if headers.get("x-ratelimit-remaining") == "0":
            until = _reset_time(headers.get("x-ratelimit-reset"), now)
            if until is not None:
                self.cache.set_backoff(until, scope=self.base_url, reason="quota used up")

    def _scrub(self, message: str) -> str:
        """Belt and braces: no message may ever carry the token."""
        if self._token and self._token in message:
            message = message.replace(self._token, "***")
        return message


def _rate_limit_until(reply: Reply, now: dt.datetime) -> dt.datetime | None:
    """When a 403/429 says to come back, or None when it is not a rate limit."""
    if reply.status not in (403, 429):
        return None
    headers = reply.headers
    until = None
    wait = parse_retry_after(headers.get("retry-after"), now.timestamp())
    if wait is not None:
        until = now + dt.timedelta(seconds=wait)
    if until is None and headers.get("x-ratelimit-remaining") == "0":
        until = _reset_time(headers.get("x-ratelimit-reset"), now)
    if until is None:
        secondary = "rate limit" in reply.body[:2000].decode("utf-8", "replace").lower()
        if reply.status == 429 or secondary:
            until = now + DEFAULT_BACKOFF
    if until is None:
        return None
    return min(max(until, now + dt.timedelta(seconds=1)), now + MAX_BACKOFF)


def _reset_time(value: str | None, now: dt.datetime) -> dt.datetime | None:
    if not value or not value.strip().isdigit():
        return None
    return dt.datetime.fromtimestamp(int(value.strip()), dt.UTC)


def _age_message(fetched_at: dt.datetime | None, now: dt.datetime) -> str:
    if fetched_at is None:
        return "not checked yet"
    hours = (now - fetched_at).total_seconds() / 3600
    age = f"{hours:.0f} h" if hours < 48 else f"{hours / 24:.0f} days"
    return f"figures from {age} ago; not re-checked yet"


class _Batch:
    """What the checks of one call share: a cancel event, and the first connection failure."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel
        self.unreachable: str | None = None
        self._lock = threading.Lock()

    def stop(self, reason: str) -> None:
        with self._lock:
            self.unreachable = self.unreachable or reason
