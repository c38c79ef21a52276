"""The user-state package keeps its layering: sync depends on state, never the reverse, and the
merge rules (model, derive, positions, clock) stay pure, loading no database driver.

Each check runs in a fresh interpreter (see test_import_hygiene), so a module is charged only
for what it imports itself.
"""

from __future__ import annotations

import pytest

from tests.architecture.test_import_hygiene import loaded_after

STATE_MODULES = [
    "digest_tui.state.clock",
    "digest_tui.state.model",
    "digest_tui.state.positions",
    "digest_tui.state.derive",
    "digest_tui.state.log",
    "digest_tui.state.refs",
    "digest_tui.state.materialise",
    "digest_tui.state.user_state",
]
PURE_MODULES = STATE_MODULES[:4]


@pytest.mark.parametrize("module", STATE_MODULES)
def test_state_does_not_load_sync(module):
    loaded = loaded_after(f"import {module}")
    assert module in loaded
    assert not {m for m in loaded if m.startswith("digest_tui.sync")}, module


@pytest.mark.parametrize("module", PURE_MODULES)
def test_merge_rules_are_pure(module):
    loaded = loaded_after(f"import {module}")
    assert module in loaded
    assert not {m for m in loaded if m in ("sqlite3", "_sqlite3") or m.startswith("sqlite3.")}
    assert not {m for m in loaded if m.startswith("digest_tui.store")}, module
