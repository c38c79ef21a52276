"""Mapping the Hugging Face Daily Papers JSON API (`/api/daily_papers`) to Papers and Digests.

Pure functions, no I/O: `hf_client` fetches pages, `hf_fetch` drives both and the store.

Each item of the API's list becomes a `Paper` whose id is its arXiv id, so a paper already
imported from page text (keyed by its title) is found again by title and re-keyed, not
duplicated. Every field but `paper.id` and `paper.title` may be missing or null. A bad optional
field is dropped with a warning and the item still imports; an item without a usable id or
title is skipped with a warning naming the item index, the field and the problem.

Digests: a `date=` query gives one digest `hf-api-YYYY-MM-DD`. A `week=` or `month=` query is
split by the day each item was submitted to Daily Papers (`submittedOnDailyAt`), so fetching a
week gives the same day digests as fetching its days one by one; items that cannot be placed
on a day of the period go to one digest for the period (`hf-api-2025-W23`, `hf-api-2025-06`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from digest_tui.ids import normalize_arxiv_id, paper_id
from digest_tui.models import Digest, ImportWarning, Paper, ParsedDigest
from digest_tui.textsafe import strip_control

SOURCE = "hf-api"
PeriodKind = Literal["date", "week", "month"]

# C0/C1 control characters (ESC included): text from the API is data, never terminal control.
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
# How far (in days) an item's submission day may be from the requested date and still be
# taken as that day's: the API's day boundary need not be UTC midnight.
_DAY_SLACK = 1


# ---- periods ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """What one API query asks for: a day, an ISO week or a month (inclusive date range)."""

    kind: PeriodKind
    start: dt.date
    end: dt.date

    @classmethod
    def day(cls, day: dt.date) -> Period:
        return cls("date", day, day)

    @classmethod
    def week(cls, text: str) -> Period:
        match = _WEEK.match(text.strip())
        if not match:
            raise ValueError(f"expected a week such as 2025-W23, got {text!r}")
        year, week = int(match[1]), int(match[2])
        try:
            monday = dt.date.fromisocalendar(year, week, 1)
        except ValueError:
            raise ValueError(f"{text!r}: {year} has no ISO week {week}") from None
        return cls("week", monday, monday + dt.timedelta(days=6))

    @classmethod
    def month(cls, text: str) -> Period:
        match = _MONTH.match(text.strip())
        if not match or not 1 <= int(match[2]) <= 12:
            raise ValueError(f"expected a month such as 2025-06, got {text!r}")
        first = dt.date(int(match[1]), int(match[2]), 1)
        following = (first + dt.timedelta(days=32)).replace(day=1)
        return cls("month", first, following - dt.timedelta(days=1))

    @property
    def label(self) -> str:
        """The value of the API parameter: 2025-06-05, 2025-W23 or 2025-06."""
        if self.kind == "date":
            return self.start.isoformat()
        if self.kind == "week":
            year, week, _ = self.start.isocalendar()
            return f"{year}-W{week:02d}"
        return f"{self.start.year}-{self.start.month:02d}"

    @property
    def digest_id(self) -> str:
        return f"{SOURCE}-{self.label}"

    def days(self) -> list[dt.date]:
        return [self.start + dt.timedelta(days=n) for n in range((self.end - self.start).days + 1)]


def parse_date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"expected a date such as 2025-06-05, got {text!r}") from None


# ---- items --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiEntry:
    """One valid item: the paper, the day it was submitted to Daily Papers, the raw item."""

    paper: Paper
    submitted: dt.date | None
    index: int
    raw: Any = field(compare=False, repr=False)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        list: "list",
        dict: "object",
    }.get(type(value), type(value).__name__)


class _Item:
    """Reads the fields of one item, collecting a warning for each unusable optional field."""

    def __init__(self, raw: dict[str, Any], index: int, origin: str) -> None:
        self.index = index
        self.origin = origin
        self.warnings: list[ImportWarning] = []
        paper = raw.get("paper")
        self.paper: dict[str, Any] = paper if isinstance(paper, dict) else {}
        self.raw = raw

    def warn(self, path: str, problem: str) -> None:
        self.warnings.append(
            ImportWarning(origin=self.origin, message=f"item {self.index}: {path}: {problem}")
        )

    def get(self, name: str) -> Any:
        return self.paper.get(name)

    def text(self, name: str, *, fallback: bool = False) -> str | None:
        """A string field, cleaned; with `fallback`, the item's top-level copy if the paper's
        is missing (the list repeats title and summary outside `paper`)."""
        value = self.paper.get(name)
        path = f"paper.{name}"
        if value is None and fallback and self.raw.get(name) is not None:
            value, path = self.raw.get(name), name
        if value is None:
            return None
        if not isinstance(value, str):
            self.warn(path, f"expected a string, got {_kind(value)}; ignored")
            return None
        cleaned = " ".join(strip_control(value, " ").split())
        return cleaned or None

    def count(self, name: str) -> int | None:
        value = self.paper.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.warn(f"paper.{name}", f"expected a count, got {value!r}; ignored")
            return None
        return value

    def url(self, name: str) -> str | None:
        value = self.text(name)
        if value is None:
            return None
        if not re.match(r"^https?://[^\s/]+", value, re.IGNORECASE):
            self.warn(f"paper.{name}", f"not an http(s) URL: {value[:80]!r}; ignored")
            return None
        return value

    def timestamp(self, name: str) -> dt.datetime | None:
        value = self.text(name)
        if value is None:
            return None
        try:
            stamp = dt.datetime.fromisoformat(value)
        except ValueError:
            self.warn(f"paper.{name}", f"not an ISO timestamp: {value[:40]!r}; ignored")
            return None
        # A timestamp without a zone is taken as UTC, the API's zone.
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)

    def authors(self) -> list[str]:
        value = self.paper.get("authors")
        if value is None:
            return []
        if not isinstance(value, list):
            self.warn("paper.authors", f"expected a list, got {_kind(value)}; ignored")
            return []
        names: list[str] = []
        for position, author in enumerate(value):
            # Authors flagged "hidden" are still the paper's authors; keep their names.
            name = author.get("name") if isinstance(author, dict) else author
            if isinstance(name, str) and name.strip():
                names.append(" ".join(strip_control(name, " ").split()))
            else:
                self.warn(f"paper.authors[{position}]", "no name; left out")
        return names

    def organization(self) -> tuple[str | None, str | None]:
        value = self.paper.get("organization")
        if value is None:
            return None, None
        if isinstance(value, str):
            value = {"name": value}
        if not isinstance(value, dict):
            self.warn("paper.organization", f"expected an object, got {_kind(value)}; ignored")
            return None, None
        name, fullname = value.get("name"), value.get("fullname")
        name = name.strip() if isinstance(name, str) and name.strip() else None
        fullname = fullname.strip() if isinstance(fullname, str) and fullname.strip() else None
        return name, fullname or name

    def keywords(self) -> list[str]:
        value = self.paper.get("ai_keywords")
        if value is None:
            return []
        if not isinstance(value, list):
            self.warn("paper.ai_keywords", f"expected a list, got {_kind(value)}; ignored")
            return []
        seen: dict[str, None] = {}
        for word in value:
            if isinstance(word, str):
                cleaned = " ".join(strip_control(word, " ").split())
                if cleaned:
                    seen.setdefault(cleaned, None)
        return list(seen)


def parse_item(raw: Any, index: int, origin: str) -> tuple[ApiEntry | None, list[ImportWarning]]:
    """Map one API item to a Paper; None (and the reason as a warning) if it is unusable."""
    if not isinstance(raw, dict):
        warning = ImportWarning(
            origin=origin, message=f"item {index}: expected an object, got {_kind(raw)}; skipped"
        )
        return None, [warning]
    item = _Item(raw, index, origin)

    def skip(path: str, problem: str) -> tuple[None, list[ImportWarning]]:
        item.warn(path, f"{problem}; skipped")
        return None, item.warnings

    if not isinstance(raw.get("paper"), dict):
        return skip("paper", "missing" if raw.get("paper") is None else "expected an object")
    raw_id = item.get("id")
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        return skip("paper.id", "missing")
    if not isinstance(raw_id, str):
        return skip("paper.id", f"expected a string, got {_kind(raw_id)}")
    title = item.text("title", fallback=True)
    if title is None:
        problem = "missing" if item.get("title") is None else "empty or not a string"
        return skip("paper.title", problem)
    arxiv_id = normalize_arxiv_id(raw_id)
    if arxiv_id is None:
        item.warn("paper.id", f"{raw_id[:40]!r} is not an arXiv id; using a title-derived id")

    published = item.timestamp("publishedAt")
    submitted = item.timestamp("submittedOnDailyAt")
    organization, organization_name = item.organization()
    authors = item.authors()
    paper = Paper(
        id=paper_id(title, arxiv_id),
        title=title,
        abstract=item.text("summary", fallback=True) or "",
        published=published.astimezone(dt.UTC).date() if published else None,
        upvotes=item.count("upvotes"),
        # The list carries every author; a count is only worth storing when there is a list.
        authors_count=len(authors) or None,
        authors=authors,
        organization=organization,
        organization_name=organization_name,
        arxiv_id=arxiv_id,
        keywords=item.keywords(),
        project_page=item.url("projectPage"),
        github_repo=item.url("githubRepo"),
        github_stars=item.count("githubStars"),
        withdrawn=item.get("withdrawnAt") is not None,
        source=SOURCE,
        source_ref=f"{origin}#{index}",
    )
    day = submitted.astimezone(dt.UTC).date() if submitted else None
    return ApiEntry(paper=paper, submitted=day, index=index, raw=raw), item.warnings


def parse_items(items: Sequence[Any], origin: str) -> tuple[list[ApiEntry], list[ImportWarning]]:
    """Map one page of the list; `origin` (the page's URL) names it in warnings."""
    entries: list[ApiEntry] = []
    warnings: list[ImportWarning] = []
    for index, raw in enumerate(items):
        entry, problems = parse_item(raw, index, origin)
        warnings.extend(problems)
        if entry is not None:
            entries.append(entry)
    return entries, warnings


# ---- digests ------------------------------------------------------------------------------


@dataclass
class Built:
    """The digests one query yields, with what was left out and why."""

    digests: list[tuple[ParsedDigest, str]] = field(default_factory=list)  # (digest, hash)
    warnings: list[ImportWarning] = field(default_factory=list)
    skipped: int = 0


def _content_hash(period: Period, sort: str | None, entries: Iterable[ApiEntry]) -> str:
    """Hash of what the digest was built from: an unchanged list is not stored again."""
    payload = json.dumps(
        [period.kind, period.label, sort, [e.raw for e in entries]],
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _unique(entries: Iterable[ApiEntry]) -> list[ApiEntry]:
    """First copy of each paper: pages of a list sorted by a changing score can overlap."""
    seen: set[str] = set()
    unique = []
    for entry in entries:
        if entry.paper.id not in seen:
            seen.add(entry.paper.id)
            unique.append(entry)
    return unique


def _digest(
    period: Period, title: str, entries: list[ApiEntry], origin: str, sort: str | None
) -> tuple[ParsedDigest, str]:
    entries = _unique(entries)
    papers = [entry.paper for entry in entries]
    digest = Digest(
        id=period.digest_id,
        source=SOURCE,
        date=period.start,
        title=title,
        paper_ids=[p.id for p in papers],
        origin=origin,
    )
    return ParsedDigest(digest=digest, papers=papers), _content_hash(period, sort, entries)


def build_digests(
    period: Period, entries: list[ApiEntry], origin: str, sort: str | None = None
) -> Built:
    """Turn the entries of one query into digests (see the module docstring for the rules).

    Empty digests are not built: an empty answer must not erase a day fetched earlier.
    """
    built = Built()
    if period.kind == "date":
        kept: list[ApiEntry] = []
        for entry in entries:
            off = abs((entry.submitted - period.start).days) if entry.submitted else 0
            if off > _DAY_SLACK:
                # Guards against a server that ignores `date=` (reportedly with sort=trending):
                # filing another day's papers under this day would corrupt the digest.
                built.skipped += 1
                built.warnings.append(
                    ImportWarning(
                        origin=origin,
                        message=f"item {entry.index} ({entry.paper.id}): submitted on "
                        f"{entry.submitted}, not on {period.label}; skipped",
                    )
                )
            else:
                kept.append(entry)
        if kept:
            title = f"Daily Papers {period.label} (HF API)"
            built.digests.append(_digest(period, title, kept, origin, sort))
        return built

    by_day: dict[dt.date, list[ApiEntry]] = {}
    unplaced: list[ApiEntry] = []
    for entry in entries:
        if entry.submitted and period.start <= entry.submitted <= period.end:
            by_day.setdefault(entry.submitted, []).append(entry)
        else:
            unplaced.append(entry)
    for day in sorted(by_day):
        title = f"Daily Papers {day.isoformat()} (HF API)"
        built.digests.append(_digest(Period.day(day), title, by_day[day], origin, sort))
    if unplaced:
        built.warnings.append(
            ImportWarning(
                origin=origin,
                message=f"{len(unplaced)} item(s) have no submittedOnDailyAt within "
                f"{period.label}; filed under digest {period.digest_id}",
            )
        )
        title = f"Daily Papers {period.label}, undated items (HF API)"
        built.digests.append(_digest(period, title, unplaced, origin, sort))
    return built
