"""The start-up path stays lean and the core never loads Textual.

Each check runs in a fresh interpreter, so what a module drags in is measured as a user's
`digest-tui COMMAND` would pay for it, not polluted by what other tests imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Every module a script or the CLI may import without the app.
CORE_MODULES = [
    "digest_tui.cli",
    "digest_tui.commands.library_cmds",
    "digest_tui.commands.state_cmds",
    "digest_tui.commands.sync_cmds",
    "digest_tui.commands.fetch_cmds",
    "digest_tui.commands.links_cmds",
    "digest_tui.commands.export_cmds",
    "digest_tui.service",
    "digest_tui.paper_view",
    "digest_tui.store.library",
    "digest_tui.store.query",
    "digest_tui.enrich.pipeline",
    "digest_tui.sources.hf_page",
    "digest_tui.sources.hf_fetch",
    "digest_tui.sync.remote",
    "digest_tui.export.bibtex",
    "digest_tui.repohealth.github",
]


def loaded_after(code: str) -> set[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_does_not_load_textual(module):
    loaded = loaded_after(f"import {module}")
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}, module


def test_cli_help_path_loads_neither_textual_nor_the_heavy_libraries():
    # What `digest-tui --help` pays: building the parser registers every command, so no
    # command module may import pydantic, httpx, yaml or sqlite at its top level.
    loaded = loaded_after("from digest_tui.cli import build_parser; build_parser()")
    heavy = {"textual", "pydantic", "httpx", "yaml", "sqlite3", "rich"}
    assert not heavy & {m.split(".")[0] for m in loaded}
