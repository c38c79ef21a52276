"""The right pane: everything about the highlighted paper.

It renders a `PaperView` (whose `to_json()` is what `show --format json` prints) through the
sections of `paper_sections.py`. `PaperBody` is the widget that draws them, here and in the
full-screen view: its colours come from its component classes (theme variables only), read
again whenever the theme changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from digest_tui.tui.widgets.paper_sections import PaperStyles, RenderContext, render_paper

if TYPE_CHECKING:
    # Annotations only: the empty panel of the first frame needs neither (tests/architecture).
    from digest_tui.paper_view import PaperView, RepoRef
    from digest_tui.tui.paper_extras import PaperExtras

__all__ = ["PaperBody", "PaperPanel", "render_paper"]

# Component class -> PaperStyles field. Colours are theme variables: the same rules read well
# on a dark and on a light theme.
_STYLE_CLASSES = {
    "paper-body--title": "title",
    "paper-body--heading": "heading",
    "paper-body--muted": "muted",
    "paper-body--strong": "strong",
    "paper-body--evidence": "evidence",
    "paper-body--good": "good",
    "paper-body--bad": "bad",
    "paper-body--notice": "notice",
}


class PaperBody(Static):
    """One paper's text (or a hint when there is none), drawn in the theme's colours."""

    COMPONENT_CLASSES = set(_STYLE_CLASSES)
    DEFAULT_CSS = """
    PaperBody > .paper-body--title { text-style: bold; }
    PaperBody > .paper-body--heading { color: $text-accent; text-style: bold underline; }
    PaperBody > .paper-body--muted { color: $text-muted; }
    PaperBody > .paper-body--strong { text-style: bold; }
    PaperBody > .paper-body--evidence { text-style: bold reverse; }
    PaperBody > .paper-body--good { color: $text-success; text-style: bold; }
    PaperBody > .paper-body--bad { color: $text-error; text-style: bold; }
    PaperBody > .paper-body--notice { color: $text-warning; }
    """

    def __init__(self, hint: str, *, include_note: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hint = hint
        self.include_note = include_note
        self.paper: PaperView | None = None
        self.health: Mapping[str, str] = {}
        self.highlighted_repo = 0
        self.extras: PaperExtras | None = None  # similar, weights & data, readiness
        # What the text on screen was drawn from (None: nothing drawn yet).
        self._drawn: tuple[object, ...] | None = None

    def on_mount(self) -> None:
        # After a theme switch the component styles hold the new theme's colours: draw again.
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.redraw()

    def _on_theme_changed(self, _theme: Any) -> None:
        self.redraw()

    def show(
        self,
        paper: PaperView | None,
        *,
        health: Mapping[str, str] | None = None,
        highlighted_repo: int = 0,
        extras: PaperExtras | None = None,
    ) -> None:
        health = health or {}
        if self._drawn == _drawing_key(paper, health, highlighted_repo, extras, self.hint):
            # The same paper with the same extras (a reload after the list moved back to it,
            # the Hub's answer equal to the cached one): drawing it again would cost a
            # render and a layout pass of the whole screen for an identical panel.
            return
        self.paper = paper
        self.health = health
        self.highlighted_repo = highlighted_repo
        self.extras = extras
        self.redraw()

    def styles_for_text(self) -> PaperStyles:
        """The theme's looks for each kind of text, from the component classes."""
        looks = {field: self._text_style(name) for name, field in _STYLE_CLASSES.items()}
        return PaperStyles(**looks)

    def _text_style(self, component: str) -> Style:
        # The colour as the theme resolves it over this widget's background ("auto 60%"
        # needs the background to mean anything), without painting a background of its own.
        full = self.get_component_rich_style(component)
        partial = self.get_component_rich_style(component, partial=True)
        return Style(color=full.color) + partial.without_color

    def redraw(self) -> None:
        if not self.is_mounted:
            self._drawn = None
            return
        self.update(self._renderable())
        self._drawn = _drawing_key(
            self.paper, self.health, self.highlighted_repo, self.extras, self.hint
        )

    def _renderable(self) -> RenderableType:
        styles = self.styles_for_text()
        if self.paper is None:
            return Text(self.hint, style=styles.muted)
        health = self.health
        ctx = RenderContext(
            styles=styles,
            health=health,
            health_notice=getattr(health, "notice", None),
            highlighted_repo=self.highlighted_repo,
            include_note=self.include_note,
            extras=self.extras,
        )
        return render_paper(self.paper, ctx)


def _drawing_key(
    paper: PaperView | None,
    health: Mapping[str, str],
    highlighted_repo: int,
    extras: PaperExtras | None,
    hint: str,
) -> tuple[object, ...]:
    """Everything the body's text is drawn from (the theme aside: a theme change redraws)."""
    notice = getattr(health, "notice", None)
    return (paper, dict(health), notice, highlighted_repo, extras, hint)


class PaperPanel(VerticalScroll):
    """Shows one paper; `show_paper(None)` shows a hint instead."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.paper: PaperView | None = None
        self.highlighted_repo = 0
        self.health: Mapping[str, str] = {}
        self.extras: PaperExtras | None = None  # similar, weights & data, readiness

    def compose(self):  # type: ignore[no-untyped-def]
        yield PaperBody("Select a paper.", id="paper-body")

    def show_paper(self, paper: PaperView | None) -> None:
        same = paper is not None and self.paper is not None and paper.id == self.paper.id
        self.paper = paper
        if not same:
            self.extras = None
            self.highlighted_repo = 0
            self.scroll_home(animate=False)
        self._redraw()

    def refresh_view(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        body = self.query_one("#paper-body", PaperBody)
        if self.paper is None:
            body.hint = "No paper selected."
        body.show(
            self.paper,
            health=self.health,
            highlighted_repo=self.highlighted_repo,
            extras=self.extras,
        )

    def cycle_repo(self, step: int) -> None:
        if self.paper is not None and self.paper.repos:
            self.highlighted_repo = (self.highlighted_repo + step) % len(self.paper.repos)
            self._redraw()

    @property
    def current_repo(self) -> RepoRef | None:
        if self.paper is not None and self.paper.repos:
            return self.paper.repos[self.highlighted_repo % len(self.paper.repos)]
        return None
