"""Parser for the text of a Hugging Face Daily Papers page (the format of fixtures/digests/*.txt).

The page is a header ("Daily Papers", "byAK and the research community"), the page date
("Dec 10": month and day, no year), then entries separated by blank lines:

    Title line
    <blank>
    Abstract paragraph
    <blank>
      • 8 authors            (or an organisation line: "deepseek-ai DeepSeek")
    ·
    Jun 16 5                 (a date with or without a year, then an optional upvote count)

Any part of an entry may be missing. A metadata block is told by its "·" line and closes an
entry. Titles and abstracts are told apart by the page's structure first: between two metadata
blocks the text blocks read title, abstract, title, abstract..., so the blocks of such a run get
the reading that breaks that order least (`_roles`); shape (length, sentences) only breaks ties,
so a title that is itself a question ("Is X All You Need? A Study of Y") stays a title. A date
without a year is in the page's year, which the page never states: see `infer_page_year`.

Malformed entries are skipped with a warning naming the file and line; the rest still parse.
"""

from __future__ import annotations

import codecs
import datetime as dt
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path
from typing import Any, BinaryIO

from digest_tui.errors import PageFormatError
from digest_tui.ids import paper_id
from digest_tui.models import Digest, ImportWarning, Paper, ParsedDigest
from digest_tui.textsafe import strip_control

SOURCE = "hf-page"

# The largest page file `import` reads (a real day's page is ~100 kB); anything bigger is
# refused before it is read in full. docs/security.md, "Library file and imports".
MAX_PAGE_BYTES = 256 * 1024 * 1024
_READ_CHUNK = 1024 * 1024

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}
_DATE_LINE = re.compile(
    r"^(?P<mon>[A-Za-z]{3})[a-z]*\.? (?P<day>\d{1,2})(?:, (?P<year>\d{4}))?(?: (?P<votes>\d+))?$"
)
_AUTHORS_LINE = re.compile(r"^[•*\-]\s*(?P<n>\d+)\s+authors?$")
_HEADER_LINES = {
    "new",
    "get trending papers in your email inbox!",
    "subscribe",
    "daily papers",
    "byak and the research community",
}
# Titles are short; a block longer than this is never one.
_TITLE_MAX_CHARS = 300
_SENTENCE_END = re.compile(r"[.!?]\s+[A-Z(]")
# Costs of a reading of a run of text blocks (see `_roles`). Breaking the page's order costs
# more than any shape cue, so structure decides and shape only breaks ties: a title that
# reads like a sentence still is the title when an abstract follows it.
_COST_NO_TITLE = 3.0  # an abstract with no title before it (the entry is dropped)
_COST_NO_ABSTRACT = 1.0  # a title with no abstract after it (pages do show those)
_COST_TITLE_LIKE_SENTENCES = 1.5  # a "title" with sentences in it ("We do X. It works.")
_COST_TITLE_ENDS_WITH_PERIOD = 1.0
_COST_TITLE_OVER_LINES = 1.0  # titles are one line on the page
_COST_ABSTRACT_LIKE_TITLE = 1.5  # an "abstract" that is one short phrase with no sentence end


@dataclass
class _Block:
    line: int  # 1-based number of the block's first line
    lines: list[str]

    @property
    def text(self) -> str:
        return " ".join(part.strip() for part in self.lines).strip()


@dataclass
class _Meta:
    line: int
    authors_count: int | None = None
    organization: str | None = None
    organization_name: str | None = None
    month: int | None = None
    day: int | None = None
    year: int | None = None
    upvotes: int | None = None
    problems: list[str] = field(default_factory=list)


@dataclass
class _Entry:
    line: int
    title: str | None = None
    title_line: int | None = None
    abstract: str = ""
    meta: _Meta | None = None


def _blocks(lines: list[str]) -> list[_Block]:
    return list(_iter_blocks(lines))


def _iter_blocks(lines: Iterable[str]) -> Iterator[_Block]:
    """The blocks of non-blank lines, each yielded once complete (a streamed page is never
    held whole)."""
    current: _Block | None = None
    for number, raw in enumerate(lines, 1):
        if raw.strip():
            if current is None:
                current = _Block(number, [])
            current.lines.append(raw)
        elif current is not None:
            yield current
            current = None
    if current is not None:
        yield current


def _is_meta_block(block: _Block) -> bool:
    return any(part.strip() == "·" for part in block.lines)


