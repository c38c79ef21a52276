"""`links._repo_kinds` asks whether a dot ends a sentence only next to a link, and runs the
wording patterns folded on the lower-cased text: the same kinds as the straightforward way
(every sentence end worked out, the patterns as written), on generated abstracts."""

from __future__ import annotations

import bisect

from hypothesis import given, settings
from hypothesis import strategies as st

from digest_tui.enrich import links
from digest_tui.enrich.links import _BOUNDARY, _is_abbreviation, _repo_key, _scan, _Wording


def straightforward_kinds(text: str) -> dict[str, str]:
    """`_repo_kinds` as it was: every sentence end, then the wording as written."""
    found = _scan(text)
    if not any(f.parsed.kind == "repo" for f in found):
        return {}
    masked = list(text)
    for f in found:
        masked[f.start : f.end] = links._MASK * (f.end - f.start)
    plain = "".join(masked)
    bounds = [m.start() for m in _BOUNDARY.finditer(plain) if not _is_abbreviation(plain, m)]
    sentences: dict[int, _Wording] = {}
    kinds: dict[str, str] = {}
    for f in found:
        p = f.parsed
        if p.kind != "repo" or not p.owner or not p.name:
            continue
        key = _repo_key(p.host, p.owner, p.name)
        i = bisect.bisect_left(bounds, f.start)
        start = bounds[i - 1] + 1 if i else 0
        j = bisect.bisect_left(bounds, f.end)
        end = bounds[j] if j < len(bounds) else len(text)
        wording = sentences.get(start)
        if wording is None:
            wording = sentences[start] = _Wording(plain, start, end)
        kind = wording.classify(f.start, f.end)
        if kinds.get(key) != "official":
            kinds[key] = kind
    return kinds


PIECES = [
    "Our code is available at",
    "We build on",
    "compared with",
    "Code:",
    "e.g.",
    "et al.",
    "Fig.",
    "i.e.",
    "vs.",
    "The results.",
    "SOURCE CODE",
    "Released",
    "based on",
    "İstanbul",
    "and",
    ";",
    "!",
    "\n",
    "https://github.com/acme/fast-kernels",
    "github.com/Org/Repo",
    "https://github.com/acme/fast-kernels/tree/main",
    "(https://gitlab.com/team/tool)",
    "https://huggingface.co/acme/model",
]
texts = st.lists(st.sampled_from(PIECES), min_size=1, max_size=14).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_repo_kinds_match_the_straightforward_way(text: str) -> None:
    _scan.cache_clear()
    assert links._repo_kinds(text) == straightforward_kinds(text)


def test_an_abbreviation_next_to_a_link_does_not_end_its_sentence() -> None:
    text = "See e.g. https://github.com/a/b for code. We compare with github.com/c/d."
    assert links._repo_kinds(text) == straightforward_kinds(text)
    assert set(links._repo_kinds(text).values()) <= {"official", "mentioned"}
