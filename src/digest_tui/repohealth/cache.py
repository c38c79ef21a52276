"""A SQLite cache of repository health, shared by every process of the app on this machine.

One row per repository (key lowercased) holding the last figures the API confirmed, their
ETag, when they were confirmed, and the last problem met while re-checking them. A rate-limit
back-off is stored too, so a second process (the CLI while the TUI runs) respects it.
It is a cache: if the file is unreadable it is set aside and started afresh.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from digest_tui.repohealth.model import RepoHealth, repo_key

log = logging.getLogger(__name__)

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS repo_health (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,            -- 'ok' (figures held), 'gone', or 'none' (never fetched)
    figures TEXT,                   -- JSON: stars, forks, license, pushed_at, archived, ...
    etag TEXT,
    fetched_at REAL,                -- epoch seconds the API last confirmed the row
    problem TEXT,                   -- the last failed check, in words
    problem_status TEXT,            -- 'error' or 'stale': what that failure makes the status
    problem_at REAL
);
-- Readiness (repohealth/readiness.py): labels read from the root listing and the README,
-- with the ETag of each of the two answers; never the README text itself.
CREATE TABLE IF NOT EXISTS repo_readiness (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,            -- 'ok' (labels held), 'gone', or 'none' (never fetched)
    labels TEXT,                    -- JSON: files, sections, badges, has_readme
    contents_etag TEXT,
    readme_etag TEXT,
    fetched_at REAL,
    problem TEXT,
    problem_at REAL
);
CREATE TABLE IF NOT EXISTS backoff (
    scope TEXT PRIMARY KEY,         -- the API base URL
    until REAL NOT NULL,
    reason TEXT
);
"""

ProblemStatus = Literal["error", "stale"]


@dataclass(frozen=True)
class CacheEntry:
    """One stored row, as the client needs it to decide whether to ask the API again."""

    owner: str
    name: str
    state: str
    figures: dict[str, Any] | None
    etag: str | None
    fetched_at: dt.datetime | None
    problem: str | None
    problem_status: ProblemStatus | None
    problem_at: dt.datetime | None

    def health(self, status: str | None = None, message: str | None = None) -> RepoHealth:
        """The row as a RepoHealth; `status`/`message` override what the row implies."""
        figures = dict(self.figures or {})
        if self.state == "gone":
            implied, implied_message = "gone", self.problem
        elif self.problem_status and (
            self.fetched_at is None
            or (self.problem_at is not None and self.problem_at >= self.fetched_at)
        ):
            implied, implied_message = self.problem_status, self.problem
            if implied == "stale" and self.state != "ok":
                implied = "unknown"  # nothing cached to be stale
        elif self.state == "ok":
            implied, implied_message = "ok", None
        else:
            implied, implied_message = "unknown", self.problem
        return RepoHealth.from_figures(
            self.owner,
            self.name,
            figures,
            status=status or implied,  # type: ignore[arg-type]
            fetched_at=self.fetched_at,
            message=message if message is not None else implied_message,
        )


