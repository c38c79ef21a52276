"""Evaluate the hardware-target suggestion on the development and test splits, and time it.

    .venv/bin/python bench/eval_hardware.py
        [--split dev|test|test2|test3|test4|test5|test6|test7|both|all]
        [--json] [--config-dir DIR] [--rounds N]

Per split: recall and precision of the devices the text names, scale agreement (overall, on
papers with a known scale, by how the label was reached), how often `unknown` is predicted and
labelled, the confusion of scales, how often each confidence level is right, the median time per
paper, and every disagreement with the evidence behind it. The development split
(fixtures/eval/hardware.yaml) is what the rules were written from; the test splits
(fixtures/eval/hardware_test*.yaml, listed in bench/evaluation/splits.py; test2 onwards labelled
blind and committed before they were first measured) are never tuned on.
The logic lives in bench/evaluation/hardware_eval.py so tests run the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # runnable from a checkout without installing
sys.path.insert(0, str(ROOT / "bench"))  # the evaluation package beside this script

from digest_tui.enrich.hardware.catalog import load_hardware_catalog  # noqa: E402
from evaluation.hardware_eval import (  # noqa: E402
    EvalReport,
    evaluate,
    format_report,
    load_labels,
    read_digest_papers,
    read_split_papers,
)
from evaluation.splits import DIGESTS, SPLIT_NAMES, TEST_SPLITS, label_file, split_choices  # noqa: E402

SPLIT_CHOICES = split_choices()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--config-dir", type=Path, default=None, help="merge DIR/hardware.yaml into the catalog"
    )
    parser.add_argument("--rounds", type=int, default=20, help="timing passes (default 20)")
    parser.add_argument(
        "--split",
        choices=list(SPLIT_CHOICES),
        default="all",
        help="which labelled split to measure (default all)",
    )
    args = parser.parse_args(argv)

    catalog = load_hardware_catalog(args.config_dir)
    rounds = max(args.rounds, 0)
    reports: dict[str, EvalReport] = {}
    chosen = SPLIT_CHOICES[args.split]
    if "dev" in chosen:
        papers = read_digest_papers(DIGESTS.glob("*.txt"))
        reports["dev"] = evaluate(
            catalog, load_labels(label_file("hardware", "dev")), papers, timing_rounds=rounds
        )
    for name in TEST_SPLITS:
        if name in chosen:
            path = label_file("hardware", name)
            reports[name] = evaluate(
                catalog, load_labels(path), read_split_papers(path), timing_rounds=rounds
            )
    if args.json:
        data = {"splits": {name: report.to_json() for name, report in reports.items()}}
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for name, report in reports.items():
            print(f"== {SPLIT_NAMES[name]} split ==")
            print(format_report(report))
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
