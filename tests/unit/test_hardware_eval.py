"""The hardware suggestion against the labelled fixture set, and the regex gates it relies on.

Floors. Measured with `bench/eval_hardware.py` on the 152 labelled papers: named-device recall
100% (62/62), precision 100% (62/62), scale agreement 95.4% (145/152). The labels and the rules
were written over the same papers, so these are development-set figures; the floors leave room
for a few regressions that a rule change may trade for a gain elsewhere (one paper is 0.66 pt
of scale agreement, one device 1.6 pt of recall):
- scale agreement >= 92% (no more than 5 papers worse than today),
- named-device recall >= 95% and precision >= 95% (no more than 3 devices missed or invented).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from digest_tui.enrich.gate import Gated, Lowered, triggers
from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.text import CUE_PATTERNS
from digest_tui.errors import EvalDataError

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/evaluation: the evaluation code lives beside the scripts

from evaluation.hardware_eval import evaluate, format_report, load_labels, read_digest_papers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "fixtures" / "eval" / "hardware.yaml"
DIGESTS = ROOT / "fixtures" / "digests"

SCALE_FLOOR = 0.92
DEVICE_RECALL_FLOOR = 0.95
DEVICE_PRECISION_FLOOR = 0.95


@pytest.fixture(scope="module")
def papers() -> dict[str, str]:
    return read_digest_papers(DIGESTS.glob("*.txt"))


def test_every_fixture_paper_is_labelled_once(papers: dict[str, str]) -> None:
    labels = load_labels(LABELS)
    assert [label.title for label in labels] == list(papers)
    assert 130 <= len(labels) <= 160


def test_eval_does_not_regress(catalog: HardwareCatalog, papers: dict[str, str]) -> None:
    report = evaluate(catalog, load_labels(LABELS), papers)
    text = format_report(report)
    assert report.scale_agreement() >= SCALE_FLOOR, text
    assert report.device_recall >= DEVICE_RECALL_FLOOR, text
    assert report.device_precision >= DEVICE_PRECISION_FLOOR, text
    data = report.to_json()
    assert data["papers"] == len(papers)
    assert {d["title"] for d in data["disagreements"]} <= set(papers)


def test_bad_label_file_is_reported(tmp_path: Path, catalog: HardwareCatalog) -> None:
    bad = tmp_path / "labels.yaml"
    bad.write_text("papers:\n  - title: X\n    scale: huge\n")
    with pytest.raises(EvalDataError, match=r"labels\.yaml"):
        load_labels(bad)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("papers:\n  - title: X\n    devices: [warp-drive]\n    scale: unknown\n")
    with pytest.raises(EvalDataError, match="warp-drive"):
        evaluate(catalog, load_labels(unknown), {"X": ""})


# ---- gates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("RTX ?4090", (("rtx", "4090"),)),
        ("H100(?:[- ]SXM5?)?(?:[- ]80 ?GB)?", (("h100",),)),
        (r"\bTMA\b|Tensor Memory Accelerator", (("tma",), ("tensor", "memory", "accelerator"))),
        ("GPUs?", (("gpu",),)),
        ("(?:Jetson )?AGX Orin", (("agx", "orin"),)),
        (r"\bM[1-4] (?:Pro|Max)\b", ()),  # no sure literal: always runs
        ("(?P<num>\\d+)-GPU", (("gpu",),)),
    ],
)
def test_triggers(pattern: str, expected: tuple[tuple[str, ...], ...]) -> None:
    assert triggers(pattern) == expected


def test_gates_never_change_a_result(catalog: HardwareCatalog, papers: dict[str, str]) -> None:
    """Every gated pattern finds exactly what the plain pattern finds, on every abstract."""
    patterns: list[tuple[str, int]] = [(p, re.IGNORECASE) for p, _, _ in CUE_PATTERNS]
    for entries in (catalog.devices, catalog.systems, catalog.architectures):
        for entry in entries:
            flags = 0 if entry.case_sensitive else re.IGNORECASE
            patterns += [(alias, flags) for alias in entry.aliases]
    patterns += [(p, re.IGNORECASE) for f in catalog.features for p in f.patterns]
    texts = [*papers.values(), *papers]  # abstracts and titles
    for pattern, flags in patterns:
        gated = Gated.compile(pattern, flags)
        plain = re.compile(pattern, flags)
        for text in texts:
            expected = [m.span() for m in plain.finditer(text)]
            assert [m.span() for m in gated.finditer(text, Lowered(text.lower()))] == expected, (
                pattern
            )
