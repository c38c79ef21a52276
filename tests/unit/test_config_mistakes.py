"""The app reads config.yaml leaving out each wrong entry, not the whole file: a typo in one
machine keeps the other machines and every other setting (`load_settings_leaving_out_mistakes`).
The CLI still stops on any mistake (exit 2: DESIGN.md), through `load_settings`."""

from __future__ import annotations

import pytest

from digest_tui.config import AppContext, load_settings, load_settings_leaving_out_mistakes
from digest_tui.errors import ConfigError

MACHINES = """\
theme: textual-light
repo_health: false
machines:
  - name: laptop
    devices: [{id: rtx-4090, count: 1}]
  - name: box
    devises: [{id: h100, count: 8}]
  - name: node
    devices: [{id: h100, count: 8}, {id: a100, count: none}]
  - name: desk
    devices: [{id: rtx-3090}]
auto_read_seconds: -3
arxiv:
  categories: [cs.DC, "cs DC", cs.LG]
  keep_if_any: [GPU, "  "]
"""


def load(home, text: str):  # type: ignore[no-untyped-def]
    """(settings, the message with the file named by its name only), the context."""
    ctx = AppContext()
    path = ctx.paths.config_file
    path.write_text(text, encoding="utf-8")
    settings, message = load_settings_leaving_out_mistakes(ctx.paths)
    if message is not None:
        assert message.startswith(str(path))
        message = message.replace(str(path), path.name, 1)
    return (settings, message), ctx


def test_each_wrong_entry_is_left_out_and_the_rest_applies(home):
    (settings, message), ctx = load(home, MACHINES)
    # The machines that are right, in their order; a machine with one wrong device is left out
    # whole (without that device it would fit papers it cannot).
    assert [m.name for m in settings.machines] == ["laptop", "desk"]
    assert settings.theme == "textual-light" and settings.repo_health is False
    assert settings.auto_read_seconds is None  # the wrong setting takes its default
    assert settings.arxiv.categories == ["cs.DC", "cs.LG"]
    assert settings.arxiv.keep_if_any == ["GPU"]
    # The first mistake with its line and field, and how many more.
    assert message is not None
    assert message.startswith("config.yaml:7: machines[1].devises: Extra inputs"), message
    assert "(and 4 more mistakes, also left out)" in message
    assert message.endswith("Left out until it is fixed; the rest of the file applies.")
    # The CLI's reading is unchanged: the file is an error.
    with pytest.raises(ConfigError, match=r"config\.yaml:7: machines\[1\]\.devises"):
        load_settings(ctx.paths)


def test_one_mistake_is_named_alone(home):
    (settings, message), _ = load(home, "theme: textual-dark\nfetch_on_start_days: 99\n")
    assert settings.theme == "textual-dark" and settings.fetch_on_start_days == 0
    assert message == (
        "config.yaml:2: fetch_on_start_days: Input should be less than or equal to 31. "
        "Left out until it is fixed; the rest of the file applies."
    )


def test_a_right_file_says_nothing(home):
    (settings, message), _ = load(home, "theme: textual-dark\n")
    assert settings.theme == "textual-dark" and message is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("machines: [\n", "config.yaml:"),  # not YAML
        ("- theme: textual-dark\n", "config.yaml"),  # not a mapping
    ],
)
def test_a_file_that_cannot_be_read_as_settings_gives_the_defaults(home, text, said):
    (settings, message), _ = load(home, text)
    assert settings.theme is None and settings.machines == []
    assert message is not None and message.startswith(said)
    assert message.endswith("Using the default settings until it is fixed.")
