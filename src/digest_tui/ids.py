"""Stable paper identity.

A paper is identified by its arXiv id when one is known; otherwise by an id derived from its
normalised title, so the same paper read from two digests (or on two machines) gets the same id.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

_ARXIV_NEW = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5})(?:v\d+)?$", re.IGNORECASE)
_ARXIV_OLD = re.compile(r"^(?:arxiv:)?([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$", re.IGNORECASE)
_NON_WORD = re.compile(r"[^0-9a-z]+")

# An import folds each title 4-5 times (the parser's id, the store's lookup key, the catalog's
# lookup) within a few thousand papers of each other: a bounded memo computes it once and
# holds at most this many titles (a 200 MB page streams ~120,000 titles through it).
_TITLE_MEMO = 8192


@lru_cache(maxsize=_TITLE_MEMO)
def normalize_title(title: str) -> str:
    """Fold a title to a comparison key: accents dropped, case folded, punctuation to spaces.

    "Mélange: Cost Efficient LLM Serving" and "melange cost-efficient llm serving" fold alike.
    """
    if title.isascii():  # NFKD leaves ASCII as it is, with nothing to drop (the usual case)
        ascii_only = title
    else:
        decomposed = unicodedata.normalize("NFKD", title)
        ascii_only = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", ascii_only.casefold()).split())


@lru_cache(maxsize=_TITLE_MEMO)
def title_key(title: str) -> str:
    """A short hash of the normalised title: the join key between sources that lack arXiv ids."""
    return hashlib.sha256(normalize_title(title).encode("utf-8")).hexdigest()[:16]


def title_paper_id(title: str) -> str:
    """Readable, stable id for a paper known only by its title: a slug plus a hash.

    The slug keeps the id recognisable in tables; the hash keeps it unique and stable.
    """
    words = normalize_title(title).split()
    slug = "-".join(words[:5])[:40].strip("-") or "untitled"
    return f"{slug}-{title_key(title)[:8]}"


def normalize_arxiv_id(value: str) -> str | None:
    """Return the canonical arXiv id (no version, no prefix) or None if `value` is not one."""
    value = value.strip()
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        match = pattern.match(value)
        if match:
            return match.group(1)
    return None


def paper_id(title: str, arxiv_id: str | None = None) -> str:
    """The id the JSON contract promises: the arXiv id when known, else derived from the title."""
    if arxiv_id:
        canonical = normalize_arxiv_id(arxiv_id)
        if canonical:
            return canonical
    return title_paper_id(title)
