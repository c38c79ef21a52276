"""The agreement arithmetic of bench/eval_agreement.py, on tiny label sets worked out by hand.

The label sets are written as real YAML files and read with the evaluation package's own
readers, so the schema, the pairing by title and the kept order of scale readings are exercised
as the script uses them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.errors import EvalDataError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # the script and its evaluation package

import eval_agreement as agreement  # noqa: E402
from evaluation import topic_eval  # noqa: E402


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ---- Cohen's kappa -------------------------------------------------------------------------


def test_kappa_of_a_worked_example() -> None:
    # 50 items: both yes 20, first yes / second no 5, first no / second yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = 0.2 / 0.5 = 0.4.
    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    assert agreement.cohen_kappa(pairs) == pytest.approx(0.4)


def test_kappa_is_one_for_full_agreement_and_negative_below_chance() -> None:
    assert agreement.cohen_kappa([("a", "a"), ("b", "b"), ("a", "a")]) == pytest.approx(1.0)
    # Always opposite: p_o = 0, p_e = 0.5 -> -1.
    assert agreement.cohen_kappa([(True, False), (False, True)]) == pytest.approx(-1.0)


def test_kappa_over_more_than_two_categories() -> None:
    # p_o = 2/4; first: x 2, y 1, z 1; second: x 2, w 1, y 1 ->
    # p_e = (x 2*2 + y 1*1 + z 1*0) / 16 = 5/16; kappa = (8/16 - 5/16) / (11/16) = 3/11.
    pairs = [("x", "x"), ("x", "w"), ("y", "y"), ("z", "x")]
    assert agreement.cohen_kappa(pairs) == pytest.approx(3 / 11)


def test_kappa_is_undefined_without_items_or_when_both_use_one_category() -> None:
    assert agreement.cohen_kappa([]) is None
    assert agreement.cohen_kappa([(False, False)] * 5) is None


# ---- topics --------------------------------------------------------------------------------

FIRST_TOPICS = """
papers:
  - {title: "P1", required: [kernels], allowed: [serving]}
  - {title: "P2", required: [moe], allowed: []}
  - {title: "P3", required: [], allowed: []}
  - {title: "P4", required: [training-parallelism], allowed: []}
"""
SECOND_TOPICS = """
papers:
  - {title: "P4", required: [serving], allowed: []}
  - {title: "P3", required: [], allowed: [kernels]}
  - {title: "P2", required: [], allowed: [moe]}
  - {title: "P1", required: [kernels, serving], allowed: []}
