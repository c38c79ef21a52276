"""The fourth test split (fixtures/eval/*_test4.yaml): unseen papers labelled blind.

Like tests/unit/test_eval_split3.py for the third split: the split parses, has the mix it was
built for, carries its own text, overlaps neither the development split, the fixture digests,
nor any earlier test split (by arXiv id, by title, and by the wording of the abstract: the same
work under another title is still the same paper), no two of its own papers are one work, and
its two label files describe the same papers. No accuracy floor: the split measures the rules,
it is not a target to tune them against.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import yaml

from digest_tui.enrich.hardware.catalog import load_hardware_catalog
from digest_tui.enrich.topics.taxonomy import load_taxonomy

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/evaluation: the evaluation code lives beside the scripts

from evaluation import hardware_eval, topic_eval  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "fixtures" / "eval"
TOPICS = EVAL / "topics_test4.yaml"
HARDWARE = EVAL / "hardware_test4.yaml"
EARLIER_SPLITS = ("topics_test.yaml", "topics_test2.yaml", "topics_test3.yaml")
ARXIV_ID = re.compile(r"^\d{4}\.\d{4,5}$")
# The same line as the third split's test: unrelated abstracts share well under 10% of their
# word triples; the same work rewritten for another venue shares 14% or more.
SAME_WORK = 0.10


def _norm(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", title.lower())


def _raw(path: Path) -> list[dict[str, object]]:
    papers = yaml.safe_load(path.read_text(encoding="utf-8"))["papers"]
    assert isinstance(papers, list)
    return papers


def _trigrams(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def test_split_parses_with_the_mix_it_was_built_for() -> None:
    labels = topic_eval.load_labels(TOPICS)
    assert len(labels) >= 50
    assert [label.title for label in labels] == list(topic_eval.read_split_papers(TOPICS))
    required = Counter(topic for label in labels for topic in label.required)
    assert required["kernels"] >= 8
    assert required["training-parallelism"] >= 10
    assert required["moe"] >= 5
    assert required["serving"] >= 12
    assert sum(1 for label in labels if not label.required) >= 8  # near misses ("other")


def test_every_paper_has_text_a_reason_and_a_note() -> None:
    for paper in _raw(TOPICS):
        title = paper["title"]
        if "arxiv_id" in paper:
            assert ARXIV_ID.match(str(paper["arxiv_id"])), title
        assert len(str(paper.get("abstract") or "").split()) >= 40, title
        assert str(paper.get("reason") or "").strip(), title
    for paper in _raw(HARDWARE):
        assert str(paper.get("note") or "").strip(), paper["title"]


def test_no_paper_is_in_another_split_under_any_title_or_id() -> None:
    others = dict(topic_eval.read_digest_papers((ROOT / "fixtures" / "digests").glob("*.txt")))
    for name in EARLIER_SPLITS:
        others.update(topic_eval.read_split_papers(EVAL / name))
    # The development split (topics.yaml) is the digests' papers, read from the digests above.
    other_titles = {_norm(title) for title in others}
    other_text = [_trigrams(p.abstract) for p in others.values()]
    mine = topic_eval.read_split_papers(TOPICS)
    assert len({_norm(t) for t in mine}) == len(mine)
    assert not {_norm(t) for t in mine} & other_titles
    for title, paper in mine.items():
        grams = _trigrams(paper.abstract)
        shared = max(len(grams & other) / len(grams) for other in other_text if other)
        assert shared < SAME_WORK, title
    ids = [str(paper["arxiv_id"]) for paper in _raw(TOPICS) if "arxiv_id" in paper]
    earlier_ids = {
        str(paper["arxiv_id"])
        for path in [EVAL / "topics.yaml", *(EVAL / name for name in EARLIER_SPLITS)]
        for paper in _raw(path)
        if "arxiv_id" in paper
    }
    assert len(set(ids)) == len(ids)
    assert not set(ids) & earlier_ids


def test_no_two_papers_of_the_split_are_one_work() -> None:
    grams = [(t, _trigrams(p.abstract)) for t, p in topic_eval.read_split_papers(TOPICS).items()]
    for i, (title, mine) in enumerate(grams):
        for other_title, other in grams[i + 1 :]:
            shared = len(mine & other) / min(len(mine), len(other))
            assert shared < SAME_WORK, (title, other_title)


def test_both_label_files_describe_the_same_papers_with_the_same_text() -> None:
    key = ("title", "arxiv_id", "abstract")
    assert [tuple(p.get(k) for k in key) for p in _raw(TOPICS)] == [
        tuple(p.get(k) for k in key) for p in _raw(HARDWARE)
    ]


def test_labels_name_only_known_topics_and_catalog_devices() -> None:
    taxonomy = load_taxonomy()
    labels = topic_eval.load_labels(TOPICS)
    for label in labels:
        assert (label.required | label.allowed) <= set(taxonomy.ids), label.title
    # Parsing the hardware labels checks scales, bases and device ids against the catalog
    # without running the suggester on these papers (the split is measured blind, by the bench).
    catalog = load_hardware_catalog()
    hw_labels = hardware_eval.load_labels(HARDWARE)
    assert len(hw_labels) == len(labels)
    known = {device.id for device in catalog.devices}
    for label in hw_labels:
        assert set(label.devices) <= known, label.title


def test_the_bench_scripts_measure_the_split_by_name_and_under_all() -> None:
    # Checked without running them: measuring the split is the bench's job, once, blind.
    import eval_hardware  # bench scripts, importable from BENCH
    import eval_topics

    assert eval_topics.SPLIT_CHOICES["test4"] == ("test4",)
    assert eval_hardware.SPLIT_CHOICES["test4"] == ("test4",)
    assert "test4" in eval_topics.SPLIT_CHOICES["all"]
    assert "test4" in eval_hardware.SPLIT_CHOICES["all"]
    assert eval_topics.TEST4_SPLIT == TOPICS
    assert eval_hardware.TEST4_SPLIT == HARDWARE
    assert eval_topics.SPLIT_NAMES["test4"] == eval_hardware.SPLIT_NAMES["test4"]
