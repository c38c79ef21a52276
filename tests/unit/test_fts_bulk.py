"""The full-text index filled in bulk at the end of an import (store/fts_bulk.py) must be the
index the per-row triggers build: same terms, same documents, same search results; with the
real triggers back afterwards, also when a paper is inserted and changed in the same block."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from digest_tui.models import Digest, ParsedDigest
from digest_tui.service import import_files
from digest_tui.sources.hf_page import parse_page
from digest_tui.state.log import apply_ops
from digest_tui.store import library as library_module
from digest_tui.store.db import connect, transaction
from digest_tui.store.fts_bulk import fts_filled_at_end
from digest_tui.store.library import Library, content_hash
from tests.support.paths import DIGESTS
from tests.support.state import make_paper, replica

PAGES = sorted(DIGESTS.glob("*.txt"))
WORDS = ["attention", "kernel", "moe", "expert", "cache", "gpu", "train*", "fl*", "zebratag"]


def triggers(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    ).fetchall()


def index_of(conn: sqlite3.Connection) -> dict:
    """Everything the index says: every term with its documents and hits (fts5vocab), and the
    papers (by id) a few searches find."""
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab "
        "USING fts5vocab(main, papers_fts, 'instance')"
    )
    ids = dict(conn.execute("SELECT rowid, id FROM papers").fetchall())
    instances = sorted(
        (term, ids[doc], col, off)
        for term, doc, col, off in conn.execute("SELECT term, doc, col, offset FROM temp.vocab")
    )
    found = {
        word: sorted(
            ids[r[0]]
            for r in conn.execute("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?", (word,))
        )
        for word in WORDS
    }
    conn.execute("INSERT INTO papers_fts (papers_fts) VALUES ('integrity-check')")
    return {"instances": instances, "found": found}


def per_row_library(path, monkeypatch) -> Library:
    """The reference: every digest stored on its own, through the per-row triggers."""
    monkeypatch.setattr(library_module, "_BULK_FTS_MIN", 10**9)
    library = Library(connect(path), None)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        library.import_parsed(parse_page(text, str(page)), content_hash(text))
    monkeypatch.undo()
    return library


def test_bulk_index_equals_the_per_row_index(tmp_path, monkeypatch):
    reference = per_row_library(tmp_path / "ref.sqlite3", monkeypatch)
    bulk = Library(connect(tmp_path / "bulk.sqlite3"), None)
    before = triggers(bulk.conn)
    import_files(bulk, PAGES)
    assert triggers(bulk.conn) == before  # the migrations' triggers, back as they were
    expected = index_of(reference.conn)
    assert len(expected["instances"]) > 10_000 and all(expected["found"][w] for w in WORDS[:7])
    assert index_of(bulk.conn) == expected
    # and the per-row triggers work again afterwards: a change to a title is indexed
    bulk.conn.execute("UPDATE papers SET title = title || ' zebratag' WHERE rowid = 1")
    reference.conn.execute("UPDATE papers SET title = title || ' zebratag' WHERE rowid = 1")
    assert index_of(bulk.conn) == index_of(reference.conn)


def test_paper_inserted_then_changed_in_the_same_block(tmp_path):
    """The same paper twice in one digest (the longer abstract wins), and user state waiting
    for it (its tag goes into search_extra as it arrives): both change a row inserted in the
    block, which the index must show with its final text."""
    papers = [make_paper(f"Bulk paper {i}", f"2503.{i:05d}") for i in range(12)]
    first = papers[0].model_copy(update={"abstract": "Short text about kernels."})
    again = papers[0].model_copy(
        update={"abstract": "Short text about kernels, and a longer part on quokkas."}
    )
    writer = replica(papers[:1], device="writer")
    writer.state.add_tags(papers[0].id, ["zebratag"])
    library = Library(connect(tmp_path / "l.sqlite3"), None)
    assert apply_ops(library.conn, writer.ops()).pending == 1
    digest = Digest(id="d1", source="test", date=dt.date(2025, 12, 10), title="d1")
    library.import_parsed(ParsedDigest(digest=digest, papers=[first, *papers[1:], again]))
    index = index_of(library.conn)
    assert index["found"]["zebratag"] == [papers[0].id]
    hits = library.conn.execute(
        "SELECT count(*) FROM papers_fts WHERE papers_fts MATCH 'quokkas'"
    ).fetchone()[0]
    assert hits == 1


def test_an_error_caught_inside_the_block_leaves_a_consistent_index(tmp_path):
    library = Library(connect(tmp_path / "l.sqlite3"), None)
    before = triggers(library.conn)
    papers = [make_paper(f"Caught error paper {i}", f"2504.{i:05d}") for i in range(3)]
    digest = Digest(id="d1", source="test", date=dt.date(2025, 12, 10), title="d1")
    with (
        transaction(library.conn),
        pytest.raises(RuntimeError),
        fts_filled_at_end(library.conn),
    ):
        library.import_parsed(ParsedDigest(digest=digest, papers=papers))
        raise RuntimeError("a caller's error after the papers went in")
    assert triggers(library.conn) == before
    index = index_of(library.conn)
    assert len({i[1] for i in index["instances"]}) == 3  # all three papers indexed
