"""SQL functions for `has:weights`, `has:runnable` and the "reproducible"/"readiness" sorts.

What they need lives outside the library file: which papers the Hub cites (the artifact index
in the cache dir, sources/hf_artifacts.py), how ready each GitHub repo is (the readiness
cache, repohealth/) and the user's machines. `install_repro_functions` registers on a
connection:

- `paper_has_weights(arxiv_id)`: 1 when a Hub model or dataset cites the paper (as cached);
- `paper_weight_ids()`: the arXiv ids so cited, as a JSON array (`has:weights` looks them up);
- `paper_readiness(repos_json)`: the best readiness score of the paper's GitHub repos, 0 when
  none was checked;
- `paper_runnable(repos_json)`: 1 when one of them is runnable (environment + instructions);
- `paper_key_fits_mine(fit_key)`: 1 when the papers of that fit key fit one of the machines
  (store/fit_keys.py: asked once per distinct key), with its guard `paper_fits_mine_by_key()`
  and `paper_fits_mine(hardware_json)` for a paper without a key yet.

Each reads a snapshot of its cache taken at most SNAPSHOT_SECONDS ago, so a query over
100,000 papers costs set lookups, and what a background fetch adds shows on the next query.
Nothing is fetched here: these read caches only.

store/query.py writes the filter and sorts with the SQL below (`runnable_where`,
`READINESS_SQL`, `REPRODUCIBLE_SQL`), not with the per-paper functions directly: each is
guarded by a function of no argument (`paper_runnable_known()`, …) that says whether any
paper can answer other than 0 (no repo checked, no Hub index, no machine: the usual state).
SQLite evaluates such a guard once per statement, so then `has:runnable` ends before reading
a row and the sorts read the list-order index instead of every paper's wide row (0.7-1 s of
CPU at 100,000 papers before). The per-paper columns are read through `_OWN_ROW` (a rowid
lookup) so that the guarded-off case needs no column outside that index.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from digest_tui.store.fit_keys import FITS_MINE_SQL
from digest_tui.store.fit_verdicts import MINE, VerdictCache, kept_or_judged
from digest_tui.store.fits import MachinesSource, key_fits, machine_fits

SNAPSHOT_SECONDS = 2.0
T = TypeVar("T")

# The paper's own wide row, read by rowid only when a guard lets the expression run.
_OWN_ROW = "FROM papers AS own WHERE own.rowid = p.rowid"


def runnable_where(wanted: int) -> str:
    """The WHERE term of `has:runnable` (wanted 1) or `-has:runnable` (0). A term of its own:
    SQLite short-circuits AND/OR there (not inside a comparison), so while no checked repo is
    runnable the positive filter ends before the first row and the negative one reads no
    paper's repos."""
    if wanted:
        return "paper_runnable_known() AND paper_runnable(p.repos) = 1"
    return "(NOT paper_runnable_known() OR paper_runnable(p.repos) = 0)"


# The readiness score of the paper's best repo; 0 for every paper while none was checked.
READINESS_SQL = (
    "(CASE WHEN paper_readiness_known() "
    f"THEN (SELECT paper_readiness(own.repos) {_OWN_ROW}) ELSE 0 END)"
)
# Code + Hub weights + a machine that fits: the first key of the "reproducible" sort.
REPRODUCIBLE_SQL = (
    "(p.has_code"
    " + CASE WHEN paper_weights_known() "
    f"THEN (SELECT paper_has_weights(own.arxiv_id) {_OWN_ROW}) ELSE 0 END"
    f" + CASE WHEN paper_machines_known() THEN {FITS_MINE_SQL} ELSE 0 END)"
)


class _Snapshot(Generic[T]):
    """A value loaded by `load`, reloaded when older than SNAPSHOT_SECONDS."""

    def __init__(self, load: Callable[[], T], empty: T) -> None:
        self._load, self._value, self._at = load, empty, -1.0
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            now = time.monotonic()
            if self._at < 0 or now - self._at > SNAPSHOT_SECONDS:
                self._value, self._at = self._load(), now
            return self._value


