"""The panel's "Similar" section: the top papers like the shown one, each with its reason,
and why "For you" recommends it. Titles are untrusted text: Rich Text, never markup."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from digest_tui.textsafe import one_line, printable
from digest_tui.tui.paper_extras import PaperExtras


def similar_section(extras: PaperExtras | None) -> list[RenderableType]:
    out: list[RenderableType] = []
    if extras is not None and extras.why:
        out += [Text("For you", style="bold underline"), Text(printable(extras.why)), Text("")]
    out.append(Text("Similar", style="bold underline"))
    if extras is None:
        out.append(Text("…", style="dim"))
    elif extras.similar is None:
        out.append(Text("building the similarity index…", style="dim"))
    elif not extras.similar:
        out.append(Text("no similar papers (no words shared with another paper)", style="dim"))
    else:
        for item in extras.similar:
            line = Text("  ")
            line.append(one_line(item.title, 90))
            line.append(f"  {item.score:.2f}", style="dim")
            out.append(line)
            out.append(Text(f"    {one_line(item.reason, 90)}", style="dim"))
        out.append(Text("  m: more similar papers", style="dim"))
    return out
