"""Measure `similar` and `recommend` on the labelled topic splits (bench/eval_similar.py).

The library is every labelled paper: the development split's papers with their text from the
fixture digests, and the test split's papers with their own abstracts. A topic label is what
"alike" means here:

- similar: for each paper with a required topic, the share of its top 3 similar papers that
  share a topic with it (one of its required topics is required or allowed for the neighbour);
- recommend: per topic, half its papers (every other one by id) are tagged; precision@10 of
  `recommend --tag` is the share of the first 10 that are in the other half, out of
  min(10, size of the other half).

Shared by the bench script and the tests so both measure the same thing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from digest_tui.ids import paper_id
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.store.library import Library

SIMILAR_TOP = 3
RECOMMEND_TOP = 10
EVAL_TAG = "eval-half"


@dataclass(frozen=True)
class Labelled:
    title: str
    abstract: str
    keywords: tuple[str, ...]
    arxiv_id: str | None
    required: frozenset[str]
    allowed: frozenset[str]


def load_labelled(
    dev_labels: Path, digests: Iterable[Path], test_split: Path | None = None
) -> list[Labelled]:
    """Every labelled paper with its text; a labelled title missing from the digests is skipped."""
    from evaluation.topic_eval import _read_label_file, read_digest_papers

    texts = read_digest_papers(digests)
    found: list[Labelled] = []
    for item in _read_label_file(dev_labels).papers:
        text = texts.get(item.title)
        if text is not None:
            found.append(
                Labelled(
                    item.title,
                    text.abstract,
                    text.keywords,
                    None,
                    frozenset(item.required),
                    frozenset(item.allowed),
                )
            )
    if test_split is not None:
        for item in _read_label_file(test_split).papers:
            found.append(
                Labelled(
                    item.title,
                    item.abstract or "",
                    (),
                    item.arxiv_id,
                    frozenset(item.required),
                    frozenset(item.allowed),
                )
            )
    return found


def import_labelled(library: Library, papers: Iterable[Labelled]) -> dict[int, Labelled]:
    """Store the papers as one digest; rowid -> labelled paper."""
    models = [
        Paper(
            id=paper_id(p.title, p.arxiv_id),
            title=p.title,
            abstract=p.abstract,
            keywords=list(p.keywords),
            arxiv_id=p.arxiv_id,
            source="eval",
        )
        for p in papers
    ]
    by_id = {m.id: p for m, p in zip(models, papers, strict=True)}
    day = dt.date(2025, 1, 1)
    library.import_parsed(
        ParsedDigest(
            digest=Digest(
                id="eval", source="eval", date=day, title="eval", paper_ids=[m.id for m in models]
            ),
            papers=models,
        )
    )
    rows = library.conn.execute("SELECT rowid, id FROM papers").fetchall()
    return {int(r[0]): by_id[r[1]] for r in rows if r[1] in by_id}


def shares_topic(paper: Labelled, other: Labelled) -> bool:
    return bool(paper.required & (other.required | other.allowed))


def similar_quality(library: Library, labelled: dict[int, Labelled]) -> dict[str, Any]:
    from digest_tui.similar.find import similar_to

    hits = total = 0
    worst: list[dict[str, Any]] = []
    for rowid, paper in labelled.items():
        if not paper.required:
            continue
        found = similar_to(library.conn, rowid, SIMILAR_TOP)
        good = sum(shares_topic(paper, labelled[f.rowid]) for f in found if f.rowid in labelled)
        hits += good
        total += SIMILAR_TOP
        if good < 2:
            worst.append(
                {
                    "title": paper.title,
                    "topics": sorted(paper.required),
                    "similar": [labelled[f.rowid].title for f in found if f.rowid in labelled],
                }
            )
    return {
        "papers": total // SIMILAR_TOP,
        f"share_top{SIMILAR_TOP}_sharing_a_topic": round(hits / total, 4) if total else None,
        "worst": worst,
    }


def recommend_quality(library: Library, labelled: dict[int, Labelled]) -> dict[str, Any]:
    from digest_tui.similar.recommend import recommend

    topics = sorted({t for p in labelled.values() for t in p.required})
    per_topic: dict[str, Any] = {}
    for topic in topics:
        members = sorted(
            (r for r, p in labelled.items() if topic in p.required),
            key=lambda r: library.conn.execute(
                "SELECT id FROM papers WHERE rowid = ?", (r,)
            ).fetchone()[0],
        )
        tagged, hidden = members[0::2], set(members[1::2])
        if not tagged or not hidden:
            continue
        found = recommend(library.conn, tagged, limit=RECOMMEND_TOP)
        got = sum(f.rowid in hidden for f in found)
        per_topic[topic] = {
            "tagged": len(tagged),
            "hidden": len(hidden),
            "recovered_in_top10": got,
            "precision_at_10": round(got / min(RECOMMEND_TOP, len(hidden)), 4),
        }
    values = [t["precision_at_10"] for t in per_topic.values()]
    return {
        "per_topic": per_topic,
        "mean_precision_at_10": round(sum(values) / len(values), 4) if values else None,
    }
