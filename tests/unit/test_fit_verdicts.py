"""Fit verdicts kept across commands (store/fit_verdicts.py) answer as judging afresh does, and
are judged again when what they depend on changes: the machines, the catalog files, or the
judging code.

Each "command" here is a fresh connection with the functions installed as service.py installs
them, then the cache closed as the command's context closes it.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from digest_tui.enrich.hardware.catalog import load_hardware_catalog
from digest_tui.store import fit_verdicts, repro_sql
from digest_tui.store.db import connect
from digest_tui.store.fit_keys import FITS_MINE_SQL, refresh_fit_keys
from digest_tui.store.fit_verdicts import VerdictCache, verdict_context
from digest_tui.store.fits import install_fits
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery
from tests.unit.test_fit_keys import MACHINES, _fill

FILE = fit_verdicts.FILE_NAME


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "library.sqlite3"
    conn = connect(path)
    _fill(conn)
    refresh_fit_keys(conn)
    conn.close()
    return path


class Command:
    """One command's connection, its functions and its verdict cache."""

    def __init__(self, db: Path, cache: Path, config: Path, machines: Sequence[Any]) -> None:
        self.library = Library(connect(db))
        self.loads: list[int] = []
        self.answers: tuple[set[int], dict[str, set[int]]] = (set(), {})

        @functools.cache
        def catalog() -> Any:  # loaded once, as the enricher's cached property is
            self.loads.append(1)
            return load_hardware_catalog(config)

        self.verdicts = VerdictCache(cache / FILE, lambda: verdict_context(machines, config))
        conn = self.library.conn
        install_fits(conn, lambda: machines, catalog, self.verdicts)
        repro_sql.install_repro_functions(conn, None, lambda: machines, catalog, self.verdicts)

    def mine(self) -> set[int]:
        sql = f"SELECT p.rowid FROM papers p WHERE {FITS_MINE_SQL} = 1"
        return {r[0] for r in self.library.conn.execute(sql)}

    def fits(self, name: str) -> set[int]:
        return set(self.library.list_rowids(PaperQuery(search=f"fits:{name}")))

    def close(self) -> None:
        self.verdicts.close()
        self.library.close()


def _fresh(db: Path, config: Path, machines: Sequence[Any]) -> tuple[set[int], dict[str, set[int]]]:
    """The answers judged with no cache at all (the code before)."""
    library = Library(connect(db))  # before installing: it installs a machine-less `fits:`
    conn = library.conn
    try:
        catalog = load_hardware_catalog(config)
        install_fits(conn, machines, catalog)
        repro_sql.install_repro_functions(conn, None, machines, catalog)
        sql = f"SELECT p.rowid FROM papers p WHERE {FITS_MINE_SQL} = 1"
        mine = {r[0] for r in conn.execute(sql)}
        by_name = {
            m.name: set(library.list_rowids(PaperQuery(search=f"fits:{m.name}"))) for m in machines
        }
        return mine, by_name
    finally:
        conn.close()


def _run(db: Path, cache: Path, config: Path, machines: Sequence[Any]) -> Command:
    command = Command(db, cache, config, machines)
    command.answers = (command.mine(), {m.name: command.fits(m.name) for m in machines})
    command.close()
    return command


def test_kept_verdicts_answer_as_judging_afresh_and_spare_the_catalog(
    db: Path, tmp_path: Path
) -> None:
    cache, config = tmp_path / "cache", tmp_path / "config"
    config.mkdir()
    machines = MACHINES[:3]
    expected = _fresh(db, config, machines)
    assert expected[0] and all(expected[1].values())
    first = _run(db, cache, config, machines)
    assert first.answers == expected and first.loads
    assert (cache / FILE).exists()
    second = _run(db, cache, config, machines)
    assert second.answers == expected
    assert second.loads == []  # every verdict kept: the catalog was never loaded


def test_other_machines_are_judged_again(db: Path, tmp_path: Path) -> None:
    cache, config = tmp_path / "cache", tmp_path / "config"
    config.mkdir()
    _run(db, cache, config, MACHINES[:1])
    # Same name, other devices: a kept verdict for "laptop" must not be reused.
    bigger = [MACHINES[1].model_copy(update={"name": MACHINES[0].name})]
    again = _run(db, cache, config, bigger)
    assert again.loads and again.answers == _fresh(db, config, bigger)
    assert again.answers != _fresh(db, config, MACHINES[:1])
    # Only the current machines' verdicts stay in the file.
    contexts = sqlite3.connect(cache / FILE).execute("SELECT DISTINCT context FROM verdicts")
    assert [c[0] for c in contexts] == [verdict_context(bigger, config)]


def test_a_changed_catalog_is_judged_again(db: Path, tmp_path: Path) -> None:
    cache, config = tmp_path / "cache", tmp_path / "config"
    config.mkdir()
    machines = [MACHINES[0]]  # one RTX 4090
    before = _run(db, cache, config, machines)
    # The user's hardware.yaml gives the RTX 4090 far more memory: more papers fit it.
    (config / "hardware.yaml").write_text(
        "devices:\n  - id: rtx-4090\n    memory_gb: 4000\n", encoding="utf-8"
    )
    expected = _fresh(db, config, machines)
    after = _run(db, cache, config, machines)
    assert after.loads and after.answers == expected
    assert expected[0] > before.answers[0]


def test_the_judging_code_is_part_of_the_context(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    same = verdict_context(MACHINES, config)
    assert verdict_context(MACHINES, config) == same
    monkeypatch.setattr(fit_verdicts, "_JUDGE_SOURCES", fit_verdicts._JUDGE_SOURCES[1:])
    assert verdict_context(MACHINES, config) != same


def test_a_kept_verdict_is_what_the_query_reads(db: Path, tmp_path: Path) -> None:
    """The file is read, not decorative: a verdict planted there is the answer."""
    cache, config = tmp_path / "cache", tmp_path / "config"
    config.mkdir()
    machines = [MACHINES[0]]
    _run(db, cache, config, machines)
    with sqlite3.connect(cache / FILE) as file:
        file.execute("UPDATE verdicts SET fits = 1")
    planted = _run(db, cache, config, machines)
    assert planted.answers[0] == planted.answers[1]["laptop"]
    with sqlite3.connect(db) as conn:
        every_keyed = {r[0] for r in conn.execute("SELECT paper_rowid FROM paper_fit_keys")}
    assert planted.answers[0] == every_keyed


def test_an_unwritable_cache_judges_as_before(db: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir would be")
    command = _run(db, blocker, config, MACHINES[:2])
    assert command.answers == _fresh(db, config, MACHINES[:2])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / FILE).write_text("not a database")
    again = _run(db, broken, config, MACHINES[:2])
    assert again.answers == _fresh(db, config, MACHINES[:2])
