"""Cached repository health read back without pydantic (repohealth/model.py): the figures a
real cache file holds, written by this code or by the pydantic model before it, and a damaged
row that must not stop the panel."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

from digest_tui.repohealth.cache import HealthCache
from digest_tui.repohealth.model import RepoHealth

PUSHED = dt.datetime(2025, 3, 4, 5, 6, 7, tzinfo=dt.UTC)
FETCHED = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)


def test_figures_survive_the_cache(tmp_path):
    health = RepoHealth(
        owner="Org",
        name="Repo",
        status="ok",
        stars=1234,
        forks=56,
        license="Apache-2.0",
        pushed_at=PUSHED,
        archived=False,
        description="A fast kernel library",
        full_name="Org/Repo",
        fetched_at=FETCHED,
    )
    with HealthCache(tmp_path / "health.sqlite3") as cache:
        cache.put(health, etag='W/"abc"')
        back = cache.get("org", "repo")
    assert back == health


def test_a_cache_written_by_the_pydantic_model_reads_the_same(tmp_path):
    # pydantic wrote UTC as "Z"; the JSON output keeps that form.
    path = tmp_path / "health.sqlite3"
    with HealthCache(path) as cache:
        cache.put(RepoHealth(owner="o", name="r", status="ok", stars=1, fetched_at=FETCHED))
    figures = {"stars": 7, "forks": 1, "license": None, "pushed_at": "2025-03-04T05:06:07Z",
               "archived": True, "description": None, "full_name": "o/r"}  # fmt: skip
    with sqlite3.connect(path) as db:
        db.execute("UPDATE repo_health SET figures = ?", (json.dumps(figures),))
    with HealthCache(path) as cache:
        back = cache.get("o", "r")
    assert back is not None
    assert (back.stars, back.archived, back.pushed_at) == (7, True, PUSHED)
    assert back.to_json()["pushed_at"] == "2025-03-04T05:06:07Z"
    assert back.to_json()["fetched_at"] == "2026-11-27T12:00:00Z"
    assert list(back.to_json()) == [
        "owner", "name", "status", "stars", "forks", "license", "pushed_at", "archived",
        "description", "full_name", "fetched_at", "message",
    ]  # fmt: skip


def test_a_damaged_row_drops_the_bad_figures_and_keeps_the_rest(tmp_path):
    path = tmp_path / "health.sqlite3"
    with HealthCache(path) as cache:
        cache.put(RepoHealth(owner="o", name="r", status="ok", stars=1, fetched_at=FETCHED))
    figures = {"stars": "12", "forks": 3, "archived": "yes", "pushed_at": "last week",
               "license": 5, "full_name": "o/r", "unknown": [1]}  # fmt: skip
    with sqlite3.connect(path) as db:
        db.execute("UPDATE repo_health SET figures = ?", (json.dumps(figures),))
    with HealthCache(path) as cache:
        back = cache.get("o", "r")
    assert back is not None
    assert (back.stars, back.forks, back.archived, back.pushed_at, back.license) == (
        None, 3, None, None, None,
    )  # fmt: skip
    assert back.full_name == "o/r" and back.status == "ok"
