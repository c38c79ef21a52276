"""Enrichment rules: serial CPU per paper of `Enricher.columns`, and of each component.

    python bench/bench_enrich.py [--papers 3000] [--repeat 3]

Measures, in this one process (no workers), CPU time (`time.process_time`) per paper:
- `columns`: the whole of `Enricher.columns` (topics, links and repos, the hardware target, the
  JSON encoding of the columns), what an import pays per paper;
- the components alone, run as `Enricher.compute_parts` runs them: topics (the classifier and
  its evidence), links (the curated catalog's lookup, links and repos), hardware (the target
  from the text) and encoding (`encode_columns` of the computed fields);
on N synthetic papers (bench/synthetic.py) and on every paper of `fixtures/eval/*.yaml`. Each
figure is the best of `--repeat` passes (the machine is shared: the least disturbed pass).

A/B against another checkout: run it with that checkout's package first on the path, e.g.
`PYTHONPATH=/work/main/src .venv/bin/python bench/bench_enrich.py`; the table says which
package it measured.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

import digest_tui
from _common import ROOT, table, write_result
from digest_tui.enrich.pipeline import ENRICHMENT_FIELDS, Enricher, encode_columns
from digest_tui.models import Paper
from synthetic import generate, to_parsed


def synthetic_papers(n: int) -> list[Paper]:
    papers: list[Paper] = []
    for page in generate(n):
        papers.extend(to_parsed(page).papers)
    return papers[:n]


def eval_papers() -> list[Paper]:
    papers = []
    for split in sorted((ROOT / "fixtures" / "eval").glob("*.yaml")):
        data = yaml.safe_load(split.read_text(encoding="utf-8"))
        for n, item in enumerate(data["papers"]):
            papers.append(
                Paper(
                    id=f"{split.name}-{n}",
                    title=item.get("title") or "",
                    abstract=item.get("abstract") or "",
                    arxiv_id=item.get("arxiv_id"),
                )
            )
    return papers


def cpu_us_per_paper(run: Callable[[Paper], Any], papers: list[Paper], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for paper in papers:
            run(paper)
        best = min(best, time.process_time() - start)
    return round(best / len(papers) * 1e6, 1)


def measure(enricher: Enricher, papers: list[Paper], repeat: int) -> dict[str, float]:
    for paper in papers[:50]:  # first use: compiled patterns, the word tables
        enricher.columns(paper)
    topics: dict[str, list[str]] = {}
    entries: dict[str, Any] = {}

    def run_topics(paper: Paper) -> None:
        # As `compute_parts` runs it: the topics and their evidence as stored.
        topics[paper.id] = list(enricher._classify(paper).topics)

    def run_links(paper: Paper) -> None:
        entry = entries[paper.id] = enricher.catalog.lookup(paper.arxiv_id, paper.title)
        enricher._links(paper, None, entry)

    def run_hardware(paper: Paper) -> None:
        enricher._hardware(paper, topics[paper.id], entries[paper.id])

    computed = {p.id: vars(enricher.enrich(p)) for p in papers}

    def run_encoding(paper: Paper) -> None:
        fields = computed[paper.id]
        encode_columns({name: fields[name] for name in ENRICHMENT_FIELDS})

    return {
        "columns_us": cpu_us_per_paper(enricher.columns, papers, repeat),
        "topics_us": cpu_us_per_paper(run_topics, papers, repeat),
        "links_us": cpu_us_per_paper(run_links, papers, repeat),
        "hardware_us": cpu_us_per_paper(run_hardware, papers, repeat),
        "encoding_us": cpu_us_per_paper(run_encoding, papers, repeat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    package = str(Path(digest_tui.__file__).resolve().parent)
    enricher = Enricher()
    enricher.load()
    sets = {
        f"synthetic ({args.papers:,})": synthetic_papers(args.papers),
        "eval splits": eval_papers(),
    }
    results: dict[str, Any] = {"package": package, "load_average": os.getloadavg()[0]}
    rows = []
    for name, papers in sets.items():
        figures = measure(enricher, papers, args.repeat)
        results[name] = {"papers": len(papers), **figures}
        rows.append(
            [
                f"{name}, {len(papers):,} papers",
                *(f"{figures[k]:,.0f}" for k in figures),
            ]
        )
    print(f"package: {package}   load average: {results['load_average']:.2f}")
    print(
        table(
            rows,
            ["CPU µs/paper, serial", "columns", "topics", "links", "hardware", "encoding"],
        )
    )
    write_result("bench_enrich", results)


if __name__ == "__main__":
    main()