class HealthCache:
    """Thread-safe: one connection guarded by a lock (the TUI refreshes from worker threads)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            aside = self.path.with_name(self.path.name + ".corrupt")
            log.warning("repo health cache %s unreadable (%s); moved to %s", self.path, exc, aside)
            self.path.replace(aside)
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > _SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {version} is newer than this app")
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
        except sqlite3.DatabaseError:
            db.close()
            raise
        db.row_factory = sqlite3.Row
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> HealthCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- rows -----------------------------------------------------------------------------

    def count(self) -> int:
        """How many repositories have a row: checked, gone, or with a problem noted."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM repo_health").fetchone()[0])

    def entry(self, owner: str, name: str) -> CacheEntry | None:
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM repo_health WHERE key = ?", (repo_key(owner, name),)
            ).fetchone()
        if row is None:
            return None
        return CacheEntry(
            owner=row["owner"],
            name=row["name"],
            state=row["state"],
            figures=json.loads(row["figures"]) if row["figures"] else None,
            etag=row["etag"],
            fetched_at=_from_epoch(row["fetched_at"]),
            problem=row["problem"],
            problem_status=row["problem_status"],
            problem_at=_from_epoch(row["problem_at"]),
        )

    def get(self, owner: str, name: str) -> RepoHealth | None:
        """The stored health, status as last recorded (the cache knows no time to live)."""
        entry = self.entry(owner, name)
        return entry.health() if entry else None

    def put(self, health: RepoHealth, *, etag: str | None = None) -> None:
        """Store figures the API just confirmed (status "ok") or a "gone" repository."""
        state = "gone" if health.status == "gone" else "ok"
        figures = None
        if state == "ok":
            figures = json.dumps(health.figures_json())
        fetched = _to_epoch(health.fetched_at)
        with self._lock:
            self._db.execute(
                """INSERT INTO repo_health (key, owner, name, state, figures, etag, fetched_at,
                       problem, problem_status, problem_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)
                   ON CONFLICT(key) DO UPDATE SET owner = excluded.owner,
                       name = excluded.name, state = excluded.state,
                       figures = excluded.figures, etag = excluded.etag,
                       fetched_at = excluded.fetched_at, problem = excluded.problem,
                       problem_status = NULL, problem_at = NULL""",
                (
                    health.key,
                    health.owner,
                    health.name,
                    state,
                    figures,
                    etag,
                    fetched,
                    health.message if state == "gone" else None,
                ),
            )

    def touch(self, owner: str, name: str, fetched_at: dt.datetime) -> None:
        """The API confirmed the stored figures are current (HTTP 304)."""
        with self._lock:
            self._db.execute(
                """UPDATE repo_health SET fetched_at = ?, problem = NULL, problem_status = NULL,
                       problem_at = NULL WHERE key = ?""",
                (_to_epoch(fetched_at), repo_key(owner, name)),
            )

    def note_problem(
        self, owner: str, name: str, message: str, status: ProblemStatus, at: dt.datetime
    ) -> None:
        """Remember a failed check without touching the figures already held."""
        with self._lock:
            self._db.execute(
                """INSERT INTO repo_health (key, owner, name, state, problem, problem_status,
                       problem_at)
                   VALUES (?, ?, ?, 'none', ?, ?, ?)
                   ON CONFLICT(key) DO UPDATE SET problem = excluded.problem,
                       problem_status = excluded.problem_status,
                       problem_at = excluded.problem_at""",
                (repo_key(owner, name), owner, name, message, status, _to_epoch(at)),
            )

    # --- readiness (repohealth/readiness.py) ----------------------------------------------

    def readiness_row(self, owner: str, name: str) -> dict[str, Any] | None:
        """The stored readiness row as a dict (labels decoded, times as datetimes), or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM repo_readiness WHERE key = ?", (repo_key(owner, name),)
            ).fetchone()
        if row is None:
            return None
        out = dict(row)
        out["labels"] = json.loads(row["labels"]) if row["labels"] else None
        out["fetched_at"] = _from_epoch(row["fetched_at"])
        out["problem_at"] = _from_epoch(row["problem_at"])
        return out

    def put_readiness(
        self,
        owner: str,
        name: str,
        *,
        state: str,
        labels: dict[str, Any] | None,
        contents_etag: str | None,
        readme_etag: str | None,
        fetched_at: dt.datetime,
        message: str | None = None,
    ) -> None:
        with self._lock:
            self._db.execute(
                """INSERT INTO repo_readiness (key, owner, name, state, labels, contents_etag,
                       readme_etag, fetched_at, problem, problem_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
                   ON CONFLICT(key) DO UPDATE SET owner = excluded.owner,
                       name = excluded.name, state = excluded.state, labels = excluded.labels,
                       contents_etag = excluded.contents_etag,
                       readme_etag = excluded.readme_etag, fetched_at = excluded.fetched_at,
                       problem = excluded.problem, problem_at = NULL""",
                (
                    repo_key(owner, name),
                    owner,
                    name,
                    state,
                    json.dumps(labels) if labels is not None else None,
                    contents_etag,
                    readme_etag,
                    _to_epoch(fetched_at),
                    message,
                ),
            )

    def note_readiness_problem(self, owner: str, name: str, message: str, at: dt.datetime) -> None:
        with self._lock:
            self._db.execute(
                """INSERT INTO repo_readiness (key, owner, name, state, problem, problem_at)
                   VALUES (?, ?, ?, 'none', ?, ?)
                   ON CONFLICT(key) DO UPDATE SET problem = excluded.problem,
                       problem_at = excluded.problem_at""",
                (repo_key(owner, name), owner, name, message, _to_epoch(at)),
            )

    def readiness_scores(self) -> dict[str, tuple[int, bool]]:
        """key -> (score, runnable) of every repository with labels: what the `has:runnable`
        filter and the readiness sort read (one query, a few hundred rows)."""
        from digest_tui.repohealth.readiness_signals import READINESS_ROWS, scores_of

        with self._lock:
            rows = self._db.execute(READINESS_ROWS).fetchall()
        return scores_of(rows)

    # --- rate-limit back-off --------------------------------------------------------------

    def backoff_until(self, scope: str = "default") -> dt.datetime | None:
        """When requests to `scope` (an API base URL) may start again, as stored."""
        with self._lock:
            row = self._db.execute("SELECT until FROM backoff WHERE scope = ?", (scope,)).fetchone()
        return _from_epoch(row[0]) if row else None

    def set_backoff(self, until: dt.datetime, *, scope: str = "default", reason: str = "") -> None:
        with self._lock:
            self._db.execute(
                """INSERT INTO backoff (scope, until, reason) VALUES (?, ?, ?)
                   ON CONFLICT(scope) DO UPDATE SET until = excluded.until,
                       reason = excluded.reason""",
                (scope, _to_epoch(until), reason),
            )

    def clear_backoff(self, scope: str = "default") -> None:
        with self._lock:
            self._db.execute("DELETE FROM backoff WHERE scope = ?", (scope,))


def _to_epoch(value: dt.datetime | None) -> float | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.timestamp()


def _from_epoch(value: float | None) -> dt.datetime | None:
    return None if value is None else dt.datetime.fromtimestamp(value, dt.UTC)
