"""The sentence split of the hardware extractor: the break pattern starts at the punctuation
(cheaper than a lookbehind at every position) and must end every break where the lookbehind
form does, since only the ends are used."""

from __future__ import annotations

import re

import pytest

from digest_tui.enrich.hardware.text import _SENTENCE_BREAK

_LOOKBEHIND_FORM = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")


@pytest.mark.parametrize(
    "text",
    [
        "We train a model. It runs on 8 GPUs.",
        "Wait.. What? Yes!  No. (A) [B]",
        "a.\tB.  \n C",
        "Version 2.5 beats 1.0. Then 3.Next x",
        "e.g. Large models. i.e. Many",
        "...A !B ?C",
        "",
        ".",
        "No break here",
    ],
)
def test_sentence_breaks_end_where_the_lookbehind_form_ends(text):
    ends = [m.end() for m in _SENTENCE_BREAK.finditer(text)]
    assert ends == [m.end() for m in _LOOKBEHIND_FORM.finditer(text)]
