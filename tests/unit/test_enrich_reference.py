"""The enrichment speed-ups change no stored column.

`tests/fixtures/enrich_reference.json` holds, per paper, a short hash of each column that
`Enricher.columns` returns (topics, topic_evidence, links, repos, hardware, has_code,
max_stars), computed with the code before the rule speed-ups of issue 12 (fifth round, rules):
every paper of the four fixture digests, every paper of `fixtures/eval/*.yaml` and 2,000
synthetic papers (bench/synthetic.py). On a difference the test names the first paper and
column that differ.

The hashes hold only for the data files they were computed with (`Enricher.fingerprint`).
When the taxonomy, the hardware catalog or the curated links change on purpose, regenerate it
with the enrichment code as it was before that change:
`python -m tests.unit.test_enrich_reference --write`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import yaml

from digest_tui.enrich.pipeline import ENRICHMENT_FIELDS, Enricher
from digest_tui.models import Paper
from digest_tui.sources.hf_page import parse_page

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "fixtures" / "enrich_reference.json"
SYNTHETIC_PAPERS = 2_000

# The groups of papers, each a name and its papers as (reference id, paper).
Group = tuple[str, list[tuple[str, Paper]]]


def fixture_digest_papers() -> list[tuple[str, Paper]]:
    papers = []
    for page in sorted((ROOT / "fixtures" / "digests").glob("*.txt")):
        parsed = parse_page(page.read_text(encoding="utf-8"), page.name)
        papers.extend((f"{page.name}-{n}", p) for n, p in enumerate(parsed.papers))
    return papers


def eval_papers() -> list[tuple[str, Paper]]:
    papers = []
    for split in sorted((ROOT / "fixtures" / "eval").glob("*.yaml")):
        data = yaml.safe_load(split.read_text(encoding="utf-8"))
        for n, item in enumerate(data["papers"]):
            ref = f"{split.name}-{n}"
            paper = Paper(
                id=ref,
                title=item.get("title") or "",
                abstract=item.get("abstract") or "",
                arxiv_id=item.get("arxiv_id"),
                keywords=list(item.get("keywords") or ()),
            )
            papers.append((ref, paper))
    return papers


def synthetic_papers() -> list[tuple[str, Paper]]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import synthetic  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "bench"))
    papers: list[tuple[str, Paper]] = []
    for page in synthetic.generate(SYNTHETIC_PAPERS):
        for p in synthetic.to_parsed(page).papers:
            papers.append((f"synthetic-{len(papers)}", p))
    return papers[:SYNTHETIC_PAPERS]


def groups() -> list[Group]:
    return [
        ("digests", fixture_digest_papers()),
        ("eval", eval_papers()),
        ("synthetic", synthetic_papers()),
    ]


def column_hashes(enricher: Enricher, paper: Paper) -> str:
    """One 6-hex-digit hash per column, in `ENRICHMENT_FIELDS` order, space-separated. The
    columns are hashed as stored (the encoded JSON strings), so a change in key order or
    escaping counts as a difference too."""
    columns = enricher.columns(paper)
    assert tuple(columns) == ENRICHMENT_FIELDS
    return " ".join(
        hashlib.sha256(repr(columns[name]).encode("utf-8")).hexdigest()[:6]
        for name in ENRICHMENT_FIELDS
    )


def computed(enricher: Enricher) -> Iterator[tuple[str, str, str]]:
    for group, papers in groups():
        for ref, paper in papers:
            yield group, ref, column_hashes(enricher, paper)


def test_every_reference_paper_enriches_to_the_same_columns_as_before() -> None:
    stored = json.loads(REFERENCE.read_text(encoding="utf-8"))
    enricher = Enricher()
    assert enricher.fingerprint == stored["fingerprint"], (
        "the enrichment data or code version changed: regenerate "
        "tests/fixtures/enrich_reference.json (see this module's docstring) with the "
        "enrichment code as it was before that change"
    )
    seen = {name: 0 for name in stored["groups"]}
    for group, ref, hashes in computed(enricher):
        expected = stored["groups"][group].get(ref)
        assert expected is not None, f"{group}: paper {ref} is not in the reference"
        seen[group] += 1
        if hashes != expected:
            fields = [
                name
                for name, now, before in zip(
                    ENRICHMENT_FIELDS, hashes.split(), expected.split(), strict=True
                )
                if now != before
            ]
            raise AssertionError(f"{group}: paper {ref} differs first in {', '.join(fields)}")
    assert seen == {name: len(papers) for name, papers in stored["groups"].items()}
    assert seen["synthetic"] == SYNTHETIC_PAPERS and seen["eval"] > 1_000


def write_reference() -> None:
    enricher = Enricher()
    payload: dict[str, object] = {"fingerprint": enricher.fingerprint}
    by_group: dict[str, dict[str, str]] = {}
    for group, ref, hashes in computed(enricher):
        by_group.setdefault(group, {})[ref] = hashes
    payload["groups"] = by_group
    REFERENCE.write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.unit.test_enrich_reference --write")
    write_reference()
