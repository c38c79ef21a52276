"""The health of one code repository as the app shows it beside a paper."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict

# ok: figures confirmed by the API within the time to live.
# stale: figures from the cache that could not be re-checked (too old, rate limit, offline).
# gone: the API says the repository does not exist any more (404/410).
# error: the last check failed (timeout, bad answer); cached figures, if any, are still filled.
# unknown: never fetched and cannot be fetched now.
HealthStatus = Literal["ok", "stale", "gone", "error", "unknown"]


class RepoHealth(BaseModel):
    model_config = ConfigDict(extra="forbid")

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


def repo_key(owner: str, name: str) -> str:
    """GitHub owner and repo names are case-insensitive: one key per repository."""
    return f"{owner.lower()}/{name.lower()}"
