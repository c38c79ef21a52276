"""Evaluate the topic classifier on the development and test splits, and time it.

    .venv/bin/python bench/eval_topics.py
        [--split dev|test|test2|test3|test4|test5|test6|test7|both|all]
        [--json] [--config-dir DIR] [--no-evidence] [--rounds N]
        [--rules-only [--record-first-reading]]

Per split: per-topic precision/recall/F1, micro-F1, the share of papers exactly right, and the
papers that are wrong (with the evidence behind each wrong or missing topic); with both splits,
a side-by-side table first. Then the classifier's speed per paper (on the dev papers). The
development split (fixtures/eval/topics.yaml) is what the rules were written from; the test
splits (fixtures/eval/topics_test*.yaml, listed in bench/evaluation/splits.py; test2 onwards
labelled blind and committed before they were first measured) are never tuned on.
The logic lives in bench/evaluation/topic_eval.py so tests run the same thing.

A new blind split is read once, as shipped; `--split testN --rules-only --record-first-reading`
also keeps what the rules alone said then in bench/evaluation/first_readings/topics_testN.json
(bench/eval_learned.py reads it), and never overwrites a reading already kept.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # runnable from a checkout without installing
sys.path.insert(0, str(ROOT / "bench"))  # the evaluation package beside this script

from digest_tui.enrich.topics.classifier import classify  # noqa: E402
from digest_tui.enrich.topics.taxonomy import Taxonomy, load_taxonomy  # noqa: E402
from evaluation.splits import DIGESTS, SPLIT_NAMES, TEST_SPLITS, label_file, split_choices  # noqa: E402
from evaluation.topic_eval import (  # noqa: E402
    EvalReport,
    evaluate,
    format_report,
    format_splits_table,
    load_labels,
    read_digest_papers,
    read_split_papers,
)

SPLIT_CHOICES = split_choices()
READINGS = ROOT / "bench" / "evaluation" / "first_readings"
FIRST_READING = (
    "the rules alone (bench/eval_topics.py --rules-only), the same run as the first reading "
    "with the learned reader"
)


def record_first_reading(
    directory: Path, split: str, report: EvalReport, fingerprint: str
) -> Path | None:
    """Keep the rules' first reading of `split` (its wrong papers and what the rules predicted
    for them); None when one is already kept: a first reading is taken once."""
    path = directory / f"topics_{split}.json"
    if path.exists():
        return None
    data = report.to_json()
    reading = {
        "split": split,
        "taxonomy_fingerprint": fingerprint,
        "reading": FIRST_READING,
        "papers": data["papers"],
        "exact_share": data["exact_share"],
        "wrong": [
            {key: wrong[key] for key in ("title", "required", "allowed", "predicted")}
            for wrong in data["wrong"]
        ],
    }
    path.write_text(json.dumps(reading, indent=1) + "\n", encoding="utf-8")
    return path


def time_classifier(
    taxonomy: Taxonomy, papers: list[tuple[str, str]], rounds: int
) -> dict[str, float]:
    """Microseconds per paper: the median over `rounds` passes over all papers, and the same
    for papers padded or cut to a 1,800-character abstract (the size the target is set for)."""

    def per_paper(items: list[tuple[str, str]]) -> float:
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            for title, abstract in items:
                classify(taxonomy, title, abstract)
            samples.append((time.perf_counter() - start) / len(items))
        return statistics.median(samples) * 1e6

    sized = [(t, (a * (1800 // max(len(a), 1) + 1))[:1800]) for t, a in papers if a]
    start = time.perf_counter()
    load_taxonomy()
    load_ms = (time.perf_counter() - start) * 1e3
    return {
        "us_per_paper": round(per_paper(papers), 1),
        "us_per_paper_1800_chars": round(per_paper(sized), 1),
        "mean_abstract_chars": round(statistics.mean(len(a) for _, a in papers), 0),
        "load_taxonomy_ms": round(load_ms, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--config-dir", type=Path, help="merge DIR/taxonomy.yaml, as the app does")
    parser.add_argument("--no-evidence", action="store_true", help="omit evidence lines")
    parser.add_argument("--rounds", type=int, default=20, help="timing passes (0: skip timing)")
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="the rules alone, without the learned reader (scoring: learned: false)",
    )
    parser.add_argument(
        "--split",
        choices=list(SPLIT_CHOICES),
        default="all",
        help="which labelled split to measure (default all)",
    )
    parser.add_argument(
        "--record-first-reading",
        action="store_true",
        help="with --rules-only and one test split: keep this reading in first_readings/",
    )
    parser.add_argument("--readings-dir", type=Path, default=READINGS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.record_first_reading and not (args.rules_only and args.split in TEST_SPLITS):
        parser.error("--record-first-reading needs --rules-only and one test split (--split testN)")

    taxonomy = load_taxonomy(args.config_dir)
    if args.rules_only:
        scoring = taxonomy.scoring.model_copy(update={"learned": False})
        taxonomy = Taxonomy(taxonomy.topics, scoring, taxonomy.sources)
    dev_papers = read_digest_papers(DIGESTS.glob("*.txt"))
    reports: dict[str, EvalReport] = {}
    chosen = SPLIT_CHOICES[args.split]
    if "dev" in chosen:
        reports["dev"] = evaluate(taxonomy, load_labels(label_file("topics", "dev")), dev_papers)
    for name in TEST_SPLITS:
        if name in chosen:
            path = label_file("topics", name)
            reports[name] = evaluate(taxonomy, load_labels(path), read_split_papers(path))
    speed = (
        time_classifier(taxonomy, [(p.title, p.abstract) for p in dev_papers.values()], args.rounds)
        if args.rounds > 0
        else {}
    )
    if args.record_first_reading:
        kept = record_first_reading(
            args.readings_dir, args.split, reports[args.split], taxonomy.fingerprint
        )
        if kept is None:
            print(f"eval_topics: {args.split}'s first reading is already kept", file=sys.stderr)
            return 1
        print(f"kept the first reading in {kept}", file=sys.stderr)
    if args.json:
        data: dict[str, object] = {
            "splits": {name: report.to_json() for name, report in reports.items()},
            "speed": speed,
            "taxonomy_fingerprint": taxonomy.fingerprint,
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        if len(reports) > 1:
            print(format_splits_table(reports))
        for name, report in reports.items():
            print()
            print(f"== {SPLIT_NAMES[name]} split ==")
            print(format_report(report, evidence=not args.no_evidence))
        if speed:
            print()
            print(
                f"speed: {speed['us_per_paper']:.0f} us/paper "
                f"(mean abstract {speed['mean_abstract_chars']:.0f} chars), "
                f"{speed['us_per_paper_1800_chars']:.0f} us/paper at 1,800 chars; "
                f"load_taxonomy {speed['load_taxonomy_ms']:.1f} ms"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
