"""Reading one page of the arXiv API's Atom feed into entries: pure, no I/O.

The API (https://info.arxiv.org/help/api/user-manual.html) answers a query with an Atom feed:
`opensearch:totalResults`, `opensearch:startIndex` and `opensearch:itemsPerPage` for paging,
then one `entry` per paper with `id` (`http://arxiv.org/abs/2506.04123v2`), `title`,
`summary` (the abstract), `published` (v1's submission time, UTC), `updated` (this
version's), `author/name`, `arxiv:primary_category@term` and `category@term` (every category,
cross-lists included). A malformed query is answered with one entry whose id is under
`http://arxiv.org/api/errors` and whose summary says what was wrong.

The feed comes from outside, so it is untrusted: it must be UTF-8, within `MAX_FEED_BYTES`,
and any `<!DOCTYPE` or `<!ENTITY` is refused before the parser sees a byte (the standard
library's parser expands internal entities, which is how a "billion laughs" body of a few
hundred bytes becomes gigabytes). Titles and abstracts are text, never markup: `<b>` in a title
stays the three characters it is, LaTeX stays LaTeX; control characters are removed.
"""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from digest_tui.errors import ArxivApiError, FeedFormatError
from digest_tui.ids import normalize_arxiv_id
from digest_tui.models import ImportWarning
from digest_tui.textsafe import one_line, strip_control

MAX_FEED_BYTES = 16 * 1024 * 1024  # a page of 100 entries is ~250 kB
ATOM = "http://www.w3.org/2005/Atom"
ARXIV = "http://arxiv.org/schemas/atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
_NS = {"atom": ATOM, "arxiv": ARXIV, "opensearch": OPENSEARCH}

# Declarations that make the parser expand or fetch entities; XML is case-sensitive, but a
# lowercase spelling is refused too rather than left to the parser to judge.
_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_ABS_URL = re.compile(r"^https?://(?:export\.)?arxiv\.org/abs/(\S+)$", re.IGNORECASE)
_VERSION = re.compile(r"v(\d+)$")


@dataclass(frozen=True)
class ArxivEntry:
    """One paper of a feed page, fields cleaned; `index` is its place on the page."""

    arxiv_id: str  # without its version: 2506.04123
    version: int | None
    title: str
    abstract: str
    published: dt.datetime  # v1's submission time, UTC
    updated: dt.datetime | None
    authors: tuple[str, ...]
    primary_category: str | None
    categories: tuple[str, ...]  # the primary one first, then the others in feed order
    index: int


@dataclass
class FeedPage:
    """One page: paging figures (None when the feed leaves them out) and its entries."""

    total: int | None
    start: int | None
    per_page: int | None
    entries: list[ArxivEntry]
    count: int  # entries on the page, unusable ones included (paging counts those too)
    warnings: list[ImportWarning] = field(default_factory=list)