def _title_cost(block: _Block, text: str) -> float:
    """How unlike a title `text` is (inf: it cannot be one)."""
    if len(text) > _TITLE_MAX_CHARS:
        return float("inf")
    cost = 0.0
    if _SENTENCE_END.search(text):
        cost += _COST_TITLE_LIKE_SENTENCES
    if text.endswith("."):
        cost += _COST_TITLE_ENDS_WITH_PERIOD
    if len(block.lines) > 1:
        cost += _COST_TITLE_OVER_LINES
    return cost


def _abstract_cost(text: str) -> float:
    """How unlike an abstract `text` is: one short phrase with no sentence in it."""
    if len(text) <= _TITLE_MAX_CHARS and not _SENTENCE_END.search(text) and text[-1:] != ".":
        return _COST_ABSTRACT_LIKE_TITLE
    return 0.0


def _roles(run: list[tuple[_Block, str]]) -> list[bool]:
    """For each text block of a run between metadata blocks: True when it is a title.

    The page's order is title then abstract per entry; every reading of the run is costed
    (an abstract without a title, a title without an abstract, plus the shape costs) and the
    cheapest is taken (a two-state Viterbi pass, linear in the run's length).
    """
    inf = float("inf")
    # best[state] = (cost, roles) after the blocks so far; state: the last block was a title.
    best: dict[bool, tuple[float, list[bool]]] = {False: (0.0, [])}
    for block, text in run:
        as_title = _title_cost(block, text)
        as_abstract = _abstract_cost(text)
        step: dict[bool, tuple[float, list[bool]]] = {}
        for last_title, (cost, roles) in best.items():
            # This block a title: a title just before it had no abstract.
            title = cost + as_title + (_COST_NO_ABSTRACT if last_title else 0.0)
            # This block an abstract: fine after a title, else its entry has no title.
            abstract = cost + as_abstract + (0.0 if last_title else _COST_NO_TITLE)
            for state, total in ((True, title), (False, abstract)):
                if total < inf and (state not in step or total < step[state][0]):
                    step[state] = (total, [*roles, state])
        best = step
    finals = [
        (cost + (_COST_NO_ABSTRACT if last else 0.0), roles) for last, (cost, roles) in best.items()
    ]
    return min(finals, key=lambda item: item[0])[1]


def _parse_date(text: str) -> tuple[int, int, int | None, int | None] | None:
    match = _DATE_LINE.match(text.strip())
    if not match:
        return None
    month = _MONTHS.get(match["mon"][:3].lower())
    day = int(match["day"])
    if month is None or not 1 <= day <= 31:
        return None
    year = int(match["year"]) if match["year"] else None
    votes = int(match["votes"]) if match["votes"] else None
    return month, day, year, votes


def _parse_meta(block: _Block) -> _Meta:
    meta = _Meta(line=block.line)
    parts = [p.strip() for p in block.lines]
    dot = parts.index("·")
    head, tail = parts[:dot], parts[dot + 1 :]
    for text in head:  # blocks never hold blank lines
        authors = _AUTHORS_LINE.match(text)
        if authors:
            meta.authors_count = int(authors["n"])
        else:
            handle, _, name = text.partition(" ")
            meta.organization = handle
            meta.organization_name = name.strip() or handle
    if not tail:
        meta.problems.append("metadata block has no date after '·'")
        return meta
    parsed = _parse_date(tail[0])
    if parsed is None:
        meta.problems.append(f"unreadable date {tail[0]!r} after '·'")
    else:
        meta.month, meta.day, meta.year, meta.upvotes = parsed
    return meta


def _page_date(blocks: list[_Block], origin: str) -> tuple[int, tuple[int, int]]:
    """`_find_page_date`, or the error that says the text is not a Daily Papers page."""
    found = _find_page_date(blocks)
    if found is None:
        raise PageFormatError(
            f"{origin}: no page date found (expected a line such as 'Dec 10' after the "
            "'Daily Papers' header in the first lines)"
        )
    return found


def _find_page_date(blocks: list[_Block]) -> tuple[int, tuple[int, int]] | None:
    """Return (index of the first entry block, (month, day)) of the page date."""
    for index, block in enumerate(blocks[:12]):
        if len(block.lines) != 1:
            continue
        text = block.text
        if text.lower() in _HEADER_LINES:
            continue
        parsed = _parse_date(text)
        if parsed and parsed[2] is None and parsed[3] is None:
            return index + 1, (parsed[0], parsed[1])
        return None
    return None


