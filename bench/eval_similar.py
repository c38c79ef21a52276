"""Quality of `similar` and `recommend` on the labelled topic splits.

    .venv/bin/python bench/eval_similar.py [--json] [--worst]

The library is every labelled paper (development split, text from fixtures/digests/; test
split, with its own abstracts), in memory. Figures (logic in bench/evaluation/similar_eval.py):
- similar: share of the top 3 similar papers that share a topic, over papers with a topic
  (target >= 0.75);
- recommend: per topic, half its papers as positives; precision@10 on the other half.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # runnable from a checkout without installing
sys.path.insert(0, str(ROOT / "bench"))  # the evaluation package beside this script

from digest_tui.store.db import connect  # noqa: E402
from digest_tui.store.library import Library  # noqa: E402
from evaluation.similar_eval import (  # noqa: E402
    import_labelled,
    load_labelled,
    recommend_quality,
    similar_quality,
)

DIGESTS = ROOT / "fixtures" / "digests"
LABELS = ROOT / "fixtures" / "eval" / "topics.yaml"
TEST_SPLIT = ROOT / "fixtures" / "eval" / "topics_test.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--worst", action="store_true", help="list papers with < 2 of 3 right")
    args = parser.parse_args(argv)
    labelled = load_labelled(LABELS, sorted(DIGESTS.glob("*.txt")), TEST_SPLIT)
    library = Library(connect(":memory:"))
    rows = import_labelled(library, labelled)
    started = time.perf_counter()
    similar = similar_quality(library, rows)
    similar["seconds"] = round(time.perf_counter() - started, 2)
    recommend = recommend_quality(library, rows)
    report = {"papers": len(rows), "similar": similar, "recommend": recommend}
    if not args.worst:
        similar.pop("worst")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    key = "share_top3_sharing_a_topic"
    print(f"library: {len(rows)} labelled papers")
    print(f"similar: {similar[key]} of top-3 share a topic ({similar['papers']} papers)")
    for topic, figures in recommend["per_topic"].items():
        print(
            f"recommend {topic:22} P@10 {figures['precision_at_10']:.2f} "
            f"({figures['recovered_in_top10']} of {figures['hidden']} hidden, "
            f"{figures['tagged']} tagged)"
        )
    print(f"recommend mean P@10: {recommend['mean_precision_at_10']}")
    for item in similar.get("worst", []):
        print(f"  {item['topics']} {item['title'][:70]}")
        for title in item["similar"]:
            print(f"      -> {title[:80]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
