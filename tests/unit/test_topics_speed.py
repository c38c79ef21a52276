"""The topic classifier's speed-ups change no result.

Two references:
- `tests/fixtures/topics_reference.json` holds, per paper, a hash of what `classify` and
  `explain` returned for it with the code before the speed-ups of issue 12 (commit 26805ec):
  every paper of the four fixture digests, of every `fixtures/eval/*.yaml` split and 600
  synthetic papers (bench/synthetic.py). Regenerate it only when the taxonomy or the classifier's
  results change on purpose: `python -m tests.unit.test_topics_speed --write`.
- a slow straightforward matcher kept here: every pattern tried at every word start of the
  text (no literal scan, no gating), which `PatternIndex.find` must equal for every text.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from digest_tui.enrich.topics.classifier import classify, explain, match_fields
from digest_tui.enrich.topics.matching import CompiledPattern, PatternIndex
from digest_tui.enrich.topics.schema import Scoring, TopicDef
from digest_tui.enrich.topics.taxonomy import Taxonomy, load_taxonomy
from digest_tui.sources.hf_page import parse_page

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "fixtures" / "topics_reference.json"
SYNTHETIC_PAPERS = 600

# (id, title, abstract, keywords)
Text = tuple[str, str, str, list[str]]


def reference_papers() -> list[Text]:
    papers: list[Text] = []
    for page in sorted((ROOT / "fixtures" / "digests").glob("*.txt")):
        parsed = parse_page(page.read_text(encoding="utf-8"), "x")
        for n, p in enumerate(parsed.papers):
            papers.append((f"{page.name}-{n}", p.title, p.abstract or "", list(p.keywords)))
    for split in sorted((ROOT / "fixtures" / "eval").glob("*.yaml")):
        data = yaml.safe_load(split.read_text(encoding="utf-8"))
        for n, item in enumerate(data["papers"]):
            papers.append(
                (
                    f"{split.name}-{n}",
                    item.get("title") or "",
                    item.get("abstract") or "",
                    list(item.get("keywords") or ()),
                )
            )
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import synthetic  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "bench"))
    count = 0
    for synth_page in synthetic.generate(SYNTHETIC_PAPERS):
        for p in synthetic.to_parsed(synth_page).papers:
            if count < SYNTHETIC_PAPERS:
                papers.append((f"synthetic-{count}", p.title, p.abstract or "", list(p.keywords)))
            count += 1
    return papers


def outcome(taxonomy: Taxonomy, paper: Text) -> dict[str, Any]:
    _, title, abstract, keywords = paper
    result = classify(taxonomy, title, abstract, keywords)
    explained = explain(taxonomy, title, abstract, keywords)
    return {
        "topics": result.topics,
        # exclude_defaults: a rule's evidence hashes as before `by` existed (models.py)
        "evidence": {
            t: [e.model_dump(exclude_defaults=True) for e in ev]
            for t, ev in result.evidence.items()
        },
        "scores": result.scores,
        "unmet": result.unmet,
        "explain": {
            t: [score, [e.model_dump(exclude_defaults=True) for e in ev]]
            for t, (score, ev) in explained.items()
        },
    }


def digest(result: dict[str, Any]) -> str:
    canonical = json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]


def test_every_fixture_and_synthetic_paper_classifies_as_before_the_speed_ups() -> None:
    stored = json.loads(REFERENCE.read_text(encoding="utf-8"))
    taxonomy = load_taxonomy(None)
    assert taxonomy.fingerprint == stored["taxonomy"], (
        "the packaged taxonomy changed: regenerate tests/fixtures/topics_reference.json "
        "(see this module's docstring) with the classifier as it was before that change"
    )
    papers = reference_papers()
    assert len(papers) > 1500
    assert {p[0] for p in papers} >= set(stored["papers"])
    differ = []
    for paper in papers:
        expected = stored["papers"].get(paper[0])
        if expected is not None and digest(outcome(taxonomy, paper)) != expected:
            differ.append(paper[0])
    assert not differ, f"{len(differ)} papers classify differently: {differ[:10]}"


# --- the straightforward matcher ------------------------------------------------------------

_WORD_START = re.compile(r"(?<![^\W_])(?<!_)[^\W_]")


def slow_find(index: PatternIndex, fld: Any) -> dict[CompiledPattern, list[tuple[int, int]]]:
    """What `PatternIndex.find` must return: every pattern with known prefixes tried at every
    word start, the others scanned whole; a match counts when it sits at word edges."""
    found: dict[CompiledPattern, list[tuple[int, int]]] = {}
    patterns = [p for ps in index.by_literal.values() for p in ps]
    unique = list({id(p): p for p in patterns}.values())
    word_starts = [m.start() for m in _WORD_START.finditer(fld.lower)]
    for pattern in [*unique, *index.scan]:
        text = fld.original if pattern.on_original else fld.lower
        if pattern.prefixes is None:
            candidates = (m.span() for m in pattern.regex.finditer(text))
        else:
            starts = iter(word_starts)
            matches = (pattern.regex.match(text, s) for s in starts)
            candidates = (m.span() for m in matches if m)
        spans = [(s, e) for s, e in candidates if e > s and edges(text, s, e)]
        if spans:
            found[pattern] = spans
    return found


def edges(text: str, start: int, end: int) -> bool:
    before = start == 0 or not text[start - 1].isalnum()
    return before and (end == len(text) or not text[end].isalnum())


def assert_finds_as_slow_path(taxonomy: Taxonomy, papers: list[Text]) -> int:
    checked = 0
    for _, title, abstract, keywords in papers:
        for fld in match_fields(taxonomy, title, abstract, keywords):
            fast = taxonomy.index.find(fld)
            slow = slow_find(taxonomy.index, fld)
            assert {p.regex.pattern: s for p, s in fast.items()} == {
                p.regex.pattern: s for p, s in slow.items()
            }, fld.original[:200]
            checked += len(slow)
    return checked


def test_the_gated_matcher_finds_what_trying_every_word_start_finds() -> None:
    """On every third paper of the reference set (the slow path tries ~100 patterns at each
    word start: all of them would take a minute)."""
    taxonomy = load_taxonomy(None)
    papers = reference_papers()[::3]
    assert assert_finds_as_slow_path(taxonomy, papers) > 3_000


CRAFTED = [
    ("a", "Pre-training and pretraining, pre training; pre_training", "", []),
    ("b", "«kernel» fusion on GPUs; C++ kernels, the HIP port; İstanbul kernel", "", []),
    ("c", "Co-location: colocated serving, re-materialization of activations", "", []),
    ("d", "Training 1,024 GPUs and 4096 nodes; model-parallel training jobs", "", []),
    ("e", "ZeRO-3 with FSDP; SLOs and SLAs; Frontier; frontier models", "", []),
    ("f", "x" * 50 + " mixture-of-experts " * 3 + "MoE-based expert parallelism", "", []),
]


def test_crafted_edges_and_case_find_as_the_slow_path() -> None:
    assert assert_finds_as_slow_path(load_taxonomy(None), CRAFTED) > 10


def test_a_user_taxonomy_with_wild_and_case_sensitive_patterns_finds_as_the_slow_path() -> None:
    """Patterns whose first word the analysis cannot bound ("\\w+", ".", a backreference) or
    that match the original text are tried at every word start of their prefixes."""
    topics = [
        TopicDef.model_validate(
            {
                "id": "t",
                "label": "T",
                "threshold": 1.0,
                "patterns": [
                    {"regex": r"kern\w+\s+fusion", "weight": 1.0},
                    {"regex": r"(ab)c\1", "weight": 1.0},
                    {"regex": r"co.locat\w*", "weight": 1.0},
                    {"regex": r"Pre[\s-]*Training", "weight": 1.0},
                    {"regex": r"GPU[s]?", "weight": 1.0, "case_sensitive": True},
                    {"regex": r"(?:x|y)z[a-z]{0,2}", "weight": 1.0},
                    {"phrase": "c++", "weight": 1.0},
                ],
                "negatives": [{"phrase": "kernel trick"}],
            }
        )
    ]
    taxonomy = Taxonomy(topics, Scoring())
    texts = [
        ("u", "Kernels fusion and kernel trick; abcab abcabc; co-located colocation", "", []),
        ("v", "pre-training PRE TRAINING GPUs gpus GPU; xz xzab yzabc xzabcd; c++ c+", "", []),
    ]
    assert assert_finds_as_slow_path(taxonomy, texts) >= 8


def write_reference() -> None:
    taxonomy = load_taxonomy(None)
    papers = {p[0]: digest(outcome(taxonomy, p)) for p in reference_papers()}
    payload = {"taxonomy": taxonomy.fingerprint, "papers": papers}
    REFERENCE.write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.unit.test_topics_speed --write")
    write_reference()
