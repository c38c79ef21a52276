"""The panel's "Similar" section: the top papers like the shown one, each with its reason,
and why "For you" recommends it. Titles are untrusted text: Rich Text, never markup. Looks come
from the context's theme styles, never a colour here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from digest_tui.textsafe import one_line, printable

if TYPE_CHECKING:
    from digest_tui.paper_view import PaperView
    from digest_tui.tui.widgets.paper_sections import RenderContext


def similar_section(paper: PaperView, ctx: RenderContext) -> list[RenderableType]:
    muted, heading = ctx.styles.muted, ctx.styles.heading
    extras = ctx.extras
    out: list[RenderableType] = []
    if extras is not None and extras.why:
        out += [Text("For you", style=heading), Text(printable(extras.why)), Text("")]
    out.append(Text("Similar", style=heading))
    if extras is None:
        out.append(Text("…", style=muted))
    elif extras.similar is None:
        out.append(Text("building the similarity index…", style=muted))
    elif not extras.similar:
        out.append(Text("no similar papers (no words shared with another paper)", style=muted))
    else:
        for item in extras.similar:
            line = Text("  ")
            line.append(one_line(item.title, 90))
            line.append(f"  {item.score:.2f}", style=muted)
            out.append(line)
            out.append(Text(f"    {one_line(item.reason, 90)}", style=muted))
        out.append(Text("  m: more similar papers", style=muted))
    return out
