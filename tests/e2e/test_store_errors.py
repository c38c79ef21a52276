"""Failures of the library file and the disk: one line naming the file, exit 2, never a
traceback, and nothing the user typed is lost."""

from __future__ import annotations

import io
import sqlite3
import sys
from pathlib import Path

import pytest

from digest_tui import service
from digest_tui.cli import main
from digest_tui.store import db
from tests.support.paths import ALL_SEEDS, SEED_DEC10


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *needles: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line and not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("digest-tui: "), err
    for needle in needles:
        assert needle in lines[0], err


@pytest.fixture
def library_file(home, capsys) -> Path:
    assert main(["import", str(SEED_DEC10)]) == 0
    capsys.readouterr()
    return home / "data" / "library.sqlite3"


@pytest.fixture
def full_disk(library_file, monkeypatch) -> Path:
    """Every later connection of the CLI may not grow the file: SQLite's own SQLITE_FULL."""
    conn = sqlite3.connect(library_file)
    conn.execute("VACUUM")  # no free pages left to reuse
    conn.close()

    def connect_full(path, **kwargs):  # type: ignore[no-untyped-def]
        conn = db.connect(path, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(service, "connect", connect_full)
    return library_file


def test_an_import_leaves_no_bookkeeping_write_for_the_first_read(library_file):
    # The catalog's arXiv-id check is recorded by the import itself, so a read command after it
    # (on a full disk, say) has nothing of its own to write.
    conn = sqlite3.connect(library_file)
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    stored = {fp for (fp,) in conn.execute("SELECT DISTINCT enrich_fp FROM papers")}
    conn.close()
    assert len(stored) == 1
    assert meta.get("catalog_arxiv_fp") == stored.pop()


def test_a_read_that_cannot_write_skips_the_catalog_check(library_file, capsys, monkeypatch):
    # As after an upgrade of the curated catalog: the check is due, and nothing can be
    # written (a full disk, a read-only copy): the read command still lists the papers.
    conn = sqlite3.connect(library_file)
    conn.execute("DELETE FROM meta WHERE key = 'catalog_arxiv_fp'")
    conn.commit()
    conn.close()

    def connect_read_only(path, **kwargs):  # type: ignore[no-untyped-def]
        conn = db.connect(path, **kwargs)
        conn.execute("PRAGMA query_only = ON")
        return conn

    monkeypatch.setattr(service, "connect", connect_read_only)
    code, out, err = run(capsys, "papers", "--sort", "title")
    assert code == 0, err
    assert len(out.splitlines()) > 10


def first_id(capsys) -> str:
    code, out, err = run(capsys, "papers", "--sort", "title")
    assert code == 0, err
    return out.splitlines()[1].split()[0]


def test_full_disk_on_tag_is_one_line_and_changes_nothing(full_disk, capsys, monkeypatch):
    paper = first_id(capsys)
    code, _, err = run(capsys, "tag", paper, "will-not-fit")
    assert code == 2
    assert_one_line_error(err, str(full_disk), "disk is full")
    # Room again on the disk (undo only the full-disk patch: DIGEST_TUI_HOME must stay set).
    monkeypatch.setattr(service, "connect", db.connect)
    code, out, err = run(capsys, "show", paper)
    assert code == 0 and "will-not-fit" not in out, err


def test_full_disk_on_import_is_one_line(full_disk, capsys):
    code, _, err = run(capsys, "import", *map(str, ALL_SEEDS))
    assert code == 2
    assert_one_line_error(err, str(full_disk), "disk is full")


def test_a_note_that_cannot_be_saved_is_kept_in_a_recovery_file(
    full_disk, home, capsys, monkeypatch
):
    paper = first_id(capsys)
    text = "Three paragraphs I typed and must not lose.\n" * 200
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, _, err = run(capsys, "note", paper)
    assert code == 2
    assert_one_line_error(err, str(full_disk), "disk is full", "the note was kept in ")
    kept = Path(err.split("the note was kept in ")[1].strip())
    assert kept.is_file() and kept.is_relative_to(home / "data")
    assert kept.read_text(encoding="utf-8") == text


def test_damage_in_the_middle_of_the_file_is_one_line_suggesting_a_backup(library_file, capsys):
    size = library_file.stat().st_size
    page = 4096
    with library_file.open("r+b") as file:  # pages in the middle: tables and the FTS index
        for start in range(size // 3 // page * page, 2 * size // 3, page):
            file.seek(start)
            file.write(b"\xa5" * page)
    code, _, err = run(capsys, "papers", "--search", "kernel")
    assert code == 2
    assert_one_line_error(err, str(library_file), "damaged", "digest-tui backup")


def test_non_utf8_config_is_one_line(home, capsys):
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.yaml").write_bytes(b"theme: \xff\xfe dark\n")
    code, _, err = run(capsys, "show", "flashmoe", "--format", "json")
    assert code == 2
    assert_one_line_error(err, "config.yaml", "UTF-8")


def test_unwritable_home_is_one_line(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DIGEST_TUI_HOME", str(blocker / "home"))
    code, _, err = run(capsys, "papers")
    assert code == 2
    assert_one_line_error(err, str(blocker / "home"), "cannot create")


def test_home_on_a_read_only_filesystem_is_one_line(monkeypatch, capsys):
    # sysfs refuses new folders on Linux, for every user, root included.
    target = Path("/sys/digest-tui-test-home")
    try:
        target.mkdir()
    except OSError:
        pass
    else:  # pragma: no cover - not Linux or an unusual /sys
        target.rmdir()
        pytest.skip("/sys accepts new folders here")
    monkeypatch.setenv("DIGEST_TUI_HOME", str(target))
    code, _, err = run(capsys, "papers")
    assert code == 2
    assert_one_line_error(err, str(target), "cannot create")


@pytest.mark.parametrize(
    ("name", "text", "needles"),
    [
        ("taxonomy.yaml", "topics: [\n", ["taxonomy.yaml:", "not valid YAML"]),
        ("taxonomy.yaml", b"topics:\n  - id: \xff\n", ["taxonomy.yaml", "UTF-8"]),
        (
            "taxonomy.yaml",
            "topics:\n  - id: kernels\n    threshold: lots\n",
            ["taxonomy.yaml:3: ", "threshold"],
        ),
        ("hardware.yaml", "devices: [\n", ["hardware.yaml:", "not valid YAML"]),
        (
            "hardware.yaml",
            "devices:\n  - id: h100\n    memory_gb: lots\n",
            ["hardware.yaml:3: ", "memory_gb"],
        ),
    ],
)
def test_bad_user_data_file_is_one_line_with_file_and_line(home, capsys, name, text, needles):
    (home / "config").mkdir(parents=True)
    target = home / "config" / name
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "papers")
    assert code == 2
    assert_one_line_error(err, str(target), *needles)
