"""The library file on its own holds everything after CLI commands, and `backup` makes a
complete, self-contained copy (defect: everything stayed in library.sqlite3-wal)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.service import open_library
from digest_tui.store.query import PaperQuery
from tests.support.paths import ALL_SEEDS


def cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in its own process, exiting as a user's would."""
    env = {**os.environ, "DIGEST_TUI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "digest_tui", *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def snapshot(db_file: Path) -> dict:
    """What a copy of one file holds, read with the file alone (no -wal, no -shm beside it)."""
    conn = sqlite3.connect(f"file:{db_file}?immutable=1", uri=True)
    try:
        return {
            "papers": conn.execute("SELECT count(*) FROM papers").fetchone()[0],
            "digests": conn.execute("SELECT count(*) FROM digests").fetchone()[0],
            "ops": conn.execute("SELECT count(*) FROM ops").fetchone()[0],
        }
    finally:
        conn.close()


def copy_alone(db_file: Path, home: Path) -> Path:
    (home / "data").mkdir(parents=True)
    shutil.copyfile(db_file, home / "data" / "library.sqlite3")
    return home


def test_library_file_alone_holds_papers_and_state_after_cli_commands(tmp_path):
    home = tmp_path / "home"
    assert cli(home, "import", *map(str, ALL_SEEDS)).returncode == 0
    listed = json.loads(cli(home, "papers", "--format", "json").stdout)
    first, second = listed[0]["id"], listed[1]["id"]
    assert cli(home, "tag", first, "wal-check").returncode == 0
    assert cli(home, "bookmark", second).returncode == 0
    assert cli(home, "note", first, stdin="kept in the main file\n").returncode == 0
    assert cli(home, "list", "create", "later").returncode == 0
    assert cli(home, "list", "add", "later", second).returncode == 0

    db_file = home / "data" / "library.sqlite3"
    copy = copy_alone(db_file, tmp_path / "copy")
    assert not (copy / "data" / "library.sqlite3-wal").exists()
    assert snapshot(copy / "data" / "library.sqlite3")["papers"] == len(listed)
    shown = json.loads(cli(copy, "show", first, "--format", "json").stdout)
    assert shown["tags"] == ["wal-check"] and shown["note"] == "kept in the main file"
    bookmarked = json.loads(cli(copy, "papers", "--bookmarked", "--format", "json").stdout)
    assert [p["id"] for p in bookmarked] == [second]
    assert "later" in cli(copy, "list").stdout


def test_a_failing_command_still_leaves_the_file_complete(home, capsys, tmp_path):
    assert main(["import", *map(str, ALL_SEEDS)]) == 0
    assert main(["tag", "no-such-paper-id", "x"]) == 2  # an error after opening the library
    capsys.readouterr()
    assert snapshot(home / "data" / "library.sqlite3")["papers"] > 100


def test_backup_holds_everything_even_what_is_still_in_the_log(home, capsys, tmp_path):
    assert main(["import", *map(str, ALL_SEEDS)]) == 0
    # A second user of the library (the app, say) writes and keeps its connection open: its
    # change is in the -wal only when `backup` runs.
    ctx = AppContext()
    library = open_library(ctx)
    paper_id = library.rows(PaperQuery())[0]["id"]
    library.state.add_tags(paper_id, ["only-in-the-log"])
    out = tmp_path / "backup.sqlite3"
    try:
        assert main(["backup", str(out)]) == 0
        assert main(["backup", str(out)]) == 2  # never overwritten without --force
        assert "already exists" in capsys.readouterr().err
        assert main(["backup", str(home / "data" / "library.sqlite3"), "--force"]) == 2
    finally:
        library.close()
    assert not Path(f"{out}-wal").exists()
    held = snapshot(out)
    assert held["papers"] == library_count(home) and held["ops"] >= 1
    restored = copy_alone(out, tmp_path / "restored")
    shown = json.loads(cli(restored, "show", paper_id, "--format", "json").stdout)
    assert shown["tags"] == ["only-in-the-log"]


def library_count(home: Path) -> int:
    conn = sqlite3.connect(home / "data" / "library.sqlite3")
    try:
        return int(conn.execute("SELECT count(*) FROM papers").fetchone()[0])
    finally:
        conn.close()
