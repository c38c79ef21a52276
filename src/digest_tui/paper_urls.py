"""Where a paper's own page is, for `O` in the app and `digest-tui open --paper`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus


def paper_page_url(paper: dict[str, Any]) -> str:
    """arXiv when the id is known, else the project page, else an arXiv title search."""
    if paper.get("arxiv_id"):
        return f"https://arxiv.org/abs/{paper['arxiv_id']}"
    if paper.get("project_page"):
        return str(paper["project_page"])
    return "https://arxiv.org/search/?searchtype=title&query=" + quote_plus(paper.get("title", ""))
