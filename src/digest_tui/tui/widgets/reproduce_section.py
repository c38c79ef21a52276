"""The panel's reproduction aids: one readiness line under each GitHub repo of the Code
section, and "Weights & data" (Hub models, datasets and Spaces citing the paper).

Repo ids and URLs come from the Hub: shown as Rich Text, never markup, made printable. Looks
come from the context's theme styles (`paper_sections.PaperStyles`), never a colour here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from digest_tui.textsafe import printable

if TYPE_CHECKING:
    from digest_tui.paper_view import PaperView
    from digest_tui.tui.widgets.paper_sections import RenderContext

SHOWN_PER_KIND = 5


def readiness_line(repo_url: str, ctx: RenderContext) -> Text | None:
    """`    ready: docker, reqs, reproduce section, AE badge · weights`, or None."""
    extras = ctx.extras
    if extras is None:
        return None
    found = extras.readiness.get(repo_url)
    if found is None:
        return None
    if ctx.health_notice and not found.known and found.status != "gone":
        # Offline: the Code section already says GitHub is unreachable, once.
        return None
    return Text("    " + printable(found.line(weights=extras.has_weights)), style=ctx.styles.muted)


def weights_section(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    muted = ctx.styles.muted
    out: list[RenderableType] = [Text("Weights & data", style=ctx.styles.heading)]
    extras = ctx.extras
    if paper.arxiv_id is None:
        out.append(Text("no arXiv id: the Hub links repos to papers by arXiv id", style=muted))
        return out
    if extras is None:
        out.append(Text("…", style=muted))
        return out
    found = extras.artifacts
    if found is None:
        out.append(Text("not fetched yet (the Hub could not be reached)", style=muted))
        return out
    if not (found.models or found.datasets or found.spaces):
        out.append(Text("no Hub models, datasets or Spaces cite this paper", style=muted))
        return out
    for kind in ("models", "datasets", "spaces"):
        items = getattr(found, kind)
        for item in items[:SHOWN_PER_KIND]:
            line = Text(f"  [{kind.rstrip('s')}] ", style=ctx.styles.strong)
            line.append(printable(item.id))
            counts = []
            if item.likes is not None:
                counts.append(f"♥ {item.likes:,}")
            if item.downloads is not None:
                counts.append(f"↓ {item.downloads:,}")
            if counts:
                line.append("  " + " ".join(counts), style=muted)
            out.append(line)
            out.append(Text(f"    {printable(item.url)}", style=muted))
        if len(items) > SHOWN_PER_KIND:
            out.append(Text(f"  … {len(items) - SHOWN_PER_KIND} more {kind}", style=muted))
    return out
