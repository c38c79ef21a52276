"""Agreement between two labellers of the same papers: the ceiling a classifier can reach.

    .venv/bin/python bench/eval_agreement.py [--split test4] [--json] [--no-write]
    .venv/bin/python bench/eval_agreement.py --topics A.yaml B.yaml --hardware A.yaml B.yaml

By default it compares the first labeller of the fourth test split
(fixtures/eval/topics_test4.yaml, hardware_test4.yaml) with the second labeller
(fixtures/eval/second_labeller/, same titles). A classifier is scored against ONE labeller, so
where two careful readers disagree no rule set can be right for both: these figures bound the
"exactly right" and "scale agreement" goals of issue 11 from above.

Topics (labels with `required` and `allowed`, as bench/evaluation/topic_eval.py reads them):
- same required set: both labellers gave the paper exactly the same required topics;
- exactly right, B as a prediction against A (and A against B): B's required set scored with
  the classifier's own rule, A.required <= B.required <= A.required | A.allowed. This is the
  figure comparable with the classifier's "exactly right";
- micro-F1 of B's required sets against A's labels, with the classifier's counting (a topic A
  only allows counts neither way), and the same with the roles swapped;
- Cohen's kappa per topic on "required or not".

Hardware (labels as bench/evaluation/hardware_eval.py reads them):
- scale agreement: the two scale lists share a reading, the rule eval_hardware.py applies to a
  prediction (a one-scale prediction agrees when it is one of the labelled readings);
- same scale list (strict), and Cohen's kappa on the first listed scale (each labeller's main
  reading; the list order is the file's);
- device sets: identical catalog ids, identical catalog families (a100-40gb = a100), and the
  family-level Jaccard over all papers (matched / named by either).

Prints a table and the disagreements, and writes the JSON to
bench/out/results/agreement_<split>.json (--no-write to skip). The arithmetic is in pure
functions tested in tests/unit/test_eval_agreement.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # runnable from a checkout without installing
sys.path.insert(0, str(ROOT / "bench"))  # the evaluation package beside this script

from digest_tui.enrich.hardware.catalog import HardwareCatalog, load_hardware_catalog  # noqa: E402
from digest_tui.errors import EvalDataError  # noqa: E402
from evaluation import hardware_eval, topic_eval  # noqa: E402
from evaluation.splits import EVAL_DIR, label_file  # noqa: E402

SECOND = EVAL_DIR / "second_labeller"
# The four built-in topics, in the taxonomy's order (a label naming another one is an error).
TOPICS = ("kernels", "moe", "serving", "training-parallelism")


# ---- arithmetic ----------------------------------------------------------------------------


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters over the same items: (p_o - p_e) / (1 - p_e).

    p_o is the share of items both rated alike, p_e the agreement expected by chance from each
    rater's own category shares. None when it is undefined: no items, or both raters used one
    and the same category for every item (p_e = 1: nothing to agree on beyond chance).
    """
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[c] * second[c] for c in first) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _pair(first: Iterable[Any], second: Iterable[Any], what: str) -> list[tuple[Any, Any]]:
    """Pair two label lists by title; both must label exactly the same papers."""
    a = {label.title: label for label in first}
    b = {label.title: label for label in second}
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    if only_a or only_b:
        raise EvalDataError(
            f"{what}: the two label sets name different papers: only in the first {only_a}, "
            f"only in the second {only_b}"
        )
    return [(a[title], b[title]) for title in a]


# ---- topics --------------------------------------------------------------------------------


def exactly_right(predicted: frozenset[str], label: topic_eval.LabelledPaper) -> bool:
    """The classifier's rule: required <= predicted <= required | allowed."""
    return label.required <= predicted <= label.required | label.allowed


@dataclass(frozen=True)
class TopicDisagreement:
    title: str
    first: topic_eval.LabelledPaper
    second: topic_eval.LabelledPaper

    @property
    def kind(self) -> str:
        """`required-vs-allowed` when every topic one labeller requires and the other does not
        is at least allowed by the other (a difference of degree: predicting that topic is a
        false positive for neither), else `conflict`: one labeller requires a topic the other
        rules out."""
        first, second = self.first, self.second
        soft = (first.required - second.required) <= second.allowed and (
            second.required - first.required
        ) <= first.allowed
        return "required-vs-allowed" if soft else "conflict"


