"""A fake arXiv API on 127.0.0.1: a real HTTP server answering `/api/query` the way arXiv does.

It holds entries (the `<entry>` elements of the recorded feeds in tests/fixtures/arxiv/, or
crafted ones) per category, and answers `search_query=cat:X AND submittedDate:[A TO B]` with
those of the window, newest first, paged by `start`/`max_results`, with `opensearch:` figures
and an ETag (304 to a matching If-None-Match). Tests queue raw answers (429, 503, a billion
laughs…) in front of the next requests and read back what was asked and when.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

from tests.support.loopback import serve_answers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "arxiv"
ATOM = "http://www.w3.org/2005/Atom"
_QUERY = re.compile(r"^cat:(\S+) AND submittedDate:\[(\d{12}) TO (\d{12})\]$")


@dataclass
class Canned:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    params: dict[str, str]
    headers: dict[str, str]
    at: float  # time.monotonic() when the request arrived
    status: int = 0


@dataclass
class Entry:
    category: str
    published: dt.datetime
    xml: str  # the <entry> element, serialised


def fixture_entries(name: str, category: str) -> list[Entry]:
    """The entries of a recorded feed in tests/fixtures/arxiv/."""
    root = ET.fromstring((FIXTURES / name).read_text(encoding="utf-8"))
    ET.register_namespace("", ATOM)
    ET.register_namespace("arxiv", "http://arxiv.org/schemas/atom")
    entries = []
    for element in root.findall(f"{{{ATOM}}}entry"):
        published = element.findtext(f"{{{ATOM}}}published") or ""
        entries.append(
            Entry(category, dt.datetime.fromisoformat(published), ET.tostring(element, "unicode"))
        )
    return entries


def crafted_entry(category: str, arxiv_id: str, published: str, title: str, abstract: str) -> Entry:
    xml = (
        f'<entry xmlns="{ATOM}" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<id>http://arxiv.org/abs/{arxiv_id}v1</id><updated>{published}</updated>"
        f"<published>{published}</published><title>{title}</title>"
        f"<summary>{abstract}</summary><author><name>Test Author</name></author>"
        f'<arxiv:primary_category term="{category}"/><category term="{category}"/></entry>'
    )
    return Entry(category, dt.datetime.fromisoformat(published), xml)


class FakeArxiv:
    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.canned: deque[Canned] = deque()
        self.requests: list[Seen] = []
        self.ignore_window = False  # answer as if the date filter were not there
        self.lock = threading.Lock()
        self.url = ""

    def add(self, entries: list[Entry]) -> None:
        self.entries.extend(entries)

    def fail_next(self, *answers: Canned) -> None:
        self.canned.extend(answers)

    def feed(self, params: dict[str, str]) -> Canned:
        match = _QUERY.match(params.get("search_query", ""))
        if match is None:
            return Canned(400, (FIXTURES / "error_bad_query.xml").read_bytes())
        category, low, high = match[1], match[2], match[3]
        start, size = int(params.get("start", 0)), int(params.get("max_results", 10))
        stamp = "%Y%m%d%H%M"
        lowest = dt.datetime.strptime(low, stamp).replace(tzinfo=dt.UTC)
        highest = dt.datetime.strptime(high, stamp).replace(tzinfo=dt.UTC, second=59)
        chosen = [
            e
            for e in self.entries
            if (self.ignore_window or lowest <= e.published <= highest)
            and f'term="{category}"' in e.xml
        ]
        chosen.sort(key=lambda e: e.published, reverse=True)
        page = chosen[start : start + size]
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<feed xmlns="{ATOM}" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
            f"<title>ArXiv Query</title><id>http://arxiv.org/api/fake</id>"
            f"<opensearch:totalResults>{len(chosen)}</opensearch:totalResults>"
            f"<opensearch:startIndex>{start}</opensearch:startIndex>"
            f"<opensearch:itemsPerPage>{size}</opensearch:itemsPerPage>"
            + "".join(e.xml for e in page)
            + "</feed>"
        ).encode()
        etag = f'"{hashlib.sha1(body).hexdigest()}"'
        return Canned(200, body, {"ETag": etag, "Content-Type": "application/atom+xml"})

    def answer(self, path: str, query: str, headers: dict[str, str]) -> Canned:
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        seen = Seen(params, headers, time.monotonic())
        with self.lock:
            self.requests.append(seen)
            canned = self.canned.popleft() if self.canned else None
        if canned is None:
            if path != "/api/query":
                canned = Canned(404, b"Not Found")
            else:
                canned = self.feed(params)
                etag = canned.headers.get("ETag")
                if etag and headers.get("if-none-match") == etag:
                    canned = Canned(304, b"", {"ETag": etag})
        seen.status = canned.status
        return canned


@contextmanager
def serve_arxiv(fake: FakeArxiv | None = None) -> Iterator[FakeArxiv]:
    fake = fake or FakeArxiv()
    with serve_answers(fake.answer, http11=True) as url:
        fake.url = url
        yield fake
