"""Quitting while a worker is inside SQLite on a connection of its own (the similar-index build,
a re-enrichment batch) must not close that connection under it: doing so from another thread
can crash the process (it did, in app tests that quit while the index was being built).
`LibraryService.close` interrupts the running statement instead, and the worker closes its own
connection on the way out.

Run in a fresh interpreter so that, were the connection closed under the statement, the crash
would fail this test and not the test run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_PROBE = textwrap.dedent(
    """
    import json, sqlite3, threading, time
    from digest_tui.config import AppContext
    from digest_tui.tui.library_service import LibraryService

    service = LibraryService(AppContext())
    inside, outcome = threading.Event(), {}

    def worker():
        with service.own_library() as library:
            library.conn.create_function("inside", 0, lambda: inside.set() or 1)
            try:
                library.conn.execute(
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                    "SELECT count(*) FROM c WHERE x < 10000000000 AND inside()"
                ).fetchone()
                outcome["statement"] = "finished"
            except sqlite3.OperationalError as exc:
                outcome["statement"] = str(exc)
            outcome["owner_closes"] = threading.current_thread().name

    thread = threading.Thread(target=worker, name="own-worker", daemon=True)
    thread.start()
    assert inside.wait(60), "the statement never started"
    started = time.monotonic()
    service.close()
    outcome["close_s"] = time.monotonic() - started
    thread.join(30)
    outcome["worker_alive"] = thread.is_alive()
    outcome["own_left"] = len(service._own)
    print(json.dumps(outcome))
    """
)


@pytest.mark.timeout(120)
def test_close_interrupts_a_statement_on_a_workers_own_connection(tmp_path: Path) -> None:
    env = dict(os.environ, DIGEST_TUI_HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=100
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["statement"] == "interrupted"
    assert outcome["worker_alive"] is False
    assert outcome["owner_closes"] == "own-worker"
    assert outcome["own_left"] == 0
