"""Colours follow the theme: light-theme snapshots, a runtime theme switch redraws the panel
in the new theme's colours, and no source under tui/ spells a colour of its own."""

from __future__ import annotations

import re
from pathlib import Path

from rich.style import Style

from digest_tui.config import AppContext
from digest_tui.service import open_library
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperBody, PaperPanel
from tests.ui.settle import settle

TUI = Path(__file__).resolve().parents[2] / "src" / "digest_tui" / "tui"
SIZE = (140, 40)

# A colour spelled out: a named colour, #hex, rgb()/hsl(), color(N), or Rich's "on <colour>".
_NAMED = (
    "black|white|red|green|yellow|blue|magenta|cyan|grey|gray|orange|purple|pink|brown|"
    "bright_\\w+|dark_\\w+|light_\\w+"
)
HARD_CODED = re.compile(
    rf"#[0-9a-fA-F]{{3,8}}\b|\b(?:rgb|rgba|hsl|hsla|color)\(|"
    rf"(?<![$\w-])(?:{_NAMED})\d*(?![\w-])"
)


def _style_texts(source: str, suffix: str) -> list[str]:
    """The parts of a source that can carry a colour: string literals of Python (CSS
    included) and the whole of a .tcss file, comments left out."""
    if suffix == ".tcss":
        return [re.sub(r"/\*.*?\*/", "", source, flags=re.S)]
    import ast

    strings = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
    return strings


def _docstrings(source: str) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.add(doc)
    return found


def hard_coded_colours(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    docs = _docstrings(source) if path.suffix == ".py" else set()
    found = []
    for text in _style_texts(source, path.suffix):
        if text in docs:
            continue
        found += [
            f"{path.name}: {m.group(0)!r} in {text[:60]!r}" for m in HARD_CODED.finditer(text)
        ]
    return found


def test_the_colour_check_finds_colours() -> None:
    """The check itself: it catches each way a colour gets hard-coded, and lets theme
    variables and plain text attributes through."""
    for bad in ("bold yellow", "on grey23", "#ff0000", "rgb(1,2,3)", "color(196)", "dark_red"):
        assert HARD_CODED.search(bad), bad
    for fine in ("$text-muted", "$success 40%", "bold underline", "dim", "reverse", "Bookmark"):
        assert not HARD_CODED.search(fine), fine


def test_no_hard_coded_colours_under_tui() -> None:
    files = sorted(TUI.rglob("*.py")) + sorted(TUI.rglob("*.tcss"))
    assert len(files) > 10
    problems = [problem for path in files for problem in hard_coded_colours(path)]
    assert problems == []


def _make_app(theme: str | None = None) -> DigestApp:
    ctx = AppContext()
    ctx.paths.config_file.write_text("repo_health: false\n", encoding="utf-8")
    if theme is not None:  # as if the user had picked it in an earlier session
        library = open_library(ctx)
        try:
            library.set_meta("theme", theme)
        finally:
            library.close()
    return DigestApp(ctx)


def _colours(strips) -> set[tuple[str | None, str | None]]:
    seen = set()
    for strip in strips:
        for segment in strip:
            style = segment.style or Style()
            if segment.text.strip():
                seen.add((str(style.color) if style.color else None, str(style.bgcolor)))
    return seen


def _panel_colours(app: DigestApp) -> set[tuple[str | None, str | None]]:
    body = app.query_one("#paper-body", PaperBody)
    return _colours(body.render_lines(body.region.reset_offset))


def _list_colours(app: DigestApp) -> set[tuple[str | None, str | None]]:
    papers = app.query_one(PaperList)
    return _colours(papers.render_line(y) for y in range(1, 6))


async def test_switching_theme_recolours_the_panel(home: Path) -> None:
    app = _make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.query_one(PaperPanel).paper is not None
        dark = _panel_colours(app)
        heading = app.query_one(PaperBody).styles_for_text().heading
        app.theme = "textual-light"
        await settle(pilot)
        light = _panel_colours(app)
        assert dark and light and not dark & light, (dark, light)
        # The headings took the light theme's accent, not the dark one's.
        assert app.query_one(PaperBody).styles_for_text().heading.color != heading.color


async def test_switching_theme_recolours_the_list(home: Path) -> None:
    app = _make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        dark = _list_colours(app)
        app.theme = "textual-light"
        await settle(pilot)
        light = _list_colours(app)
        assert not dark & light, (dark, light)


async def _ready(pilot) -> None:
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_main_screen_light_theme(home: Path, snap_compare) -> None:
    assert snap_compare(_make_app("textual-light"), terminal_size=SIZE, run_before=_ready)


def test_paper_view_light_theme(home: Path, snap_compare) -> None:
    async def open_paper(pilot) -> None:
        await _ready(pilot)
        await pilot.press("enter")
        await _ready(pilot)

    assert snap_compare(_make_app("textual-light"), terminal_size=(100, 40), run_before=open_paper)


async def test_the_list_reads_on_a_light_theme(home: Path) -> None:
    """On the light theme the list's dates and upvotes were white on light grey: their muted
    colour ("auto 60%") was resolved without the background. Every list segment must stand
    out from its background, on both themes."""
    from textual.color import Color

    for theme in ("textual-dark", "textual-light"):
        app = _make_app(theme)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            papers = app.query_one(PaperList)
            for y in range(1, 6):
                for segment in papers.render_line(y):
                    style = segment.style or Style()
                    if not segment.text.strip() or style.color is None:
                        continue
                    fg = Color.from_rich_color(style.color)
                    bg = Color.from_rich_color(style.bgcolor)
                    gap = abs(fg.brightness - bg.brightness)
                    assert gap > 0.3, (theme, segment.text, fg.hex, bg.hex)