def infer_page_year(
    page_month_day: tuple[int, int], explicit_years: list[int], today: dt.date
) -> int:
    """Infer the year of a page that shows only month and day.

    Daily Papers prints the year only for dates outside the current year, so the page's year is
    later than every year it prints: at least max(explicit years) + 1. With no explicit year to
    go on, the page is assumed to be the most recent such date not after today.
    """
    if explicit_years:
        return max(explicit_years) + 1
    month, day = page_month_day
    year = today.year
    if _safe_date(year, month, day) is None or _safe_date(year, month, day) > today:  # type: ignore[operator]
        year -= 1
    return year


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _group_entries(
    blocks: list[_Block], origin: str, warnings: list[ImportWarning]
) -> list[_Entry]:
    return list(_iter_entries(blocks, origin, warnings))


def _iter_entries(
    blocks: Iterable[_Block], origin: str, warnings: list[ImportWarning]
) -> Iterator[_Entry]:
    """The entries of the page in order, each yielded once its metadata block (or the next
    entry) closes it."""
    entries: list[_Entry] = []  # closed and not yet yielded
    current: _Entry | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            entries.append(current)
        current = None

    def place(run: list[tuple[_Block, str]]) -> None:
        nonlocal current
        for (block, text), is_title in zip(run, _roles(run), strict=True):
            if is_title:
                close()
                current = _Entry(line=block.line, title=text, title_line=block.line)
            elif current is not None and current.title is not None and not current.abstract:
                current.abstract = text
            else:
                # Prose with no title before it: the entry's title is missing.
                close()
                current = _Entry(line=block.line, abstract=text)

    run: list[tuple[_Block, str]] = []
    for block in blocks:
        if not _is_meta_block(block):
            # A title or abstract must never carry escape sequences into the store (the views
            # also render text literally: this is the first line of defence).
            run.append((block, strip_control(block.text)))
            continue
        place(run)
        run = []
        meta = _parse_meta(block)
        if current is None:
            warnings.append(
                ImportWarning(
                    origin=origin,
                    line=block.line,
                    message="metadata block without a title before it; skipped",
                )
            )
            yield from entries  # place() may have closed entries of the run before it
            entries.clear()
            continue
        current.meta = meta
        close()
        yield from entries
        entries.clear()
    place(run)
    close()
    yield from entries


