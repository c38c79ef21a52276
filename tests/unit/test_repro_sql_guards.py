"""The guarded SQL of has:runnable and the readiness/reproducible sorts (store/repro_sql.py:
`runnable_where`, `READINESS_SQL`, `REPRODUCIBLE_SQL`) lists exactly what the per-paper
functions listed before (the expressions query.py used until then), on a varied library, with
every cache empty, with checked repos that all score 0, and with readiness, Hub weights and
machines all present. And with nothing cached, a filter reads no paper row at all."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from digest_tui.repohealth.cache import HealthCache
from digest_tui.sources.hf_artifacts import ArtifactIndex, Artifacts
from digest_tui.store import query as query_module
from digest_tui.store import repro_sql
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery
from tests.support.state import import_papers, make_paper

_DATE = "coalesce(p.published, p.first_seen)"
# What store/query.py said before the guards: one Python call per paper for every query.
BEFORE_SORTS = {
    "reproducible": "p.has_code + paper_has_weights(p.arxiv_id) + paper_fits_mine(p.hardware) "
    f"DESC, paper_readiness(p.repos) DESC, {_DATE} DESC, p.rowid DESC",
    "readiness": f"paper_readiness(p.repos) DESC, p.has_code DESC, {_DATE} DESC, p.rowid DESC",
}


def before_runnable(wanted: int) -> str:
    return f"paper_runnable(p.repos) = {wanted}"


HARDWARE = [
    "",
    " All experiments run on a single RTX 4090 GPU.",
    " We train on 8 H100 80GB GPUs across two nodes.",
    " Inference of a 7B model fits on one A100 80GB.",
    " Training used 512 TPU v4 chips.",
]


def varied_papers() -> list:
    papers = []
    for n in range(48):
        owner = ["alpha", "Beta", "GAMMA", "delta"][n % 4]
        extra: dict = {}
        if n % 3 == 0:
            extra["github_repo"] = f"https://github.com/{owner}/repo{n % 7}"
        abstract = f"Paper {n} about kernels and serving." + HARDWARE[n % len(HARDWARE)]
        if n % 5 == 0:
            abstract += f" Code mentioned at https://github.com/{owner}/mention{n % 4}."
        if n % 11 == 0:
            extra["published"] = None
        else:
            extra["published"] = dt.date(2025, 1 + n % 12, 1 + n % 27)
        arxiv = f"2601.{n:05d}" if n % 2 == 0 else None
        papers.append(make_paper(f"Varied paper number {n}", arxiv, abstract=abstract, **extra))
    return papers


@pytest.fixture
def library(tmp_path: Path) -> Library:
    from digest_tui.enrich.pipeline import Enricher

    library = Library(connect(tmp_path / "library.sqlite3"), Enricher(tmp_path / "config"))
    import_papers(library, varied_papers())
    return library


def _readiness(cache_dir: Path, entries: dict[tuple[str, str], dict]) -> None:
    with HealthCache(cache_dir / "repo_health.sqlite3") as cache:
        for (owner, name), labels in entries.items():
            cache.put_readiness(
                owner,
                name,
                state="ok",
                labels=labels,
                contents_etag=None,
                readme_etag=None,
                fetched_at=dt.datetime.now(dt.UTC),
            )


def _cite(cache_dir: Path, arxiv_id: str) -> None:
    found = Artifacts(arxiv_id)
    found.datasets.append(None)  # type: ignore[arg-type] # the index counts items only
    ArtifactIndex(cache_dir).record(found)


SEARCHES = ["sort:readiness", "sort:reproducible", "has:runnable", "-has:runnable"]
SEARCHES += ["has:runnable sort:reproducible", "-has:runnable sort:readiness", "kernels"]


def listed(library: Library, search: str) -> list[str]:
    return [r.id for r in library.list_rows(PaperQuery(search=search))]


def listed_before(library: Library, search: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as patch:
        for sort, sql in BEFORE_SORTS.items():
            patch.setitem(query_module._SORTS, sort, sql)
        patch.setattr(query_module, "runnable_where", before_runnable)
        return listed(library, search)


def assert_same_as_before(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    for search in SEARCHES:
        assert listed(library, search) == listed_before(library, search, monkeypatch), search


def test_guarded_sql_lists_what_the_per_paper_functions_listed(library, tmp_path, monkeypatch):
    from digest_tui.settings_schema import Machine

    cache_dir = tmp_path / "cache"
    machines: list[Machine] = []
    catalog = library.enricher.hardware_catalog  # type: ignore[union-attr]
    repro_sql.install_repro_functions(library.conn, cache_dir, lambda: machines, catalog)
    monkeypatch.setattr(repro_sql, "SNAPSHOT_SECONDS", 0.0)

    assert_same_as_before(library, monkeypatch)  # nothing cached, no machine

    # Checked repos, none of them with a label that scores.
    _readiness(cache_dir, {("alpha", "repo0"): {"files": [], "sections": [], "badges": []}})
    assert_same_as_before(library, monkeypatch)

    # Scores, runnable and not, keyed as stored and in other cases; Hub weights; two machines.
    keys = sorted(
        {
            key
            for (repos,) in library.conn.execute("SELECT repos FROM papers")
            for key in repro_sql._github_keys(repos)
        }
    )
    assert len(keys) >= 8
    labels = [
        {"files": ["conda"], "sections": ["quickstart"], "badges": []},  # runnable
        {"files": ["conda"], "sections": [], "badges": ["available"]},  # scores, not runnable
        {"files": [], "sections": [], "badges": []},  # checked, scores 0
    ]
    _readiness(
        cache_dir,
        {
            (owner.upper() if n % 2 else owner, name): labels[n % 3]
            for n, (owner, name) in enumerate(k.split("/") for k in keys[::2])
        },
    )
    for n in range(0, 48, 6):
        _cite(cache_dir, f"2601.{n:05d}")
    machines.extend(
        [
            Machine(name="laptop", devices=[{"id": "rtx-4090", "count": 1}]),
            Machine(name="node", devices=[{"id": "h100", "count": 8}]),
        ]
    )
    repro_sql.install_repro_functions(library.conn, cache_dir, lambda: machines, catalog)
    assert listed(library, "has:runnable")  # the varied data does exercise each path
    assert_same_as_before(library, monkeypatch)


def test_with_nothing_cached_has_runnable_reads_no_paper(library, tmp_path):
    repro_sql.install_repro_functions(library.conn, tmp_path / "cache")
    called: list[str] = []
    library.conn.create_function("paper_runnable", 1, lambda repos: called.append(repos) or 0)
    assert listed(library, "has:runnable") == []
    assert listed(library, "sort:readiness")
    assert called == []  # the guard ended the filter before any row's repos were read
