"""What every export format takes from a paper object (PaperView.to_json()): its link, date,
authors and code, chosen the same way for BibTeX, CSL-JSON and Markdown."""

from __future__ import annotations

import datetime as dt
from typing import Any

from digest_tui.textsafe import mark_invisible, strip_control
from digest_tui.urls import refusal_reason


def clean(text: str | None) -> str:
    """Text from a digest without control characters (ANSI/OSC escapes never get exported)
    and with invisible ones (bidi overrides, zero-width) shown as escapes like '\\u202e',
    so a reader of the bibliography sees the text in the order it is stored."""
    return mark_invisible(strip_control(text))


def one_line(text: str | None) -> str:
    return " ".join(clean(text).split())


def safe_url(url: str | None) -> str | None:
    """`url` if it is an http(s) URL the app would open; None otherwise."""
    return url if url and refusal_reason(url) is None else None


def arxiv_url(paper: dict[str, Any]) -> str | None:
    arxiv = paper.get("arxiv_id")
    return f"https://arxiv.org/abs/{arxiv}" if arxiv else None


def paper_url(paper: dict[str, Any]) -> str | None:
    """The paper's own page: arXiv, else its project page, else its official code."""
    candidates = [arxiv_url(paper), paper.get("project_page")]
    candidates += [r.get("url") for r in code_repos(paper) if r.get("kind") == "official"]
    return next((u for u in map(safe_url, candidates) if u), None)


def code_repos(paper: dict[str, Any]) -> list[dict[str, Any]]:
    """Repos that hold code for the paper (not mere mentions), with a safe URL."""
    return [
        repo
        for repo in paper.get("repos") or []
        if repo.get("kind") != "mentioned" and safe_url(repo.get("url"))
    ]


def published(paper: dict[str, Any]) -> dt.date | None:
    value = paper.get("published")
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def authors(paper: dict[str, Any]) -> list[str]:
    return [one_line(a) for a in paper.get("authors") or [] if one_line(a)]


def organization(paper: dict[str, Any]) -> str | None:
    return one_line(paper.get("organization_name") or paper.get("organization")) or None