def parse_page(
    text: str, origin: str, *, year: int | None = None, today: dt.date | None = None
) -> ParsedDigest:
    """Parse the text of one Daily Papers page.

    `origin` names the input in warnings and ids (usually the file path). `year` overrides the
    inferred page year. Raises PageFormatError when the text is not a Daily Papers page at all.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    blocks = _blocks(text.split("\n"))
    if not blocks:
        raise PageFormatError(f"{origin}: empty file, expected the text of a Daily Papers page")
    first_entry, (page_month, page_day) = _page_date(blocks, origin)
    warnings: list[ImportWarning] = []
    entries = _group_entries(blocks[first_entry:], origin, warnings)

    explicit_years = [e.meta.year for e in entries if e.meta and e.meta.year]
    page_year = year or infer_page_year(
        (page_month, page_day), explicit_years, today or dt.date.today()
    )
    page_date = _safe_date(page_year, page_month, page_day)
    if page_date is None:
        raise PageFormatError(f"{origin}: page date {page_month}/{page_day} is not a real date")

    _warn_if_cut_off(entries, origin, warnings)
    papers: list[Paper] = []
    seen: set[str] = set()
    for entry in entries:
        paper = _entry_to_paper(entry, page_year, origin, warnings)
        if paper is None:
            continue
        if paper.id in seen:
            warnings.append(
                ImportWarning(
                    origin=origin, line=entry.line, message=f"duplicate entry {paper.title!r}"
                )
            )
            continue
        seen.add(paper.id)
        papers.append(paper)

    digest = _page_digest(page_date, papers, origin)
    return ParsedDigest(digest=digest, papers=papers, warnings=warnings)


# How an abstract ends when the page was not cut off: a sentence's end, or a URL.
_SENTENCE_CLOSERS = frozenset(".!?)]\"'\u201d\u2019")


def _ends_whole(abstract: str) -> bool:
    text = abstract.rstrip()
    return bool(text) and (text[-1] in _SENTENCE_CLOSERS or "/" in text.rsplit(None, 1)[-1])


def _warn_if_cut_off(entries: list[_Entry], origin: str, warnings: list[ImportWarning]) -> None:
    """A page cut off mid-download ends inside its last entry: say so, naming the line."""
    if not entries:
        return
    last = entries[-1]
    if last.abstract and not _ends_whole(last.abstract):
        message = "the last entry's abstract stops mid-sentence: the page may be truncated"
    elif last.title and not last.abstract and last.meta is None:
        message = "the last entry has only a title: the page may be truncated"
    else:
        return
    warnings.append(ImportWarning(origin=origin, line=last.line, message=message))


def _entry_to_paper(
    entry: _Entry, page_year: int, origin: str, warnings: list[ImportWarning]
) -> Paper | None:
    def warn(message: str, line: int | None = None) -> None:
        warnings.append(ImportWarning(origin=origin, line=line or entry.line, message=message))

    if not entry.title:
        warn("entry has an abstract but no title; skipped")
        return None
    published: dt.date | None = None
    inferred = False
    meta = entry.meta
    if meta is not None:
        for problem in meta.problems:
            warn(problem, meta.line)
        if meta.month and meta.day:
            published = _safe_date(meta.year or page_year, meta.month, meta.day)
            inferred = meta.year is None
            if published is None:
                warn(f"date {meta.month}/{meta.day} is not a real date; left empty", meta.line)
    if not entry.abstract:
        warn(f"entry {entry.title!r} has no abstract; imported with the title only")
    return Paper(
        id=paper_id(entry.title),
        title=entry.title,
        abstract=entry.abstract,
        published=published,
        published_year_inferred=inferred,
        upvotes=meta.upvotes if meta else None,
        authors_count=meta.authors_count if meta else None,
        organization=meta.organization if meta else None,
        organization_name=meta.organization_name if meta else None,
        source=SOURCE,
        source_ref=f"{origin}:{entry.title_line or entry.line}",
    )


def _open_page(path: Path, limit: int) -> BinaryIO:
    """The file opened for reading after the checks of `read_page_text`."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise PageFormatError(
            f"{path}: not a regular file ({_file_kind(info.st_mode)}); give the path "
            "of a saved page"
        )
    file = os.fdopen(fd, "rb")
    if info.st_size > limit:
        file.close()
        raise _too_big(path, limit)
    return file


def _too_big(path: Path, limit: int) -> PageFormatError:
    return PageFormatError(
        f"{path}: larger than {limit // (1024 * 1024)} MiB; a Daily Papers page is far "
        "smaller (is this the right file?)"
    )


def read_page_text(path: Path, *, limit: int = MAX_PAGE_BYTES) -> str:
    """The text of a saved page, read in chunks up to `limit` bytes.

    Devices, FIFOs and folders are refused before anything is read (`/dev/zero` would never
    end, a FIFO would wait for a writer): the file is opened without blocking and checked
    with fstat, so what is checked is what is read. Raises PageFormatError naming the path,
    or OSError when the file cannot be opened at all.
    """
    with _open_page(path, limit) as file:
        chunks: list[bytes] = []
        size = 0
        while chunk := file.read(_READ_CHUNK):
            size += len(chunk)
            if size > limit:  # the file grew while we read it
                raise _too_big(path, limit)
            chunks.append(chunk)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PageFormatError(f"{path}: not UTF-8 text (byte {exc.start}, line {line})") from None


