"""Markdown export: a reading list to paste into notes, an issue or a README.

Titles link to the paper; each entry shows its date, topics, code (official first, with
stars), hardware target, tags and the user's note as a quote. Text from digests is escaped
so a title cannot inject links, HTML or formatting; the note is the user's own Markdown and
is kept as written (control characters removed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from digest_tui.export import fields

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def md_escape(text: str | None) -> str:
    return _MD_SPECIAL.sub(r"\\\1", fields.one_line(text))


def md_url(url: str) -> str:
    # Parentheses and spaces end a Markdown link target; percent-encoding keeps the resource.
    return quote(url, safe=":/?#[]@!$&'*+,;=%-._~")


def link(text: str, url: str | None) -> str:
    return f"[{md_escape(text)}]({md_url(url)})" if url else md_escape(text)


def entry(paper: dict[str, Any], number: int) -> str:
    lines = [f"## {number}. {link(paper.get('title') or paper['id'], fields.paper_url(paper))}", ""]
    facts = []
    day = paper.get("published")
    if day:
        facts.append(f"**Published:** {md_escape(day)}")
    arxiv = paper.get("arxiv_id")
    if arxiv:
        facts.append(f"**arXiv:** {link(arxiv, fields.arxiv_url(paper))}")
    topics = paper.get("topics") or []
    facts.append(f"**Topics:** {md_escape(', '.join(topics)) if topics else 'other'}")
    lines.append("- " + " · ".join(facts))
    repos = fields.code_repos(paper)
    if repos:
        shown = []
        for repo in repos:
            name = "/".join(x for x in (repo.get("owner"), repo.get("name")) if x) or repo["url"]
            detail = repo.get("kind") or ""
            if repo.get("stars") is not None:
                detail += f", ★ {repo['stars']}"
            shown.append(f"{link(name, repo['url'])} ({md_escape(detail)})")
        lines.append("- **Code:** " + " · ".join(shown))
    hardware = paper.get("hardware") or {}
    if hardware.get("target") and hardware.get("scale") != "unknown":
        lines.append(
            f"- **Hardware:** {md_escape(hardware['target'])} "
            f"({md_escape(hardware.get('scale'))}, {md_escape(hardware.get('confidence'))} "
            "confidence)"
        )
    if paper.get("tags"):
        tags = [f"`{fields.one_line(t)}`" if "`" not in t else md_escape(t) for t in paper["tags"]]
        lines.append("- **Tags:** " + ", ".join(tags))
    if paper.get("note"):
        lines.append("")
        lines += [f"> {line}".rstrip() for line in fields.clean(paper["note"]).splitlines()]
    return "\n".join(lines)


def to_markdown(papers: Iterable[dict[str, Any]], title: str = "Reading list") -> str:
    items = list(papers)
    count = f"{len(items)} paper{'s' if len(items) != 1 else ''}"
    parts = [f"# {md_escape(title)}", "", f"_{count}, exported by digest-tui._"]
    parts += ["", *(entry(p, i) + "\n" for i, p in enumerate(items, 1))]
    return "\n".join(parts).rstrip() + "\n"
