"""`normalize_title` skips Unicode decomposition for ASCII titles (the usual case, and ~8 % of
an import's time): the result must be the full path's for every text."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from digest_tui.ids import normalize_title


def reference(title: str) -> str:
    decomposed = unicodedata.normalize("NFKD", title)
    ascii_only = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", ascii_only.casefold()).split())


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_titles_fold_as_with_decomposition(title):
    assert normalize_title(title) == reference(title)


@given(st.text())
def test_any_title_folds_as_with_decomposition(title):
    assert normalize_title(title) == reference(title)


def test_examples():
    assert (
        normalize_title("Mélange: Cost Efficient LLM Serving")
        == "melange cost efficient llm serving"
    )
    assert normalize_title("FlashAttention-3: Fast & Accurate") == "flashattention 3 fast accurate"
