"""Where a paper's own page is, for `O` in the app and `digest-tui open --paper`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus


def paper_page_url(paper: dict[str, Any]) -> str:
    """arXiv when the id is known, else the project page, else an arXiv title search."""
    return page_url(paper.get("arxiv_id"), paper.get("project_page"), paper.get("title", ""))


def page_url(arxiv_id: str | None, project_page: str | None, title: str) -> str:
    """paper_page_url from the three fields it reads (PaperView.page_url)."""
    if arxiv_id:
        return f"https://arxiv.org/abs/{arxiv_id}"
    if project_page:
        return str(project_page)
    return "https://arxiv.org/search/?searchtype=title&query=" + quote_plus(title)