def check_untrusted(body: bytes, label: str) -> str:
    """The body as text, or FeedFormatError when it is too big, not UTF-8 or declares a DTD.

    Runs before any parsing: a refused body costs one scan, whatever it would expand to.
    """
    if len(body) > MAX_FEED_BYTES:
        raise FeedFormatError(
            f"{label}: answer of {len(body):,} bytes is over the {MAX_FEED_BYTES:,}-byte cap"
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"{label}: not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise FeedFormatError(f"{label}: NUL bytes in the answer; not an Atom feed")
    match = _DECLARATION.search(text)
    if match:
        raise FeedFormatError(
            f"{label}: refused: the answer declares a {match[1].upper()} (DTDs and entities "
            "are never parsed)"
        )
    return text


def parse_feed(body: bytes, label: str) -> FeedPage:
    """One page of the API's answer; FeedFormatError when it is not a usable Atom feed.

    An entry without a usable id, title or publication time is left out with a warning
    naming the page (`label`), the entry index and the field.
    """
    text = check_untrusted(body, label)
    try:
        # A str is parsed as the UTF-8 it was checked as, whatever encoding it declares.
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        start = one_line(text[:120], 60)
        raise FeedFormatError(f"{label}: not XML ({exc}): {start!r}") from None
    if root.tag != f"{{{ATOM}}}feed":
        raise FeedFormatError(f"{label}: not an Atom feed (root element {_local(root.tag)!r})")
    raw_entries = root.findall("atom:entry", _NS)
    _raise_api_error(raw_entries, label)
    page = FeedPage(
        total=_int(root, "opensearch:totalResults"),
        start=_int(root, "opensearch:startIndex"),
        per_page=_int(root, "opensearch:itemsPerPage"),
        entries=[],
        count=len(raw_entries),
    )
    for index, element in enumerate(raw_entries):
        entry, problem = _entry(element, index)
        if entry is not None:
            page.entries.append(entry)
        else:
            page.warnings.append(ImportWarning(origin=label, message=f"entry {index}: {problem}"))
    return page


def _raise_api_error(entries: list[ET.Element], label: str) -> None:
    """The API reports a bad query as a feed with one entry under /api/errors."""
    for element in entries:
        ident = _text(element, "atom:id") or ""
        if "arxiv.org/api/errors" in ident:
            why = _text(element, "atom:summary") or ident
            raise ArxivApiError(f"{label}: the arXiv API reports an error: {one_line(why, 160)}")


def _entry(element: ET.Element, index: int) -> tuple[ArxivEntry | None, str]:
    ident = _text(element, "atom:id")
    if not ident:
        return None, "id: missing; skipped"
    match = _ABS_URL.match(ident)
    arxiv_id = normalize_arxiv_id(match[1]) if match else None
    if arxiv_id is None:
        return None, f"id: {one_line(ident, 60)!r} is not an arXiv abstract URL; skipped"
    version = _VERSION.search(match[1]) if match else None
    title = _text(element, "atom:title")
    if not title:
        return None, f"title: missing ({arxiv_id}); skipped"
    published = _time(element, "atom:published")
    if published is None:
        return None, f"published: missing or not an ISO time ({arxiv_id}); skipped"
    primary = _term(element.find("arxiv:primary_category", _NS))
    categories: dict[str, None] = {primary: None} if primary else {}
    for category in element.findall("atom:category", _NS):
        term = _term(category)
        if term:
            categories.setdefault(term, None)
    authors = tuple(
        name
        for author in element.findall("atom:author", _NS)
        if (name := _text(author, "atom:name"))
    )
    return (
        ArxivEntry(
            arxiv_id=arxiv_id,
            version=int(version[1]) if version else None,
            title=title,
            abstract=_text(element, "atom:summary") or "",
            published=published,
            updated=_time(element, "atom:updated"),
            authors=authors,
            primary_category=primary,
            categories=tuple(categories),
            index=index,
        ),
        "",
    )


def _clean(value: str | None) -> str:
    """Element text as one line of plain text: the feed hard-wraps titles and abstracts."""
    return " ".join(strip_control(value or "", " ").split())


def _text(element: ET.Element, path: str) -> str | None:
    found = element.find(path, _NS)
    if found is None:
        return None
    # itertext: a stray child element inside a title is read as its text, never as markup.
    return _clean("".join(found.itertext())) or None


def _term(element: ET.Element | None) -> str | None:
    if element is None:
        return None
    return _clean(element.get("term"))[:64] or None


def _time(element: ET.Element, path: str) -> dt.datetime | None:
    value = _text(element, path)
    if value is None:
        return None
    try:
        stamp = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    # The API's times are UTC ("Z"); one without a zone is taken as UTC too.
    return stamp.astimezone(dt.UTC) if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)


def _int(root: ET.Element, path: str) -> int | None:
    value = _text(root, path)
    if value is None or not value.isdigit() or len(value) > 12:
        return None
    return int(value)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
