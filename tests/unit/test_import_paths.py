"""Every way of importing stores the same library.

The importer inserts a paper none of whose keys is stored (or named earlier in its chunk)
without looking it up one key at a time (`Library._store_chunk`), and an import may enrich in
worker processes. Whatever the path, the tables, the full-text index and the warnings must be
those of the general path (`_upsert_paper` for every paper, enrichment computed here): these
tests import the same inputs each way into real SQLite files and compare full dumps.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path
from typing import Any

from digest_tui.enrich.pipeline import Enricher
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.service import IMPORT_CACHE_KIB, import_files
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from tests.support.paths import DIGESTS

PAGES = sorted(DIGESTS.glob("*.txt"))
# Words whose full-text results are compared (a prefix query too: the index keeps prefixes).
QUERIES = ("attention", "gpu", "training", "mem*", "sp*", "heterogeneity", "kernel")


class _EverythingStored(set):
    """Stands in for the stored keys so that no paper looks new: every paper then takes the
    general path, the reference the fast path must equal."""

    def isdisjoint(self, other: Any) -> bool:
        return False


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table an import writes, with rowids; times of day left out."""
    columns = [r[1] for r in conn.execute("PRAGMA table_info(papers)") if r[1] != "added_at"]
    # The index must be whole, and answer like the per-row triggers' index would.
    conn.execute("INSERT INTO papers_fts (papers_fts) VALUES ('integrity-check')")
    return {
        "papers": conn.execute(
            f"SELECT rowid, {', '.join(columns)} FROM papers ORDER BY rowid"
        ).fetchall(),
        "paper_topics": conn.execute("SELECT * FROM paper_topics ORDER BY 1, 2").fetchall(),
        "paper_aliases": conn.execute("SELECT * FROM paper_aliases ORDER BY 1").fetchall(),
        "digests": conn.execute(
            "SELECT id, source, date, title, origin, content_hash FROM digests ORDER BY id"
        ).fetchall(),
        "digest_papers": conn.execute("SELECT * FROM digest_papers ORDER BY 1, 3").fetchall(),
        "search": [
            (
                q,
                *(
                    r[0]
                    for r in conn.execute(
                        "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? "
                        "ORDER BY rank, rowid",
                        (q,),
                    )
                ),
            )
            for q in QUERIES
        ],
        "terms": conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, papers_fts, 'row')"
        ).fetchall()
        + conn.execute("SELECT term, doc, cnt FROM temp.v ORDER BY term").fetchall(),
    }


def crafted_inputs(tmp_path: Path) -> list[Path]:
    """The fixture digests, then a page with bad entries (a metadata block without a title, a
    duplicate entry, an abstract without a title) that repeats a paper of the first digest,
    and a file that is no page at all."""
    first = PAGES[0].read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(first) if line.startswith("Mélange"))
    block = first[start : start + 7]
    lines = PAGES[2].read_text(encoding="utf-8").split("\n")
    crafted = lines[:20] + block + ["", "  • 3 authors", "·", "Jun 16", ""] + block + lines[20:]
    page = tmp_path / "crafted.txt"
    page.write_text("\n".join(crafted), encoding="utf-8")
    broken = tmp_path / "broken.txt"
    broken.write_text("nothing like a Daily Papers page\n", encoding="utf-8")
    return [*PAGES, page, broken]


def import_each_way(tmp_path: Path, paths: list[Path], way: str) -> tuple[Any, ...]:
    library = Library(connect(tmp_path / f"{way}.sqlite3"), Enricher(None))
    report = import_files(library, paths, workers=2 if way == "workers" else 0)
    again = import_files(library, paths, workers=0)  # a second import changes nothing
    warnings = [str(w) for w in report.warnings]
    counts = (report.new, report.updated, report.unchanged, report.failed)
    result = (counts, warnings, (again.new, again.updated), dump(library.conn))
    library.conn.close()
    return result


