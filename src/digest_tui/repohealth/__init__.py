"""Health of the code repositories linked to papers: stars, licence, last push, archived.

I/O sits here, at the edge: the enrichers stay pure and the TUI reads `cached()` at once, then
refreshes from a worker thread with `refresh_many()`.

The names below load on first use (PEP 562): `readiness_signals`, which the readiness filter
and sorts read (store/repro_sql.py), must not pull the health client and cache in with it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from digest_tui.repohealth.cache import HealthCache
    from digest_tui.repohealth.github import GitHubHealthClient
    from digest_tui.repohealth.model import HealthStatus, RepoHealth, repo_key

__all__ = ["GitHubHealthClient", "HealthCache", "HealthStatus", "RepoHealth", "repo_key"]

_HOMES = {
    "GitHubHealthClient": "github",
    "HealthCache": "cache",
    "HealthStatus": "model",
    "RepoHealth": "model",
    "repo_key": "model",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
