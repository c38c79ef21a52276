"""The README tells a newcomer what they need: the set-up commands as they are, the Python
it needs, where data lives, and every command the CLI has."""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

from digest_tui.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_the_setup_commands_open_the_readme_unchanged():
    assert README.startswith(
        "# digest-tui\n\n```sh\n"
        "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/digest-tui\n"
        "```\n```sh\n"
        'python3 -m venv .venv && .venv/bin/pip install -q -e ".[test]" && '
        ".venv/bin/python -m pytest\n```\n"
    )
    assert "stay exactly as written" in README


def test_the_python_it_needs_is_the_one_pyproject_requires():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    minimum = project["requires-python"].removeprefix(">=")
    assert f"Python {minimum} or newer" in README


def test_where_data_lives_without_digest_tui_home():
    from platformdirs.macos import MacOS
    from platformdirs.unix import Unix

    home = str(Path.home())
    for dirs in (Unix("digest-tui", appauthor=False), MacOS("digest-tui", appauthor=False)):
        for path in (dirs.user_config_dir, dirs.user_data_dir, dirs.user_cache_dir):
            if path.startswith(home):  # XDG variables may point elsewhere on this machine
                assert f"`~{path.removeprefix(home)}`" in README
    assert "%LOCALAPPDATA%\\digest-tui" in README


def test_the_cli_section_lists_every_command_and_option_of_sync():
    shell = README.split("## From the shell", 1)[1].split("\n## ", 1)[0]
    commands = _subcommands(build_parser())
    # "digest-tui bookmark|unbookmark ..." lists two commands on one line.
    missing = [
        name for name in commands if not re.search(rf"digest-tui (?:[\w-]+\|)*{name}\b", shell)
    ]
    assert missing == []
    for group in ("sync", "list", "links"):
        for name in _subcommands(commands[group]):
            assert re.search(rf"\b{name}\b", shell), f"{group} {name}"
    for option in ("--reclaim", "--full", "--no-compact", "--offline", "--replace"):
        assert option in shell
