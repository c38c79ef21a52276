"""config.py loads the settings' pydantic models (settings_schema) only when a setting is read
from a config.yaml: without one, `AppContext.machines` and `.repo_health` give the models'
defaults without importing pydantic (~60-100 ms a command)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from digest_tui import config
from digest_tui.config import AppContext
from digest_tui.errors import ConfigError


def test_without_a_config_file_the_shortcuts_are_the_models_defaults(home):
    from digest_tui.settings_schema import Settings

    ctx = AppContext()
    assert not ctx.paths.config_file.exists()
    assert list(ctx.machines) == Settings().machines
    assert ctx.repo_health is Settings().repo_health
    assert "settings" not in vars(ctx)  # answered without loading the settings


def test_a_config_file_is_read_and_validated(home):
    ctx = AppContext()
    ctx.paths.config_file.write_text(
        "repo_health: false\nmachines:\n  - name: laptop\n    devices: [{id: rtx-4090}]\n"
    )
    assert [m.name for m in ctx.machines] == ["laptop"]
    assert ctx.machines[0].devices[0].id == "rtx-4090"
    assert ctx.repo_health is False


def test_a_bad_config_file_is_still_an_error_naming_its_line(home):
    ctx = AppContext()
    ctx.paths.config_file.write_text("machines:\n  - nam: laptop\n")
    with pytest.raises(ConfigError, match=r"config\.yaml:2"):
        ctx.machines  # noqa: B018 - the property reads the file


def test_the_models_are_still_importable_from_config():
    from digest_tui.config import Machine, Settings

    assert Machine.model_validate({"name": "x"}).devices == []
    assert Settings is config.Settings
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        config.Nope  # noqa: B018


def test_defaults_are_read_without_importing_pydantic(home):
    script = (
        "import sys\nfrom digest_tui.config import AppContext\nctx = AppContext()\n"
        "assert list(ctx.machines) == [] and ctx.repo_health is True\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert "pydantic" not in out and "yaml" not in out
