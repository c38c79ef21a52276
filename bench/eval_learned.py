"""What the learned topic reader adds to the rules, measured on papers neither had seen.

For each blind split with a recorded first reading (bench/evaluation/first_readings/: the
rules' predictions the one time the split was measured, before any rule was changed for it),
train the model on the splits labelled *before* that one only, add what it adds to the rules'
first reading, and score the result. The rules' part is what they said then; the model's part
never saw the split. One approximation: which topics the reader may add (those the rules found
evidence for, with every required kind: classifier.undecided_topics) is read from today's rules,
which have seen these splits; the recorded readings keep only the wrong papers' scores.

    .venv/bin/python bench/eval_learned.py                 # the table (a model per split, ~3 min)
    .venv/bin/python bench/eval_learned.py --threshold 0.7 # another threshold
    .venv/bin/python bench/eval_learned.py --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from digest_tui.enrich.topics.classifier import classify
from digest_tui.enrich.topics.taxonomy import Taxonomy, load_taxonomy
from evaluation.learned_training import THRESHOLD, added_topics, split_examples, train
from evaluation.splits import SPLIT_NAMES

READINGS = Path(__file__).resolve().parent / "evaluation" / "first_readings"


def measure(split: str, threshold: float, rules: Taxonomy) -> dict[str, object]:
    reading = json.loads((READINGS / f"topics_{split}.json").read_text(encoding="utf-8"))
    wrong = {w["title"]: set(w["predicted"]) for w in reading["wrong"]}
    names = list(SPLIT_NAMES)
    model = train(names[: names.index(split)], threshold)
    counts: Counter[str] = Counter()
    changed = []
    for paper in split_examples(split):
        required, ok = set(paper.required), set(paper.required | paper.allowed)
        # A paper the rules got right predicted required <= it <= ok; which allowed topics it
        # held is not recorded, and does not matter: adding an allowed topic keeps it right.
        before = wrong.get(paper.title, required)
        added = added_topics(
            model, paper, sorted(before), classify(rules, paper.title, paper.abstract)
        )
        after = before | added
        right_before = paper.title not in wrong
        right_after = required <= after <= ok
        counts["tp"] += len(after & required)
        counts["fp"] += len(after - ok)
        counts["fn"] += len(required - after)
        counts["rules_tp"] += len(before & required)
        counts["rules_fp"] += len(before - ok)
        counts["rules_fn"] += len(required - before)
        counts["right_before"] += right_before
        counts["right_after"] += right_after
        counts["papers"] += 1
        if added:
            changed.append(
                {"title": paper.title, "added": sorted(added), "right": [right_before, right_after]}
            )
    return {"split": split, **counts, "changed": changed}


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _line(name: str, row: Mapping[str, Any]) -> str:
    n = row["papers"]
    before, after = row["right_before"], row["right_after"]
    rules = _f1(row["rules_tp"], row["rules_fp"], row["rules_fn"])
    both = _f1(row["tp"], row["fp"], row["fn"])
    counts = f"{before}/{n} -> {after}/{n}"
    shares = f"({before / n:.3f} -> {after / n:.3f})"
    return f"{name:8} {n:6}  {counts:>15} {shares}  {rules:.3f} -> {both:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    splits = sorted(
        (p.stem.removeprefix("topics_") for p in READINGS.glob("topics_*.json")),
        key=list(SPLIT_NAMES).index,
    )
    taxonomy = load_taxonomy()
    rules = Taxonomy(taxonomy.topics, taxonomy.scoring.model_copy(update={"learned": False}))
    rows = [measure(split, args.threshold, rules) for split in splits]
    if args.json:
        print(json.dumps({"threshold": args.threshold, "splits": rows}, indent=1))
        return 0
    print(f"threshold {args.threshold}; model trained on the splits before each one")
    print("split    papers  exactly right: rules -> with the reader      micro-F1")
    total: Counter[str] = Counter()
    for row in rows:
        total.update({k: v for k, v in row.items() if isinstance(v, int)})
        print(_line(str(row["split"]), row))
    print(_line("pooled", total))
    print(
        f"TP/FP/FN rules {total['rules_tp']}/{total['rules_fp']}/{total['rules_fn']}, "
        f"with the reader {total['tp']}/{total['fp']}/{total['fn']}"
    )
    for row in rows:
        for change in row["changed"]:  # type: ignore[attr-defined]
            mark = {(False, True): "FIXED", (True, False): "BROKE"}.get(tuple(change["right"]), "")
            added = ",".join(change["added"])
            print(f"  {row['split']:7} +{added:30} {mark:6} {change['title'][:70]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
