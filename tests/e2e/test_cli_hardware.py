"""The hardware target and the user's machines, through the CLI."""

from __future__ import annotations

import json

from digest_tui.cli import main

CONFIG = """\
machines:
  - name: laptop
    devices: [{id: rtx-4090, count: 1}]
  - name: node
    devices: [{id: h100, count: 8}]
"""


def show(capsys, ident: str) -> dict:
    assert main(["show", ident, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_fit_per_machine_in_json_and_text(home, capsys):
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(CONFIG, encoding="utf-8")
    paper = show(capsys, "flashmoe")
    hardware = paper["hardware"]
    assert "h100" in hardware["devices"] and hardware["scale"] == "single-node"
    fits = {fit["name"]: fit["fits"] for fit in paper["machine_fit"]}
    assert fits == {"laptop": False, "node": True}
    assert main(["show", "flashmoe"]) == 0
    text = capsys.readouterr().out
    assert "  node: fits: " in text and "  laptop: does not fit: " in text


def test_no_machines_means_no_fit_field(home, capsys):
    assert "machine_fit" not in show(capsys, "flashmoe")


def test_bad_config_is_reported_with_file_and_field(home, capsys):
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(
        "machines:\n  - name: x\n    devices: [{id: h100, count: 0}]\n", encoding="utf-8"
    )
    assert main(["show", "flashmoe"]) == 2
    err = capsys.readouterr().err
    assert "config.yaml:3: machines[0].devices[0] (id 'h100').count: " in err