"""


@pytest.fixture
def topics(tmp_path: Path) -> agreement.TopicAgreement:
    first = topic_eval.load_labels(_write(tmp_path / "a.yaml", FIRST_TOPICS))
    second = topic_eval.load_labels(_write(tmp_path / "b.yaml", SECOND_TOPICS))
    return agreement.topic_agreement(first, second)


def test_topic_set_agreement_and_exactly_right_both_ways(
    topics: agreement.TopicAgreement,
) -> None:
    assert topics.papers == 4
    # Only P3 has the same required set (the order of the files does not matter).
    assert topics.same_required == 1
    # B as a prediction against A: P1 (serving is allowed by A) and P3 are exactly right.
    assert topics.second_right == 2
    # A against B: P2 (B allows moe) and P3.
    assert topics.first_right == 2
    kinds = {d.title: d.kind for d in topics.disagreements}
    # P1 and P2 differ by a topic the other labeller allows; P4's topics exclude each other.
    assert kinds == {"P1": "required-vs-allowed", "P2": "required-vs-allowed", "P4": "conflict"}


def test_disagreement_kinds(tmp_path: Path) -> None:
    first = topic_eval.load_labels(
        _write(
            tmp_path / "a.yaml",
            'papers:\n  - {title: "X", required: [serving], allowed: [kernels]}\n',
        )
    )

    def against(text: str) -> list[str]:
        second = topic_eval.load_labels(_write(tmp_path / "b.yaml", text))
        return [d.kind for d in agreement.topic_agreement(first, second).disagreements]

    # B requires kernels, which A allows: a difference of degree.
    assert against('papers:\n  - {title: "X", required: [serving, kernels]}\n') == [
        "required-vs-allowed"
    ]
    # B only allows serving, which A requires: still of degree.
    assert against('papers:\n  - {title: "X", allowed: [serving]}\n') == ["required-vs-allowed"]
    # B requires moe, which A rules out: a conflict.
    assert against('papers:\n  - {title: "X", required: [serving, moe]}\n') == ["conflict"]
    # Same required set, different allowed sets: no disagreement at all.
    assert against('papers:\n  - {title: "X", required: [serving], allowed: [moe]}\n') == []


def test_topic_micro_f1_counts_allowed_topics_neither_way(topics: agreement.TopicAgreement) -> None:
    by_topic = {s.topic: s for s in topics.second_vs_first}
    assert (by_topic["kernels"].tp, by_topic["kernels"].fp, by_topic["kernels"].fn) == (1, 0, 0)
    # P1's serving is allowed by A (not counted); P4's is a false positive.
    assert (by_topic["serving"].tp, by_topic["serving"].fp, by_topic["serving"].fn) == (0, 1, 0)
    assert (by_topic["moe"].tp, by_topic["moe"].fp, by_topic["moe"].fn) == (0, 0, 1)
    tp_row = by_topic["training-parallelism"]
    assert (tp_row.tp, tp_row.fp, tp_row.fn) == (0, 0, 1)
    micro = topic_eval.micro(topics.second_vs_first)
    # tp 1, fp 1, fn 2: P = 1/2, R = 1/3, F1 = 2 * (1/6) / (5/6) = 0.4.
    assert (micro.precision, micro.recall) == (pytest.approx(0.5), pytest.approx(1 / 3))
    assert micro.f1 == pytest.approx(0.4)
    # Swapped roles: A's required sets against B's labels. P1: kernels tp, serving missed (fn);
    # P2: moe allowed by B; P4: training-parallelism fp, serving fn.
    swapped = topic_eval.micro(topics.first_vs_second)
    assert (swapped.tp, swapped.fp, swapped.fn) == (1, 1, 2)


def test_topic_kappa_per_topic(topics: agreement.TopicAgreement) -> None:
    # kernels: required by both for P1 only -> full agreement.
    assert topics.kappa["kernels"] == pytest.approx(1.0)
    # serving: A never requires it, B for P1 and P4: p_o = 0.5, p_e = 1 * 0.5 -> 0.
    assert topics.kappa["serving"] == pytest.approx(0.0)
    # moe: A requires it for P2, B never: p_o = 0.75, p_e = 0.75 -> 0.
    assert topics.kappa["moe"] == pytest.approx(0.0)


def test_topic_sets_must_name_the_same_papers(tmp_path: Path) -> None:
    first = topic_eval.load_labels(_write(tmp_path / "a.yaml", FIRST_TOPICS))
    second = topic_eval.load_labels(
        _write(tmp_path / "b.yaml", 'papers:\n  - {title: "P1", required: [kernels]}\n')
    )
    with pytest.raises(EvalDataError, match=r"only in the first \['P2', 'P3', 'P4'\]"):
        agreement.topic_agreement(first, second)


def test_topic_outside_the_scored_ones_is_an_error(tmp_path: Path) -> None:
    labels = topic_eval.load_labels(
        _write(tmp_path / "a.yaml", 'papers:\n  - {title: "P1", required: [compilers]}\n')
    )
    with pytest.raises(EvalDataError, match="compilers"):
        agreement.topic_agreement(labels, labels)


# ---- hardware ------------------------------------------------------------------------------

FIRST_HARDWARE = """
papers:
  - {title: "P1", devices: [], scale: [single-device, edge], basis: explicit}
  - {title: "P2", devices: [], scale: unknown, basis: none}
  - {title: "P3", devices: [a100-40gb], scale: multi-node, basis: explicit}
  - {title: "P4", devices: [h100], scale: single-device, basis: inferred}
"""
SECOND_HARDWARE = """
papers:
  - {title: "P1", devices: [], scale: edge, basis: explicit}
  - {title: "P2", devices: [], scale: single-node, basis: inferred}
  - {title: "P3", devices: [a100], scale: [multi-node, single-node], basis: explicit}
  - {title: "P4", devices: [h100, a100], scale: single-device, basis: inferred}
