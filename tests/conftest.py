"""Shared fixtures: paths to the fixture digests and an isolated DIGEST_TUI_HOME per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis budgets in one place: `default` for every run (CI included), `thorough` for a
# longer hunt before a release: HYPOTHESIS_PROFILE=thorough python -m pytest tests/unit
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parents[1]
DIGESTS = ROOT / "fixtures" / "digests"
SEED_DEC10 = DIGESTS / "000_994e30a84fb3dacc.txt"
SEED_DEC09 = DIGESTS / "001_5094fac457fca0e8.txt"
SEED_JAN08 = DIGESTS / "002_b5a9888533951722.txt"
SEED_DEC30 = DIGESTS / "004_71cad56db34cffbd.txt"
ALL_SEEDS = [SEED_DEC10, SEED_DEC09, SEED_JAN08, SEED_DEC30]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh DIGEST_TUI_HOME: config, data and cache all under tmp_path/home."""
    root = tmp_path / "home"
    monkeypatch.setenv("DIGEST_TUI_HOME", str(root))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    # Nothing listens on port 9 of loopback: anything that tries the network in a test gets
    # "connection refused" at once, exercising the offline paths and never the internet.
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
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
