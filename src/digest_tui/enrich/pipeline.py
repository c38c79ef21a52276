"""One pass of enrichment over a paper: topics, links, repos and the hardware target.

Each part is a pure function of the paper's text and of data files (taxonomy, curated repro
links, hardware catalog). The store saves the result with the `fingerprint` of that data, so a
changed taxonomy or catalog (a new release, or the user's override in the config dir) is
noticed on the next open and the affected papers are enriched again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from digest_tui.data_files import enrichment_files, fingerprint_files

if TYPE_CHECKING:  # annotations only: opening the library (every command) skips pydantic
    from digest_tui.models import Paper, Repo

# Bump when the enrichment code (any enricher: topics classifier, links, hardware, repro
# catalog) changes its output for the same data: it salts `Enricher.fingerprint`, so every
# stored paper is enriched again on the next open. Changed data files need no bump.
ENRICH_VERSION = "4"  # 4: hwfix classes (kernel code-only, simulation, variants); 3: blind3 cues

_KIND_ORDER = {"official": 0, "framework": 1, "community": 2, "mentioned": 3}
_SOURCE_ORDER = {"user": 0, "curated": 1, "hf": 2, "abstract": 3, "pwc": 4}


@dataclass(frozen=True)
class Enrichment:
    topics: list[str]
    topic_evidence: dict[str, list[dict[str, Any]]]
    links: list[dict[str, Any]]
    repos: list[dict[str, Any]]
    hardware: dict[str, Any] | None
    has_code: bool = False
    max_stars: int | None = None
    extra_repos: list[Repo] = field(default_factory=list)


def merge_repos(groups: list[list[Repo]]) -> list[Repo]:
    """Merge repos from several sources: one entry per repo, the most trusted source's view.

    Repos are the same when host, owner and name match case-insensitively; the curated entry's
    spelling wins ("nvidia/megatron-lm" in an abstract becomes "NVIDIA/Megatron-LM").
    """
    merged: dict[tuple[str, str, str], Repo] = {}
    for repo in (r for group in groups for r in group):
        key = (repo.host.lower(), (repo.owner or "").lower(), (repo.name or "").lower())
        known = merged.get(key)
        if known is None:
            merged[key] = repo
            continue
        better, worse = (
            (repo, known)
            if _SOURCE_ORDER.get(repo.source, 9) < _SOURCE_ORDER.get(known.source, 9)
            else (known, repo)
        )
        merged[key] = better.model_copy(
            update={
                "stars": better.stars if better.stars is not None else worse.stars,
                "framework": better.framework or worse.framework,
                "path": better.path or worse.path,
            }
        )
    return sorted(
        merged.values(),
        key=lambda r: (_KIND_ORDER.get(r.kind, 9), _SOURCE_ORDER.get(r.source, 9)),
    )


def _hf_repos(paper: Paper) -> list[Repo]:
    """The one GitHub repo the Hugging Face API links to a paper, as an official repo."""
    if not paper.github_repo:
        return []
    from digest_tui.enrich.links import extract_links, repos_from_links

    found = repos_from_links(extract_links(paper.github_repo))
    return [
        repo.model_copy(update={"kind": "official", "source": "hf", "stars": paper.github_stars})
        for repo in found[:1]
    ]


def enrichment_key(paper: Paper) -> tuple[Any, ...]:
    """Every field of a paper that `Enricher.enrich` reads (with no extra repos): two papers
    with the same key get the same enrichment, wherever it was computed."""
    return (
        paper.title,
        paper.abstract,
        tuple(paper.keywords),
        paper.arxiv_id,
        paper.github_repo,
        paper.github_stars,
    )


class Enricher:
    """Loads the data files once and enriches papers with them."""

    def __init__(self, config_dir: Path | None = None, *, fallback_taxonomy: bool = False) -> None:
        self.config_dir = config_dir
        # The app goes on with the built-in taxonomy when the user's is invalid (and says so:
        # `problems`); the CLI stops with the file's problem (exit 2).
        self.fallback_taxonomy = fallback_taxonomy
        # What went wrong with a user data file that was set aside, worded for the reader.
        self.problems: list[str] = []
        # Enrichment computed ahead (in other processes, enrich/parallel.py), by
        # `enrichment_key`; `enrich` takes an entry out instead of computing it again.
        self._prepared: dict[tuple[Any, ...], Enrichment] = {}

    def prepare(self, results: Iterable[tuple[tuple[Any, ...], Enrichment]]) -> None:
        """Hold enrichment computed elsewhere for papers about to be stored."""
        self._prepared.update(results)

    def discard_prepared(self) -> None:
        self._prepared.clear()

    @cached_property
    def taxonomy(self):  # type: ignore[no-untyped-def]
        from digest_tui.enrich.topics.taxonomy import load_taxonomy
        from digest_tui.errors import TaxonomyError

        try:
            return load_taxonomy(self.config_dir)
        except TaxonomyError as exc:
            if not self.fallback_taxonomy or self.config_dir is None:
                raise
            # Only the user's file can be at fault here: the packaged one is tested. Its
            # problem (FILE:LINE: ...) is kept for the app to show; enrichment goes on with
            # the built-in topics, and is redone when the file changes (the fingerprint
            # hashes its bytes).
            self.problems.append(f"{exc}. Using the built-in taxonomy until it is fixed.")
            return load_taxonomy(None)

    @cached_property
    def catalog(self):  # type: ignore[no-untyped-def]
        from digest_tui.enrich.repro_catalog import load_catalog

        return load_catalog(self.config_dir)

    @cached_property
    def hardware_catalog(self):  # type: ignore[no-untyped-def]
        from digest_tui.enrich.hardware.catalog import load_hardware_catalog

        return load_hardware_catalog(self.config_dir)

    @cached_property
    def scanner(self):  # type: ignore[no-untyped-def]
        """One literal scanner for the taxonomy's and the hardware catalog's patterns: each
        text of a paper is scanned once for both classifiers (enrich/literal_scan.py)."""
        from digest_tui.enrich.hardware.text import matchers
        from digest_tui.enrich.literal_scan import LiteralScanner

        substrings, word_starts = self.taxonomy.literals
        hardware = matchers(self.hardware_catalog).literals
        return LiteralScanner(substrings | hardware, word_starts)

    @cached_property
    def fingerprint(self) -> str:
        """What the stored enrichment was computed from: the code version and the bytes of
        every data file. Hashing bytes instead of parsed data keeps it off the start-up path
        (parsing the three sources took ~250 ms on every open, only to learn nothing changed)."""
        return fingerprint_files(enrichment_files(self.config_dir), salt=ENRICH_VERSION)

    def enrich(self, paper: Paper, extra_repos: list[Repo] | None = None) -> Enrichment:
        """Enrich one paper. `extra_repos` are repos stored for it from other sources
        (the Hugging Face API, a Papers-with-Code import, the user)."""
        if not extra_repos and self._prepared:
            prepared = self._prepared.pop(enrichment_key(paper), None)
            if prepared is not None:
                return prepared
        return self.compute(paper, extra_repos)

    def compute(self, paper: Paper, extra_repos: list[Repo] | None = None) -> Enrichment:
        """`enrich` without the prepared results: always computed here."""
        from digest_tui.enrich.hardware.suggest import suggest_hardware
        from digest_tui.enrich.links import extract_links, repos_from_links
        from digest_tui.enrich.repro_catalog import catalog_repos
        from digest_tui.enrich.topics.classifier import classify

        scanner = self.scanner
        topic_result = classify(
            self.taxonomy, paper.title, paper.abstract, paper.keywords, scanner=scanner
        )
        links = extract_links(paper.abstract)
        entry = self.catalog.lookup(paper.arxiv_id, paper.title)
        curated = catalog_repos(entry) if entry is not None else []
        repos = merge_repos(
            [
                curated,
                list(extra_repos or []),
                _hf_repos(paper),
                repos_from_links(links, paper.abstract),
            ]
        )
        tested_on = list(entry.hardware) if entry is not None else []
        hardware = suggest_hardware(
            self.hardware_catalog,
            paper.title,
            paper.abstract,
            topics=topic_result.topics,
            tested_on=tested_on,
            scanner=scanner,
        )
        code_repos = [r for r in repos if r.kind != "mentioned"]
        stars = [r.stars for r in repos if r.stars is not None]
        return Enrichment(
            topics=list(topic_result.topics),
            topic_evidence={
                topic: [ev.model_dump() for ev in evidence]
                for topic, evidence in topic_result.evidence.items()
            },
            links=[link.model_dump(exclude_none=True) for link in links],
            repos=[repo.model_dump() for repo in repos],
            hardware=hardware.to_json(),
            has_code=bool(code_repos),
            max_stars=max(stars) if stars else None,
        )
