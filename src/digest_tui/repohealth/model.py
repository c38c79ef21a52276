"""The health of one code repository as the app shows it beside a paper.

A plain dataclass, not a pydantic model: reading cached health (`show`, the side panel) must
not pay for importing pydantic (~50-100 ms of a command). What comes from outside is checked
where it enters: the GitHub answer by `github_payload.py`, the cache's stored figures by
`RepoHealth.from_figures`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

# ok: figures confirmed by the API within the time to live.
# stale: figures from the cache that could not be re-checked (too old, rate limit, offline).
# gone: the API says the repository does not exist any more (404/410).
# error: the last check failed (timeout, bad answer); cached figures, if any, are still filled.
# unknown: never fetched and cannot be fetched now.
HealthStatus = Literal["ok", "stale", "gone", "error", "unknown"]

# The figures the cache stores for a repository, by the type each must have.
FIGURES: dict[str, type] = {
    "stars": int,
    "forks": int,
    "license": str,
    "pushed_at": dt.datetime,
    "archived": bool,
    "description": str,
    "full_name": str,
}


@dataclass
class RepoHealth:
    owner: str
    name: str
    status: HealthStatus = "unknown"
    stars: int | None = None
    forks: int | None = None
    license: str | None = None  # SPDX id as GitHub reports it; "NOASSERTION" = unrecognised
    pushed_at: dt.datetime | None = None
    archived: bool | None = None
    description: str | None = None
    full_name: str | None = None  # the canonical "Owner/Name" spelling from the API
    fetched_at: dt.datetime | None = None  # when the API last confirmed these figures
    message: str | None = None  # why the status is not "ok", in words for the user

    @property
    def key(self) -> str:
        return repo_key(self.owner, self.name)

    @property
    def has_figures(self) -> bool:
        return self.stars is not None

    def to_json(self) -> dict[str, Any]:
        """Every field in JSON types, datetimes in ISO 8601 with "Z" for UTC (`links health
        --format json`; the same text pydantic wrote when this was a model)."""
        return {f.name: _json_value(getattr(self, f.name)) for f in fields(self)}

    def figures_json(self) -> dict[str, Any]:
        """The figures as the cache stores them (JSON types; `pushed_at` in ISO 8601)."""
        return {name: _json_value(getattr(self, name)) for name in FIGURES}

    @classmethod
    def from_figures(
        cls,
        owner: str,
        name: str,
        figures: Mapping[str, Any],
        *,
        status: HealthStatus,
        fetched_at: dt.datetime | None,
        message: str | None,
    ) -> RepoHealth:
        """Stored figures back as a RepoHealth. A figure of the wrong type (a damaged or
        hand-edited cache) is left out rather than shown: the cache is only a cache."""
        kept: dict[str, Any] = {}
        for key, kind in FIGURES.items():
            value = figures.get(key)
            if value is None:
                continue
            if kind is dt.datetime:
                value = _datetime(value)
            elif kind is int:
                value = value if isinstance(value, int) and not isinstance(value, bool) else None
            elif not isinstance(value, kind):
                value = None
            if value is not None:
                kept[key] = value
        return cls(
            owner=owner, name=name, status=status, fetched_at=fetched_at, message=message, **kept
        )


def _json_value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


def _datetime(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=dt.UTC)


def repo_key(owner: str, name: str) -> str:
    """GitHub owner and repo names are case-insensitive: one key per repository."""
    return f"{owner.lower()}/{name.lower()}"