"""


@pytest.fixture
def hardware(tmp_path: Path, catalog: HardwareCatalog) -> agreement.HardwareAgreement:
    first = agreement.load_hardware_labels(_write(tmp_path / "a.yaml", FIRST_HARDWARE))
    second = agreement.load_hardware_labels(_write(tmp_path / "b.yaml", SECOND_HARDWARE))
    return agreement.hardware_agreement(catalog, first, second)


def test_scale_lists_agree_when_they_share_a_reading(
    hardware: agreement.HardwareAgreement,
) -> None:
    # P1 (edge in both), P3 (multi-node in both) and P4 agree; P2 does not.
    assert hardware.scale_overlap == 3
    assert hardware.scale_same == 1  # only P4 has the identical list
    # P2 is the only paper one labeller calls only unknown: 3 of 3 known papers agree.
    assert (hardware.known_papers, hardware.known_overlap) == (3, 3)


def test_scale_kappa_uses_the_first_listed_reading(hardware: agreement.HardwareAgreement) -> None:
    # First listed: A = sd, unknown, mn, sd; B = edge, sn, mn, sd. p_o = 2/4;
    # p_e = (sd 2*1 + mn 1*1) / 16 = 3/16; kappa = (1/2 - 3/16) / (13/16) = 5/13.
    assert hardware.scale_kappa == pytest.approx(5 / 13)
    assert hardware.confusion["single-device"] == {"edge": 1, "single-device": 1}


def test_device_sets_by_id_and_by_family(hardware: agreement.HardwareAgreement) -> None:
    assert hardware.devices_same == 2  # P1 and P2 (both empty)
    assert hardware.families_same == 3  # a100-40gb is the a100 family: P3 agrees too
    # Families named by either: P3 {a100}, P4 {h100, a100}; matched: P3 a100, P4 h100.
    assert (hardware.families_matched, hardware.families_either) == (2, 3)
    titles = {d.title: (d.scale_ok, d.devices_ok) for d in hardware.disagreements}
    assert titles == {"P2": (False, True), "P4": (True, False)}


def test_unknown_device_is_an_error(tmp_path: Path, catalog: HardwareCatalog) -> None:
    text = 'papers:\n  - {title: "P1", devices: [abacus-9000], scale: unknown, basis: none}\n'
    labels = agreement.load_hardware_labels(_write(tmp_path / "a.yaml", text))
    with pytest.raises(EvalDataError, match="abacus-9000"):
        agreement.hardware_agreement(catalog, labels, labels)


# ---- the script ----------------------------------------------------------------------------


def test_main_prints_the_json_of_both_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [
        _write(tmp_path / name, text)
        for name, text in (
            ("ta.yaml", FIRST_TOPICS),
            ("tb.yaml", SECOND_TOPICS),
            ("ha.yaml", FIRST_HARDWARE),
            ("hb.yaml", SECOND_HARDWARE),
        )
    ]
    argv = ["--topics", str(files[0]), str(files[1]), "--hardware", str(files[2]), str(files[3])]
    assert agreement.main([*argv, "--json", "--no-write"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["topics"]["same_required_share"] == 0.25
    assert data["topics"]["second_vs_first"]["micro"]["f1"] == 0.4
    assert data["hardware"]["scale"]["overlap_share"] == 0.75
    assert data["hardware"]["devices"]["jaccard"] == pytest.approx(0.6667)
    assert agreement.main([*argv, "--no-write"]) == 0
    table = capsys.readouterr().out
    assert "same required set:" in table and "[conflict] P4" in table


def test_main_reports_a_bad_file_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(tmp_path / "bad.yaml", "papers:\n  - {title: P1, required: [kernels], oops: 1}\n")
    good = _write(tmp_path / "ha.yaml", FIRST_HARDWARE)
    status = agreement.main(
        ["--topics", str(bad), str(bad), "--hardware", str(good), str(good), "--no-write"]
    )
    assert status == 2
    assert "bad.yaml" in capsys.readouterr().err


def test_second_labeller_files_pair_with_the_fourth_split() -> None:
    """The committed second-labeller files label exactly the fourth split's papers."""
    first = topic_eval.load_labels(ROOT / "fixtures" / "eval" / "topics_test4.yaml")
    second = topic_eval.load_labels(
        ROOT / "fixtures" / "eval" / "second_labeller" / "topics_test4.yaml"
    )
    assert [p.title for p in second] == [p.title for p in first]
    hw_first = agreement.load_hardware_labels(ROOT / "fixtures" / "eval" / "hardware_test4.yaml")
    hw_second = agreement.load_hardware_labels(
        ROOT / "fixtures" / "eval" / "second_labeller" / "hardware_test4.yaml"
    )
    assert [p.title for p in hw_second] == [p.title for p in hw_first]
