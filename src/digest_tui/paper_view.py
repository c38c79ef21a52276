"""A paper as the views see it: a frozen, typed record built once from a stored row.

The app's panel, the repo-health lookup and the "open paper" URL read attributes of a
`PaperView`; the JSON contract (docs/user-guide.md, `papers`/`show --format json`) is its
`to_json()`, which keeps the keys, their order and their values exactly as the contract fixed
them. Nested enrichment that keeps growing (the hardware suggestion) stays a read-only mapping:
enrich/ owns its shape, and the contract passes it through unchanged.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from digest_tui.config import Machine
    from digest_tui.store.library import Library


# What the panel and `show` print after a topic only the learned reader decided.
READER_MARK = "(learned reader)"


def decided_by_reader(by_values: Sequence[str | None]) -> bool:
    """Whether a topic's evidence is all the learned reader's (`TopicMatch.by` of each item, or
    the stored/JSON "by" key, absent for a rule's evidence): no rule decided it."""
    return bool(by_values) and all(by == "reader" for by in by_values)


@dataclass(frozen=True)
class TopicMatch:
    """One phrase that put the paper in a topic; start/end index the stored field's text."""

    phrase: str
    field: str  # title | abstract | keywords
    start: int
    end: int
    by: str = "rules"  # "reader": the learned reader's words (models.TopicEvidence.by)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "phrase": self.phrase,
            "field": self.field,
            "start": self.start,
            "end": self.end,
        }
        if self.by == "reader":
            out["by"] = "reader"
        return out


@dataclass(frozen=True)
class RepoRef:
    """A code repository linked to the paper (models.Repo as stored)."""

    url: str
    host: str
    owner: str | None
    name: str | None
    path: str | None
    kind: str  # official | community | framework | mentioned
    source: str  # abstract | curated | hf | user | pwc
    framework: str | None
    notes: str | None
    stars: int | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RepoRef:
        return cls(
            url=data["url"],
            host=data["host"],
            owner=data.get("owner"),
            name=data.get("name"),
            path=data.get("path"),
            kind=data.get("kind", "official"),
            source=data.get("source", "abstract"),
            framework=data.get("framework"),
            notes=data.get("notes"),
            stars=data.get("stars"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "host": self.host,
            "owner": self.owner,
            "name": self.name,
            "path": self.path,
            "kind": self.kind,
            "source": self.source,
            "framework": self.framework,
            "notes": self.notes,
            "stars": self.stars,
        }

    @property
    def github(self) -> tuple[str, str] | None:
        """(owner, name) when this is a GitHub repository health can be asked about."""
        if self.host == "github.com" and self.owner and self.name:
            return self.owner, self.name
        return None


@dataclass(frozen=True)
class LinkRef:
    """A URL found in the paper's text. Stored without its empty parts (owner, name, path),
    and the contract prints it the same way."""

    url: str
    host: str
    kind: str
    owner: str | None = None
    name: str | None = None
    path: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LinkRef:
        return cls(
            url=data["url"],
            host=data["host"],
            kind=data["kind"],
            owner=data.get("owner"),
            name=data.get("name"),
            path=data.get("path"),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url, "host": self.host, "kind": self.kind}
        for key in ("owner", "name", "path"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class NoteConflict:
    """A version of the note edited concurrently on another machine."""

    version: str
    device: str
    created_at: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "device": self.device,
            "created_at": self.created_at,
            "text": self.text,
        }


@dataclass(frozen=True)
class MachineFit:
    """Whether the paper's hardware fits one of the user's machines (None: cannot tell)."""

    name: str
    fits: bool | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "fits": self.fits, "reason": self.reason}


