"""`theme:` in config.yaml: the theme the app starts in, over the palette's last pick; a name
that is no theme is said on screen (file, field, the names there are) and the app starts in the
last theme picked instead."""

from __future__ import annotations

from pathlib import Path

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from tests.ui.settle import settle

SIZE = (140, 40)


def _write_config(home: Path, text: str) -> Path:
    path = home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def _pick_theme(name: str) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = name
        await settle(pilot)


async def test_config_theme_is_the_start_theme(home: Path) -> None:
    _write_config(home, "theme: textual-light\n")
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light"


async def test_config_theme_wins_over_the_last_pick(home: Path) -> None:
    await _pick_theme("nord")
    _write_config(home, "theme: textual-light\n")
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light"


async def test_without_config_theme_the_last_pick_stays(home: Path) -> None:
    await _pick_theme("nord")
    _write_config(home, "auto_read_seconds: 5\n")
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord"


async def test_an_unknown_theme_is_said_and_the_last_pick_used(home: Path) -> None:
    await _pick_theme("nord")
    config = _write_config(home, "theme: solarised-typo\n")
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord"
        said = [n for n in app.notices_shown if "solarised-typo" in str(n)]
        assert said, app.notices_shown
        text = str(said[0])
        assert str(config) in text and "theme:" in text and "textual-light" in text
