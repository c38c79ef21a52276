"""Readiness of many repositories at once (`digest-tui links readiness`): the repos of the
newest papers, checked with the client's rules (cache and ETags, the rate-limit back-off, the
first connection failure stopping the batch), summed up in one outcome the CLI can report in
a line instead of one identical complaint per repo."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from digest_tui.repohealth.readiness import Readiness, ReadinessClient

# The message `ReadinessClient` gives a repo it did not ask about because of the back-off.
RATE_LIMITED = "GitHub rate limit reached"


@dataclass(frozen=True)
class BulkReadiness:
    results: tuple[Readiness, ...]
    unreachable: str | None = None  # the connection failure that stopped the batch
    rate_limited: str | None = None  # "GitHub rate limit reached; retrying after HH:MM UTC"
    offline: bool = False

    @property
    def known(self) -> int:
        return sum(r.known for r in self.results)

    @property
    def runnable(self) -> int:
        return sum(r.known and r.runnable for r in self.results)

    @property
    def not_checked(self) -> int:
        """Repos left without labels confirmed now (rate limit, unreachable, errors)."""
        return sum(r.status not in ("ok", "gone") for r in self.results)

    @property
    def shown(self) -> tuple[Readiness, ...]:
        """The results worth a line: after the batch stopped (rate limit, unreachable), only
        the repos with labels; the others would all repeat the one reason."""
        if not (self.unreachable or self.rate_limited):
            return self.results
        return tuple(r for r in self.results if r.known or r.status == "gone")

    def summary(self) -> str:
        where = "from the cache" if self.offline else "checked"
        return (
            f"{len(self.results)} repos {where}: {self.runnable} runnable, "
            f"{self.known} with labels, {self.not_checked} without fresh labels"
        )


def distinct(repos: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each repo once (GitHub names are case-insensitive), first occurrence first."""
    seen: dict[str, tuple[str, str]] = {}
    for owner, name in repos:
        seen.setdefault(f"{owner.lower()}/{name.lower()}", (owner, name))
    return list(seen.values())


def check_many(
    client: ReadinessClient,
    repos: Sequence[tuple[str, str]],
    *,
    offline: bool = False,
    cancel: threading.Event | None = None,
) -> BulkReadiness:
    """Readiness of `repos` in order: from the cache only (`offline`), else asked of GitHub
    where the cache is older than its time to live."""
    repos = distinct(repos)
    if offline:
        found = tuple(
            client.cached(owner, name) or Readiness(owner, name, message="not checked yet")
            for owner, name in repos
        )
        return BulkReadiness(found, offline=True)
    results = tuple(client.refresh_many(repos, cancel=cancel))
    limited = next(
        (r.message for r in results if r.message and r.message.startswith(RATE_LIMITED)), None
    )
    return BulkReadiness(results, unreachable=client.unreachable, rate_limited=limited)
