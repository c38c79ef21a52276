"""The app's tests start from the sample library, built once per session.

Each Pilot test used to import and enrich the 152 sample papers on start-up. The first test
that asks builds them into a template DIGEST_TUI_HOME (with `load_sample_if_empty`, as a first
start does); every test then gets a copy of its files, so it starts as a first start would after
the sample is in (no visit recorded yet), with its own library to change.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.home import isolate_home


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from digest_tui.config import AppContext
    from digest_tui.service import load_sample_if_empty, open_library
    from digest_tui.tui.library_service import Selection
    from digest_tui.tui.navigation import ViewPrefs

    root = tmp_path_factory.mktemp("sample-home") / "home"
    with pytest.MonkeyPatch.context() as patch:
        isolate_home(root, patch)
        library = open_library(AppContext())
        try:
            load_sample_if_empty(library)
            # As if the app had been opened on "All papers" before: the tests start from the
            # whole library, not from "Today" where a first launch lands (test_navigation).
            library.set_meta("ui_prefs", ViewPrefs(Selection()).to_json())
        finally:
            library.close()  # checkpointed: the copy needs only library.sqlite3
    return root


@pytest.fixture
def home(sample_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A DIGEST_TUI_HOME holding its own copy of the prebuilt sample library."""
    root = tmp_path / "home"
    shutil.copytree(sample_template, root, ignore=shutil.ignore_patterns("*-wal", "*-shm"))
    isolate_home(root, monkeypatch)
    return root
