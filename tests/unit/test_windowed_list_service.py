"""The list's reads through LibraryService: their own connection, so typing never waits behind
the shared connection's long work (start-up counts, a re-enrichment holding it for minutes)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from digest_tui.config import AppContext
from digest_tui.tui.library_service import LibraryService, ListWindow, Selection, UIThreadCall
from tests.support import big_library
from tests.support.home import isolate_home


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big-service") / "home"
    big_library.build(root)
    return root


@pytest.fixture
def service(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    root = tmp_path / "home"
    shutil.copytree(template, root, ignore=shutil.ignore_patterns("*-wal", "*-shm"))
    isolate_home(root, monkeypatch)
    service = LibraryService(AppContext())
    yield service
    service.close()


@pytest.mark.timeout(180)
def test_the_list_reads_while_the_shared_connection_is_busy(service: LibraryService) -> None:
    service.list_window(Selection())  # opened (and migrated) first, as the app's start-up does
    holding, release = threading.Event(), threading.Event()

    def long_work() -> None:  # what a re-enrichment does: hold the shared connection
        with service._locked() as library:
            library.state.bookmark("t000010", True)
            holding.set()
            release.wait(timeout=90)

    worker = threading.Thread(target=long_work)
    worker.start()
    try:
        assert holding.wait(timeout=30)
        answers: list[object] = []

        def read() -> None:
            answers.append(service.list_window(Selection(), "zeppelin"))
            answers.append(service.rows_by_rowid([1, 2]))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        # A generous deadline, well inside the time the shared connection stays held: a read
        # queued behind it would still be waiting.
        reader.join(timeout=30)
        assert not release.is_set() and len(answers) == 2, "the list waited for the lock"
        window, rows = answers
        assert isinstance(window, ListWindow) and isinstance(rows, dict)
        assert list(window.rowids) == [big_library.NEEDLE]
        assert window.rows[big_library.NEEDLE].title == big_library.title(big_library.NEEDLE)
        assert set(rows) == {1, 2}
    finally:
        release.set()
        worker.join(timeout=30)
    # Once the shared connection has committed, the list sees the change.
    bookmarks = service.list_window(Selection(kind="bookmarks"))
    assert list(bookmarks.rowids) == [10] and bookmarks.rows[10].bookmarked


def test_the_list_refuses_the_ui_thread(service: LibraryService) -> None:
    service.ui_thread = threading.get_ident()
    with pytest.raises(UIThreadCall):
        service.list_window(Selection())
    with pytest.raises(UIThreadCall):
        service.rows_by_rowid([1])


def test_a_workers_own_connection_refuses_the_ui_thread(service: LibraryService) -> None:
    """Opening a connection (a migration, maybe) and the re-enrichment on it block like any
    other library call."""
    service.ui_thread = threading.get_ident()
    with pytest.raises(UIThreadCall), service.own_library():
        pass
    with pytest.raises(UIThreadCall):
        service.reenrich()
    assert not service._own  # nothing was opened
