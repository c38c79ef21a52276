"""The paper object of the JSON contract (DESIGN.md), built from a stored row.

Fields every consumer relies on: id, title, abstract, published, upvotes, topics,
topic_evidence, repos, hardware, bookmarked, tags, read. The rest are additions.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from digest_tui.config import Machine
from digest_tui.store.library import Library


def paper_json(
    library: Library, row: sqlite3.Row, machines: Sequence[Machine] = ()
) -> dict[str, Any]:
    """The contract object; with `machines` (config `machines:`), also whether each fits."""
    state = library.user_state(int(row["rowid"]))
    paper = {
        "id": row["id"],
        "title": row["title"],
        "abstract": row["abstract"],
        "published": row["published"],
        "upvotes": row["upvotes"],
        "topics": json.loads(row["topics"]),
        "topic_evidence": json.loads(row["topic_evidence"]),
        "repos": json.loads(row["repos"]),
        "hardware": json.loads(row["hardware"]) if row["hardware"] else None,
        "bookmarked": state["bookmarked"],
        "tags": state["tags"],
        "read": state["read"],
        "arxiv_id": row["arxiv_id"],
        "links": json.loads(row["links"]),
        "authors_count": row["authors_count"],
        "authors": json.loads(row["authors"]),
        "organization": row["organization"],
        "organization_name": row["organization_name"],
        "keywords": json.loads(row["keywords"]),
        "project_page": row["project_page"],
        "withdrawn": bool(row["withdrawn"]),
        "digests": library.digests_of(int(row["rowid"])),
        "source": row["source"],
        "note": state.get("note"),
        "note_conflicts": state.get("note_conflicts", []),
        "lists": state.get("lists", []),
    }
    if machines and paper["hardware"] is not None and library.enricher is not None:
        paper["machine_fit"] = machine_fit(
            paper["hardware"], machines, library.enricher.hardware_catalog
        )
    return paper


def machine_fit(
    hardware: dict[str, Any], machines: Sequence[Machine], catalog: Any
) -> list[dict[str, Any]]:
    """[{name, fits (true/false/null), reason}] for each of the user's machines."""
    from pydantic import ValidationError

    from digest_tui.enrich.hardware.fit import fit_machines
    from digest_tui.enrich.hardware.suggest import HardwareSuggestion

    try:
        suggestion = HardwareSuggestion.model_validate(hardware)
    except ValidationError:
        return [
            {"name": m.name, "fits": None, "reason": "hardware data is outdated"} for m in machines
        ]
    return [fit.model_dump() for fit in fit_machines(suggestion, machines, catalog)]
