"""A 100,000-paper library built straight into SQLite, for the windowed list's tests.

Importing through the enricher would take minutes; the list reads only columns, indexes and the
FTS index, so rows are inserted in bulk (one transaction, `executemany`, the real schema and its
FTS triggers) and stamped with the current enrichment fingerprint so opening it re-enriches
nothing. Deterministic: paper `i` has a known title, date, votes, topics and code flag.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.support.home import isolate_home

PAPERS = 100_000
NEEDLE = 77_777  # the only paper whose title says "zeppelin"
UNDATED_EVERY = 50  # every 50th paper has no date of its own (its digest's date shows)

_WORDS = [
    "flash",
    "attention",
    "kernel",
    "expert",
    "routing",
    "cache",
    "pipeline",
    "tensor",
    "sparse",
    "quantized",
    "speculative",
    "decoding",
    "memory",
    "offloading",
    "scheduler",
    "compiler",
    "gradient",
    "bucket",
]
_TOPICS = {7: "moe", 5: "kernels"}  # paper i is in the topic when i % key == 0
_END = dt.date(2025, 12, 31)


def title(i: int) -> str:
    a, b, c = _WORDS[i % 17], _WORDS[(i // 17) % 17], _WORDS[(i // 289) % 17]
    lead = "Zeppelin" if i == NEEDLE else f"P{i:06d}"
    return f"{lead}: {a.title()} {b} for {c}"


def published(i: int) -> str | None:
    if i % UNDATED_EVERY == 0:
        return None
    return (_END - dt.timedelta(days=i % 700)).isoformat()


def first_seen(i: int) -> str:
    return (_END - dt.timedelta(days=i % 700)).isoformat()


def upvotes(i: int) -> int | None:
    return None if i % 11 == 0 else (i * 7919) % 500


def topics(i: int) -> list[str]:
    return [topic for every, topic in _TOPICS.items() if i % every == 0]


def build(root: Path) -> None:
    """Write the library into the DIGEST_TUI_HOME `root`."""
    from digest_tui.config import AppContext
    from digest_tui.service import open_library
    from digest_tui.store.db import transaction

    with pytest.MonkeyPatch.context() as patch:
        isolate_home(root, patch)
        library = open_library(AppContext())
        fingerprint = library.enricher.fingerprint if library.enricher else None
        conn = library.conn
        with transaction(conn):
            conn.executemany(
                "INSERT INTO papers (rowid, id, title_key, title, abstract, published, upvotes, "
                "source, added_at, first_seen, last_seen, topics, has_code, enrich_fp) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'test', '2025-01-01T00:00:00Z', ?, ?, ?, ?, ?)",
                (
                    (
                        i,
                        f"t{i:06d}",
                        f"p{i:06d}",
                        title(i),
                        "",
                        published(i),
                        upvotes(i),
                        first_seen(i),
                        first_seen(i),
                        json.dumps(topics(i)),
                        int(i % 3 == 0),
                        fingerprint,
                    )
                    for i in range(1, PAPERS + 1)
                ),
            )
            conn.executemany(
                "INSERT INTO paper_topics (topic, paper_rowid) VALUES (?, ?)",
                ((topic, i) for i in range(1, PAPERS + 1) for topic in topics(i)),
            )
        library.close()
