"""A paper as text, one section at a time: what the side panel and the full-screen view show.

Every string from a digest or API becomes a rich `Text`, never parsed for markup, and control
characters are made visible, so nothing in a title can style or drive the terminal. Colours
never appear here: each piece of text takes one of the `PaperStyles`, which the widget reads
from its theme-aware component classes (`paper_body.py`), so a light theme gets light-theme
colours and a theme switch redraws with the new ones.

To add a section (say "Similar papers"), write a function `(paper, ctx) -> list[renderable]`
that returns [] when it has nothing to say, and put it in `SECTIONS` where it should appear.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text

from digest_tui.textsafe import printable, printable_offsets
from digest_tui.tui.widgets.reproduce_section import readiness_line, weights_section
from digest_tui.tui.widgets.similar_section import similar_section

if TYPE_CHECKING:
    # Annotations only: the panel is composed (empty) before the first frame, and the paper
    # records come with the first paper shown, after it.
    from digest_tui.paper_view import MachineFit, PaperView
    from digest_tui.tui.paper_extras import PaperExtras

_KIND_BADGE = {
    "official": "OFFICIAL",
    "community": "COMMUNITY",
    "framework": "FRAMEWORK",
    "mentioned": "MENTIONED",
}


_PLAIN = Style()


@dataclass(frozen=True)
class PaperStyles:
    """The looks a paper's text can take. Without a widget (a test printing to a console,
    say) every one is plain: the words are the same, only the widget adds the theme."""

    # Rich Styles are immutable, so one plain Style can be every field's default.

    title: Style = _PLAIN
    heading: Style = _PLAIN
    muted: Style = _PLAIN
    strong: Style = _PLAIN
    evidence: Style = _PLAIN  # the phrases of the abstract that put it in its topics
    good: Style = _PLAIN  # a machine that fits
    bad: Style = _PLAIN  # a machine that does not
    notice: Style = _PLAIN  # a one-line notice, e.g. GitHub unreachable


@dataclass(frozen=True)
class RenderContext:
    """Everything a section may need besides the paper."""

    styles: PaperStyles = field(default_factory=PaperStyles)
    health: Mapping[str, str] = field(default_factory=dict)  # repo url -> health in words
    health_notice: str | None = None  # one line when GitHub could not be reached
    highlighted_repo: int = 0
    include_note: bool = True
    # Similar papers, Hub weights & data, repo readiness: None until a worker has them.
    extras: PaperExtras | None = None


Section = Callable[["PaperView", RenderContext], list[RenderableType]]


def _heading(text: str, ctx: RenderContext) -> Text:
    return Text(text, style=ctx.styles.heading)


def _date_words(paper: PaperView) -> str:
    """When the paper is from: its publication date, else the date of the digest that listed
    it (what the list shows and sorts it by), worded so it does not pass for a publication
    date."""
    if paper.published:
        return f"published {paper.published}"
    if paper.listed and paper.digests:
        return f"listed {paper.listed[:10]} in the Daily Papers digest"
    if paper.listed:
        return f"first seen {paper.listed[:10]}"
    return "published unknown"


def header(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    muted = ctx.styles.muted
    parts = [_date_words(paper)]
    if paper.upvotes is not None:
        parts.append(f"{paper.upvotes} upvotes")
    if paper.organization_name:
        parts.append(printable(paper.organization_name))
    elif paper.authors_count:
        parts.append(f"{paper.authors_count} authors")
    if paper.withdrawn:
        parts.append("WITHDRAWN")
    line = Text(" · ".join(parts), style=muted)
    if not paper.published and paper.listed:
        # Fainter still, as the list draws it: a listing date, not a publication date.
        line.stylize(Style(italic=True, dim=True), 0, len(parts[0]))
    return [
        Text(printable(paper.title), style=ctx.styles.title),
        line,
        Text(f"id {printable(paper.id)}", style=muted),
    ]


def user_state(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    flags = []
    if paper.bookmarked:
        flags.append("★ bookmarked")
    flags.append("read" if paper.read else "unread")
    if paper.note_conflicts:
        # Concurrent edits kept after a sync: `n` shows every version to pick from.
        versions = len(paper.note_conflicts) + 1
        flags.append(f"⚠ note conflict: {versions} versions (n to resolve)")
    line = Text(" · ".join(flags), style=ctx.styles.strong)
    if paper.tags:
        line.append("   tags: ", style=ctx.styles.muted)
        line.append(", ".join(printable(t) for t in paper.tags))
    out: list[RenderableType] = [line]
    if paper.note and ctx.include_note:
        out += [_heading("Note", ctx), Text(printable(paper.note))]
    return out


def topics(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    # Here, not at the top: paper_view stays off the first frame's path (the type above).
    from digest_tui.paper_view import READER_MARK, decided_by_reader

    out: list[RenderableType] = [_heading("Topics", ctx)]
    if not paper.topics:
        out.append(Text("other (no topic matched)", style=ctx.styles.muted))
    for topic in paper.topics:
        line = Text(f"{topic}", style=ctx.styles.strong)
        matches = paper.topic_evidence.get(topic, ())
        phrases = sorted({printable(e.phrase) for e in matches})
        if phrases:
            line.append("  because of: ", style=ctx.styles.muted)
            line.append(", ".join(f"“{p}”" for p in phrases))
        if decided_by_reader([e.by for e in matches]):
            # No rule decided it: the learned reader did, on words the rules had begun to find.
            line.append(f"  {READER_MARK}", style=ctx.styles.muted)
        out.append(line)
    return out


def code(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    muted = ctx.styles.muted
    out: list[RenderableType] = [_heading("Code", ctx)]
    if paper.repos and ctx.health_notice:
        # Offline: the cause once, not once per repo; each repo shows its cached figures.
        out.append(Text(ctx.health_notice, style=ctx.styles.notice))
    if not paper.repos:
        out.append(Text("no code linked", style=muted))
    for index, repo in enumerate(paper.repos):
        pointer = "▶ " if index == ctx.highlighted_repo else "  "
        line = Text(pointer)
        line.append(f"[{_KIND_BADGE.get(repo.kind, repo.kind.upper())}] ", style=ctx.styles.strong)
        line.append(printable(repo.url))
        line.append(f"  ({repo.source})", style=muted)
        if repo.framework:
            line.append(f" {printable(repo.framework)}", style=muted)
        out.append(line)
        info = ctx.health.get(repo.url)
        if info is not None:
            out.append(Text("    " + printable(info), style=muted))
        elif repo.stars is not None:
            out.append(Text(f"    ★ {repo.stars}", style=muted))
        ready = readiness_line(repo.url, ctx)
        if ready is not None:
            out.append(ready)
    links = [link for link in paper.links if link.kind != "repo"]
    if links:
        out.append(_heading("Links", ctx))
        for link in links:
            out.append(Text(f"  [{link.kind}] {printable(link.url)}"))
    if paper.project_page:
        out.append(Text(f"  [project] {printable(paper.project_page)}"))
    return out


def hardware(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    # The suggestion's shape belongs to enrich/: read as the mapping the contract carries.
    hardware = paper.hardware
    if not hardware:
        return []
    muted = ctx.styles.muted
    out: list[RenderableType] = [_heading("Hardware", ctx)]
    target = Text(printable(hardware.get("target")) or "unknown", style=ctx.styles.strong)
    target.append(
        f"  ({hardware.get('scale', 'unknown')}, {hardware.get('confidence', 'low')} confidence)",
        style=muted,
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
        out.append(Text(f"  “{quote}” ({item.get('source', '')})", style=muted))
    out += _machine_fits(paper.machine_fit or (), ctx)
    return out


def _machine_fits(fits: Sequence[MachineFit], ctx: RenderContext) -> list[RenderableType]:
    out: list[RenderableType] = []
    if fits:
        out.append(Text("your machines:", style=ctx.styles.muted))
    for fit in fits:
        if fit.fits:
            mark, style = "✔", ctx.styles.good
        elif fit.fits is False:
            mark, style = "✘", ctx.styles.bad
        else:
            mark, style = "?", ctx.styles.muted
        line = Text("  ")
        line.append(mark, style=style)
        line.append(f" {printable(fit.name)}: {printable(fit.reason)}")
        out.append(line)
    return out


def abstract(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    shown, offsets = printable_offsets(paper.abstract)
    text = Text(shown or "(no abstract)")
    # Highlight the phrases that put the paper in its topics. Offsets refer to the stored text;
    # `offsets` maps them past any escape printable() put in (a bidi override, say).
    for evidence in paper.topic_evidence.values():
        for item in evidence:
            start, end = item.start, item.end
            if item.field == "abstract" and 0 <= start <= end < len(offsets):
                text.stylize(ctx.styles.evidence, offsets[start], offsets[end])
    return [_heading("Abstract", ctx), text]


# In order, top to bottom; a blank line goes between sections that have something to show
# (the header and the user's state belong together, so they are one group).
SECTIONS: tuple[tuple[Section, ...], ...] = (
    (header, user_state),
    (topics,),
    (code,),
    (weights_section,),
    (hardware,),
    (similar_section,),
    (abstract,),
)


def render_paper(paper: PaperView, ctx: RenderContext | None = None) -> RenderableType:
    """The paper as the panel shows it. The full-screen view renders the note itself (as
    Markdown), so it asks for everything else with `include_note=False`."""
    ctx = ctx or RenderContext()
    parts: list[RenderableType] = []
    for group in SECTIONS:
        lines = [line for section in group for line in section(paper, ctx)]
        if lines:
            if parts:
                parts.append(Text(""))
            parts += lines
    return Group(*parts)
