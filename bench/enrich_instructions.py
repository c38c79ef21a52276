"""Enrichment rules: instructions per paper, counted by callgrind (needs valgrind).

    python bench/enrich_instructions.py [--papers 200] [--set synthetic|eval]
                                        [--part hardware|topics|columns] [--cold]

CPU time on a shared machine swings by ±30 % with the other load (a core shared with another
process runs slower, whatever the clock says); the number of instructions executed does not.
This runs itself under `valgrind --tool=callgrind` and counts only the instructions executed
inside the measured calls (`--toggle-collect` on the C function that drives them), with
`PYTHONHASHSEED=0`, so two runs of the same code give the same count to within ~0.1 %:

- `hardware`: `Enricher._hardware` (the target from the text) of each paper;
- `topics`: `Enricher._classify` (the topic classifier);
- `columns`: `Enricher.columns`, the whole enrichment as an import pays it;

on N synthetic papers (bench/synthetic.py) or on every third paper of `fixtures/eval/*.yaml`.
By default every paper is enriched once before counting (compiled patterns, the word tables);
`--cold` counts that first pass instead. A/B: run it with the other checkout's package first on
`PYTHONPATH`. Instructions are not time (a regex step and a dict lookup differ), so quote them
beside CPU times from bench_enrich.py, not instead of them.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import OUT_DIR


def workload(papers_n: int, which: str, part: str, cold: bool) -> None:
    from bench_enrich import eval_papers, synthetic_papers
    from digest_tui.enrich.pipeline import Enricher

    enricher = Enricher()
    enricher.load()
    papers = synthetic_papers(papers_n) if which == "synthetic" else eval_papers()[::3][:papers_n]
    calls: list[tuple[object, ...]] = []
    for paper in papers:
        if part == "hardware":
            topics = list(enricher._classify(paper).topics)
            entry = enricher.catalog.lookup(paper.arxiv_id, paper.title)
            calls.append((paper, topics, entry))
        else:
            calls.append((paper,))
    run = {
        "hardware": enricher._hardware,
        "topics": enricher._classify,
        "columns": enricher.columns,
    }[part]
    if not cold:
        for args in calls:
            run(*args)
    print(len(calls))
    # Only what runs inside `starmap`'s next() is counted (--toggle-collect).
    collections.deque(itertools.starmap(run, calls), maxlen=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=200)
    parser.add_argument("--set", choices=("synthetic", "eval"), default="synthetic")
    parser.add_argument("--part", choices=("hardware", "topics", "columns"), default="hardware")
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--workload", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.workload:
        workload(args.papers, args.set, args.part, args.cold)
        return
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT_DIR) as scratch:
        out = Path(scratch) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=starmap_next",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--workload",
            f"--papers={args.papers}",
            f"--set={args.set}",
            f"--part={args.part}",
            *(["--cold"] if args.cold else []),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        count = int(done.stdout.split()[-1])
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        instructions = int(totals[0].split()[1])
    import digest_tui

    package = Path(digest_tui.__file__).resolve().parent
    print(
        f"{args.part}, {args.set}, {count} papers{' (cold)' if args.cold else ''}: "
        f"{instructions / count / 1e6:.3f} M instructions per paper   package: {package}"
    )


if __name__ == "__main__":
    main()
