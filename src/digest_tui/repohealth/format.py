"""Repo health in words, for the side panel, `show` and `digest-tui links health`.

Offline, every repo's check fails the same way; saying that cause once per repo drowned the
paper in identical, wrapped errors. `health_lines` turns a failed connection into one notice
saying what is shown instead ("GitHub unreachable — showing health cached on DATE", or that
nothing is cached), and each repo keeps only its cached figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from digest_tui.repohealth.model import RepoHealth


def health_line(health: RepoHealth) -> str:
    if health.status == "gone":
        return "gone: the repository no longer exists"
    if not health.has_figures:
        return f"{health.status}: {health.message or 'not fetched yet'}"
    parts = [f"★ {health.stars:,}"]
    if health.forks is not None:
        parts.append(f"forks {health.forks:,}")
    parts.append(health.license or "no licence")
    if health.pushed_at is not None:
        parts.append(f"pushed {health.pushed_at:%Y-%m-%d}")
    if health.archived:
        parts.append("ARCHIVED")
    if health.status != "ok":
        parts.append(f"({health.status}{': ' + health.message if health.message else ''})")
    return " · ".join(parts)


def github_repos(paper: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """url -> (owner, name) for the paper's GitHub repos."""
    return {
        repo["url"]: (repo["owner"], repo["name"])
        for repo in paper.get("repos", [])
        if repo.get("host") == "github.com" and repo.get("owner") and repo.get("name")
    }


# HostUnreachable's message (net/session.py): the cause of a failed connection, which the
# client keeps as the repo's problem for a few minutes and then reports without retrying.
_UNREACHABLE = "cannot reach "


class HealthLines(dict[str, str]):
    """repo url -> health in words, and `notice`: one line when GitHub could not be reached
    (a dict still, so every view that only wants the lines can ignore the notice)."""

    notice: str | None = None

    def __bool__(self) -> bool:
        # Something to show: figures, or the notice alone (offline with nothing cached).
        return bool(len(self)) or self.notice is not None


def is_unreachable(health: RepoHealth) -> bool:
    """The figures are old because GitHub could not be reached (not a rate limit, say)."""
    return health.status in ("stale", "unknown", "error") and _UNREACHABLE in (health.message or "")


def health_lines(
    results: Mapping[str, RepoHealth], *, unreachable: bool = False, offline: bool = False
) -> HealthLines:
    """Words for each repo's health. When GitHub was `unreachable` (or any result says so), or
    the caller chose `offline`, the cause is said once in `notice` and each repo shows only
    the figures its cache holds."""
    if not offline:
        unreachable = unreachable or any(is_unreachable(h) for h in results.values())
    lines = HealthLines()
    cached_dates = []
    for url, health in results.items():
        if not (unreachable or offline) or health.status == "gone":
            lines[url] = health_line(health)
        elif health.has_figures:
            lines[url] = health_line(replace(health, status="ok"))
            if health.fetched_at is not None:
                cached_dates.append(health.fetched_at)
    if unreachable or offline:
        prefix = "GitHub unreachable" if unreachable else "offline"
        if cached_dates:
            lines.notice = f"{prefix} — showing health cached on {min(cached_dates):%Y-%m-%d}"
        else:
            lines.notice = f"{prefix} — no cached health"
    return lines