@dataclass(frozen=True)
class TopicAgreement:
    papers: int
    same_required: int
    second_right: int  # B's required sets, exactly right against A's labels
    first_right: int  # A's required sets, exactly right against B's labels
    second_vs_first: list[topic_eval.TopicScore]
    first_vs_second: list[topic_eval.TopicScore]
    kappa: dict[str, float | None]
    disagreements: list[TopicDisagreement]

    def to_json(self) -> dict[str, Any]:
        def scores(rows: list[topic_eval.TopicScore]) -> dict[str, Any]:
            out = {s.topic: topic_eval.score_json(s) for s in rows}
            out["micro"] = topic_eval.score_json(topic_eval.micro(rows))
            return out

        return {
            "papers": self.papers,
            "same_required": self.same_required,
            "same_required_share": _round(_ratio(self.same_required, self.papers)),
            "second_exactly_right_vs_first": self.second_right,
            "second_exactly_right_vs_first_share": _round(_ratio(self.second_right, self.papers)),
            "first_exactly_right_vs_second": self.first_right,
            "first_exactly_right_vs_second_share": _round(_ratio(self.first_right, self.papers)),
            "second_vs_first": scores(self.second_vs_first),
            "first_vs_second": scores(self.first_vs_second),
            "kappa": {t: _round(k) for t, k in self.kappa.items()},
            "disagreements": [
                {
                    "title": d.title,
                    "kind": d.kind,
                    "first": {
                        "required": sorted(d.first.required),
                        "allowed": sorted(d.first.allowed),
                    },
                    "second": {
                        "required": sorted(d.second.required),
                        "allowed": sorted(d.second.allowed),
                    },
                }
                for d in self.disagreements
            ],
        }


def topic_agreement(
    first: Sequence[topic_eval.LabelledPaper],
    second: Sequence[topic_eval.LabelledPaper],
    topics: Sequence[str] = TOPICS,
) -> TopicAgreement:
    pairs = _pair(first, second, "topics")
    unknown = sorted(
        {t for a, b in pairs for t in a.required | a.allowed | b.required | b.allowed} - set(topics)
    )
    if unknown:
        raise EvalDataError(f"topics: labels name topics that are not scored: {unknown}")
    firsts = [a for a, _ in pairs]
    seconds = [b for _, b in pairs]
    return TopicAgreement(
        papers=len(pairs),
        same_required=sum(a.required == b.required for a, b in pairs),
        second_right=sum(exactly_right(b.required, a) for a, b in pairs),
        first_right=sum(exactly_right(a.required, b) for a, b in pairs),
        second_vs_first=topic_eval.score_predictions(
            firsts, {b.title: b.required for b in seconds}, topics
        ),
        first_vs_second=topic_eval.score_predictions(
            seconds, {a.title: a.required for a in firsts}, topics
        ),
        kappa={
            t: cohen_kappa([(t in a.required, t in b.required) for a, b in pairs]) for t in topics
        },
        disagreements=[
            TopicDisagreement(a.title, a, b) for a, b in pairs if a.required != b.required
        ],
    )


# ---- hardware ------------------------------------------------------------------------------


@dataclass(frozen=True)
class HardwareLabel:
    """A hardware label with its scale readings in the file's order (the first is the
    labeller's main reading; hardware_eval.LabelledPaper keeps them as a set)."""

    title: str
    label: hardware_eval.LabelledPaper
    scales: tuple[str, ...]


def load_hardware_labels(path: Path) -> list[HardwareLabel]:
    """hardware_eval's reader and checks, plus the listed order of each paper's scales."""
    labels = hardware_eval.load_labels(path)
    order = {p.title: tuple(p.scale) for p in hardware_eval._read_label_file(path).papers}
    return [HardwareLabel(label.title, label, order[label.title]) for label in labels]


def scales_agree(first: HardwareLabel, second: HardwareLabel) -> bool:
    """Two labels agree on scale when they share a reading: eval_hardware.py's rule (a
    prediction agrees when it is one of the labelled readings) applied to each of B's."""
    return any(scale in first.label.scales for scale in second.scales)


@dataclass(frozen=True)
class HardwareDisagreement:
    title: str
    first: HardwareLabel
    second: HardwareLabel
    scale_ok: bool
    devices_ok: bool


