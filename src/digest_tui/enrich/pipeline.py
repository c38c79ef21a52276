"""One pass of enrichment over a paper: topics, links, repos and the hardware target.

Each part is a pure function of the paper's text and of data files (taxonomy, curated repro
links, hardware catalog). The store saves the result with the `fingerprint` of that data, so a
changed taxonomy or catalog (a new release, or the user's override in the config dir) is
noticed on the next open and the affected papers are enriched again.

The fingerprint has one part per component (topics, links, hardware), each a hash of only the
data files that component reads, so a changed taxonomy re-runs the topic classifier and
leaves links and hardware as stored (`stale_components`, `compute_parts`). The hardware target
reads the paper's topics ("kernels"), so it is re-run too for a paper whose topics changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from digest_tui.data_files import (
    DATA_DIR,
    HARDWARE_FILE,
    TAXONOMY_FILE,
    TOPIC_MODEL_FILE,
    fingerprint_files,
    repro_files,
)

if TYPE_CHECKING:  # annotations only: opening the library (every command) skips pydantic
    from digest_tui.models import Paper, Repo

# Bump when the enrichment code (any enricher: topics classifier, links, hardware, repro
# catalog) changes its output for the same data: it salts `Enricher.fingerprint`, so every
# stored paper is enriched again on the next open. Changed data files need no bump.
ENRICH_VERSION = "4"  # 4: hwfix classes (kernel code-only, simulation, variants); 3: blind3 cues
# Bump one of these instead when only that component's code changes its output: only that
# component is re-run on the stored papers.
# hardware 2: the fourth-split classes (counts in K, multi-node cues, pre-training compute);
# 3 and topics 2: the fifth-split classes; hardware 4: space-grouped counts ("16 384 GPUs");
# hardware 10: the twelfth round (cue plurals, kernel methods, chip designs, parallel systems);
# hardware 11: the thirteenth round (NVLink-C2C, on-device memory, "on GPU"); 12: the
# fourteenth (own names like a system, counts of listed kinds, no real hardware); 13: comma-
# grouped counts glued to their unit ("a 4,000-GPU cluster"); 14: "geographically distributed",
# on-device layouts; 15: CPUs of a named instruction set ("on x86 CPUs"); 16: no memory
# requirement above the stated setup's capacity (offloading papers). topics 6: the learned
# reader (enrich/topics/learned.py) may add a topic the rules did not reach. hardware 23: the
# twenty-sixth to twenty-eighth rounds (a comparison's "existing", devices compared to, the
# semicolon, models' case_sensitive honoured; cues compared to, clusters of a named node; the
# phone class said otherwise). hardware 24: the twenty-ninth and thirtieth rounds (a count of
# machines with a plain adjective between, "14 concurrent nodes"; a GPU generation between the
# count and the model, "128 NVIDIA Pascal P100 GPUs"). hardware 25: the thirty-first and
# thirty-second rounds ("For example, ..." after the paper's own claim; "over 280 experiments" is
# no comparison; the GPU that fails, or that cannot hold the model, is not the setup; a small
# model trained across workers; an evaluation's "such as" list is its own; evaluations on
# machines are a real run).
# topics 7: the learned reader's evidence says so ("by": "reader"), for the panel and `show`.
COMPONENT_VERSIONS = {"topics": "7", "links": "1", "hardware": "25"}

TOPICS, LINKS, HARDWARE = "topics", "links", "hardware"
COMPONENTS = (TOPICS, LINKS, HARDWARE)
# How each component's part is tagged in the stored fingerprint: "t…-l…-h…" (letters that are
# not hex digits, so the single hash stored before parts existed parses as none of them).
_TAGS = {TOPICS: "t", LINKS: "l", HARDWARE: "h"}

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


# The fields of `Enrichment` that are stored, each in a column of its name.
ENRICHMENT_FIELDS = (
    "topics",
    "topic_evidence",
    "links",
    "repos",
    "hardware",
    "has_code",
    "max_stars",
)
# One encoder for every JSON column: `json.dumps` with options builds a new one per call.
_encode_json = json.JSONEncoder(ensure_ascii=False).encode
_encode_ascii = json.JSONEncoder().encode


def encode_columns(fields: dict[str, Any]) -> dict[str, Any]:
    """Enrichment fields (all of `Enrichment`'s, or some) as the column values that store
    them. Done where the enrichment is computed (a worker process sends these strings, 30x
    cheaper to unpickle than the nested lists and dicts)."""
    columns: dict[str, Any] = {}
    for name, value in fields.items():
        if name == "has_code":
            columns[name] = int(value)
        elif name == "max_stars" or value is None:
            columns[name] = value
        elif name == "topics":
            columns[name] = _encode_ascii(value)
        else:
            columns[name] = _encode_json(value)
    return columns


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


def component_files(config_dir: Path | None) -> dict[str, list[Path]]:
    """The data files each component reads. Links and repos read the curated catalog; the
    hardware target reads the hardware catalog and the devices the curated catalog says a
    paper was tested on; topics read the taxonomy alone."""
    repro = repro_files(config_dir)
    user = [Path(config_dir)] if config_dir is not None else []
    return {
        TOPICS: [DATA_DIR / TAXONOMY_FILE, *(d / TAXONOMY_FILE for d in user)],
        LINKS: repro,
        HARDWARE: [DATA_DIR / HARDWARE_FILE, *(d / HARDWARE_FILE for d in user), *repro],
    }


def fingerprint_parts(fingerprint: str | None) -> dict[str, str]:
    """The per-component parts of a stored fingerprint, by component; {} for none (never
    enriched) and for the single hash stored before components had parts of their own."""
    found = {item[:1]: item[1:] for item in (fingerprint or "").split("-") if item}
    return {name: found[tag] for name, tag in _TAGS.items() if tag in found}


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


def _salt(component: str) -> str:
    """What salts a component's fingerprint: the code versions that computed it, and for the
    topics the learned reader's packaged weights (retraining them classifies stored papers
    again; they are data, but no user edits them, so they salt rather than join the files)."""
    salt = f"{ENRICH_VERSION}/{component}/{COMPONENT_VERSIONS[component]}"
    return f"{salt}/{_learned_digest()}" if component == TOPICS else salt


@cache
def _learned_digest() -> str:
    # The bytes, not the parsed model: this runs on every open (~0.2 ms for ~190 KB).
    return hashlib.sha256((DATA_DIR / TOPIC_MODEL_FILE).read_bytes()).hexdigest()[:16]


class Enricher:
    """Loads the data files once and enriches papers with them."""

    def __init__(self, config_dir: Path | None = None, *, fallback_taxonomy: bool = False) -> None:
        self.config_dir = config_dir
        # The app goes on with the built-in taxonomy when the user's is invalid (and says so:
        # `problems`); the CLI stops with the file's problem (exit 2).
        self.fallback_taxonomy = fallback_taxonomy
        # What went wrong with a user data file that was set aside, worded for the reader.
        self.problems: list[str] = []
        # Enrichment computed ahead (in other processes, enrich/parallel.py) as its encoded
        # columns, by `enrichment_key`; `columns` takes an entry out instead of computing it.
        self._prepared: dict[tuple[Any, ...], dict[str, Any]] = {}

    def prepare(self, results: Iterable[tuple[tuple[Any, ...], dict[str, Any]]]) -> None:
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

    def load(self) -> None:
        """Load the data files and compile their patterns now instead of on first use (a
        worker process does it before its first task)."""
        from digest_tui.enrich.hardware.text import matchers

        self.taxonomy  # noqa: B018
        self.catalog  # noqa: B018
        matchers(self.hardware_catalog)

    @cached_property
    def component_fingerprints(self) -> dict[str, str]:
        """Per component: a hash of the code versions and the bytes of the data files it
        reads. Hashing bytes instead of parsed data keeps it off the start-up path (parsing
        the three sources took ~250 ms on every open, only to learn nothing changed)."""
        files = component_files(self.config_dir)
        return {name: fingerprint_files(files[name], salt=_salt(name)) for name in COMPONENTS}

    @cached_property
    def fingerprint(self) -> str:
        """What the stored enrichment was computed from, one part per component
        ("t…-l…-h…"): equal to a stored one iff nothing needs computing again."""
        parts = self.component_fingerprints
        return "-".join(f"{_TAGS[name]}{parts[name]}" for name in COMPONENTS)

    def stale_components(self, stored: str | None) -> frozenset[str]:
        """The components whose stored result (under fingerprint `stored`) is out of date."""
        if stored == self.fingerprint:
            return frozenset()
        known = fingerprint_parts(stored)
        current = self.component_fingerprints
        return frozenset(name for name in COMPONENTS if known.get(name) != current[name])

    def taxonomy_snapshot(self) -> tuple[str, str] | None:
        """(the topics fingerprint, a snapshot of the taxonomy files) for the library to keep
        beside papers enriched now; None when the files changed since the fingerprint was
        taken (the snapshot would not be what those papers were classified with)."""
        from digest_tui.enrich.topics.snapshot import take_snapshot

        key, text = take_snapshot(component_files(self.config_dir)[TOPICS], _salt(TOPICS))
        return (key, text) if key == self.component_fingerprints[TOPICS] else None

    def topic_delta(self, key: str, snapshot: str):  # type: ignore[no-untyped-def]
        """What changed from the taxonomy of `snapshot` (stored under the topics fingerprint
        `key`) to the current one (`enrich.topics.delta.TopicDelta`), or None when every paper
        must be classified again (another code version, an unreadable snapshot, a change the
        delta cannot reason about)."""
        from digest_tui.enrich.topics.delta import topic_delta
        from digest_tui.enrich.topics.snapshot import snapshot_texts
        from digest_tui.enrich.topics.taxonomy import taxonomy_definitions
        from digest_tui.errors import TaxonomyError

        texts = snapshot_texts(snapshot, key, _salt(TOPICS))
        if texts is None:
            return None
        packaged, user = texts
        try:
            topics, scoring, _ = taxonomy_definitions(user, None, packaged)
        except TaxonomyError:
            if user is None:
                return None
            # Stored topics computed under a user file that does not load were computed
            # with the built-in taxonomy (the app's fallback; the CLI refuses to enrich).
            try:
                topics, scoring, _ = taxonomy_definitions(None, None, packaged)
            except TaxonomyError:
                return None
        return topic_delta(topics, scoring, self.taxonomy)

    def enrich(self, paper: Paper, extra_repos: list[Repo] | None = None) -> Enrichment:
        """Enrich one paper. `extra_repos` are repos stored for it from other sources
        (the Hugging Face API, a Papers-with-Code import, the user)."""
        return Enrichment(**self.compute_parts(paper, extra_repos, frozenset(COMPONENTS)))

    def columns(self, paper: Paper, extra_repos: list[Repo] | None = None) -> dict[str, Any]:
        """`enrich`'s result as the columns that store it (`encode_columns`): the prepared
        ones when they were computed ahead for this paper."""
        if not extra_repos and self._prepared:
            prepared = self._prepared.pop(enrichment_key(paper), None)
            if prepared is not None:
                return prepared
        result = self.enrich(paper, extra_repos)
        return encode_columns({name: getattr(result, name) for name in ENRICHMENT_FIELDS})

    def compute_parts(
        self,
        paper: Paper,
        extra_repos: list[Repo] | None,
        components: frozenset[str],
        stored_topics: list[str] | None = None,
    ) -> dict[str, Any]:
        """The fields of `Enrichment` that `components` produce, computed as `enrich` would.

        `stored_topics` are the paper's topics as stored, read by the hardware target when
        the topics are not re-run. When they are re-run and come out different from
        `stored_topics`, the hardware target is re-run too (it reads them): then the result
        holds "hardware" although `components` did not name it."""
        fields: dict[str, Any] = {}
        topics = stored_topics or []
        if TOPICS in components:
            topic_result = self._classify(paper)
            topics = list(topic_result.topics)
            fields["topics"] = topics
            fields["topic_evidence"] = topic_result.evidence
            if topics != (stored_topics or []):
                components = components | {HARDWARE}
        entry: Any = None  # the curated catalog's entry (repro_catalog.CatalogEntry)
        if LINKS in components or HARDWARE in components:
            entry = self.catalog.lookup(paper.arxiv_id, paper.title)
        if LINKS in components:
            fields.update(self._links(paper, extra_repos, entry))
        if HARDWARE in components:
            fields["hardware"] = self._hardware(paper, topics, entry)
        return fields

    def _classify(self, paper: Paper):  # type: ignore[no-untyped-def]
        """The paper's topics and their evidence as stored (`classify_stored`)."""
        from digest_tui.enrich.topics.classifier import classify_stored

        return classify_stored(self.taxonomy, paper.title, paper.abstract, paper.keywords)

    def _links(self, paper: Paper, extra_repos: list[Repo] | None, entry: Any) -> dict[str, Any]:
        from digest_tui.enrich.links import extract_links, repos_from_links
        from digest_tui.enrich.repro_catalog import catalog_repos

        links = extract_links(paper.abstract)
        curated = catalog_repos(entry) if entry is not None else []
        repos = merge_repos(
            [
                curated,
                list(extra_repos or []),
                _hf_repos(paper),
                repos_from_links(links, paper.abstract),
            ]
        )
        code_repos = [r for r in repos if r.kind != "mentioned"]
        stars = [r.stars for r in repos if r.stars is not None]
        return {
            "links": [link.model_dump(exclude_none=True) for link in links],
            "repos": [repo.model_dump() for repo in repos],
            "has_code": bool(code_repos),
            "max_stars": max(stars) if stars else None,
        }

    def _hardware(self, paper: Paper, topics: list[str], entry: Any) -> dict[str, Any] | None:
        from digest_tui.enrich.hardware.suggest import suggest_hardware

        tested_on = list(entry.hardware) if entry is not None else []
        hardware = suggest_hardware(
            self.hardware_catalog,
            paper.title,
            paper.abstract,
            topics=topics,
            tested_on=tested_on,
        )
        result: dict[str, Any] | None = hardware.to_json()
        return result
