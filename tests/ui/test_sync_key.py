"""`S` in the app: a background sync through a folder remote between two machines."""

from __future__ import annotations

from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_panel import PaperPanel
from tests.support.pilot import notices
from tests.ui.settle import settle


def use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("DIGEST_TUI_HOME", str(home))


async def test_S_syncs_in_the_background_and_the_panel_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
):
    remote = tmp_path / "synced-folder"
    laptop, desk = tmp_path / "laptop", tmp_path / "desk"
    use_home(monkeypatch, laptop)
    assert main(["sync", "init", str(remote)]) == 0
    use_home(monkeypatch, desk)
    assert main(["sync", "init", str(remote)]) == 0
    # Later, on the laptop:
    use_home(monkeypatch, laptop)
    assert main(["bookmark", "flashmoe"]) == 0
    assert main(["tag", "flashmoe", "todo"]) == 0
    assert main(["sync"]) == 0
    use_home(monkeypatch, desk)

    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"flashmoe", "enter")
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        assert panel.paper.bookmarked is False
        await pilot.press("S")
        await settle(pilot, rounds=6)
        assert panel.paper.bookmarked is True and panel.paper.tags == ("todo",)
        assert any(m.startswith("Synced:") for m in notices(app))


async def test_S_without_a_remote_says_how_to_set_one_up(home: Path):
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        assert any("sync init" in m for m in notices(app))


async def test_a_failing_remote_is_reported_and_local_edits_stay(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
):
    remote = tmp_path / "usb-stick"
    assert main(["sync", "init", str(remote)]) == 0
    assert main(["bookmark", "galvatron"]) == 0
    # The stick is unplugged: the folder is gone.
    import shutil

    shutil.rmtree(remote)
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot, rounds=4)
        assert any(m.startswith("Sync failed:") for m in notices(app))
    capsys.readouterr()
    assert main(["papers", "--bookmarked", "--format", "jsonl"]) == 0
    assert '"title": "Galvatron: Automatic Distributed Training' in capsys.readouterr().out
