"""The fields we use of GitHub's repository object, checked strictly so a changed shape is
noticed. Its own module so that reading cached health never imports pydantic: only a fresh
answer from the API is validated (`github.py` imports this when one arrives)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr, ValidationError

__all__ = ["RepoPayload", "ValidationError"]


class _License(BaseModel):
    model_config = ConfigDict(extra="ignore")
    spdx_id: StrictStr | None = None


class RepoPayload(BaseModel):
    """`GET /repos/{owner}/{name}`: stars, forks, archived, last push, licence, description."""

    model_config = ConfigDict(extra="ignore")
    full_name: StrictStr | None = None
    description: StrictStr | None = None
    stargazers_count: StrictInt
    forks_count: StrictInt
    archived: StrictBool
    pushed_at: dt.datetime | None = None
    license: _License | None = None
