"""The SQL functions behind has:weights, has:runnable and the reproducible/readiness sorts
(store/repro_sql.py), on a real SQLite library and real cache files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from digest_tui.repohealth.cache import HealthCache
from digest_tui.sources.hf_artifacts import ArtifactIndex, Artifacts
from digest_tui.store import repro_sql
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery
from tests.support.state import import_papers, make_paper


@pytest.fixture
def library(tmp_path: Path) -> Library:
    from digest_tui.enrich.pipeline import Enricher

    # With the enricher, as the app: it turns `github_repo` into the paper's repos.
    library = Library(connect(tmp_path / "library.sqlite3"), Enricher(tmp_path / "config"))
    import_papers(
        library,
        [
            make_paper("Alpha kernels", "2601.00001", github_repo="https://github.com/a/alpha"),
            make_paper("Beta serving", "2601.00002", github_repo="https://github.com/b/beta"),
            make_paper("Gamma nothing", "2601.00003"),
        ],
    )
    return library


def ids(library: Library, search: str) -> list[str]:
    return [r.id for r in library.list_rows(PaperQuery(search=search))]


def cite(cache_dir: Path, arxiv_id: str) -> None:
    found = Artifacts(arxiv_id)
    found.datasets.append(None)  # type: ignore[arg-type] # the index counts items only
    ArtifactIndex(cache_dir).record(found)


def test_what_a_later_fetch_adds_shows_on_the_next_query(library, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    repro_sql.install_repro_functions(library.conn, cache_dir)
    assert ids(library, "has:weights") == []
    cite(cache_dir, "2601.00002")
    monkeypatch.setattr(repro_sql, "SNAPSHOT_SECONDS", 0.0)
    assert ids(library, "has:weights") == ["2601.00002"]
    assert sorted(ids(library, "-has:weights")) == ["2601.00001", "2601.00003"]
    with HealthCache(cache_dir / "repo_health.sqlite3") as cache:
        cache.put_readiness(
            "A",  # repo keys are case-insensitive
            "Alpha",
            state="ok",
            labels={"files": ["conda"], "sections": ["quickstart"], "badges": ["available"]},
            contents_etag=None,
            readme_etag=None,
            fetched_at=dt.datetime.now(dt.UTC),
        )
    assert ids(library, "has:runnable") == ["2601.00001"]
    assert ids(library, "sort:readiness")[0] == "2601.00001"
    # Code + weights outrank code alone, which outranks nothing.
    assert ids(library, "sort:reproducible") == ["2601.00002", "2601.00001", "2601.00003"]


def test_without_caches_every_paper_answers_no(library):
    repro_sql.install_repro_functions(library.conn, None)
    assert ids(library, "has:weights") == [] and ids(library, "has:runnable") == []
    assert len(ids(library, "sort:reproducible")) == 3


def test_broken_repo_json_is_not_runnable(library, tmp_path):
    repro_sql.install_repro_functions(library.conn, tmp_path / "cache")
    fn = repro_sql._github_keys
    assert fn("not json") == [] and fn('{"a": 1}') == [] and fn('[1, {"host": "github.com"}]') == []
