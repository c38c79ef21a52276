"""GitHub health beside a paper's repos in `show`: figures per repo, and offline one line.

Offline, every repo's check fails the same way; printing that cause once per repo drowned
the paper in identical, wrapped errors. Here a failed connection becomes one notice saying
what is shown instead ("GitHub unreachable — showing health cached on DATE", or that nothing
is cached), and each repo shows only its cached figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from digest_tui.config import AppContext


# HostUnreachable's message (net/session.py): the cause of a failed connection, which the
# client keeps as the repo's problem for a few minutes and then reports without retrying.
_UNREACHABLE = "cannot reach "


@dataclass
class HealthView:
    """What `show` prints about the health of a paper's GitHub repos."""

    lines: dict[str, str] = field(default_factory=dict)  # repo url -> health in words
    notice: str | None = None  # one line when GitHub could not be reached


def repo_health_view(ctx: AppContext, paper: dict[str, Any], *, offline: bool) -> HealthView:
    """Health of the paper's GitHub repos: fresh from the cache, else asked of the API
    (unless `offline`); never raises for a network failure."""
    from digest_tui.repohealth import GitHubHealthClient, HealthCache
    from digest_tui.repohealth.format import github_repos, health_line

    repos = github_repos(paper)
    if not repos:
        return HealthView()
    cache = HealthCache(ctx.paths.cache_dir / "repo_health.sqlite3")
    client = GitHubHealthClient(cache)
    try:
        if offline:
            found = [client.cached(owner, name) for owner, name in repos.values()]
            results = {key: h for key, h in zip(repos, found, strict=True) if h is not None}
            unreachable = False
        else:
            healths = client.refresh_many(list(repos.values()))
            by_key = {h.key: h for h in healths}
            results = {url: by_key[_key(*pair)] for url, pair in repos.items()}
            unreachable = bool(client.unreachable) or any(
                h.status in ("stale", "unknown") and _UNREACHABLE in (h.message or "")
                for h in results.values()
            )
    finally:
        client.close()
        cache.close()

    view = HealthView()
    cached_dates = []
    for url, health in results.items():
        if unreachable or offline:
            # Only what the cache holds: the cause is said once, in the notice.
            if health.status == "gone":
                view.lines[url] = health_line(health)
            elif health.has_figures:
                view.lines[url] = health_line(health.model_copy(update={"status": "ok"}))
                if health.fetched_at is not None:
                    cached_dates.append(health.fetched_at)
        else:
            view.lines[url] = health_line(health)
    if unreachable or offline:
        prefix = "GitHub unreachable" if unreachable else "offline"
        if cached_dates:
            view.notice = f"{prefix} — showing health cached on {min(cached_dates):%Y-%m-%d}"
        else:
            view.notice = f"{prefix} — no cached health"
    return view


def _key(owner: str, name: str) -> str:
    from digest_tui.repohealth import repo_key

    return repo_key(owner, name)
