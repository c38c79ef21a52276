"""PaperView is the JSON contract: `to_json()` gives what `papers`/`show --format json` printed
before the typed view existed (serialize.paper_json), key for key and in the same order."""

from __future__ import annotations

import json

import pytest

from digest_tui.config import AppContext
from digest_tui.paper_view import PaperView, paper_view
from digest_tui.service import load_sample_if_empty, open_library
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
    from digest_tui.serialize import paper_json

    if with_machines:
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "config.yaml").write_text(MACHINES, encoding="utf-8")
    machines = AppContext().settings.machines
    assert bool(machines) is with_machines
    rows = sample.rows(PaperQuery())
    assert len(rows) == 152
    for row in rows:
        old = paper_json(sample, row, machines)
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
    assert view.arxiv_id is None and view.page_url.startswith("https://arxiv.org/search/")
    with pytest.raises(AttributeError):
        view.title = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        view.hardware["target"] = "changed"  # type: ignore[index]
