"""PaperView is the JSON contract: `to_json()` gives what `papers`/`show --format json` printed
before the typed view existed, key for key and in the same order.

`contract_json` below is the dict builder the commands used until then (serialize.paper_json,
kept here verbatim as the reference: the contract written out field by field from a row).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import pytest

from digest_tui.config import AppContext, Machine
from digest_tui.paper_view import PaperView, paper_view
from digest_tui.service import load_sample_if_empty, open_library
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery

MACHINES = """\
machines:
  - name: laptop
    devices: [{id: rtx-4090, count: 1}]
  - name: node
    devices: [{id: h100, count: 8}]
"""


@pytest.fixture
def sample(home):
    library = open_library(AppContext())
    load_sample_if_empty(library)
    # Some user state, so the state fields are not all empty.
    rows = library.rows(PaperQuery(sort="date"))
    first, second = rows[0]["id"], rows[1]["id"]
    library.state.bookmark(first)
    library.state.set_read(second)
    library.state.add_tags(first, ["todo", "moe"])
    library.state.set_note(second, "a [b]note[/b]")
    library.state.create_list('my "best" papers')
    library.state.add_to_list('my "best" papers', [first, second])
    yield library
    library.close()


def dumped(value) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("with_machines", [False, True])
def test_to_json_is_the_old_contract_for_every_sample_paper(home, sample, with_machines):
    if with_machines:
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "config.yaml").write_text(MACHINES, encoding="utf-8")
    machines = AppContext().settings.machines
    assert bool(machines) is with_machines
    rows = sample.rows(PaperQuery())
    assert len(rows) == 152
    for row in rows:
        old = contract_json(sample, row, machines)
        new = paper_view(sample, row, machines).to_json()
        assert dumped(new) == dumped(old), row["id"]
    fits = [paper_view(sample, row, machines).machine_fit for row in rows]
    assert any(fits) is with_machines


def test_the_view_is_typed_and_frozen(sample):
    row = sample.resolve("flashmoe")
    view = paper_view(sample, row)
    assert isinstance(view, PaperView)
    assert view.repos and all(repo.url.startswith("http") for repo in view.repos)
    assert view.github_repos == {
        r.url: (r.owner, r.name) for r in view.repos if r.host == "github.com"
    }
    # The curated catalog gives FlashMoE its arXiv id, so its page is the arXiv abstract page.
    assert view.arxiv_id == "2506.04667"
    assert view.page_url == "https://arxiv.org/abs/2506.04667"
    with pytest.raises(AttributeError):
        view.title = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        view.hardware["target"] = "changed"  # type: ignore[index]


def contract_json(
    library: Library, row: sqlite3.Row, machines: Sequence[Machine] = ()
) -> dict[str, Any]:
    """The contract object as serialize.paper_json built it before PaperView (verbatim)."""
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
        "categories": json.loads(row["categories"]),
        "project_page": row["project_page"],
        "withdrawn": bool(row["withdrawn"]),
        "digests": library.digests_of(int(row["rowid"])),
        "source": row["source"],
        "note": state.get("note"),
        "note_conflicts": state.get("note_conflicts", []),
        "lists": state.get("lists", []),
    }
    if machines and paper["hardware"] is not None and library.enricher is not None:
        paper["machine_fit"] = old_machine_fit(
            paper["hardware"], machines, library.enricher.hardware_catalog
        )
    return paper


def old_machine_fit(
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
