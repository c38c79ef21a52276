"""How ready a paper's GitHub repo is to run, judged from metadata only (docs/readiness.md).

Two requests per repository, through the GitHub health client's session, token, deadline,
body cap and rate-limit back-off (`github.py`), and cached in the same SQLite file:

- `GET {base}/repos/{owner}/{name}/contents/`: the root directory, a JSON array of
  `{name, path, type, ...}` (type file, dir, symlink or submodule);
- `GET {base}/repos/{owner}/{name}/readme`: the preferred README, an object whose `content`
  is base64 (`encoding: "base64"`); 404 when the repo has none.

Each answer is revalidated with its own ETag after the time to live (24 h); only labels are
stored (readiness_signals.py), never the README. A failure degrades to the cached labels; an
unreachable host stops the rest of a batch, as for health. Nothing is ever cloned or run.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from digest_tui import jsonsafe
from digest_tui.errors import HostUnreachable, NetworkError
from digest_tui.net.session import Reply
from digest_tui.repohealth.github import (
    _NAME_RE,
    _OWNER_RE,
    RETRY_AFTER_PROBLEM,
    GitHubHealthClient,
    _rate_limit_until,
)
from digest_tui.repohealth.model import RepoHealth, repo_key
from digest_tui.repohealth.readiness_signals import (
    readme_labels,
    readme_text,
    root_file_labels,
    runnable,
    score,
)

# Short names for the readiness line; section labels get " section", badges "AE badge".
_SHORT = {
    "docker": "docker",
    "conda": "conda env",
    "reqs": "reqs",
    "package": "pyproject/setup",
    "make": "make",
    "scripts": "scripts",
    "configs": "configs",
    "install": "install section",
    "quickstart": "quick start",
    "reproduce": "reproduce section",
    "artifact-evaluation": "AE section",
}


@dataclass(frozen=True)
class Readiness:
    """What a repository offers to run it, and the health already fetched beside it."""

    owner: str
    name: str
    status: str = "unknown"  # ok | stale | gone | error | unknown, as for RepoHealth
    files: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    badges: tuple[str, ...] = ()
    has_readme: bool | None = None
    fetched_at: dt.datetime | None = None
    message: str | None = None
    health: RepoHealth | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        return repo_key(self.owner, self.name)

    @property
    def known(self) -> bool:
        return self.fetched_at is not None and self.status != "gone"

    @property
    def score(self) -> int:
        return score([*self.files, *self.sections], self.badges)

    @property
    def runnable(self) -> bool:
        return runnable([*self.files, *self.sections])

    def line(self, *, weights: bool = False) -> str:
        """One compact line: `ready: docker, reqs, reproduce section, AE badge · weights`."""
        if self.status == "gone":
            return "readiness: the repository no longer exists"
        if not self.known:
            return f"readiness {self.status}: {self.message or 'not checked yet'}"
        parts = [_SHORT[label] for label in (*self.files, *self.sections)]
        if self.badges:
            parts.append("AE badge" + (f" ({', '.join(self.badges)})" if self.badges else ""))
        head = ("ready: " if self.runnable else "partly ready: ") if parts else "not ready: "
        text = head + (", ".join(parts) if parts else "no environment or run instructions found")
        if weights:
            text += " · weights"
        if self.health is not None and self.health.archived:
            text += " · archived"
        if self.status != "ok":
            text += f" ({self.status})"
        return text

    def to_json(self, *, weights: bool | None = None) -> dict[str, Any]:
        """The `readiness` item of `show --format json` (docs/readiness.md)."""
        health = self.health
        return {
            "repo": f"{self.owner}/{self.name}",
            "status": self.status,
            "runnable": self.runnable if self.known else None,
            "score": self.score if self.known else None,
            "files": list(self.files),
            "readme_sections": list(self.sections),
            "badges": list(self.badges),
            "has_readme": self.has_readme,
            "license": health.license if health is not None else None,
            "archived": health.archived if health is not None else None,
            "pushed_at": (
                health.pushed_at.isoformat()
                if health is not None and health.pushed_at is not None
                else None
            ),
            "weights": weights,
            "checked_at": self.fetched_at.isoformat() if self.fetched_at else None,
            "message": self.message,
        }


class ReadinessClient:
    """Readiness of repositories; shares the health client's HTTP session and cache file."""

    def __init__(self, health: GitHubHealthClient) -> None:
        self.health_client = health
        self.cache = health.cache
        self.base_url = health.base_url
        self.ttl = health.ttl
        self.unreachable: str | None = None

    # --- public API ----------------------------------------------------------------------

    def cached(self, owner: str, name: str) -> Readiness | None:
        """What the cache holds; never touches the network."""
        row = self.cache.readiness_row(owner, name)
        if row is None:
            return None
        return self._view(row, owner, name, self._now())

    def readiness(
        self, owner: str, name: str, *, refresh: bool = False, cancel: threading.Event | None = None
    ) -> Readiness:
        return self._check(owner, name, refresh, _Batch(cancel or threading.Event()))

    def refresh_many(
        self,
        repos: Iterable[tuple[str, str]],
        *,
        max_concurrency: int = 4,
        force: bool = False,
        cancel: threading.Event | None = None,
    ) -> list[Readiness]:
        """Readiness of many repos, one result per distinct repo in input order; after the
        first connection failure the rest come from the cache (`self.unreachable` says why)."""
        unique: dict[str, tuple[str, str]] = {}
        for owner, name in repos:
            unique.setdefault(repo_key(owner, name), (owner, name))
        batch = _Batch(cancel or threading.Event())
        self.unreachable = None
        if not unique:
            return []
        workers = max(1, min(max_concurrency, len(unique)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="readiness")
        try:
            results = list(
                pool.map(lambda pair: self._check(pair[0], pair[1], force, batch), unique.values())
            )
        except BaseException:
            batch.cancel.set()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        self.unreachable = batch.unreachable
        return results

    # --- the checks ----------------------------------------------------------------------

    def _now(self) -> dt.datetime:
        return self.health_client._clock()

    def _check(self, owner: str, name: str, refresh: bool, batch: _Batch) -> Readiness:
        if not (_OWNER_RE.match(owner or "") and _NAME_RE.match(name or "")):
            return Readiness(
                owner or "", name or "", "error", message="not a valid GitHub owner/name"
            )
        now = self._now()
        row = self.cache.readiness_row(owner, name)
        if row is not None and not refresh:
            if self._fresh(row, now):
                return self._view(row, owner, name, now)
            if row["problem_at"] and now - row["problem_at"] < RETRY_AFTER_PROBLEM:
                return self._view(row, owner, name, now)
        if batch.unreachable:
            return self._degraded(row, owner, name, f"not checked: {batch.unreachable}")
        until = self.cache.backoff_until(self.base_url)
        if until is not None and until > now:
            return self._degraded(
                row, owner, name, f"GitHub rate limit reached; retrying after {until:%H:%M} UTC"
            )
        return self._fetch(owner, name, row, batch)

    def _fetch(self, owner: str, name: str, row: dict[str, Any] | None, batch: _Batch) -> Readiness:
        held = row if row is not None and row["state"] == "ok" and row["labels"] else None
        contents_etag: str | None = held["contents_etag"] if held else None
        readme_etag: str | None = held["readme_etag"] if held else None
        base = f"{self.base_url}/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
        try:
            contents = self._get(f"{base}/contents/", contents_etag, batch)
            problem = self._answer_problem(contents, row, owner, name, what="root listing")
            if problem is not None:
                return problem
            if contents.status in (404, 410):
                # A repo that is gone, or empty ("This repository is empty."): nothing to run.
                now = self._now()
                self.cache.put_readiness(
                    owner,
                    name,
                    state="gone",
                    labels=None,
                    contents_etag=None,
                    readme_etag=None,
                    fetched_at=now,
                    message=f"no such repository, or an empty one (HTTP {contents.status})",
                )
                return self._view(self.cache.readiness_row(owner, name) or {}, owner, name, now)
            readme = self._get(f"{base}/readme", readme_etag, batch)
            problem = self._answer_problem(readme, row, owner, name, what="README")
            if problem is not None:
                return problem
        except HostUnreachable as exc:
            batch.stop(str(exc))
            return self._problem(row, owner, name, str(exc))
        except NetworkError as exc:
            return self._problem(row, owner, name, str(exc))
        old = held["labels"] if held is not None else {}
        if contents.status == 304 and held is not None:
            files = list(old.get("files", []))
        else:
            listing = self._json(contents)
            if not isinstance(listing, list):
                return self._problem(
                    row, owner, name, "unexpected root listing from the GitHub API: not an array"
                )
            files = list(root_file_labels(listing))
        if readme.status == 304 and held is not None:
            sections = list(old.get("sections", []))
            badges = list(old.get("badges", []))
            has_readme = old.get("has_readme")
        elif readme.status == 404:
            sections, badges, has_readme = [], [], False
        else:
            text = readme_text(self._json(readme))
            if text is None:
                return self._problem(
                    row, owner, name, "unexpected README answer from the GitHub API"
                )
            found_sections, found_badges = readme_labels(text)
            sections, badges, has_readme = list(found_sections), list(found_badges), True
        now = self._now()
        self.cache.put_readiness(
            owner,
            name,
            state="ok",
            labels={
                "files": files,
                "sections": sections,
                "badges": badges,
                "has_readme": has_readme,
            },
            contents_etag=contents.headers.get("etag") or (held["contents_etag"] if held else None),
            readme_etag=(
                None
                if readme.status == 404
                else readme.headers.get("etag") or (held["readme_etag"] if held else None)
            ),
            fetched_at=now,
        )
        return self._view(self.cache.readiness_row(owner, name) or {}, owner, name, now)

    def _get(self, url: str, etag: str | None, batch: _Batch) -> Reply:
        client = self.health_client
        headers: dict[str, str] = {}
        if etag:
            headers["If-None-Match"] = etag
        if client._token:
            headers["Authorization"] = f"Bearer {client._token}"
        reply = client._session().request(
            "GET", url, label="the GitHub API", headers=headers, cancel=batch.cancel
        )
        client._watch_rate_limit(reply, self._now())
        return reply

    def _answer_problem(
        self, reply: Reply, row: dict[str, Any] | None, owner: str, name: str, *, what: str
    ) -> Readiness | None:
        """None when the answer is usable (200, 304, or 404/410); else the degraded result."""
        code = reply.status
        if code in (200, 304, 404, 410):
            return None
        now = self._now()
        until = _rate_limit_until(reply, now)
        if until is not None:
            self.cache.set_backoff(until, scope=self.base_url, reason=f"HTTP {code}")
            return self._degraded(
                row, owner, name, f"GitHub rate limit reached; retrying after {until:%H:%M} UTC"
            )
        return self._problem(row, owner, name, f"GitHub API answered HTTP {code} for the {what}")

    @staticmethod
    def _json(reply: Reply) -> Any:
        try:
            return jsonsafe.loads(reply.body)
        except ValueError:
            return None

    # --- cache views ---------------------------------------------------------------------

    def _fresh(self, row: dict[str, Any], now: dt.datetime) -> bool:
        fetched = row["fetched_at"]
        return (
            row["state"] in ("ok", "gone")
            and fetched is not None
            and now - fetched < self.ttl
            and not (row["problem_at"] and row["problem_at"] >= fetched)
        )

    def _view(
        self,
        row: dict[str, Any],
        owner: str,
        name: str,
        now: dt.datetime,
        *,
        status: str | None = None,
        message: str | None = None,
    ) -> Readiness:
        labels = row.get("labels") or {}
        state = row.get("state")
        fetched = row.get("fetched_at") if state in ("ok", "gone") else None
        if state == "gone":
            implied, implied_message = "gone", row.get("problem")
        elif state != "ok":
            implied, implied_message = "unknown", row.get("problem")
        elif row.get("problem_at") and fetched and row["problem_at"] >= fetched:
            implied, implied_message = "error", row.get("problem")
        elif fetched is not None and now - fetched < self.ttl:
            implied, implied_message = "ok", None
        else:
            implied, implied_message = "stale", "labels older than a day; not re-checked yet"
        return Readiness(
            owner=owner,
            name=name,
            status=status or implied,
            files=tuple(labels.get("files", ())),
            sections=tuple(labels.get("sections", ())),
            badges=tuple(labels.get("badges", ())),
            has_readme=labels.get("has_readme"),
            fetched_at=fetched,
            message=message if message is not None else implied_message,
            health=self.health_client.cached(owner, name),
        )

    def _degraded(
        self, row: dict[str, Any] | None, owner: str, name: str, message: str
    ) -> Readiness:
        if row is None or row.get("state") != "ok":
            if row is not None and row.get("state") == "gone":
                return self._view(row, owner, name, self._now(), message=message)
            return Readiness(
                owner,
                name,
                "unknown",
                message=message,
                health=self.health_client.cached(owner, name),
            )
        return self._view(row, owner, name, self._now(), status="stale", message=message)

    def _problem(
        self, row: dict[str, Any] | None, owner: str, name: str, message: str
    ) -> Readiness:
        message = self.health_client._scrub(message)
        self.cache.note_readiness_problem(owner, name, message, self._now())
        if row is not None and row.get("state") == "ok":
            return self._view(row, owner, name, self._now(), status="error", message=message)
        return Readiness(
            owner, name, "error", message=message, health=self.health_client.cached(owner, name)
        )


class _Batch:
    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel
        self.unreachable: str | None = None
        self._lock = threading.Lock()

    def stop(self, reason: str) -> None:
        with self._lock:
            self.unreachable = self.unreachable or reason
