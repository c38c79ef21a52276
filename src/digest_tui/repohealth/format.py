"""Repo health in words, for the side panel and `digest-tui links health`."""

from __future__ import annotations

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
