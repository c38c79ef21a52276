"""Health of the code repositories linked to papers: stars, licence, last push, archived.

I/O sits here, at the edge: the enrichers stay pure and the TUI reads `cached()` at once, then
refreshes from a worker thread with `refresh_many()`.
"""

from digest_tui.repohealth.cache import HealthCache
from digest_tui.repohealth.github import GitHubHealthClient
from digest_tui.repohealth.model import HealthStatus, RepoHealth, repo_key

__all__ = ["GitHubHealthClient", "HealthCache", "HealthStatus", "RepoHealth", "repo_key"]
