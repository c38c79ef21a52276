"""What `show` prints about reproducing a paper: Hub weights and data, and repo readiness.

Asked of the Hub and GitHub unless offline (the caches answer first, within their time to
live); a failure is one notice line, never an error: `show` still shows the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from digest_tui.config import AppContext
    from digest_tui.paper_view import PaperView, ReproDetails


@dataclass
class ReproView:
    details: ReproDetails
    lines: list[str] = field(default_factory=list)  # readiness, one per repo
    artifact_lines: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def repro_view(ctx: AppContext, paper: PaperView, *, offline: bool) -> ReproView:
    from digest_tui.paper_view import ReproDetails

    artifacts, artifact_notice = _artifacts(ctx, paper, offline=offline)
    weights = None if artifacts is None else bool(artifacts["models"] or artifacts["datasets"])
    readiness, readiness_notice = _readiness(ctx, paper, offline=offline)
    view = ReproView(
        ReproDetails(
            MappingProxyType(artifacts) if artifacts is not None else None,
            tuple(MappingProxyType(r.to_json(weights=weights)) for r in readiness),
        )
    )
    quiet = offline or readiness_notice is not None
    for r in readiness:
        if quiet and not r.known:
            continue  # the cause is said once, in the notice, not once per repo
        view.lines.append(f"{r.owner}/{r.name}: {r.line(weights=bool(weights))}")
    if artifacts is not None:
        for kind in ("models", "datasets", "spaces"):
            for item in artifacts[kind]:
                counts = [f"♥ {item['likes']:,}" if item["likes"] is not None else ""]
                if item["downloads"] is not None:
                    counts.append(f"↓ {item['downloads']:,}")
                shown = " ".join(c for c in counts if c)
                view.artifact_lines.append(
                    f"[{kind.rstrip('s')}] {item['url']}" + (f"  {shown}" if shown else "")
                )
    view.notices = [n for n in (artifact_notice, readiness_notice) if n]
    return view


def _artifacts(
    ctx: AppContext, paper: PaperView, *, offline: bool
) -> tuple[dict[str, Any] | None, str | None]:
    from digest_tui.errors import FetchError
    from digest_tui.ids import normalize_arxiv_id
    from digest_tui.sources.hf_artifacts import fetch_artifacts

    arxiv_id = normalize_arxiv_id(paper.arxiv_id or "")
    if arxiv_id is None:
        return None, None
    try:
        found = fetch_artifacts(arxiv_id, cache_dir=ctx.paths.cache_dir, offline=offline)
    except (FetchError, ValueError):
        what = "offline" if offline else "Hugging Face Hub not reached"
        return None, f"{what} — no cached Hub models or datasets"
    notice = "Hugging Face Hub not reached — Hub listing from the cache" if found.notes else None
    return found.to_json(), notice


def _readiness(ctx: AppContext, paper: PaperView, *, offline: bool) -> tuple[list[Any], str | None]:
    from digest_tui.repohealth import GitHubHealthClient, HealthCache
    from digest_tui.repohealth.readiness import Readiness, ReadinessClient

    repos = list(paper.github_repos.values())
    if not repos:
        return [], None
    cache = HealthCache(ctx.paths.cache_dir / "repo_health.sqlite3")
    health = GitHubHealthClient(cache)
    client = ReadinessClient(health)
    try:
        if offline:
            found = [
                client.cached(owner, name) or Readiness(owner, name, message="not checked yet")
                for owner, name in repos
            ]
            return found, "offline — readiness from the cache only"
        found = client.refresh_many(repos)
        if not client.unreachable:
            return found, None
        cached = any(r.known for r in found)
        return found, "GitHub unreachable — " + (
            "readiness from the cache" if cached else "no cached readiness"
        )
    finally:
        health.close()
        cache.close()
