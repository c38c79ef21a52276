"""config.yaml read without pydantic (`config.read_plain`) when it is plainly valid: the
machines and `repo_health` are exactly the validated settings' ones, and every file it does
not take as it is (mistakes, values pydantic would coerce, settings with checks of their own)
is left to pydantic, so the CLI reports mistakes exactly as before."""

from __future__ import annotations

import subprocess
import sys

import pytest

from digest_tui.config import AppContext, load_settings, read_plain
from digest_tui.errors import ConfigError

THREE_MACHINES = (
    "machines:\n  - name: laptop\n    devices: [{id: rtx-4090, count: 1}]\n"
    "  - name: node\n    devices: [{id: h100, count: 8}, {id: a100}]\n"
    "  - name: empty\n"
)
PLAIN = [
    "machines: []\n",
    "repo_health: false\n",
    THREE_MACHINES,
    "theme: textual-light\nsync_on_start: true\nsync_on_quit: false\n"
    "fetch_on_start_days: 31\nrepo_health: yes\nmachines:\n  - {name: 'ü 4090', devices: []}\n",
    "theme: null\nfetch_on_start_days: 0\n",
]

# Each goes to pydantic: a mistake, a value it coerces or checks, or a setting with checks.
NOT_PLAIN = [
    "machines:\n  - nam: laptop\n",  # unknown field
    "machines:\n  - name: laptop\n    devices: [{id: h100, count: '2'}]\n",  # coerced
    "machines:\n  - name: laptop\n    devices: [{id: h100, count: 0}]\n",  # ge=1
    "machines:\n  - name: laptop\n    devices: [{id: h100, count: true}]\n",
    "machines:\n  - name: 4090\n",  # not a str
    "machines:\n  - devices: []\n",  # no name
    "machines: {laptop: 1}\n",
    "repo_health: 1\n",
    "fetch_on_start_days: 32\n",
    "fetch_on_start_days: 1.0\n",
    "theme: [a]\n",
    "auto_read_seconds: 3\n",  # has its own check: always pydantic
    "arxiv:\n  categories: [cs.DC]\n",
    "colour: blue\n",
    "- a list\n",
    "machines: [\n",  # not YAML
    "1: one\n",
    "",  # an empty file is a mistake to pydantic
    "# only a comment\n",
]


def _write(home, text: str) -> AppContext:  # type: ignore[no-untyped-def]
    ctx = AppContext()
    ctx.paths.config_file.write_text(text, encoding="utf-8")
    return ctx


@pytest.mark.parametrize("text", PLAIN)
def test_a_plain_file_reads_as_pydantic_validates_it(home, text: str) -> None:
    ctx = _write(home, text)
    plain = read_plain(ctx.paths.config_file)
    assert plain is not None
    settings = load_settings(ctx.paths)
    assert [m.model_dump() for m in settings.machines] == [
        {"name": m.name, "devices": [{"id": d.id, "count": d.count} for d in m.devices]}
        for m in plain.machines
    ]
    assert plain.repo_health is settings.repo_health
    # The context answers from the plain reading, without loading the settings.
    assert [m.name for m in ctx.machines] == [m.name for m in settings.machines]
    assert ctx.repo_health is settings.repo_health
    assert "settings" not in vars(ctx)


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_anything_else_is_validated_by_pydantic(home, text: str) -> None:
    ctx = _write(home, text)
    assert read_plain(ctx.paths.config_file) is None
    try:
        expected = load_settings(ctx.paths)
    except ConfigError as exc:
        with pytest.raises(ConfigError) as raised:
            ctx.machines  # noqa: B018 - the property reads the file
        assert str(raised.value) == str(exc)  # the same one-line mistake as before
    else:
        assert list(ctx.machines) == expected.machines
        assert "settings" in vars(ctx)


def test_a_plain_file_is_read_without_importing_pydantic(home) -> None:
    _write(home, THREE_MACHINES)
    script = (
        "import sys\nfrom digest_tui.config import AppContext\nctx = AppContext()\n"
        "assert [m.name for m in ctx.machines] == ['laptop', 'node', 'empty']\n"
        "assert ctx.machines[1].devices[1].count == 1 and ctx.repo_health is True\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert "pydantic" not in out


def test_the_plain_reader_mirrors_the_schema() -> None:
    """`read_plain` repeats a few facts of settings_schema.py (it must not import pydantic):
    a change to the schema that it would not follow fails here."""
    import dataclasses

    from digest_tui import config
    from digest_tui.settings_schema import DeviceCount, Machine, Settings

    fields = Settings.model_fields
    assert config._PLAIN_KEYS.issubset(fields)
    assert all(fields[flag].annotation is bool for flag in config._PLAIN_FLAGS)
    assert fields["theme"].annotation == (str | None)
    days = fields["fetch_on_start_days"]
    assert [getattr(m, "ge", None) for m in days.metadata if hasattr(m, "ge")] == [0]
    assert [m.le for m in days.metadata if hasattr(m, "le")] == [config._MAX_FETCH_DAYS]
    count = DeviceCount.model_fields["count"]
    assert [m.ge for m in count.metadata if hasattr(m, "ge")] == [config._MIN_DEVICE_COUNT]
    assert count.default == 1
    # Every field of a machine and a device is read, and nothing else is allowed.
    assert {f.name for f in dataclasses.fields(config.PlainMachine)} == set(Machine.model_fields)
    assert {f.name for f in dataclasses.fields(config.PlainDevice)} == set(DeviceCount.model_fields)
    assert Machine.model_config.get("extra") == DeviceCount.model_config.get("extra") == "forbid"