@dataclass(frozen=True)
class HardwareAgreement:
    papers: int
    scale_overlap: int
    scale_same: int
    scale_kappa: float | None
    known_papers: int  # papers where neither labeller says only `unknown`
    known_overlap: int
    devices_same: int
    families_same: int
    families_matched: int
    families_either: int
    confusion: dict[str, Counter[str]]  # A's first scale -> B's first scale
    disagreements: list[HardwareDisagreement]

    def to_json(self) -> dict[str, Any]:
        return {
            "papers": self.papers,
            "scale": {
                "overlap": self.scale_overlap,
                "overlap_share": _round(_ratio(self.scale_overlap, self.papers)),
                "same_list": self.scale_same,
                "same_list_share": _round(_ratio(self.scale_same, self.papers)),
                "kappa_first_listed": _round(self.scale_kappa),
                "known_papers": self.known_papers,
                "known_overlap_share": _round(_ratio(self.known_overlap, self.known_papers)),
                "confusion_first_listed": {a: dict(row) for a, row in self.confusion.items()},
            },
            "devices": {
                "same_ids": self.devices_same,
                "same_ids_share": _round(_ratio(self.devices_same, self.papers)),
                "same_families": self.families_same,
                "same_families_share": _round(_ratio(self.families_same, self.papers)),
                "families_matched": self.families_matched,
                "families_named_by_either": self.families_either,
                "jaccard": _round(_ratio(self.families_matched, self.families_either)),
            },
            "disagreements": [
                {
                    "title": d.title,
                    "first": {
                        "scale": list(d.first.scales),
                        "basis": d.first.label.basis,
                        "devices": sorted(d.first.label.devices),
                        "note": d.first.label.note,
                    },
                    "second": {
                        "scale": list(d.second.scales),
                        "basis": d.second.label.basis,
                        "devices": sorted(d.second.label.devices),
                        "note": d.second.label.note,
                    },
                    "scale_agrees": d.scale_ok,
                    "devices_agree": d.devices_ok,
                }
                for d in self.disagreements
            ],
        }


def hardware_agreement(
    catalog: HardwareCatalog,
    first: Sequence[HardwareLabel],
    second: Sequence[HardwareLabel],
) -> HardwareAgreement:
    pairs = _pair(first, second, "hardware")
    unknown = sorted(
        {d for a, b in pairs for d in a.label.devices | b.label.devices if catalog.get(d) is None}
    )
    if unknown:
        raise EvalDataError(f"hardware: labelled devices not in the catalog: {unknown}")

    def families(label: HardwareLabel) -> frozenset[str]:
        return frozenset(hardware_eval._family(catalog, d) for d in label.label.devices)

    confusion: dict[str, Counter[str]] = {}
    disagreements = []
    scale_overlap = devices_same = families_same = matched = either = 0
    known = known_overlap = 0
    for a, b in pairs:
        scale_ok = scales_agree(a, b)
        fa, fb = families(a), families(b)
        scale_overlap += scale_ok
        devices_same += a.label.devices == b.label.devices
        families_same += fa == fb
        matched += len(fa & fb)
        either += len(fa | fb)
        if a.label.scales != {"unknown"} and b.label.scales != {"unknown"}:
            known += 1
            known_overlap += scale_ok
        confusion.setdefault(a.scales[0], Counter())[b.scales[0]] += 1
        if not scale_ok or fa != fb:
            disagreements.append(HardwareDisagreement(a.title, a, b, scale_ok, fa == fb))
    return HardwareAgreement(
        papers=len(pairs),
        scale_overlap=scale_overlap,
        scale_same=sum(a.label.scales == b.label.scales for a, b in pairs),
        scale_kappa=cohen_kappa([(a.scales[0], b.scales[0]) for a, b in pairs]),
        known_papers=known,
        known_overlap=known_overlap,
        devices_same=devices_same,
        families_same=families_same,
        families_matched=matched,
        families_either=either,
        confusion=confusion,
        disagreements=disagreements,
    )


