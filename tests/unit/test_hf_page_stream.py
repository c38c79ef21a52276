"""A page read as a stream (`stream_page`, two passes over the file, never the whole text in
memory) gives exactly what `parse_page` gives for the whole text: the digest, every paper,
every warning in order, the content hash, and the same errors, whatever the chunk size (a
\\r\\n or a UTF-8 character split between two reads included)."""

from __future__ import annotations

import pytest

from digest_tui.errors import PageFormatError
from digest_tui.sources import hf_page
from digest_tui.sources.hf_page import parse_page, read_page_text, stream_page
from digest_tui.store.library import content_hash
from tests.support.paths import DIGESTS

CRAFTED = (
    "\ufeff\ufeffDaily Papers\r\nbyAK and the research community\r\n\r\nDec 10\r\n\r\n·\nDec 8\n\n"
    "Orphan metadata first\r\n\r\n·\r\nDec 9\r\n\r\n"
    "Kernels für Ärzte: a title\r\n\r\nWe fuse kernels on H100 GPUs. It works.\r\r"
    "  • 3 authors\r\n·\r\nJun 16, 2024 5\r\n\r\n"
    "Kernels für Ärzte: a title\r\n\r\nThe same paper again. Twice.\n\n  • 1 author\n·\nDec 9\n\n"
    "A title with no abstract\n\n  • 2 authors\n·\nNot a date\n\n"
    "Cut off title\n\nAn abstract that stops mid"
)


def streamed(path, chunk_size: int = 1000, **kwargs):
    page = stream_page(path, **kwargs)
    papers = [p for chunk in page.papers(chunk=chunk_size) for p in chunk]
    return page, papers


def assert_same(path, **kwargs) -> None:
    text = read_page_text(path)
    expected = parse_page(text, str(path), **kwargs)
    page, papers = streamed(path, chunk_size=3, **kwargs)
    assert papers == expected.papers
    assert page.warnings == expected.warnings
    assert page.digest == expected.digest.model_copy(update={"paper_ids": []})
    assert page.content_hash == content_hash(text)


@pytest.mark.parametrize("read_chunk", [1, 7, 4096, 1 << 20])
def test_fixture_pages_stream_as_they_parse(monkeypatch, read_chunk):
    monkeypatch.setattr(hf_page, "_READ_CHUNK", read_chunk)
    pages = sorted(DIGESTS.glob("*.txt"))
    for path in pages if read_chunk > 1 else pages[:1]:
        assert_same(path)


@pytest.mark.parametrize("read_chunk", [1, 2, 3, 5, 64])
def test_crafted_page_streams_as_it_parses(tmp_path, monkeypatch, read_chunk):
    monkeypatch.setattr(hf_page, "_READ_CHUNK", read_chunk)
    path = tmp_path / "page.txt"
    path.write_bytes(CRAFTED.encode("utf-8"))
    expected = parse_page(read_page_text(path), str(path))
    assert len(expected.papers) >= 3 and len(expected.warnings) >= 5  # the cases are there
    assert_same(path)
    assert_same(path, year=2031)


@pytest.mark.parametrize("read_chunk", [1, 3, 1 << 20])
def test_errors_are_those_of_the_whole_text(tmp_path, monkeypatch, read_chunk):
    monkeypatch.setattr(hf_page, "_READ_CHUNK", read_chunk)
    cases = {
        "latin1.txt": CRAFTED.encode("utf-8")[:200] + "é".encode("latin-1") + b"\nmore\n",
        "cut.txt": CRAFTED.encode("utf-8") + "€".encode()[:2],
        "empty.txt": b"\n\n  \n",
        "nodate.txt": b"Daily Papers\n\nSome title\n\nSome abstract.\n",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(PageFormatError) as whole:
            parse_page(read_page_text(path), str(path))
        with pytest.raises(PageFormatError) as stream:
            streamed(path)
        assert str(stream.value) == str(whole.value), name


def test_a_page_over_the_cap_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(CRAFTED.encode("utf-8"))
    with pytest.raises(PageFormatError, match="larger than"):
        stream_page(path, limit=100)


def test_a_page_changed_between_the_passes_is_refused(tmp_path):
    path = tmp_path / "page.txt"
    path.write_bytes(CRAFTED.encode("utf-8"))
    page = stream_page(path)
    path.write_bytes(CRAFTED.replace("Twice", "Thrice").encode("utf-8"))
    with pytest.raises(PageFormatError, match="changed while"):
        list(page.papers())


def stored(library) -> list[tuple]:
    return library.conn.execute(
        "SELECT p.id, p.title, p.abstract, p.published, p.upvotes, p.topics, p.hardware, "
        "dp.digest_id, dp.position, d.content_hash, d.origin FROM papers p "
        "JOIN digest_papers dp ON dp.paper_rowid = p.rowid JOIN digests d ON d.id = dp.digest_id "
        "ORDER BY dp.digest_id, dp.position"
    ).fetchall()


@pytest.mark.parametrize("workers", [0, 2])
def test_import_streams_large_pages_and_stores_what_a_whole_read_stores(
    tmp_path, monkeypatch, workers
):
    from digest_tui import service
    from digest_tui.enrich.pipeline import Enricher
    from digest_tui.store.db import connect
    from digest_tui.store.library import Library

    pages = sorted(DIGESTS.glob("*.txt"))
    whole = Library(connect(tmp_path / "whole.sqlite3"), Enricher(None))
    expected = service.import_files(whole, pages, workers=0)
    monkeypatch.setattr(service, "STREAM_BYTES", 0)  # every page streamed
    monkeypatch.setattr(hf_page, "_READ_CHUNK", 4096)
    streamed_lib = Library(connect(tmp_path / "streamed.sqlite3"), Enricher(None))
    seen: list[str] = []
    report = service.import_files(
        streamed_lib, pages, workers=workers, on_file=lambda path, r: seen.append(r.digest_id)
    )
    assert len(seen) == len(pages) and report.new == expected.new > 100
    assert report.warnings == expected.warnings
    assert stored(streamed_lib) == stored(whole)
