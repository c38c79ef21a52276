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
    # The modules are listed before json is imported to print them.
    script = (
        f"{code}\nimport sys\nloaded = sorted(sys.modules)\nimport json\nprint(json.dumps(loaded))"
    )
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
    # Nor typing, pathlib or json (~10 ms of the ~45 ms --help took): command modules import
    # them inside the commands, and annotations only under TYPE_CHECKING.
    assert not {"typing", "pathlib", "json"} & set(loaded)


# Commands that read the library and print it: opening the library (every command) must not
# import pydantic (the models load where a paper is built, the settings' models when a
# config.yaml is read), nor the network, YAML or Rich.
READING_COMMANDS = [
    ["tags"],
    ["list"],
    ["papers", "--limit", "20"],
    ["papers", "--limit", "3", "--format", "json"],
    ["papers", "--format", "jsonl"],
]


@pytest.fixture(scope="module")
def library_home(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from tests.support.paths import SEED_DEC10

    home = tmp_path_factory.mktemp("hygiene-home")
    env = {"DIGEST_TUI_HOME": str(home), "GITHUB_API_URL": "http://127.0.0.1:9"}
    for argv in (["import", str(SEED_DEC10)], ["tags"]):  # the first open's one-off work
        subprocess.run(
            [sys.executable, "-m", "digest_tui", *argv],
            env={**_base_env(), **env},
            capture_output=True,
            check=True,
        )
    return env


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_TUI")}


def _loaded_by_command(env: dict[str, str], argv: list[str]) -> set[str]:
    # The command's output goes to /dev/null; the modules it loaded to stderr's last line.
    script = (
        "import json, sys, os\nfrom digest_tui.cli import main\n"
        "sys.stdout = open(os.devnull, 'w')\nrc = main(sys.argv[1:])\n"
        "sys.stderr.write(json.dumps([rc, sorted(sys.modules)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        env={**_base_env(), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    rc, modules = json.loads(done.stderr.splitlines()[-1])
    assert rc == 0, done.stderr
    return {m.split(".")[0] for m in modules}


@pytest.mark.parametrize("argv", READING_COMMANDS, ids=" ".join)
def test_reading_commands_load_none_of_the_heavy_libraries(library_home, argv):
    loaded = _loaded_by_command(library_home, argv)
    assert "sqlite3" in loaded  # it did open the library
    assert not {"textual", "pydantic", "httpx", "yaml", "rich"} & loaded


# What the app's first frame may not load: the paper records and panel extras (they come with
# the first paper shown, after the frame), pydantic (settings, models), YAML (taxonomy), the
# network, and the search box's diagnostics.
NOT_ON_THE_FIRST_ROWS_PATH = {
    "pydantic",
    "yaml",
    "httpx",
    "digest_tui.models",
    "digest_tui.settings_schema",
    "digest_tui.paper_view",
    "digest_tui.tui.paper_extras",
    "digest_tui.store.search_problems",
    "digest_tui.state.materialise",
    "digest_tui.enrich.topics",
}


def test_the_first_rows_path_loads_none_of_the_heavy_modules(library_home):
    # The app's module and the first window of rows it shows (read before the first frame,
    # DigestApp._first_view): the view left last time, a screen of rowids and their rows.
    script = (
        "import json, sys\n"
        "from digest_tui.config import AppContext\n"
        "from digest_tui.tui.app import DigestApp\n"
        "prefs, window = DigestApp(AppContext())._first_view()\n"
        "print(json.dumps([len(window.rowids), sorted(sys.modules)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**_base_env(), **library_home},
        capture_output=True,
        text=True,
        check=True,
    )
    rows, modules = json.loads(done.stdout.splitlines()[-1])
    assert rows > 0  # it did read the library's first screen
    loaded = set(modules) | {m.split(".")[0] for m in modules}
    assert not NOT_ON_THE_FIRST_ROWS_PATH & loaded, sorted(NOT_ON_THE_FIRST_ROWS_PATH & loaded)


def test_show_offline_reads_cached_health_without_pydantic(library_home):
    # `show` reads the paper, Hub artefacts and repository readiness from the caches; cached
    # health is a dataclass (repohealth/model.py), and only a fresh GitHub answer loads the
    # pydantic payload model (repohealth/github_payload.py).
    done = subprocess.run(
        [sys.executable, "-m", "digest_tui", "papers", "--format", "jsonl", "--limit", "50"],
        env={**_base_env(), **library_home},
        capture_output=True,
        text=True,
        check=True,
    )
    with_code = [p["id"] for p in map(json.loads, done.stdout.splitlines()) if p["repos"]]
    assert with_code, "the seed digest has papers with code"
    loaded = _loaded_by_command(library_home, ["show", "--offline", with_code[0]])
    assert "sqlite3" in loaded
    assert not {"textual", "pydantic", "httpx", "rich"} & loaded, sorted(loaded)
