"""Evaluate the hardware-target suggestion on the labelled fixture papers, and time it.

    .venv/bin/python bench/eval_hardware.py [--json] [--config-dir DIR] [--rounds N]

Prints recall and precision of the devices the text names, scale agreement (overall, on
papers with a known scale, by how the label was reached), the confusion of scales, how often
each confidence level is right, the median time per paper, and every disagreement with the
evidence behind it. The logic lives in digest_tui.enrich.hardware_eval so tests run the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # runnable from a checkout without installing

from digest_tui.enrich.hardware_catalog import load_hardware_catalog  # noqa: E402
from digest_tui.enrich.hardware_eval import (  # noqa: E402
    evaluate,
    format_report,
    load_labels,
    read_digest_papers,
)

DIGESTS = ROOT / "fixtures" / "digests"
LABELS = ROOT / "fixtures" / "eval" / "hardware.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--config-dir", type=Path, default=None, help="merge DIR/hardware.yaml into the catalog"
    )
    parser.add_argument("--rounds", type=int, default=20, help="timing passes (default 20)")
    args = parser.parse_args(argv)

    catalog = load_hardware_catalog(args.config_dir)
    labels = load_labels(LABELS)
    papers = read_digest_papers(DIGESTS.glob("*.txt"))
    report = evaluate(catalog, labels, papers, timing_rounds=max(args.rounds, 0))
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
