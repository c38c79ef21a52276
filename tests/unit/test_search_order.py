"""What a search lists and in which order, as docs/search.md says, on a small real library.

bm25 ranks title words ten times abstract words (and tags/notes four times); a lone word of two
or three letters matches title words (and tags, notes) only; quoted text matches whole words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from digest_tui.search_syntax import fts_query, parse_search
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery

# rowid -> (title, abstract); dates make the default order rowid-descending
_PAPERS = {
    1: ("Flow matching for fast sampling", "We study sampling."),
    2: ("Kernels", "Flow control in a flexible pipeline with kv caches and flow graphs."),
    3: ("Flow", "A short title on KVQuant."),
    4: ("Serving at scale", "A flexible scheduler; the KV cache is paged."),
    5: ("Cache eviction for kv stores", "Nothing else."),
}


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library(connect(tmp_path / "library.sqlite3"))
    for rowid, (title, abstract) in _PAPERS.items():
        lib.conn.execute(
            "INSERT INTO papers (rowid, id, title_key, title, abstract, published, source, "
            "added_at) VALUES (?, ?, ?, ?, ?, ?, 'test', '2025-01-01T00:00:00Z')",
            (rowid, f"p{rowid}", f"p{rowid}", title, abstract, f"2025-01-{rowid:02d}"),
        )
    return lib


def _listed(library: Library, search: str) -> list[int]:
    rowids = list(library.list_rowids(PaperQuery(search=search)))
    # The CLI's full-row path lists the same papers in the same order.
    assert [row.rowid for row in library.list_rows(PaperQuery(search=search))] == rowids
    return rowids


def test_a_lone_short_word_matches_title_words_only(library: Library) -> None:
    # "fl", "flo": titles with a word starting so (1, 3), never paper 2 or 4 whose abstracts say
    # "flow"/"flexible"; the short title ranks first (bm25 favours the shorter text).
    assert _listed(library, "fl") == [3, 1]
    assert _listed(library, "flo") == [3, 1]
    assert _listed(library, "fle") == []
    # A fourth letter searches abstracts too: title hits still rank first.
    assert _listed(library, "flow") == [3, 1, 2]
    assert set(_listed(library, "flex")) == {2, 4}


def test_short_words_with_another_word_search_everything(library: Library) -> None:
    # "kv" is no longer the word being typed: it matches abstracts as a prefix too.
    assert set(_listed(library, "kv cache")) == {2, 4, 5}
    assert _listed(library, "kv cache")[0] == 5  # both words in the title


def test_a_quoted_word_matches_whole_words_everywhere(library: Library) -> None:
    assert set(_listed(library, '"kv"')) == {2, 4, 5}  # abstracts too, but not "KVQuant"
    assert _listed(library, "kvqu") == [3]  # a bare word is a prefix
    assert _listed(library, '"kv"')[0] == 5
    assert set(_listed(library, '"flow"')) == {1, 2, 3}
    assert _listed(library, '"flo"') == []  # a whole word, not a prefix


def test_a_single_letter_waits_for_the_second(library: Library) -> None:
    assert fts_query(parse_search("f")) is None
    assert _listed(library, "f") == [5, 4, 3, 2, 1]  # every paper, newest first


def test_two_letters_and_an_exclusion(library: Library) -> None:
    assert _listed(library, "fl -sampling") == [3]
