"""The blind test splits after the first (fixtures/eval/*_test2 ... _test43.yaml): unseen papers.

For each split: it parses, has the mix it was built for, carries its own text, overlaps neither
the development split, the fixture digests nor any earlier test split (by arXiv id, by title,
and by the wording of the abstract: the same work under another title is still the same paper),
no two of its own papers are one work, and its two label files describe the same papers. No
accuracy floor: a split measures the rules, it is not a target to tune them against. The first
test split has its own module (tests/unit/test_eval_split.py), with the bench's `all` choice.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from digest_tui.enrich.hardware.catalog import load_hardware_catalog
from digest_tui.enrich.topics.taxonomy import load_taxonomy

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/evaluation: the evaluation code lives beside the scripts

from evaluation import hardware_eval, topic_eval  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "fixtures" / "eval"
ARXIV_ID = re.compile(r"^\d{4}\.\d{4,5}$")
# Unrelated abstracts share well under 10% of their word triples (the most seen, 8.2%); the same
# work rewritten for another venue shares 14% or more.
SAME_WORK = 0.10


@dataclass(frozen=True)
class Split:
    name: str  # "test2": fixtures/eval/topics_test2.yaml and hardware_test2.yaml
    papers: int  # at least this many
    required: dict[str, int]  # at least this many papers requiring each topic
    other: int  # at least this many near misses (no required topic)
    earlier: tuple[str, ...]  # the test splits labelled before it
    # Blind: the labels are only parsed (a bench run measures the split once); the others have
    # been measured, and the evaluation itself is run here as a check of the label files.
    blind: bool = False
    # At least this many papers whose first-listed (main) hardware scale is each value; a split
    # built to measure hardware scale says so here.
    scales: dict[str, int] = field(default_factory=dict)

    @property
    def topics(self) -> Path:
        return EVAL / f"topics_{self.name}.yaml"

    @property
    def hardware(self) -> Path:
        return EVAL / f"hardware_{self.name}.yaml"


def labelled_up_to(n: int) -> tuple[str, ...]:
    """The first test split ("test") and test2 ... test`n`: the splits labelled before test`n+1`,
    in order (test16 alone was labelled after test17, and says so)."""
    return ("test", *(f"test{k}" for k in range(2, n + 1)))


SPLITS = [
    Split("test2", 60, {"kernels": 20, "training-parallelism": 15, "moe": 10, "serving": 10}, 5,
          labelled_up_to(1)),
    Split("test3", 60, {"kernels": 15, "training-parallelism": 15, "moe": 10, "serving": 15}, 8,
          labelled_up_to(2)),
    Split("test4", 50, {"kernels": 8, "training-parallelism": 10, "moe": 5, "serving": 12}, 8,
          labelled_up_to(3), blind=True),
    Split("test5", 60, {"kernels": 14, "training-parallelism": 15, "moe": 10, "serving": 15}, 10,
          labelled_up_to(4), blind=True),
    # Short of the 60 aimed for: most obvious queries returned papers earlier splits hold.
    Split("test6", 25, {"kernels": 3, "training-parallelism": 7, "moe": 3, "serving": 5}, 10,
          labelled_up_to(5), blind=True),
    # Built beyond arXiv pages (proceedings, publisher and aggregator pages); hardware scale is
    # what it mainly measures, so its mix is set by scale as well as by topic.
    Split("test7", 45, {"kernels": 9, "training-parallelism": 11, "moe": 8, "serving": 13}, 10,
          labelled_up_to(6), blind=True,
          scales={"single-device": 12, "single-node": 3, "multi-node": 5, "edge": 5,
                  "unknown": 15}),
    # Recent papers from listing feeds, aggregators and proceedings pages beyond arXiv's own; the
    # corpus's arXiv pages are nearly used up, so it is short of the 60 aimed for (issue 11). A
    # second labeller extended it (29 -> 45) with training-parallelism, MoE and kernel papers.
    Split("test8", 45, {"kernels": 8, "training-parallelism": 9, "moe": 9, "serving": 19}, 9,
          labelled_up_to(7), blind=True),
    # Recent (mostly 2026) papers from arXiv pages, an arXiv mirror, listing feeds and aggregators,
    # built to measure hardware scale after the tenth round: floors by topic and by main scale.
    Split("test9", 41, {"kernels": 8, "training-parallelism": 9, "moe": 7, "serving": 14}, 9,
          labelled_up_to(8), blind=True,
          scales={"single-device": 10, "single-node": 5, "multi-node": 10, "edge": 6,
                  "unknown": 10}),
    # Recent (2025-2026) papers from arXiv pages, mirrors, aggregators, a proceedings page, Zenodo
    # and a conference poster page; built, like test9, to measure hardware scale blind.
    Split("test10", 40, {"kernels": 8, "training-parallelism": 8, "moe": 6, "serving": 16}, 9,
          labelled_up_to(9),
          blind=True,
          scales={"single-device": 11, "single-node": 5, "multi-node": 7, "edge": 5,
                  "unknown": 12}),
    # Recent (2025-2026) papers from arXiv pages, a mirror and aggregators; kernels labels by
    # main contribution (a method that ships its own kernel: `kernels` allowed, not required).
    Split("test11", 40, {"kernels": 9, "training-parallelism": 7, "moe": 6, "serving": 13}, 8,
          labelled_up_to(10),
          blind=True,
          scales={"single-device": 9, "single-node": 5, "multi-node": 5, "edge": 4,
                  "unknown": 17}),
    # Recent (2025-2026) papers; parallel systems with no GPU count are labelled
    # [unknown, single-node], the convention docs/labelling.md proposes.
    Split("test12", 33, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 11}, 6,
          labelled_up_to(11),
          blind=True,
          scales={"single-device": 10, "single-node": 2, "multi-node": 6, "edge": 4,
                  "unknown": 11}),
    # Recent (2025-2026) papers, test12's conventions; short of the 30-40 aimed for: the look-up
    # corpus's recent abstracts are mostly in earlier splits now.
    Split("test13", 26, {"kernels": 4, "training-parallelism": 6, "moe": 5, "serving": 8}, 4,
          labelled_up_to(12),
          blind=True,
          scales={"single-device": 3, "single-node": 2, "multi-node": 3, "edge": 5,
                  "unknown": 13}),
    # Beyond arXiv: MLSys, HPCA, PPoPP and ACL pages (8 papers without an arXiv id); many
    # conference abstracts state no setup, so unknown is over-drawn.
    Split("test14", 24, {"kernels": 4, "training-parallelism": 5, "moe": 5, "serving": 7}, 4,
          labelled_up_to(13),
          blind=True,
          scales={"single-device": 5, "single-node": 1, "multi-node": 2, "edge": 1,
                  "unknown": 15}),
    # Conference, lab and aggregator pages beside arXiv's (6 without an arXiv id); most recent
    # abstracts left unlabelled state no setup, so unknown is over-drawn again.
    Split("test15", 21, {"kernels": 4, "training-parallelism": 5, "moe": 3, "serving": 7}, 4,
          labelled_up_to(14),
          blind=True,
          scales={"single-device": 2, "single-node": 1, "multi-node": 3, "edge": 3,
                  "unknown": 12}),
    # Made beside a sixteenth split (its labeller in another worktree, which never committed a
    # file this one could check against), leaning on single consumer GPUs, edge devices and
    # very large runs: the scale mix is the most even yet. 15 of the 26 papers are from 2024.
    Split("test17", 26, {"kernels": 5, "training-parallelism": 6, "moe": 4, "serving": 11}, 4,
          labelled_up_to(15),
          blind=True,
          scales={"single-device": 7, "single-node": 4, "multi-node": 7, "edge": 5,
                  "unknown": 3}),
    # Made after the seventeenth (checked against it), for scale again; older papers (2021-2025,
    # most 2023-2024): the look-up corpus's recent abstracts are nearly all labelled. Its
    # labeller read all of docs/labelling.md, its "recurring blind misses" too (said in the
    # file's header).
    Split("test16", 26, {"kernels": 4, "training-parallelism": 6, "moe": 4, "serving": 12}, 4,
          ("test", "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9",
           "test10", "test11", "test12", "test13", "test14", "test15", "test17"),
          blind=True,
          scales={"single-device": 6, "single-node": 5, "multi-node": 6, "edge": 5,
                  "unknown": 4}),
    # Made after the eighteenth rule round (the sixteenth split's), for scale again, from
    # well-known 2019-2024 papers; its labeller read docs/labelling.md only up to its
    # proposals' consequences (not the recurring misses), no rule code and no commit of main.
    Split("test18", 27, {"kernels": 7, "training-parallelism": 6, "moe": 5, "serving": 11}, 5,
          labelled_up_to(17),
          blind=True,
          scales={"single-device": 6, "single-node": 5, "multi-node": 6, "edge": 5,
                  "unknown": 5}),
    # Made after the nineteenth rule round (the eighteenth split's), under the same brief:
    # well-known 2019-2024 papers; one single-node paper short of the mix it aimed for.
    Split("test19", 25, {"kernels": 6, "training-parallelism": 6, "moe": 5, "serving": 9}, 5,
          labelled_up_to(18),
          blind=True,
          scales={"single-device": 5, "single-node": 4, "multi-node": 6, "edge": 5,
                  "unknown": 5}),
    # Made after the twentieth rule round under the same brief; kernel papers that name their
    # GPU were nearly all labelled already, so unknown is over-drawn by two.
    Split("test20", 26, {"kernels": 6, "training-parallelism": 7, "moe": 5, "serving": 8}, 4,
          labelled_up_to(19),
          blind=True,
          scales={"single-device": 4, "single-node": 5, "multi-node": 5, "edge": 5,
                  "unknown": 7}),
    # Made after the twenty-first rule round under the same brief (2018-2024 ids); unused
    # abstracts that state one server were rare, so single-node is two short.
    Split("test21", 26, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 5,
          labelled_up_to(20),
          blind=True,
          scales={"single-device": 6, "single-node": 4, "multi-node": 5, "edge": 5,
                  "unknown": 6}),
    # Made after the twenty-second round under the same brief; its labeller saw main's last
    # commit subject after its labels were committed (said in its header; no label changed).
    Split("test22", 24, {"kernels": 4, "training-parallelism": 6, "moe": 4, "serving": 6}, 5,
          labelled_up_to(21),
          blind=True,
          scales={"single-device": 5, "single-node": 3, "multi-node": 5, "edge": 4,
                  "unknown": 7}),
    # Made after the twenty-third round under the same brief; most well-known papers stating one
    # named GPU, a phone or one server were used by earlier splits, so 14 of 26 read unknown.
    Split("test23", 26, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 6}, 4,
          labelled_up_to(22),
          blind=True,
          scales={"single-device": 2, "single-node": 3, "multi-node": 5, "edge": 2,
                  "unknown": 14}),
    # Made after the twenty-fourth round, and read first with the learned reader (trained on
    # the splits before it) beside the rules.
    Split("test24", 25, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 5}, 4,
          labelled_up_to(23),
          blind=True,
          scales={"single-device": 7, "single-node": 1, "multi-node": 8, "edge": 2,
                  "unknown": 7}),
    # Made after the twenty-fifth round; read first with the rules and the gated learned reader
    # trained on the splits before it (the configuration as shipped).
    Split("test25", 24, {"kernels": 4, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(24),
          blind=True,
          scales={"single-device": 4, "single-node": 1, "multi-node": 5, "edge": 6,
                  "unknown": 8}),
    # Made after the twenty-sixth round by two labellers at once, each under the same brief and
    # kept apart by the year of the arXiv id (test26 odd years, test27 even ones); read first
    # with the rules and the gated learned reader trained on the splits before test26.
    Split("test26", 25, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 6}, 4,
          labelled_up_to(25),
          blind=True,
          scales={"single-device": 5, "single-node": 1, "multi-node": 5, "edge": 5,
                  "unknown": 9}),
    Split("test27", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(26),
          blind=True,
          scales={"single-device": 3, "single-node": 1, "multi-node": 8, "edge": 2,
                  "unknown": 11}),
    # Made after the twenty-seventh round the same way (test28 odd years, test29 even ones);
    # read first with the rules and the reader trained on the splits before test28.
    Split("test28", 25, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 6}, 4,
          labelled_up_to(27),
          blind=True,
          scales={"single-device": 4, "single-node": 1, "multi-node": 8, "edge": 1,
                  "unknown": 11}),
    Split("test29", 26, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 7}, 4,
          labelled_up_to(28),
          blind=True,
          scales={"single-device": 1, "single-node": 2, "multi-node": 6, "edge": 1,
                  "unknown": 16}),
    # Made after the twenty-seventh round the same way again (test30 odd years, test31 even
    # ones); read first with the rules and the reader trained on the splits before test30.
    Split("test30", 25, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 6}, 4,
          labelled_up_to(29),
          blind=True,
          scales={"single-device": 4, "single-node": 1, "multi-node": 6, "edge": 1,
                  "unknown": 13}),
    Split("test31", 24, {"kernels": 6, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(30),
          blind=True,
          scales={"single-device": 5, "multi-node": 2, "edge": 1, "unknown": 16}),
    # Made after the twenty-eighth round the same way (test32 odd years, test33 even ones);
    # read first with the rules after that round and the reader trained before test32.
    Split("test32", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(31),
          blind=True,
          scales={"single-device": 3, "multi-node": 7, "unknown": 15}),
    Split("test33", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(32),
          blind=True,
          scales={"single-device": 2, "single-node": 2, "multi-node": 5, "edge": 1,
                  "unknown": 15}),
    # Made after the twenty-eighth round too (test34 even years, test35 odd ones); read first
    # with the rules after that round and the reader trained on the splits up to test33.
    Split("test34", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(33),
          blind=True,
          scales={"single-device": 4, "single-node": 2, "multi-node": 4, "edge": 1,
                  "unknown": 14}),
    Split("test35", 24, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(34),
          blind=True,
          scales={"single-device": 3, "multi-node": 5, "edge": 2, "unknown": 14}),
    # Made after the twenty-ninth round (test36 even years, test37 odd ones); read first with
    # the rules after that round and the reader trained on the splits up to test35.
    Split("test36", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(35),
          blind=True,
          scales={"single-device": 8, "single-node": 2, "multi-node": 2, "edge": 1,
                  "unknown": 12}),
    Split("test37", 25, {"kernels": 5, "training-parallelism": 7, "moe": 5, "serving": 6}, 4,
          labelled_up_to(36),
          blind=True,
          scales={"single-device": 3, "multi-node": 5, "unknown": 17}),
    # Made after the thirtieth round (test38 even years, test39 odd ones); read first with the
    # rules after that round and the reader trained on the splits up to test37.
    Split("test38", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(37),
          blind=True,
          scales={"single-device": 5, "single-node": 4, "unknown": 16}),
    Split("test39", 24, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(38),
          blind=True,
          scales={"single-node": 2, "multi-node": 7, "edge": 1, "unknown": 14}),
    # Made after the thirty-first round (test40 even years, test41 odd ones); read first with
    # the rules after that round and the reader trained on the splits up to test39.
    Split("test40", 26, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 7}, 4,
          labelled_up_to(39),
          blind=True,
          scales={"single-device": 3, "single-node": 5, "multi-node": 3, "edge": 1,
                  "unknown": 14}),
    Split("test41", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(40),
          blind=True,
          scales={"single-device": 3, "single-node": 3, "multi-node": 4, "unknown": 15}),
    # Made after the thirty-second round (test42 even years, test43 odd ones); read first with
    # the rules after that round and the reader trained on the splits up to test41.
    Split("test42", 25, {"kernels": 5, "training-parallelism": 6, "moe": 5, "serving": 6}, 4,
          labelled_up_to(41),
          blind=True,
          scales={"single-device": 3, "single-node": 1, "multi-node": 2, "unknown": 19}),
    Split("test43", 25, {"kernels": 5, "training-parallelism": 6, "moe": 6, "serving": 6}, 4,
          labelled_up_to(42),
          blind=True,
          scales={"single-device": 3, "single-node": 1, "multi-node": 4, "unknown": 17}),
]  # fmt: skip
by_name = pytest.mark.parametrize("split", SPLITS, ids=[s.name for s in SPLITS])


def _norm(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", title.lower())


def _raw(path: Path) -> list[dict[str, object]]:
    papers = yaml.safe_load(path.read_text(encoding="utf-8"))["papers"]
    assert isinstance(papers, list)
    return papers


def _trigrams(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


@by_name
def test_split_parses_with_the_mix_it_was_built_for(split: Split) -> None:
    labels = topic_eval.load_labels(split.topics)
    assert len(labels) >= split.papers
    assert [label.title for label in labels] == list(topic_eval.read_split_papers(split.topics))
    required = Counter(topic for label in labels for topic in label.required)
    for topic, least in split.required.items():
        assert required[topic] >= least, topic
    assert sum(1 for label in labels if not label.required) >= split.other


@pytest.mark.parametrize(
    "split", [s for s in SPLITS if s.scales], ids=[s.name for s in SPLITS if s.scales]
)
def test_split_has_the_hardware_scale_mix_it_was_built_for(split: Split) -> None:
    main = Counter()
    for paper in _raw(split.hardware):
        scale = paper["scale"]
        main[scale if isinstance(scale, str) else scale[0]] += 1
    for scale, least in split.scales.items():
        assert main[scale] >= least, scale


# Abstracts that are short as arXiv gives them (not cut when copied): the 40-word floor
# below catches an abstract cut short, and these are whole.
SHORT_ABSTRACTS = {"1404.5997"}  # One weird trick for parallelizing CNNs: two sentences


@by_name
def test_every_paper_has_text_a_reason_and_a_note(split: Split) -> None:
    for paper in _raw(split.topics):
        title = paper["title"]
        if "arxiv_id" in paper:
            assert ARXIV_ID.match(str(paper["arxiv_id"])), title
        if paper.get("arxiv_id") not in SHORT_ABSTRACTS:
            assert len(str(paper.get("abstract") or "").split()) >= 40, title
        assert str(paper.get("reason") or "").strip(), title
    for paper in _raw(split.hardware):
        assert str(paper.get("note") or "").strip(), paper["title"]


@by_name
def test_no_paper_is_in_another_split_under_any_title_or_id(split: Split) -> None:
    earlier = [EVAL / f"topics_{name}.yaml" for name in split.earlier]
    # The development split (topics.yaml) is the digests' papers, read from the digests.
    others = dict(topic_eval.read_digest_papers((ROOT / "fixtures" / "digests").glob("*.txt")))
    for path in earlier:
        others.update(topic_eval.read_split_papers(path))
    other_titles = {_norm(title) for title in others}
    other_text = [_trigrams(p.abstract) for p in others.values()]
    mine = topic_eval.read_split_papers(split.topics)
    assert len({_norm(t) for t in mine}) == len(mine)
    assert not {_norm(t) for t in mine} & other_titles
    for title, paper in mine.items():
        grams = _trigrams(paper.abstract)
        shared = max(len(grams & other) / len(grams) for other in other_text if other)
        assert shared < SAME_WORK, title
    ids = [str(paper["arxiv_id"]) for paper in _raw(split.topics) if "arxiv_id" in paper]
    earlier_ids = {
        str(paper["arxiv_id"])
        for path in [EVAL / "topics.yaml", *earlier]
        for paper in _raw(path)
        if "arxiv_id" in paper
    }
    assert len(set(ids)) == len(ids)
    assert not set(ids) & earlier_ids


@by_name
def test_no_two_papers_of_the_split_are_one_work(split: Split) -> None:
    papers = topic_eval.read_split_papers(split.topics)
    grams = [(title, _trigrams(paper.abstract)) for title, paper in papers.items()]
    for i, (title, mine) in enumerate(grams):
        for other_title, other in grams[i + 1 :]:
            shared = len(mine & other) / min(len(mine), len(other))
            assert shared < SAME_WORK, (title, other_title)


@by_name
def test_both_label_files_describe_the_same_papers_with_the_same_text(split: Split) -> None:
    key = ("title", "arxiv_id", "abstract")
    assert [tuple(p.get(k) for k in key) for p in _raw(split.topics)] == [
        tuple(p.get(k) for k in key) for p in _raw(split.hardware)
    ]


@by_name
def test_labels_name_only_known_topics_and_catalog_devices(split: Split) -> None:
    taxonomy = load_taxonomy()
    labels = topic_eval.load_labels(split.topics)
    for label in labels:
        assert (label.required | label.allowed) <= set(taxonomy.ids), label.title
    catalog = load_hardware_catalog()
    hw_labels = hardware_eval.load_labels(split.hardware)
    assert len(hw_labels) == len(labels)
    known = {device.id for device in catalog.devices}
    for label in hw_labels:
        assert set(label.devices) <= known, label.title
    if split.blind:
        return  # measured by the bench, once: never run the rules on it here
    report = topic_eval.evaluate(taxonomy, labels, topic_eval.read_split_papers(split.topics))
    assert len(report.outcomes) == len(labels)
    hw = hardware_eval.evaluate(catalog, hw_labels, hardware_eval.read_split_papers(split.hardware))
    assert len(hw.outcomes) == len(labels)


@by_name
def test_the_bench_scripts_measure_the_split_by_name_and_under_all(split: Split) -> None:
    # Checked without running them: measuring a split is the bench's job.
    import eval_hardware  # bench scripts, importable from BENCH
    import eval_topics
    from evaluation.splits import label_file

    for script in (eval_topics, eval_hardware):
        assert script.SPLIT_CHOICES[split.name] == (split.name,)
        assert split.name in script.SPLIT_CHOICES["all"]
        assert split.name in script.TEST_SPLITS and split.name in script.SPLIT_NAMES
    # The files the scripts read for the split are the ones checked above.
    assert label_file("topics", split.name) == split.topics
    assert label_file("hardware", split.name) == split.hardware
