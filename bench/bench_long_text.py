"""Enrichment time against text length: linear, or not.

    python bench/bench_long_text.py [--max-kb 2000]

Repeats a few sentences (one keyword, hardware facts in one endless sentence, many links in
one sentence) to texts of growing size and times `Enricher.enrich` on each. Linear work shows
as a constant time per kilobyte; a quadratic step as a time per kilobyte that grows with the
size (the topic overlap check took 68 s for 460 kB before it was made linear).
"""

from __future__ import annotations

import argparse
import time

from _common import table
from digest_tui.enrich.pipeline import Enricher
from digest_tui.models import Paper

UNITS = {
    "one keyword": "GPU kernel ",
    "hardware facts, one sentence": (
        "our method beats Mixtral 8x7B and GPT-3 13B with 760M active, 8.3B total on "
        "8 A100 GPUs, 3072 GPUs and a 4 node cluster; "
    ),
    "links, one sentence": "we build on https://github.com/a/b and ",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-kb", type=int, default=2000, help="largest text, in kilobytes")
    args = parser.parse_args()
    enricher = Enricher(None)
    enricher.enrich(Paper(id="warm", title="warm up", abstract="GPU kernel"))
    rows = []
    for name, unit in UNITS.items():
        size_kb = 125
        while size_kb <= args.max_kb:
            text = unit * (size_kb * 1000 // len(unit))
            paper = Paper(id="long", title="A long abstract", abstract=text)
            started = time.perf_counter()
            enricher.enrich(paper)
            elapsed = time.perf_counter() - started
            rows.append([name, size_kb, f"{elapsed:.2f}", f"{elapsed / size_kb * 1000:.2f}"])
            size_kb *= 4
    print(table(rows, ["text", "kB", "enrich s", "ms per kB"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
