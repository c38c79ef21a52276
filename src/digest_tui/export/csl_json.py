"""CSL-JSON export: the input format of citeproc, Pandoc, Zotero and most reference managers.

Each item has the schema's required `id` and `type`; arXiv papers are `article` (CSL's type for
preprints) with the arXiv DOI, `publisher: arXiv` and the id as `number`. Empty fields are left
out rather than written as null, which the schema does not allow for strings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from digest_tui.export import fields


def author(name: str) -> dict[str, str]:
    """'Tri Dao' -> family Dao, given Tri; a single word stays a literal name."""
    parts = name.rsplit(" ", 1)
    if len(parts) == 2 and parts[0] and parts[1]:
        return {"family": parts[1], "given": parts[0]}
    return {"literal": name}


def item(paper: dict[str, Any]) -> dict[str, Any]:
    arxiv = paper.get("arxiv_id")
    result: dict[str, Any] = {
        "id": paper["id"],
        "type": "article",
        "title": fields.one_line(paper.get("title")),
    }
    names = fields.authors(paper)
    org = fields.organization(paper)
    if names:
        result["author"] = [author(n) for n in names]
    elif org:
        result["author"] = [{"literal": org}]
    day = fields.published(paper)
    if day:
        result["issued"] = {"date-parts": [[day.year, day.month, day.day]]}
    url = fields.paper_url(paper)
    if url:
        result["URL"] = url
    if arxiv:
        result.update(
            {
                "DOI": f"10.48550/arXiv.{arxiv}",
                "publisher": "arXiv",
                "number": arxiv,
                "genre": "Preprint",
            }
        )
    if paper.get("abstract"):
        result["abstract"] = fields.clean(paper["abstract"])
    if paper.get("note"):
        result["note"] = fields.clean(paper["note"])
    if paper.get("tags"):
        result["keyword"] = fields.one_line(", ".join(paper["tags"]))
    return result


def to_csl_json(papers: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item(p) for p in papers]
