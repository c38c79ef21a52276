"""The title key is memoised (ids.py): an import folds each title once, not 4-5 times (the
parser's id, the store's lookup key, the catalog's lookup), and the memo gives the same keys."""

from __future__ import annotations

from pathlib import Path

from digest_tui.ids import normalize_title, title_key
from digest_tui.sources.hf_page import parse_page
from tests.support.paths import ALL_SEEDS


def test_title_key_is_computed_once_per_title():
    title_key.cache_clear()
    title = "A Memoised Title: Folded Once"
    first = title_key(title)
    assert title_key(title) == first
    assert title_key.cache_info().hits == 1


def test_parsing_a_page_folds_each_title_once():
    text = Path(ALL_SEEDS[0]).read_text(encoding="utf-8")
    normalize_title.cache_clear()
    papers = parse_page(text, "page.txt").papers
    info = normalize_title.cache_info()
    assert info.misses == len({p.title for p in papers})
    # the keys are those of the unmemoised function
    assert [title_key(p.title) for p in papers] == [title_key.__wrapped__(p.title) for p in papers]
