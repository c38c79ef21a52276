"""Records shared by every layer: sources produce them, enrichers annotate them, the store keeps
them and the views render them. Nothing here does I/O."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RepoKind = Literal["official", "community", "framework", "mentioned"]
RepoSource = Literal["abstract", "curated", "hf", "user", "pwc"]
LinkKind = Literal["repo", "dataset", "model", "space", "project", "paper", "docs", "other"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class TopicEvidence(Record):
    """One phrase that put a paper in a topic, and where it matched."""

    phrase: str
    field: Literal["title", "abstract", "keywords"]
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    # Who decided: a rule's phrase, or the learned reader's strongest words for a topic the
    # rules found but did not decide (enrich/topics/learned.py). Stored and printed only for
    # "reader", so the stored and JSON shape of a rule's evidence is unchanged.
    by: Literal["rules", "reader"] = "rules"


class Link(Record):
    """A URL found in a paper's text, classified by what it points at."""

    url: str
    host: str
    kind: LinkKind
    owner: str | None = None
    name: str | None = None
    path: str | None = None


class Repo(Record):
    """A code repository linked to a paper; the JSON contract fixes its url, host, owner, name,
    kind and source."""

    url: str
    host: str
    owner: str | None = None
    name: str | None = None
    path: str | None = None
    kind: RepoKind = "official"
    source: RepoSource = "abstract"
    framework: str | None = None
    notes: str | None = None
    stars: int | None = None


class Paper(Record):
    """A paper as a source reports it, before enrichment and user state."""

    id: str
    title: str
    abstract: str = ""
    published: dt.date | None = None
    published_year_inferred: bool = False
    upvotes: int | None = None
    authors_count: int | None = None
    authors: list[str] = Field(default_factory=list)
    organization: str | None = None
    organization_name: str | None = None
    arxiv_id: str | None = None
    keywords: list[str] = Field(default_factory=list)
    # arXiv categories, the primary one first (cs.DC, cs.LG); empty when the source has none.
    categories: list[str] = Field(default_factory=list)
    project_page: str | None = None
    github_repo: str | None = None
    github_stars: int | None = None
    withdrawn: bool = False
    source: str = "hf-page"
    source_ref: str = ""


class Digest(Record):
    """One day's (or one page's) list of papers from a source."""

    id: str
    source: str
    date: dt.date
    title: str
    paper_ids: list[str] = Field(default_factory=list)
    origin: str = ""


class ImportWarning(Record):
    """A problem with one entry; the rest of the input still imports."""

    origin: str
    line: int | None = None
    message: str

    def __str__(self) -> str:
        where = f"{self.origin}:{self.line}" if self.line else self.origin
        return f"{where}: {self.message}"


class ParsedDigest(Record):
    digest: Digest
    papers: list[Paper]
    warnings: list[ImportWarning] = Field(default_factory=list)
