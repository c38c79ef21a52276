"""The search language a user types after `/` or passes to `--search`.

    fused attention "kv cache" topic:moe tag:todo is:bookmarked is:unread has:code
    fits:laptop since:2025-06-01 until:2025-12-31 digest:2025-12-10 -word
    has:weights has:runnable sort:reproducible sort:readiness

Bare words match titles, abstracts, tags and notes (as prefixes, so results appear while the
user is still typing; a lone word of up to three letters matches title words only, see
fts_query); quoted text matches as written, a whole word or a phrase; `-word` excludes.
`key:value` pairs filter. Parsing never fails: problems are collected so the UI can show them
beside the results.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

FILTER_KEYS = ("topic", "tag", "is", "has", "fits", "since", "until", "digest", "list", "sort")
IS_VALUES = ("bookmarked", "unbookmarked", "read", "unread", "new", "withdrawn")
HAS_VALUES = ("code", "notes", "note", "tags", "hardware", "weights", "runnable")
# A lone word this short matches as a prefix of title (tag, note) words only (fts_query).
SHORT_PREFIX = 3
SORT_VALUES = ("date", "upvotes", "stars", "relevance", "title", "reproducible", "readiness")

_TOKEN = re.compile(r'(-?)(?:(\w+):)?(?:"([^"]*)"?|(\S+))')


@dataclass
class ParsedSearch:
    terms: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    filters: dict[str, list[str]] = field(default_factory=dict)
    since: dt.date | None = None
    until: dt.date | None = None
    problems: list[str] = field(default_factory=list)

    def values(self, key: str) -> list[str]:
        return self.filters.get(key, [])


def parse_search(text: str) -> ParsedSearch:
    parsed = ParsedSearch()
    for match in _TOKEN.finditer(text or ""):
        negate, key, quoted, bare = match.groups()
        value = quoted if quoted is not None else bare
        if key is not None:
            key_lower = key.lower()
            if key_lower not in FILTER_KEYS:
                # Not a filter after all ("cuda:" in prose): search the text as written.
                _add_words(parsed, f"{key}:{value}", negate == "-", quoted is not None)
                continue
            _add_filter(parsed, key_lower, (value or "").strip(), negate == "-")
            continue
        if value is None or value == "":
            continue
        _add_words(parsed, value, negate == "-", quoted is not None)
    return parsed


def _add_words(parsed: ParsedSearch, value: str, negate: bool, quoted: bool) -> None:
    words = _words(value)
    if not words:
        return
    if negate:
        parsed.excluded.extend(words)
    elif quoted:
        # Quoted text matches as written: a phrase, or one whole word (never a prefix), which
        # is also how to search a short word everywhere ("kv", see fts_query).
        parsed.phrases.append(" ".join(words))
    else:
        parsed.terms.extend(words)


def _words(value: str) -> list[str]:
    # FTS5's unicode61 tokenizer splits on anything that is not a letter or digit; splitting the
    # same way here keeps "flash-attention" and "kv_cache" searchable as typed.
    return [w for w in re.split(r"[^\w]+|_", value.casefold()) if w]


def _add_filter(parsed: ParsedSearch, key: str, value: str, negate: bool) -> None:
    if not value:
        parsed.problems.append(f"{key}: needs a value")
        return
    value_lower = value.lower()
    if key in ("since", "until"):
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            parsed.problems.append(f"{key}:{value} is not a date (use YYYY-MM-DD)")
            return
        if key == "since":
            parsed.since = day
        else:
            parsed.until = day
        return
    if key == "is" and value_lower.removeprefix("!") not in IS_VALUES:
        parsed.problems.append(f"is:{value} is unknown (try {', '.join(IS_VALUES)})")
        return
    if key == "has" and value_lower not in HAS_VALUES:
        parsed.problems.append(f"has:{value} is unknown (try {', '.join(HAS_VALUES)})")
        return
    if key == "sort" and value_lower not in SORT_VALUES:
        parsed.problems.append(f"sort:{value} is unknown (try {', '.join(SORT_VALUES)})")
        return
    stored = value if key in ("tag", "list", "fits") else value_lower
    parsed.filters.setdefault(("-" if negate else "") + key, []).append(stored)


def short_word(parsed: ParsedSearch) -> str | None:
    """The lone word of two or three letters that `fts_query` matches in titles, tags and notes
    only (not abstracts), or None when the search is not just that word."""
    words = [term for term in parsed.terms if len(term) > 1]
    if len(words) == 1 and not parsed.phrases and len(words[0]) <= SHORT_PREFIX:
        return words[0]
    return None


def short_word_hint(parsed: ParsedSearch) -> str | None:
    """Said beside the results when `short_word` applies, so a reader who meant `gpu` in
    abstracts too knows to quote it."""
    word = short_word(parsed)
    if word is None:
        return None
    return f'{word!r} is short: titles, tags, notes only; quote it ("{word}") to search abstracts'


def fts_query(parsed: ParsedSearch) -> str | None:
    """An FTS5 MATCH expression for the text part, or None when there is no text to match.

    Every token is quoted, so no user input is ever interpreted as FTS5 syntax; the last bare
    word and every word of two letters or more match as prefixes for search-as-you-type.
    """
    # A single letter as a prefix matches nearly every paper (and FTS5's prefix index starts
    # at two letters, so it walks every term): wait for the second letter instead.
    words = [term for term in parsed.terms if len(term) > 1]
    parts = [f'"{_escape(term)}"*' for term in words]
    parts += [f'"{_escape(phrase)}"' for phrase in parsed.phrases]
    if not parts:
        return None
    if short_word(parsed) is not None:
        # The box holds only the first letters of one word: "ex"* or "att"* match most of a
        # 100,000-paper library through the abstracts ("exp": ~95 %), and ranking them all cost
        # 0.1-1 s a keystroke. Until a fourth letter or a second word comes, the prefix looks at
        # titles (and tags and notes) only: a few thousand papers, ranked as ever
        # (docs/search.md, "Short words").
        parts = [f"{{title search_extra}} : {parts[0]}"]
    query = " AND ".join(parts)
    for word in parsed.excluded:
        query += f' NOT "{_escape(word)}"'
    return query


def _escape(text: str) -> str:
    return text.replace('"', '""')
