"""Each daily command loads only what it uses (issue 12: every command <= 300 ms at 100k).

In a fresh interpreter per command, on a real library: no command below loads Textual, Rich,
httpx or httpcore (~50-100 ms of CPU: only a request needs them, and none is made here);
those that need no YAML or pydantic load neither.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from tests.architecture.test_import_hygiene import _base_env, _loaded_by_command

NEVER = {"textual", "rich", "httpx", "httpcore"}
# pydantic: the settings' models (a config.yaml), a paper built, the repo-health model.
LEAN = NEVER | {"pydantic", "yaml"}


@pytest.fixture(scope="module")
def home_and_id(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], str]:
    from tests.support.paths import SEED_DEC10

    home = tmp_path_factory.mktemp("command-imports-home")
    # Unreachable on purpose: a command that asked GitHub would fail these tests loudly.
    env = {"DIGEST_TUI_HOME": str(home), "GITHUB_API_URL": "http://127.0.0.1:9"}
    for argv in (["import", str(SEED_DEC10)], ["list", "create", "week"]):
        subprocess.run(
            [sys.executable, "-m", "digest_tui", *argv],
            env={**_base_env(), **env},
            capture_output=True,
            check=True,
        )
    conn = sqlite3.connect(home / "data" / "library.sqlite3")
    # A paper with a GitHub repo, so `show` has health and readiness to read from the cache.
    row = conn.execute(
        "SELECT id FROM papers WHERE repos LIKE '%github.com%' ORDER BY rowid LIMIT 1"
    ).fetchone()
    conn.close()
    assert row is not None
    return env, str(row[0])


CASES: list[tuple[list[str], set[str]]] = [
    (["show", "ID", "--offline"], NEVER),
    (["show", "ID", "--offline", "--format", "json"], NEVER),
    (["papers", "--search", "attention", "--limit", "20"], LEAN),
    (["papers", "--search", "has:runnable", "--limit", "20"], LEAN),
    (["papers", "--sort", "readiness", "--limit", "20"], LEAN),
    (["papers", "--sort", "reproducible", "--limit", "20"], LEAN),
    (["export", "--search", "list:week"], LEAN),
    (["list", "show", "week"], LEAN),
    (["tag", "ID", "later"], LEAN),
    (["bookmark", "ID"], LEAN),
    (["read", "ID"], LEAN),
    (["links", "check"], NEVER),  # validates the YAML catalog: yaml and pydantic are its job
]


@pytest.mark.parametrize(("argv", "forbidden"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_command_loads_only_what_it_uses(
    home_and_id: tuple[dict[str, str], str], argv: list[str], forbidden: set[str]
) -> None:
    env, ident = home_and_id
    loaded = _loaded_by_command(env, [ident if a == "ID" else a for a in argv])
    assert not forbidden & loaded, sorted(forbidden & loaded)
