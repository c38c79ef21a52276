"""Enrichment output, byte for byte, against another checkout's code.

    python bench/enrich_identity.py --against <checkout>/src [--synthetic 5000]
    python bench/enrich_identity.py --write FILE [--synthetic 5000]
    python bench/enrich_identity.py --compare FILE [--synthetic 5000]

`--write` stores, one JSON line per paper, every column `Enricher.columns` returns (the encoded
strings as stored) for every paper of `fixtures/eval/*.yaml`, of the fixture digests
(`fixtures/digests/`), N synthetic papers (bench/synthetic.py) and variants of the eval papers
that exercise other paths (the abstract upper-cased; two abstracts joined). `--against` runs
`--write` in a subprocess with that package first on `PYTHONPATH`, then here with this one, and
names every paper whose columns differ (exit 1), or says they are identical. `--compare` does the
same against a file `--write` stored earlier (the other code's output, computed once). The
other checkout must be whole (a `git worktree add --detach` or a `git archive` of it): the
curated catalog, `repro_links/`, is read from beside its `src/`.

A check for changes that must not change output (speed-ups): the stored reference hashes
(tests/unit/test_enrich_reference.py) cover fewer papers and no variants.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

from _common import OUT_DIR, ROOT


def papers(n_synthetic: int) -> Iterator[tuple[str, object]]:
    from digest_tui.models import Paper
    from digest_tui.sources.hf_page import parse_page
    from synthetic import generate, to_parsed

    evals: list[tuple[str, Paper]] = []
    for split in sorted((ROOT / "fixtures" / "eval").glob("*.yaml")):
        data = yaml.safe_load(split.read_text(encoding="utf-8"))
        for n, item in enumerate(data["papers"]):
            paper = Paper(
                id=f"{split.name}-{n}",
                title=item.get("title") or "",
                abstract=item.get("abstract") or "",
                arxiv_id=item.get("arxiv_id"),
                keywords=list(item.get("keywords") or ()),
            )
            evals.append((paper.id, paper))
    yield from evals
    for page in sorted((ROOT / "fixtures" / "digests").glob("*.txt")):
        parsed = parse_page(page.read_text(encoding="utf-8"), page.name)
        for n, paper in enumerate(parsed.papers):
            yield f"{page.name}-{n}", paper
    count = 0
    for page in generate(n_synthetic):
        for paper in to_parsed(page).papers:
            if count >= n_synthetic:
                break
            yield f"synthetic-{count}", paper
            count += 1
    for ref, paper in evals:
        upper = paper.model_copy(update={"abstract": paper.abstract.upper()})
        yield f"upper-{ref}", upper
    for (ref, a), (_, b) in itertools.pairwise(evals):
        joined = a.model_copy(update={"abstract": f"{a.abstract} {b.abstract}"})
        yield f"joined-{ref}", joined


def write(path: Path, n_synthetic: int) -> None:
    from digest_tui.enrich.pipeline import Enricher

    enricher = Enricher()
    with path.open("w", encoding="utf-8") as out:
        for ref, paper in papers(n_synthetic):
            columns = enricher.columns(paper)  # type: ignore[arg-type]
            out.write(json.dumps([ref, columns], ensure_ascii=False) + "\n")


def read(path: Path) -> dict[str, str]:
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        ref, columns = json.loads(line)
        rows[ref] = json.dumps(columns, ensure_ascii=False)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, help="the other package's src directory")
    parser.add_argument("--write", type=Path, help="write this package's output here")
    parser.add_argument("--compare", type=Path, help="an earlier --write of the other code")
    parser.add_argument("--synthetic", type=int, default=5_000)
    args = parser.parse_args()
    if args.write:
        write(args.write, args.synthetic)
        return
    if not (args.against or args.compare):
        parser.error("--against, --compare or --write")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT_DIR) as scratch:
        theirs, ours = Path(scratch) / "theirs.jsonl", Path(scratch) / "ours.jsonl"
        if args.compare:
            theirs = args.compare
        else:
            env = {**os.environ, "PYTHONPATH": str(args.against.resolve())}
            command = [sys.executable, __file__, "--write", str(theirs)]
            subprocess.run([*command, "--synthetic", str(args.synthetic)], env=env, check=True)
        write(ours, args.synthetic)
        before, after = read(theirs), read(ours)
    differ = [ref for ref in before if before[ref] != after.get(ref)]
    missing = [ref for ref in after if ref not in before]
    for ref in (differ + missing)[:20]:
        print(f"differs: {ref}")
    if differ or missing or len(before) != len(after):
        print(f"{len(differ)} of {len(before)} papers differ, {len(missing)} not in the other")
        raise SystemExit(1)
    print(f"identical: {len(after):,} papers, every column")


if __name__ == "__main__":
    main()
