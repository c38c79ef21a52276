"""GitHub health beside a paper's repos in `show`: figures per repo, and offline one line
(the words, shared with the app's panel, are `repohealth.format.health_lines`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from digest_tui.config import AppContext


@dataclass
class HealthView:
    """What `show` prints about the health of a paper's GitHub repos."""

    lines: dict[str, str] = field(default_factory=dict)  # repo url -> health in words
    notice: str | None = None  # one line when GitHub could not be reached


def repo_health_view(ctx: AppContext, paper: dict[str, Any], *, offline: bool) -> HealthView:
    """Health of the paper's GitHub repos: fresh from the cache, else asked of the API
    (unless `offline`); never raises for a network failure."""
    from digest_tui.repohealth import GitHubHealthClient, HealthCache
    from digest_tui.repohealth.format import github_repos, health_lines

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
            unreachable = bool(client.unreachable)
    finally:
        client.close()
        cache.close()

    lines = health_lines(results, unreachable=unreachable, offline=offline)
    return HealthView(dict(lines), lines.notice)


def _key(owner: str, name: str) -> str:
    from digest_tui.repohealth import repo_key

    return repo_key(owner, name)