def install_repro_functions(
    conn: sqlite3.Connection,
    cache_dir: Path | None,
    machines: MachinesSource = (),
    catalog: Any | Callable[[], Any] = None,
    verdicts: VerdictCache | None = None,
) -> None:
    """Register the functions on `conn`; with no `cache_dir` they answer 0 (no ids).
    `verdicts`: as for store/fits.py's `install_fits` (a catalog is then always given)."""

    def load_weights() -> frozenset[str]:
        if cache_dir is None:
            return frozenset()
        from digest_tui.sources.hf_artifacts import ArtifactIndex

        return ArtifactIndex(cache_dir).with_weights()

    def load_readiness() -> dict[str, tuple[int, bool]]:
        path = cache_dir / "repo_health.sqlite3" if cache_dir is not None else None
        if path is None or not path.exists():
            return {}
        # Without the health cache's models (pydantic): a filter or a sort needs two columns
        # of one table. A file the app has not made yet answers nothing.
        from digest_tui.repohealth.readiness_signals import READINESS_ROWS, scores_of

        try:
            # mode=rw: never creates the file; not ro, which cannot always read a WAL file.
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=5.0)
            try:
                return scores_of(db.execute(READINESS_ROWS).fetchall())
            finally:
                db.close()
        except sqlite3.Error:
            return {}

    weights: _Snapshot[frozenset[str]] = _Snapshot(load_weights, frozenset())
    readiness: _Snapshot[dict[str, tuple[int, bool]]] = _Snapshot(load_readiness, {})

    def has_weights(arxiv_id: str | None) -> int:
        return int(bool(arxiv_id) and arxiv_id in weights.get())

    # The same set as a JSON array, for `arxiv_id IN (SELECT value FROM json_each(...))`:
    # has:weights looks the cited ids up in the arXiv id index (store/query.py).
    weight_ids: dict[str, object] = {"of": None, "json": "[]"}

    def weight_ids_json() -> str:
        current = weights.get()
        if weight_ids["of"] is not current:
            weight_ids["of"], weight_ids["json"] = current, json.dumps(sorted(current))
        return str(weight_ids["json"])

    # Per repos JSON, for the snapshot it was computed from: a sort calls this for every row
    # (parsing 20,000 repo lists twice per query cost ~40% of a readiness sort).
    memo: dict[str, tuple[int, bool]] = {}
    memo_of: list[object] = [None]

    def best(repos_json: str | None) -> tuple[int, bool]:
        scores = readiness.get()
        if not repos_json or not scores:
            return 0, False
        if memo_of[0] is not scores:
            memo.clear()
            memo_of[0] = scores
        found = memo.get(repos_json)
        if found is None:
            top, runnable = 0, False
            for key in _github_keys(repos_json):
                score, ok = scores.get(key, (0, False))
                top, runnable = max(top, score), runnable or ok
            found = memo[repos_json] = (top, runnable)
        return found

    @lru_cache(maxsize=1)
    def mine() -> list[Any]:
        """The configured machines, read on the first query that asks."""
        return list(machines() if callable(machines) else machines)

    def catalog_now() -> Any:
        return catalog() if callable(catalog) else catalog

    @lru_cache(maxsize=65536)
    def fits_mine(hardware: str | None) -> int:
        if not hardware or not mine():
            return 0
        try:
            suggestion = json.loads(hardware)
        except ValueError:
            return 0
        data = catalog_now()
        return int(any(machine_fits(suggestion, m, data) for m in mine()))

    @lru_cache(maxsize=65536)
    def key_fits_mine(key: str | None) -> int:
        if not key or not mine():
            return 0

        def judge() -> int:
            data = catalog_now()
            return int(any(key_fits(key, m, data) for m in mine()))

        return kept_or_judged(verdicts, MINE, "", key, judge)

    def fits_mine_by_key() -> int:
        # As store/fits.py's `paper_fits_by_key`: no catalog, each paper judged from its JSON.
        if verdicts is not None:
            return 1
        return int(catalog_now() is not None)

    def machines_known() -> int:
        return int(bool(mine()))

    # The guards: constant within a statement (deterministic, no argument: SQLite evaluates
    # them once), each true exactly when its per-paper function can answer other than 0.
    guards: dict[str, Callable[[], int]] = {
        "paper_weights_known": lambda: int(bool(weights.get())),
        "paper_readiness_known": lambda: int(any(s for s, _ in readiness.get().values())),
        "paper_runnable_known": lambda: int(any(ok for _, ok in readiness.get().values())),
        "paper_machines_known": machines_known,
    }
    for name, guard in guards.items():
        conn.create_function(name, 0, guard, deterministic=True)
    conn.create_function("paper_has_weights", 1, has_weights)
    conn.create_function("paper_weight_ids", 0, weight_ids_json)
    conn.create_function("paper_readiness", 1, lambda repos: best(repos)[0])
    conn.create_function("paper_runnable", 1, lambda repos: int(best(repos)[1]))
    conn.create_function("paper_fits_mine", 1, fits_mine)
    conn.create_function("paper_key_fits_mine", 1, key_fits_mine)
    conn.create_function("paper_fits_mine_by_key", 0, fits_mine_by_key, deterministic=True)


def _github_keys(repos_json: str) -> list[str]:
    try:
        repos = json.loads(repos_json)
    except ValueError:
        return []
    keys = []
    for repo in repos if isinstance(repos, list) else []:
        if isinstance(repo, dict) and repo.get("host") == "github.com":
            owner, name = repo.get("owner"), repo.get("name")
            if isinstance(owner, str) and isinstance(name, str):
                keys.append(f"{owner.lower()}/{name.lower()}")
    return keys
