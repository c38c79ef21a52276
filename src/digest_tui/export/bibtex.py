"""BibTeX export.

- A paper with an arXiv id is an `@article` with `eprint`, `archivePrefix = {arXiv}` and the
  arXiv DOI; others are `@misc`.
- Keys are the first significant word of the title plus the year (`flashattention2025`). Keys
  that collide get a, b, c... in paper-id order, so the same set of papers always gets the
  same keys. Keys do not depend on author lists, which the sources often lack.
- LaTeX specials (& % $ # _ { } ~ ^ \\) are escaped with balanced commands, so classic BibTeX
  (which counts every brace, escaped or not) reads the file as well as biber does. Non-ASCII
  text stays UTF-8. Words of a title with inner capitals (GPU, MoE, vLLM, FlashAttention-3)
  are wrapped in braces so styles that lowercase titles keep them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from digest_tui.export import fields
from digest_tui.ids import normalize_title

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(ch) for ch in _SPECIALS))
# A capital after the first character of a word: GPU, MoE, vLLM, DeepSeek-V3, 3D.
_INNER_CAPITAL = re.compile(r"\w\W*[A-Z]")
_STOPWORDS = frozenset(
    " ".join(
        [
            "a an the on of for to in and or with without towards toward via is are be at by",
            "from how why what when where which do does can we our you your beyond into using",
            "through rethinking revisiting",
        ]
    ).split(" ")
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def escape(text: str | None) -> str:
    """Text for a BibTeX field value: specials escaped, whitespace collapsed to spaces."""
    return _SPECIAL_RE.sub(lambda m: _SPECIALS[m.group()], fields.one_line(text))


def protect_title(title: str) -> str:
    """Escape a title and brace the words whose capitals a style must not lowercase."""
    words = fields.one_line(title).split(" ")
    out = []
    for word in words:
        escaped = escape(word)
        out.append(f"{{{escaped}}}" if word and _INNER_CAPITAL.search(word) else escaped)
    return " ".join(out)


def base_key(paper: dict[str, Any]) -> str:
    words = normalize_title(paper.get("title") or "").split()
    word = next((w for w in words if w not in _STOPWORDS), words[0] if words else "paper")
    day = fields.published(paper)
    return f"{word[:30]}{day.year if day else 'nd'}"


def _suffix(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> aa: letters in bijective base 26."""
    letters = ""
    n += 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return letters


def citation_keys(papers: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Paper id -> citation key, unique within `papers` and stable for the same set."""
    groups: dict[str, list[str]] = {}
    for paper in papers:
        groups.setdefault(base_key(paper), []).append(paper["id"])
    keys: dict[str, str] = {}
    taken = set(groups)
    for base, ids in sorted(groups.items()):
        ordered = sorted(set(ids))
        if len(ordered) == 1:
            keys[ordered[0]] = base
            continue
        n = 0
        for paper_id in ordered:
            # "x2025a" could be another group's plain key only in contrived titles; skip it.
            while f"{base}{_suffix(n)}" in taken:
                n += 1
            keys[paper_id] = f"{base}{_suffix(n)}"
            taken.add(keys[paper_id])
            n += 1
    return keys


def entry(paper: dict[str, Any], key: str) -> str:
    arxiv = paper.get("arxiv_id")
    kind = "article" if arxiv else "misc"
    values: list[tuple[str, str]] = [("title", protect_title(paper.get("title") or ""))]
    names = fields.authors(paper)
    org = fields.organization(paper)
    if names:
        values.append(("author", " and ".join(_name(n) for n in names)))
    elif org:
        values.append(("author", f"{{{escape(org)}}}"))  # a corporate author, kept whole
    day = fields.published(paper)
    if day:
        values.append(("year", str(day.year)))
        values.append(("month", _MONTHS[day.month - 1]))  # a standard macro: no braces
    if arxiv:
        values += [
            ("journal", f"arXiv preprint arXiv:{escape(arxiv)}"),
            ("eprint", escape(arxiv)),
            ("archivePrefix", "arXiv"),
            ("doi", f"10.48550/arXiv.{escape(arxiv)}"),
        ]
    url = fields.paper_url(paper)
    if url:
        # URLs are verbatim in url fields; only braces would break them, and safe_url
        # already refused any URL that is not plain http(s) without such characters.
        values.append(("url", url.replace("{", "%7B").replace("}", "%7D")))
    if paper.get("abstract"):
        values.append(("abstract", escape(paper["abstract"])))
    if paper.get("tags"):
        values.append(("keywords", escape(", ".join(paper["tags"]))))
    if paper.get("note"):
        values.append(("annote", escape(paper["note"])))
    lines = [f"@{kind}{{{key},"]
    lines += [
        f"  {name} = {value}," if name == "month" else f"  {name} = {{{value}}},"
        for name, value in values
    ]
    lines.append("}")
    return "\n".join(lines)


def _name(name: str) -> str:
    escaped = escape(name)
    # " and " inside one name would split it into two authors.
    return f"{{{escaped}}}" if re.search(r"\band\b", name, re.IGNORECASE) else escaped


def to_bibtex(papers: Iterable[dict[str, Any]]) -> str:
    items = list(papers)
    keys = citation_keys(items)
    header = "% Exported by digest-tui. UTF-8.\n"
    return header + "".join(f"\n{entry(p, keys[p['id']])}\n" for p in items)
