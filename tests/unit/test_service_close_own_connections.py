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
            # Still open, after a while within close()'s wait (CLOSE_WAIT_SECONDS): close()
            # leaves the connection to its worker...
            time.sleep(0.5)
            outcome["open_after_interrupt"] = library.conn.execute("SELECT 1").fetchone()[0] == 1
        try:  # ...which closed it on leaving own_library
            library.conn.execute("SELECT 1")
            outcome["closed_by_worker"] = False
        except sqlite3.ProgrammingError:
            outcome["closed_by_worker"] = True

    thread = threading.Thread(target=worker, name="own-worker", daemon=True)
    thread.start()
    assert inside.wait(60), "the statement never started"
    service.close()
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
    assert outcome["open_after_interrupt"] is True
    assert outcome["closed_by_worker"] is True
    assert outcome["own_left"] == 0
