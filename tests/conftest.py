"""Shared fixtures: an isolated DIGEST_TUI_HOME per test, and Hypothesis budgets.

Helpers live in tests/support/ and are imported from there; nothing imports this file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.home import isolate_home

# Hypothesis budgets in one place: `default` for every run (CI included), `thorough` for a
# longer hunt before a release: HYPOTHESIS_PROFILE=thorough python -m pytest tests/unit
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh DIGEST_TUI_HOME: config, data and cache all under tmp_path/home."""
    root = tmp_path / "home"
    isolate_home(root, monkeypatch)
    return root


@pytest.fixture(autouse=True, scope="session")
def _never_the_real_home(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A test that forgets `home` (or undoes its monkeypatch) lands here, never in the
    user's own library."""
    saved = os.environ.get("DIGEST_TUI_HOME")
    os.environ["DIGEST_TUI_HOME"] = str(tmp_path_factory.mktemp("fallback-home"))
    yield
    if saved is None:
        os.environ.pop("DIGEST_TUI_HOME", None)
    else:
        os.environ["DIGEST_TUI_HOME"] = saved
