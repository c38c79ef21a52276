"""A command that only read the library exits at once while another process writes to it.

Closing checkpointed with `wal_checkpoint(TRUNCATE)`, which waits out the busy timeout when
another connection holds the write lock (the app re-enriching, `similar` building its index):
every `tags`/`papers`/`show` then took 5 s longer to exit. Here the reading connection's busy
timeout is ten minutes, so the close would hang; the thread's deadline catches it.
"""

from __future__ import annotations

import sqlite3
import threading

from digest_tui.cli import main
from digest_tui.commands.common import open_for_command
from digest_tui.config import AppContext
from digest_tui.store import db
from tests.support.paths import SEED_DEC10


def test_a_reading_connection_closes_while_another_holds_the_write_lock(home):
    assert main(["import", str(SEED_DEC10)]) == 0
    # The first command that reads enrichment after an import records what it checked (`tags`
    # reads none, so it no longer does).
    assert main(["papers", "--limit", "1"]) == 0
    ctx = AppContext()
    library = open_for_command(ctx)
    library.state.tag_counts()  # a read, as `tags` does
    assert library.conn.total_changes == 0
    library.conn.execute("PRAGMA busy_timeout = 600000")

    writer = sqlite3.connect(ctx.paths.database, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO meta (key, value) VALUES ('writer', 'busy')")
    try:
        closing = threading.Thread(target=ctx.close, daemon=True)
        closing.start()
        closing.join(timeout=60)
        assert not closing.is_alive(), "close waited for the other process's write lock"
    finally:
        writer.execute("COMMIT")
        writer.close()


def test_a_connection_that_wrote_still_checkpoints_on_close(home):
    assert main(["import", str(SEED_DEC10)]) == 0
    ctx = AppContext()
    library = open_for_command(ctx)
    library.set_meta("written", "1")
    assert library.conn.total_changes
    wal = ctx.paths.database.with_name(ctx.paths.database.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0
    db.close(library.conn)
    # TRUNCATE: the log was copied into the library file and emptied.
    assert not wal.exists() or wal.stat().st_size == 0
    fresh = sqlite3.connect(ctx.paths.database)
    assert fresh.execute("SELECT value FROM meta WHERE key = 'written'").fetchone() == ("1",)
    fresh.close()