# ---- output --------------------------------------------------------------------------------


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def _shown(path: Path) -> str:
    """A path relative to the checkout when it is inside it (results never name this machine's
    directories)."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _share(num: int, den: int) -> str:
    return f"{num / den:.3f} ({num}/{den})" if den else "n/a"


def _kappa(value: float | None) -> str:
    return f"{value:.3f}" if value is not None else "n/a"


def format_topics(report: TopicAgreement) -> str:
    n = report.papers
    lines = [
        f"papers: {n}",
        f"same required set:                     {_share(report.same_required, n)}",
        f"second exactly right against first:    {_share(report.second_right, n)}",
        f"first exactly right against second:    {_share(report.first_right, n)}",
        "",
        f"{'topic':<22} {'kappa':>6}  {'F1 B vs A':>9} {'P':>6} {'R':>6}  {'F1 A vs B':>9}",
    ]
    for b_vs_a, a_vs_b in zip(
        [*report.second_vs_first, topic_eval.micro(report.second_vs_first)],
        [*report.first_vs_second, topic_eval.micro(report.first_vs_second)],
        strict=True,
    ):
        kappa = report.kappa.get(b_vs_a.topic)
        lines.append(
            f"{b_vs_a.topic:<22} {_kappa(kappa) if b_vs_a.topic != 'micro' else '':>6}  "
            f"{b_vs_a.f1:>9.3f} {b_vs_a.precision:>6.3f} {b_vs_a.recall:>6.3f}  {a_vs_b.f1:>9.3f}"
        )
    lines.append("")
    lines.append(f"required sets that differ ({len(report.disagreements)}):")
    for d in report.disagreements:
        lines.append(f"- [{d.kind}] {d.title}")
        lines.append(
            f"    first  required {sorted(d.first.required)} allowed {sorted(d.first.allowed)}"
        )
        lines.append(
            f"    second required {sorted(d.second.required)} allowed {sorted(d.second.allowed)}"
        )
    return "\n".join(lines)


def format_hardware(report: HardwareAgreement) -> str:
    n = report.papers
    lines = [
        f"papers: {n}",
        f"scale, lists share a reading:          {_share(report.scale_overlap, n)}",
        "scale, on papers neither calls unknown: "
        + _share(report.known_overlap, report.known_papers),
        f"scale, identical lists:                {_share(report.scale_same, n)}",
        f"scale, Cohen's kappa on first listed:  {_kappa(report.scale_kappa)}",
        f"devices, identical ids:                {_share(report.devices_same, n)}",
        f"devices, identical families:           {_share(report.families_same, n)}",
        f"devices, family Jaccard (all papers):  "
        f"{_share(report.families_matched, report.families_either)}",
        "first listed scale, first -> second: "
        + "; ".join(
            f"{a}: " + ", ".join(f"{b} {k}" for b, k in sorted(row.items()))
            for a, row in sorted(report.confusion.items())
        ),
        "",
        f"disagreements ({len(report.disagreements)}):",
    ]
    for d in report.disagreements:
        what = ", ".join(
            w for w, ok in (("scale", d.scale_ok), ("devices", d.devices_ok)) if not ok
        )
        lines.append(f"- [{what}] {d.title}")
        for who, label in (("first ", d.first), ("second", d.second)):
            lines.append(
                f"    {who} {'/'.join(label.scales)} ({label.label.basis}) "
                f"devices {sorted(label.label.devices)}: {label.label.note or ''}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        default="test4",
        help="split name: fixtures/eval/{topics,hardware}_SPLIT.yaml "
        "against fixtures/eval/second_labeller/ (default test4)",
    )
    parser.add_argument("--topics", nargs=2, type=Path, metavar=("FIRST", "SECOND"))
    parser.add_argument("--hardware", nargs=2, type=Path, metavar=("FIRST", "SECOND"))
    parser.add_argument("--json", action="store_true", help="print the JSON instead of tables")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/out/results/")
    args = parser.parse_args(argv)

    topic_files = args.topics or (
        label_file("topics", args.split),
        SECOND / label_file("topics", args.split).name,
    )
    hardware_files = args.hardware or (
        label_file("hardware", args.split),
        SECOND / label_file("hardware", args.split).name,
    )
    try:
        topics = topic_agreement(
            topic_eval.load_labels(topic_files[0]), topic_eval.load_labels(topic_files[1])
        )
        hardware = hardware_agreement(
            load_hardware_catalog(None),
            load_hardware_labels(hardware_files[0]),
            load_hardware_labels(hardware_files[1]),
        )
    except EvalDataError as exc:
        print(f"eval_agreement: {exc}", file=sys.stderr)
        return exc.exit_status
    data = {
        "split": args.split,
        "files": {
            "topics": [_shown(p) for p in topic_files],
            "hardware": [_shown(p) for p in hardware_files],
        },
        "topics": topics.to_json(),
        "hardware": hardware.to_json(),
    }
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(
            f"== topics: {_shown(topic_files[0])} (first) vs {_shown(topic_files[1])} (second) =="
        )
        print(format_topics(topics))
        print()
        first, second = (_shown(p) for p in hardware_files)
        print(f"== hardware: {first} (first) vs {second} (second) ==")
        print(format_hardware(hardware))
    if not args.no_write:
        from _common import write_result

        path = write_result(f"agreement_{args.split}", data)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
