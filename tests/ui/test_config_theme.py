"""`theme:` in config.yaml: the theme the app starts in, over the palette's last pick; a name
that is no theme is said on screen (file, field, the names there are) and the app starts in the
last theme picked instead."""

from __future__ import annotations

from pathlib import Path

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from tests.support.pilot import notices
from tests.ui.settle import settle

SIZE = (140, 40)


def _config_path(home: Path) -> Path:
    return home / "config" / "config.yaml"


async def _start(home: Path, config: str | None) -> tuple[str, list[str]]:
    """Starts the app with `config` as config.yaml (None: as it is) and returns the theme it
    settled in and the notices it showed."""
    if config is not None:
        path = _config_path(home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config, encoding="utf-8")
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        return app.theme, notices(app)


async def _pick_theme(name: str) -> None:
    """Picks `name` as the palette does, which the app remembers for the next start."""
    app = DigestApp(AppContext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = name
        await settle(pilot)


async def test_config_theme_is_the_start_theme(home: Path) -> None:
    theme, _ = await _start(home, "theme: textual-light\n")
    assert theme == "textual-light"


async def test_config_theme_wins_over_the_last_pick(home: Path) -> None:
    await _pick_theme("nord")
    theme, _ = await _start(home, "theme: textual-light\n")
    assert theme == "textual-light"


async def test_without_config_theme_the_last_pick_stays(home: Path) -> None:
    await _pick_theme("nord")
    theme, _ = await _start(home, "auto_read_seconds: 5\n")
    assert theme == "nord"


async def test_an_unknown_theme_is_said_and_the_last_pick_used(home: Path) -> None:
    await _pick_theme("nord")
    theme, shown = await _start(home, "theme: solarised-typo\n")
    assert theme == "nord"
    said = [text for text in shown if "solarised-typo" in text]
    assert said, shown
    assert str(_config_path(home)) in said[0]
    assert "theme:" in said[0] and "textual-light" in said[0]
