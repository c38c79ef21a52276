"""The panel's reproduction aids: one readiness line under each GitHub repo of the Code
section, and "Weights & data" (Hub models, datasets and Spaces citing the paper).

Repo ids and URLs come from the Hub: shown as Rich Text, never markup, made printable."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from digest_tui.textsafe import printable
from digest_tui.tui.paper_extras import PaperExtras

SHOWN_PER_KIND = 5


def readiness_line(extras: PaperExtras | None, repo_url: str) -> Text | None:
    """`    ready: docker, reqs, reproduce section, AE badge · weights`, or None."""
    if extras is None:
        return None
    found = extras.readiness.get(repo_url)
    if found is None:
        return None
    return Text("    " + printable(found.line(weights=extras.has_weights)), style="dim")


def weights_section(extras: PaperExtras | None, has_arxiv_id: bool) -> list[RenderableType]:
    out: list[RenderableType] = [Text("Weights & data", style="bold underline")]
    if not has_arxiv_id:
        out.append(Text("no arXiv id: the Hub links repos to papers by arXiv id", style="dim"))
        return out
    if extras is None:
        out.append(Text("…", style="dim"))
        return out
    found = extras.artifacts
    if found is None:
        out.append(Text("not fetched yet (the Hub could not be reached)", style="dim"))
        return out
    if not (found.models or found.datasets or found.spaces):
        out.append(Text("no Hub models, datasets or Spaces cite this paper", style="dim"))
        return out
    for kind in ("models", "datasets", "spaces"):
        items = getattr(found, kind)
        for item in items[:SHOWN_PER_KIND]:
            line = Text(f"  [{kind.rstrip('s')}] ", style="bold")
            line.append(printable(item.id))
            counts = []
            if item.likes is not None:
                counts.append(f"♥ {item.likes:,}")
            if item.downloads is not None:
                counts.append(f"↓ {item.downloads:,}")
            if counts:
                line.append("  " + " ".join(counts), style="dim")
            out.append(line)
            out.append(Text(f"    {printable(item.url)}", style="dim"))
        if len(items) > SHOWN_PER_KIND:
            out.append(Text(f"  … {len(items) - SHOWN_PER_KIND} more {kind}", style="dim"))
    return out
