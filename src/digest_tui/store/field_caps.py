"""Caps on what one paper may store, applied to every source at import.

Generous enough that no real paper meets them (the longest abstracts are a few kB), small
enough that a crafted or broken input cannot make enrichment, search and every view carry
megabytes per paper: a 460 kB abstract of one repeated keyword is cut to 100 kB, with a
warning naming the file and line it came from. docs/security.md lists the figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pydantic loads where a paper is built, not on every library open
    from digest_tui.models import ImportWarning, Paper

MAX_TITLE_CHARS = 2_000
MAX_ABSTRACT_CHARS = 100_000
MAX_SHORT_FIELD_CHARS = 2_000  # organisation, URLs, ids
MAX_LIST_ITEMS = 1_000  # authors, keywords
MAX_LIST_ITEM_CHARS = 500

_SHORT_FIELDS = ("organization", "organization_name", "arxiv_id", "project_page", "github_repo")
_LIST_FIELDS = ("authors", "keywords", "categories")


def where_from(paper: Paper) -> tuple[str, int | None]:
    """(file, line) of a paper's source_ref "file:line" (the line is optional)."""
    origin, _, line = paper.source_ref.rpartition(":")
    if origin and line.isdigit():
        return origin, int(line)
    return paper.source_ref or paper.source, None


def cap_fields(paper: Paper) -> tuple[Paper, list[ImportWarning]]:
    """`paper` with every over-long field cut to its cap, and a warning for each cut."""
    changes: dict[str, Any] = {}
    notes: list[str] = []

    def cut(name: str, value: str | None, limit: int) -> None:
        if value is not None and len(value) > limit:
            changes[name] = value[:limit]
            notes.append(f"{name} of {len(value):,} characters cut to {limit:,}")

    cut("title", paper.title, MAX_TITLE_CHARS)
    cut("abstract", paper.abstract, MAX_ABSTRACT_CHARS)
    for name in _SHORT_FIELDS:
        cut(name, getattr(paper, name), MAX_SHORT_FIELD_CHARS)
    for name in _LIST_FIELDS:
        items: list[str] = getattr(paper, name)
        kept = [item[:MAX_LIST_ITEM_CHARS] for item in items[:MAX_LIST_ITEMS]]
        if kept != items:
            changes[name] = kept
            notes.append(
                f"{name} cut to {MAX_LIST_ITEMS:,} items of at most {MAX_LIST_ITEM_CHARS} "
                "characters"
            )
    if not changes:
        return paper, []
    from digest_tui.models import ImportWarning

    origin, line = where_from(paper)
    title = (changes.get("title") or paper.title)[:80]
    warning = ImportWarning(
        origin=origin, line=line, message=f"entry {title!r}: {'; '.join(notes)}"
    )
    return paper.model_copy(update=changes), [warning]
