"""An isolated DIGEST_TUI_HOME for a test: its own files, and no way out to the network."""

from __future__ import annotations

from pathlib import Path

import pytest


def isolate_home(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point DIGEST_TUI_HOME at `root`, and every network endpoint at a closed port."""
    monkeypatch.setenv("DIGEST_TUI_HOME", str(root))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    # Nothing listens on port 9 of loopback: anything that tries the network in a test gets
    # "connection refused" at once, exercising the offline paths and never the internet.
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("ARXIV_API_ENDPOINT", "http://127.0.0.1:9")