def _page_lines(path: Path, limit: int, digest: Any) -> Iterator[str]:
    """The lines of a saved page as `parse_page` splits its text (a leading BOM dropped, \\r\\n
    and \\r read as \\n), read 1 MiB at a time; `digest` (hashlib) is fed the bytes, so it
    ends as `content_hash` of the text. The same errors as `read_page_text`."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    size = newlines = 0
    carry = ""
    started = False
    with _open_page(path, limit) as file:
        while True:
            chunk = file.read(_READ_CHUNK)
            final = not chunk
            size += len(chunk)
            if size > limit:  # the file grew while we read it
                raise _too_big(path, limit)
            digest.update(chunk)
            pending = decoder.getstate()[0]
            try:
                text = decoder.decode(chunk, final=final)
            except UnicodeDecodeError as exc:
                at = size - len(chunk) - len(pending) + exc.start
                line = newlines + (pending + chunk).count(b"\n", 0, exc.start) + 1
                raise PageFormatError(f"{path}: not UTF-8 text (byte {at}, line {line})") from None
            newlines += chunk.count(b"\n")
            if not started:
                text = text.lstrip("\ufeff")
                started = bool(text)
            text = carry + text
            carry = ""
            if not final and text.endswith("\r"):
                text, carry = text[:-1], "\r"  # maybe the first half of \\r\\n
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            if final:
                yield from lines
                return
            carry = lines.pop() + carry
            yield from lines


@dataclass
class StreamedPage:
    """A page file too large to hold as text, parsed in two passes over the file.

    The first pass (`stream_page`) finds what the whole page decides: its date, its year (from
    every year printed on it), whether its end is cut off, its content hash. `papers()` reads
    the file again and yields its papers a chunk at a time, exactly the papers and warnings
    `parse_page` gives for the same text; `warnings` holds all of them once it is done.
    """

    path: Path
    digest: Digest
    content_hash: str
    warnings: list[ImportWarning]
    page_year: int
    first_entry: int
    limit: int

    def papers(self, chunk: int = 1000) -> Iterator[list[Paper]]:
        origin = self.digest.origin
        digest = hashlib.sha256()
        blocks = islice(
            _iter_blocks(_page_lines(self.path, self.limit, digest)), self.first_entry, None
        )
        seen: set[str] = set()
        papers: list[Paper] = []
        for entry in _iter_entries(blocks, origin, []):  # their warnings: the first pass's
            paper = _entry_to_paper(entry, self.page_year, origin, self.warnings)
            if paper is None:
                continue
            if paper.id in seen:
                self.warnings.append(
                    ImportWarning(
                        origin=origin, line=entry.line, message=f"duplicate entry {paper.title!r}"
                    )
                )
                continue
            seen.add(paper.id)
            papers.append(paper)
            if len(papers) >= chunk:
                yield papers
                papers = []
        if digest.hexdigest() != self.content_hash:
            raise PageFormatError(f"{self.path}: the file changed while it was being imported")
        if papers:
            yield papers


def stream_page(
    path: Path,
    *,
    year: int | None = None,
    today: dt.date | None = None,
    limit: int = MAX_PAGE_BYTES,
) -> StreamedPage:
    """The first pass over a page file (see StreamedPage); PageFormatError as `parse_page`."""
    origin = str(path)
    digest = hashlib.sha256()
    blocks = _iter_blocks(_page_lines(path, limit, digest))
    head = list(islice(blocks, 12))
    if not head:
        for _ in blocks:  # the hash of the whole (blank) file
            pass
        raise PageFormatError(f"{origin}: empty file, expected the text of a Daily Papers page")
    first_entry, (page_month, page_day) = _page_date(head, origin)
    warnings: list[ImportWarning] = []
    latest_year: int | None = None
    last: _Entry | None = None
    for entry in _iter_entries(chain(head[first_entry:], blocks), origin, warnings):
        if entry.meta and entry.meta.year:
            latest_year = max(latest_year or entry.meta.year, entry.meta.year)
        last = entry
    page_year = year or infer_page_year(
        (page_month, page_day), [latest_year] if latest_year else [], today or dt.date.today()
    )
    page_date = _safe_date(page_year, page_month, page_day)
    if page_date is None:
        raise PageFormatError(f"{origin}: page date {page_month}/{page_day} is not a real date")
    _warn_if_cut_off([last] if last is not None else [], origin, warnings)
    return StreamedPage(
        path=path,
        digest=_page_digest(page_date, [], origin),
        content_hash=digest.hexdigest(),
        warnings=warnings,
        page_year=page_year,
        first_entry=first_entry,
        limit=limit,
    )


def _page_digest(page_date: dt.date, papers: list[Paper], origin: str) -> Digest:
    return Digest(
        id=f"{SOURCE}-{page_date.isoformat()}",
        source=SOURCE,
        date=page_date,
        title=f"Daily Papers {page_date.isoformat()}",
        paper_ids=[p.id for p in papers],
        origin=origin,
    )


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def parse_file(path: Path, year: int | None = None, today: dt.date | None = None) -> ParsedDigest:
    """Parse a page saved as text. Raises PageFormatError (naming the file) or OSError."""
    return parse_page(read_page_text(path), str(path), year=year, today=today)