@dataclass(frozen=True)
class ReproDetails:
    """What `show` adds from the caches and APIs beside the library (docs/readiness.md,
    docs/artifacts.md): the Hub repos citing the paper, and each GitHub repo's readiness."""

    # {"models": [...], "datasets": [...], "spaces": [...]}; None: not known (no arXiv id,
    # or the Hub could be reached neither online nor from the cache).
    artifacts: Mapping[str, Any] | None
    readiness: tuple[Mapping[str, Any], ...]  # one item per GitHub repo, in repo order

    def to_json(self) -> dict[str, Any]:
        return {
            "artifacts": _thaw(self.artifacts) if self.artifacts is not None else None,
            "readiness": [_thaw(item) for item in self.readiness],
        }


@dataclass(frozen=True)
class PaperView:
    """Everything a view shows about one paper, with the user's state."""

    id: str
    title: str
    abstract: str
    published: str | None
    upvotes: int | None
    topics: tuple[str, ...]
    topic_evidence: Mapping[str, tuple[TopicMatch, ...]]
    repos: tuple[RepoRef, ...]
    hardware: Mapping[str, Any] | None
    bookmarked: bool
    tags: tuple[str, ...]
    read: bool
    arxiv_id: str | None
    links: tuple[LinkRef, ...]
    authors_count: int | None
    authors: tuple[str, ...]
    organization: str | None
    organization_name: str | None
    keywords: tuple[str, ...]
    project_page: str | None
    withdrawn: bool
    digests: tuple[str, ...]
    source: str
    note: str | None
    note_conflicts: tuple[NoteConflict, ...]
    lists: tuple[str, ...]
    # None: no machines configured (or no hardware), and the contract leaves the key out.
    machine_fit: tuple[MachineFit, ...] | None = None
    # arXiv categories, the primary one first; empty for papers no arXiv listing gave.
    categories: tuple[str, ...] = ()
    # Only `show` fills it (network or caches beyond the library); None leaves both keys out.
    repro: ReproDetails | None = None
    # The date of the first digest (or import) that listed it: what the app shows for an
    # undated paper, as the list does (ListRow.listed). Not in the JSON contract.
    listed: str | None = None

    @property
    def github_repos(self) -> dict[str, tuple[str, str]]:
        """url -> (owner, name) for the paper's GitHub repos."""
        return {repo.url: gh for repo in self.repos if (gh := repo.github) is not None}

    @property
    def page_url(self) -> str:
        """Where the paper's own page is (arXiv, else its project page, else a search)."""
        from digest_tui.paper_urls import page_url

        return page_url(self.arxiv_id, self.project_page, self.title)

    def to_json(self) -> dict[str, Any]:
        """The paper object of the JSON contract."""
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "abstract": self.abstract,
            "published": self.published,
            "upvotes": self.upvotes,
            "topics": list(self.topics),
            "topic_evidence": {
                topic: [match.to_json() for match in matches]
                for topic, matches in self.topic_evidence.items()
            },
            "repos": [repo.to_json() for repo in self.repos],
            "hardware": _thaw(self.hardware) if self.hardware is not None else None,
            "bookmarked": self.bookmarked,
            "tags": list(self.tags),
            "read": self.read,
            "arxiv_id": self.arxiv_id,
            "links": [link.to_json() for link in self.links],
            "authors_count": self.authors_count,
            "authors": list(self.authors),
            "organization": self.organization,
            "organization_name": self.organization_name,
            "keywords": list(self.keywords),
            "categories": list(self.categories),
            "project_page": self.project_page,
            "withdrawn": self.withdrawn,
            "digests": list(self.digests),
            "source": self.source,
            "note": self.note,
            "note_conflicts": [c.to_json() for c in self.note_conflicts],
            "lists": list(self.lists),
        }
        if self.machine_fit is not None:
            out["machine_fit"] = [fit.to_json() for fit in self.machine_fit]
        if self.repro is not None:
            out.update(self.repro.to_json())
        return out


