"""`m`: more papers like the shown one, in a small screen; Enter jumps to the chosen paper.

The list is computed in a worker before the screen opens (LibraryService.similar); this
screen only shows it and returns the chosen paper id through `dismiss` (None: cancelled).
Titles and reasons are untrusted text: Rich Text, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from digest_tui.textsafe import one_line, printable
from digest_tui.tui.paper_extras import Related


class SimilarScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    SimilarScreen { align: center middle; }
    SimilarScreen > Vertical {
        width: 100; max-width: 95%; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    SimilarScreen OptionList { height: auto; max-height: 30; }
    SimilarScreen .hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "Close")]

    def __init__(self, title: str, related: tuple[Related, ...]) -> None:
        super().__init__()
        self.paper_title = title
        self.related = related

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Papers like ", style="bold").append(printable(self.paper_title)))
            yield Static(Text("Enter: go to the paper · Esc: close"), classes="hint")
            options = []
            for item in self.related:
                label = Text(one_line(item.title, 80))
                label.append(f"  {item.score:.2f}\n", style="dim")
                label.append(f"  {one_line(item.reason, 80)}", style="dim")
                options.append(Option(label, id=item.id))
            yield OptionList(*options, id="similar-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
