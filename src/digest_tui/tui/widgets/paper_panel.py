"""The right pane: everything about the highlighted paper.

It renders a `PaperView` (whose `to_json()` is what `show --format json` prints). Every string
from a digest or API becomes a rich Text, which is never parsed for markup, and control
characters are made visible, so nothing in a title can style or drive the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from digest_tui.paper_view import MachineFit, PaperView, RepoRef
from digest_tui.textsafe import printable, printable_offsets
from digest_tui.tui.paper_extras import PaperExtras
from digest_tui.tui.widgets.reproduce_section import readiness_line, weights_section
from digest_tui.tui.widgets.similar_section import similar_section

_KIND_BADGE = {
    "official": "OFFICIAL",
    "community": "COMMUNITY",
    "framework": "FRAMEWORK",
    "mentioned": "MENTIONED",
}


def _heading(text: str) -> Text:
    return Text(text, style="bold underline")


def _meta_line(paper: PaperView) -> Text:
    parts = [f"published {paper.published or 'unknown'}"]
    if paper.upvotes is not None:
        parts.append(f"{paper.upvotes} upvotes")
    if paper.organization_name:
        parts.append(printable(paper.organization_name))
    elif paper.authors_count:
        parts.append(f"{paper.authors_count} authors")
    if paper.withdrawn:
        parts.append("WITHDRAWN")
    return Text(" · ".join(parts), style="dim")


def _abstract(paper: PaperView) -> Text:
    shown, offsets = printable_offsets(paper.abstract)
    text = Text(shown or "(no abstract)")
    # Highlight the phrases that put the paper in its topics. Offsets refer to the stored text;
    # `offsets` maps them past any escape printable() put in (a bidi override, say).
    for evidence in paper.topic_evidence.values():
        for item in evidence:
            start, end = item.start, item.end
            if item.field == "abstract" and 0 <= start <= end < len(offsets):
                text.stylize("bold reverse", offsets[start], offsets[end])
    return text


def _topics(paper: PaperView) -> list[RenderableType]:
    out: list[RenderableType] = [_heading("Topics")]
    if not paper.topics:
        out.append(Text("other (no topic matched)", style="dim"))
    for topic in paper.topics:
        line = Text(f"{topic}", style="bold")
        phrases = sorted({printable(e.phrase) for e in paper.topic_evidence.get(topic, ())})
        if phrases:
            line.append("  because of: ", style="dim")
            line.append(", ".join(f"“{p}”" for p in phrases))
        out.append(line)
    return out


def _code(
    paper: PaperView,
    health: Mapping[str, str],
    highlighted: int,
    extras: PaperExtras | None = None,
) -> list[RenderableType]:
    out: list[RenderableType] = [_heading("Code")]
    if not paper.repos:
        out.append(Text("no code linked", style="dim"))
    for index, repo in enumerate(paper.repos):
        pointer = "▶ " if index == highlighted else "  "
        line = Text(pointer)
        line.append(f"[{_KIND_BADGE.get(repo.kind, repo.kind.upper())}] ", style="bold")
        line.append(printable(repo.url))
        line.append(f"  ({repo.source})", style="dim")
        if repo.framework:
            line.append(f" {printable(repo.framework)}", style="dim")
        out.append(line)
        info = health.get(repo.url)
        if info is not None:
            out.append(Text("    " + info, style="dim"))
        elif repo.stars is not None:
            out.append(Text(f"    ★ {repo.stars}", style="dim"))
        ready = readiness_line(extras, repo.url)
        if ready is not None:
            out.append(ready)
    out += [Text(""), *weights_section(extras, paper.arxiv_id is not None)]
    links = [link for link in paper.links if link.kind != "repo"]
    if links:
        out.append(_heading("Links"))
        for link in links:
            out.append(Text(f"  [{link.kind}] {printable(link.url)}"))
    if paper.project_page:
        out.append(Text(f"  [project] {printable(paper.project_page)}"))
    return out


def _hardware(paper: PaperView, fits: Sequence[MachineFit]) -> list[RenderableType]:
    # The suggestion's shape belongs to enrich/: read as the mapping the contract carries.
    hardware = paper.hardware
    if not hardware:
        return []
    out: list[RenderableType] = [_heading("Hardware")]
    target = Text(printable(hardware.get("target")) or "unknown", style="bold")
    target.append(
        f"  ({hardware.get('scale', 'unknown')}, {hardware.get('confidence', 'low')} confidence)",
        style="dim",
    )
    out.append(target)
    if hardware.get("devices"):
        out.append(Text("devices: " + ", ".join(hardware["devices"])))
    if hardware.get("memory_arithmetic"):
        out.append(Text("memory: " + printable(hardware["memory_arithmetic"])))
    elif hardware.get("memory_gb") is not None:
        out.append(Text(f"memory: ~{hardware['memory_gb']} GB"))
    if hardware.get("feature_floor"):
        out.append(Text("needs: " + printable(hardware["feature_floor"])))
    scaled = hardware.get("scaled_down")
    if scaled:
        devices = ", ".join(f"{n}x {d}" for d, n in (scaled.get("devices") or {}).items())
        what = devices or f"{scaled.get('count', '?')} devices"
        out.append(
            Text(
                f"scaled down: {what} ({scaled.get('scale', '')}): "
                + printable(scaled.get("note") or "")
            )
        )
    for item in hardware.get("evidence", [])[:6]:
        quote = printable(item.get("quote") or item.get("phrase") or "")
        out.append(Text(f"  “{quote}” ({item.get('source', '')})", style="dim"))
    if fits:
        out.append(Text("your machines:", style="dim"))
    for fit in fits:
        mark = "✔" if fit.fits else ("✘" if fit.fits is False else "?")
        out.append(Text(f"  {mark} {printable(fit.name)}: {printable(fit.reason)}"))
    return out


def _state(paper: PaperView, include_note: bool = True) -> list[RenderableType]:
    out: list[RenderableType] = []
    flags = []
    if paper.bookmarked:
        flags.append("★ bookmarked")
    flags.append("read" if paper.read else "unread")
    line = Text(" · ".join(flags), style="bold")
    if paper.tags:
        line.append("   tags: ", style="dim")
        line.append(", ".join(printable(t) for t in paper.tags))
    out.append(line)
    if paper.note and include_note:
        out.append(_heading("Note"))
        out.append(Text(printable(paper.note)))
    return out


def render_paper(
    paper: PaperView,
    *,
    health: dict[str, str] | None = None,
    highlighted_repo: int = 0,
    include_note: bool = True,
    extras: PaperExtras | None = None,
) -> RenderableType:
    """The paper as the panel shows it. The full-screen view renders the note itself (as
    Markdown), so it asks for everything else with `include_note=False`."""
    parts: list[RenderableType] = [
        Text(printable(paper.title), style="bold"),
        _meta_line(paper),
        Text(f"id {printable(paper.id)}", style="dim"),
        *_state(paper, include_note),
        Text(""),
        *_topics(paper),
        Text(""),
        *_code(paper, health or {}, highlighted_repo, extras),
    ]
    hardware = _hardware(paper, paper.machine_fit or ())
    if hardware:
        parts += [Text(""), *hardware]
    parts += [Text(""), *similar_section(extras)]
    parts += [Text(""), _heading("Abstract"), _abstract(paper)]
    return Group(*parts)


class PaperPanel(VerticalScroll):
    """Shows one paper; `show_paper(None)` shows a hint instead."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.paper: PaperView | None = None
        self.highlighted_repo = 0
        self.health: dict[str, str] = {}
        self.extras: PaperExtras | None = None  # similar, weights & data, readiness

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(Text("Select a paper.", style="dim"), id="paper-body")

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
        body = self.query_one("#paper-body", Static)
        if self.paper is None:
            body.update(Text("No paper selected.", style="dim"))
            return
        body.update(
            render_paper(
                self.paper,
                health=self.health,
                highlighted_repo=self.highlighted_repo,
                extras=self.extras,
            )
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