# JSON scalars: returned as they are, recognised by exact type before any (slow) ABC check;
# the hardware mapping is frozen and thawed once per paper, ~45 values each (jsonl of 100k).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _thaw(value: Any) -> Any:
    """A plain JSON value (dicts and lists) from the read-only copy kept in the view."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is MappingProxyType or kind is dict or isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    if kind is tuple or kind is list or isinstance(value, tuple | list):
        return [_thaw(item) for item in value]
    return value


def _freeze(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict or isinstance(value, Mapping):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if kind is list or isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


def paper_view(
    library: Library,
    row: sqlite3.Row,
    machines: Sequence[Machine] = (),
    *,
    state: Mapping[str, Any] | None = None,
    digests: Sequence[str] | None = None,
) -> PaperView:
    """The view of a stored row; with `machines` (config `machines:`), whether each fits.

    `state` and `digests`, when given, were read for many papers at once
    (store/paper_batch.py) and spare the per-paper queries."""
    rowid = int(row["rowid"])
    if state is None:
        state = library.user_state(rowid)
    if digests is None:
        digests = library.digests_of(rowid)
    evidence = json.loads(row["topic_evidence"])
    hardware = json.loads(row["hardware"]) if row["hardware"] else None
    fits: tuple[MachineFit, ...] | None = None
    if machines and hardware is not None and library.enricher is not None:
        fits = tuple(_machine_fit_of_row(library, row, hardware, machines))
    return PaperView(
        id=row["id"],
        title=row["title"],
        abstract=row["abstract"],
        published=row["published"],
        upvotes=row["upvotes"],
        topics=tuple(json.loads(row["topics"])),
        topic_evidence=MappingProxyType(
            {
                topic: tuple(TopicMatch(**match) for match in matches)
                for topic, matches in evidence.items()
            }
        ),
        repos=tuple(RepoRef.from_json(repo) for repo in json.loads(row["repos"])),
        hardware=_freeze(hardware) if hardware is not None else None,
        bookmarked=state["bookmarked"],
        tags=tuple(state["tags"]),
        read=state["read"],
        arxiv_id=row["arxiv_id"],
        links=tuple(LinkRef.from_json(link) for link in json.loads(row["links"])),
        authors_count=row["authors_count"],
        authors=tuple(json.loads(row["authors"])),
        organization=row["organization"],
        organization_name=row["organization_name"],
        keywords=tuple(json.loads(row["keywords"])),
        project_page=row["project_page"],
        withdrawn=bool(row["withdrawn"]),
        digests=tuple(digests),
        source=row["source"],
        note=state.get("note"),
        note_conflicts=tuple(NoteConflict(**c) for c in state.get("note_conflicts", [])),
        lists=tuple(state.get("lists", [])),
        machine_fit=fits,
        categories=tuple(json.loads(row["categories"])),
        listed=row["first_seen"],
    )


def paper_json(
    library: Library,
    row: sqlite3.Row,
    machines: Sequence[Machine] = (),
    *,
    state: Mapping[str, Any],
    digests: Sequence[str],
) -> dict[str, Any]:
    """Exactly `paper_view(library, row, machines, state=..., digests=...).to_json()`, built
    straight from the row's JSON columns for bulk output (`papers --format jsonl` of 100,000
    papers): no frozen view, no freeze/thaw round trip of the hardware mapping. Same keys in the
    same order with the same values; tests/unit/test_paper_json_fast.py compares both on every
    fixture paper and a synthetic library. A change to the contract goes in both places."""
    # The eight JSON columns (all written by the store) parsed in one call, not eight.
    topics, evidence, repos, links, authors, keywords, categories, hardware = json.loads(
        "["
        + ",".join(
            (
                row["topics"],
                row["topic_evidence"],
                row["repos"],
                row["links"],
                row["authors"],
                row["keywords"],
                row["categories"],
                row["hardware"] or "null",
            )
        )
        + "]"
    )
    out: dict[str, Any] = {
        "id": row["id"],
        "title": row["title"],
        "abstract": row["abstract"],
        "published": row["published"],
        "upvotes": row["upvotes"],
        "topics": topics,
        "topic_evidence": evidence_json(evidence),
        "repos": [repo_json(repo) for repo in repos],
        "hardware": hardware,
        "bookmarked": state["bookmarked"],
        "tags": list(state["tags"]),
        "read": state["read"],
        "arxiv_id": row["arxiv_id"],
        "links": [link_json(link) for link in links],
        "authors_count": row["authors_count"],
        "authors": authors,
        "organization": row["organization"],
        "organization_name": row["organization_name"],
        "keywords": keywords,
        "categories": categories,
        "project_page": row["project_page"],
        "withdrawn": bool(row["withdrawn"]),
        "digests": list(digests),
        "source": row["source"],
        "note": state.get("note"),
        "note_conflicts": [
            {
                "version": c["version"],
                "device": c["device"],
                "created_at": c["created_at"],
                "text": c["text"],
            }
            for c in state.get("note_conflicts", [])
        ],
        "lists": list(state.get("lists", [])),
    }
    if machines and hardware is not None and library.enricher is not None:
        fits = _machine_fit_of_row(library, row, hardware, machines)
        out["machine_fit"] = [fit.to_json() for fit in fits]
    return out


def evidence_json(evidence: Mapping[str, Any]) -> dict[str, Any]:
    """The stored topic evidence as `PaperView.to_json` prints it (TopicMatch.to_json)."""
    return {
        topic: [
            {"phrase": m["phrase"], "field": m["field"], "start": m["start"], "end": m["end"]}
            | ({"by": "reader"} if m.get("by") == "reader" else {})
            for m in matches
        ]
        for topic, matches in evidence.items()
    }


def repo_json(repo: Mapping[str, Any]) -> dict[str, Any]:
    """`RepoRef.from_json(repo).to_json()`: every key, the defaults filled."""
    return {
        "url": repo["url"],
        "host": repo["host"],
        "owner": repo.get("owner"),
        "name": repo.get("name"),
        "path": repo.get("path"),
        "kind": repo.get("kind", "official"),
        "source": repo.get("source", "abstract"),
        "framework": repo.get("framework"),
        "notes": repo.get("notes"),
        "stars": repo.get("stars"),
    }


def link_json(link: Mapping[str, Any]) -> dict[str, Any]:
    """`LinkRef.from_json(link).to_json()`: the optional parts only when set."""
    out: dict[str, Any] = {"url": link["url"], "host": link["host"], "kind": link["kind"]}
    for key in ("owner", "name", "path"):
        value = link.get(key)
        if value is not None:
            out[key] = value
    return out


def _machine_fit_of_row(
    library: Library, row: sqlite3.Row, hardware: Mapping[str, Any], machines: Sequence[Machine]
) -> list[MachineFit]:
    """`machine_fit` of a stored row: for one the current enricher wrote, the answer kept
    across commands when there is one (machine_fits.py; no catalog, no pydantic), else
    judged and kept; for any other row, judged."""
    enricher = library.enricher
    assert enricher is not None  # the callers ask only with an enricher
    if (
        library.fit_texts is not None
        and "enrich_fp" in row.keys()  # noqa: SIM118 (`in` a sqlite3.Row looks at values)
        and row["enrich_fp"] == enricher.fingerprint
    ):
        from digest_tui.machine_fits import MachineFits

        fits = MachineFits(machines, lambda: enricher.hardware_catalog, library.fit_texts)
        found = fits.text(row["hardware"], current=True)
        if found is not None:
            return [MachineFit(f["name"], f["fits"], f["reason"]) for f in json.loads(found)]
    return machine_fit(hardware, machines, enricher.hardware_catalog)


def machine_fit(
    hardware: Mapping[str, Any], machines: Sequence[Machine], catalog: Any
) -> list[MachineFit]:
    """Whether the paper fits each of the user's machines."""
    from pydantic import ValidationError

    from digest_tui.enrich.hardware.fit import fit_machines
    from digest_tui.enrich.hardware.suggestion import HardwareSuggestion

    try:
        suggestion = HardwareSuggestion.model_validate(hardware)
    except ValidationError:
        return [MachineFit(m.name, None, "hardware data is outdated") for m in machines]
    return [
        MachineFit(fit.name, fit.fits, fit.reason)
        for fit in fit_machines(suggestion, machines, catalog)
    ]