def test_fast_path_and_workers_store_what_the_general_path_stores(tmp_path, monkeypatch):
    paths = crafted_inputs(tmp_path)
    fast = import_each_way(tmp_path, paths, "fast")
    workers = import_each_way(tmp_path, paths, "workers")
    with monkeypatch.context() as patch:
        patch.setattr(Library, "_stored_keys", lambda self, keys: _EverythingStored())
        general = import_each_way(tmp_path, paths, "general")
    counts, warnings, again, tables = general
    assert counts[0] > 100 and counts[3] == [str(paths[-1])]
    assert any("duplicate entry" in w for w in warnings)
    assert any("without a title" in w for w in warnings)
    assert again == (0, 0)
    assert all(len(rows) > 1 for rows in tables["search"])  # the queries find papers
    assert fast == general
    assert workers == general


def _paper(ident: str, title: str, arxiv: str | None = None, abstract: str = "") -> Paper:
    return Paper(
        id=ident,
        title=title,
        arxiv_id=arxiv,
        abstract=abstract or f"{title}: a study of GPU kernels and memory for training.",
        source_ref=f"x.txt:{len(title)}",
    )


def _digest(day: int, papers: list[Paper]) -> ParsedDigest:
    date = dt.date(2025, 1, day)
    digest = Digest(id=f"hf-{date}", source="hf-page", date=date, title=f"Daily {date}")
    return ParsedDigest(digest=digest, papers=papers)


def tricky_digests() -> list[ParsedDigest]:
    """Papers that look new by their own id but are a stored paper, or one earlier in the
    same chunk, by another key: title key, arXiv id (any spelling), alias."""
    first = [
        _paper("2501.00001", "Alpha Systems", "2501.00001"),
        _paper("beta-kernels-1234abcd", "Beta Kernels"),
        *(_paper(f"filler-{n}", f"Filler paper number {n}") for n in range(8)),
    ]
    second = [
        _paper("alpha-systems-99999999", "Alpha systems!"),  # stored, by title key
        _paper("2501.00002", "Gamma Serving", "2501.00002"),  # new
        _paper("gamma-serving-11111111", "Gamma serving"),  # the one above, by title key
        _paper("2501.00003", "Delta Offload", "arXiv:2501.00003v2"),  # new
        _paper("delta-prime-2222", "Delta Offload Prime", "2501.00003"),  # above, by arXiv id
        _paper("beta-kernels-1234abcd", "Beta Kernels", abstract="Beta Kernels, longer: " * 9),
        _paper("alpha-systems-99999999", "Alpha Systems"),  # an alias of a stored paper now
        _paper("2501.00004", "Epsilon Sparse Attention", "2501.00004"),  # new
        _paper("2501.00004", "Epsilon Sparse Attention", "2501.00004"),  # twice in a chunk
        *(_paper(f"other-{n}", f"Another new paper {n}") for n in range(8)),
    ]
    return [_digest(1, first), _digest(2, second)]


def _import_digests(path: Path) -> tuple[Any, ...]:
    library = Library(connect(path), Enricher(None))
    reports = [
        library.import_parsed(parsed, f"hash-{i}") for i, parsed in enumerate(tricky_digests())
    ]
    result = (
        [(r.new, r.updated, r.unchanged, [str(w) for w in r.warnings]) for r in reports],
        dump(library.conn),
    )
    library.conn.close()
    return result


def test_papers_known_by_another_key_are_never_inserted_twice(tmp_path, monkeypatch):
    fast = _import_digests(tmp_path / "fast.sqlite3")
    with monkeypatch.context() as patch:
        patch.setattr(Library, "_stored_keys", lambda self, keys: _EverythingStored())
        general = _import_digests(tmp_path / "general.sqlite3")
    assert fast == general
    reports, tables = fast
    # alpha, gamma, delta and epsilon are one paper each; 10 + 3 + 8 new papers in all
    assert len(tables["papers"]) == 21
    assert reports[1][0] == 11


def test_import_uses_a_larger_page_cache_and_gives_it_back(tmp_path):
    library = Library(connect(tmp_path / "cache.sqlite3"), Enricher(None))
    before = library.conn.execute("PRAGMA cache_size").fetchone()[0]
    during: list[int] = []

    def on_file(path: Path, report: Any) -> None:
        during.append(library.conn.execute("PRAGMA cache_size").fetchone()[0])

    report = import_files(library, PAGES, workers=0, on_file=on_file)
    assert report.new > 100
    assert during and set(during) == {-IMPORT_CACHE_KIB}
    assert library.conn.execute("PRAGMA cache_size").fetchone()[0] == before
    library.conn.close()
