"""Repository health from the GitHub REST API, cached and polite.

`GET {base}/repos/{owner}/{name}` gives stars, forks, licence, last push, archived and the
description. Figures are cached in SQLite for a time to live (24 h by default) and then
revalidated with the ETag (a 304 costs nothing against the rate limit when authenticated).
On a rate limit no request is sent until the reset time, in this process or any other using
the same cache file. Every failure degrades to the cached figures; nothing here raises for a
network or API problem. The token is sent only over https (or to a loopback test server) and
never appears in a log line or a message.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import ipaddress
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr, ValidationError

from digest_tui import __version__
from digest_tui.repohealth.cache import CacheEntry, HealthCache, ProblemStatus
from digest_tui.repohealth.model import RepoHealth, repo_key

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

_OWNER_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,99})$")
_NAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,100}$")

Clock = Callable[[], dt.datetime]


class _License(BaseModel):
    model_config = ConfigDict(extra="ignore")
    spdx_id: StrictStr | None = None


class _RepoPayload(BaseModel):
    """The fields we use of GitHub's repository object; strict so a changed shape is noticed."""

    model_config = ConfigDict(extra="ignore")
    full_name: StrictStr | None = None
    description: StrictStr | None = None
    stargazers_count: StrictInt
    forks_count: StrictInt
    archived: StrictBool
    pushed_at: dt.datetime | None = None
    license: _License | None = None


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
    ) -> None:
        base = base_url if base_url is not None else os.environ.get(API_URL_ENV) or ""
        self.base_url = (base or DEFAULT_API_URL).rstrip("/")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"GitHub API URL must be http(s) with a host: {self.base_url!r}")
        secret = token if token is not None else os.environ.get(TOKEN_ENV)
        self._token = secret or None
        if self._token and not _safe_for_token(parts.scheme, parts.hostname):
            log.warning("not sending the GitHub token to %s: not https", parts.hostname)
            self._token = None
        self.cache = cache
        self.ttl = ttl
        self.timeout = timeout
        self._transport = transport
        self._clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self._http: httpx.Client | None = None
        self._http_lock = threading.Lock()

    # --- public API ----------------------------------------------------------------------

    def health(self, owner: str, name: str, *, refresh: bool = False) -> RepoHealth:
        """Health of one repo: from the cache within the TTL, else from the API (sync)."""
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
        until = self._backoff(now)
        if until is not None:
            return self._degraded(
                entry,
                owner,
                name,
                "stale",
                f"GitHub rate limit reached; retrying after {until:%H:%M} UTC",
            )
        return self._fetch(owner, name, entry)

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
    ) -> list[RepoHealth]:
        """Health of many repos, at most `max_concurrency` requests at a time; one result per
        distinct repo, in input order. Repos cached within the TTL cost no request unless
        `force`. `on_result` is called from worker threads as each result arrives (a Textual
        caller should hop back with `call_from_thread`)."""
        unique: dict[str, tuple[str, str]] = {}
        for owner, name in repos:
            unique.setdefault(repo_key(owner, name), (owner, name))
        if not unique:
            return []

        def one(pair: tuple[str, str]) -> RepoHealth:
            result = self.health(*pair, refresh=force)
            if on_result is not None:
                on_result(result)
            return result

        workers = max(1, min(max_concurrency, len(unique)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="repohealth") as pool:
            return list(pool.map(one, unique.values()))

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
        return health.model_copy(update={"owner": owner, "name": name})

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
            return entry.health(message=message).model_copy(update={"owner": owner, "name": name})
        has_figures = entry is not None and entry.state == "ok"
        # Nothing cached to be stale: the honest answer is "unknown".
        final = "unknown" if status == "stale" and not has_figures else status
        if entry is None:
            return RepoHealth(owner=owner, name=name, status=final, message=message)
        return entry.health(status=final, message=message).model_copy(
            update={"owner": owner, "name": name}
        )

    def _problem(
        self, entry: CacheEntry | None, owner: str, name: str, status: ProblemStatus, message: str
    ) -> RepoHealth:
        message = self._scrub(message)
        log.info("repo health %s/%s: %s", owner, name, message)
        self.cache.note_problem(owner, name, message, status, self._clock())
        return self._degraded(entry, owner, name, status, message)

    # --- the request ---------------------------------------------------------------------

    def _client(self) -> httpx.Client:
        with self._http_lock:
            if self._http is None:
                self._http = httpx.Client(
                    base_url=self.base_url + "/",
                    timeout=httpx.Timeout(self.timeout),
                    transport=self._transport,
                    follow_redirects=True,  # a renamed repo answers 301 to its new home
                    headers={
                        "Accept": "application/vnd.github+json",
                        "X-GitHub-Api-Version": "2022-11-28",
                        "User-Agent": f"digest-tui/{__version__}",
                    },
                )
            return self._http

    def _fetch(self, owner: str, name: str, entry: CacheEntry | None) -> RepoHealth:
        headers: dict[str, str] = {}
        if entry is not None and entry.etag and entry.state == "ok":
            headers["If-None-Match"] = entry.etag
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        path = f"repos/{quote(owner, safe='')}/{quote(name, safe='')}"
        try:
            response = self._client().get(path, headers=headers)
        except httpx.TimeoutException:
            return self._problem(
                entry, owner, name, "error", f"GitHub API did not answer within {self.timeout:g} s"
            )
        except httpx.HTTPError as exc:
            return self._problem(
                entry, owner, name, "stale", f"cannot reach the GitHub API ({type(exc).__name__})"
            )
        now = self._clock()
        self._watch_rate_limit(response, now)
        code = response.status_code
        if code == 304 and entry is not None and entry.state == "ok":
            self.cache.touch(owner, name, now)
            return self._view(self.cache.entry(owner, name) or entry, owner, name, now)
        if code == 200:
            return self._store(owner, name, entry, response, now)
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
        until = _rate_limit_until(response, now)
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
        response: httpx.Response,
        now: dt.datetime,
    ) -> RepoHealth:
        try:
            data: Any = response.json()
        except ValueError:
            return self._problem(entry, owner, name, "error", "malformed JSON from the GitHub API")
        if not isinstance(data, dict):
            return self._problem(
                entry, owner, name, "error", "unexpected answer from the GitHub API: not an object"
            )
        try:
            payload = _RepoPayload.model_validate(data)
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
        self.cache.put(health, etag=response.headers.get("etag"))
        return health

    # --- rate limits ---------------------------------------------------------------------

    def _backoff(self, now: dt.datetime) -> dt.datetime | None:
        until = self.cache.backoff_until(self.base_url)
        return until if until is not None and until > now else None

    def _watch_rate_limit(self, response: httpx.Response, now: dt.datetime) -> None:
        """A success that used the last request of the window: stop before being refused."""
        if response.status_code >= 400:
            return
        headers = response.headers
        if headers.get("x-ratelimit-remaining") == "0":
            until = _reset_time(headers.get("x-ratelimit-reset"), now)
            if until is not None:
                self.cache.set_backoff(until, scope=self.base_url, reason="quota used up")

    def _scrub(self, message: str) -> str:
        """Belt and braces: no message may ever carry the token."""
        if self._token and self._token in message:
            message = message.replace(self._token, "***")
        return message


def _rate_limit_until(response: httpx.Response, now: dt.datetime) -> dt.datetime | None:
    """When a 403/429 says to come back, or None when it is not a rate limit."""
    if response.status_code not in (403, 429):
        return None
    headers = response.headers
    until = _retry_after(headers.get("retry-after"), now)
    if until is None and headers.get("x-ratelimit-remaining") == "0":
        until = _reset_time(headers.get("x-ratelimit-reset"), now)
    if until is None:
        secondary = "rate limit" in response.text[:2000].lower()
        if response.status_code == 429 or secondary:
            until = now + DEFAULT_BACKOFF
    if until is None:
        return None
    return min(max(until, now + dt.timedelta(seconds=1)), now + MAX_BACKOFF)


def _retry_after(value: str | None, now: dt.datetime) -> dt.datetime | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return now + dt.timedelta(seconds=int(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


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


def _safe_for_token(scheme: str, host: str) -> bool:
    if scheme == "https":
        return True
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
