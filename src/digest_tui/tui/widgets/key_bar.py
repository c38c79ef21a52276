"""The footer: the keys of the focused pane on one line, drawn as one piece of text.

Textual's Footer mounts a widget per key (FooterKey) and, on every focus change, throws them
away and composes, styles and lays out new ones. Focus changes on the keys a reader presses
most (`/` into the search box, Escape back to the list, `\\` into the tree): at 100,000 papers
the footer was about half of Escape's CPU on the UI thread. This bar reads the same bindings
(`Screen.active_bindings`, shown ones, one per action, the command palette's on the right) and
repaints its single line when they change: no widgets made, no layout pass. A click on a key
presses it, as on Textual's footer.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

# (key as shown, description, enabled, key to press)
_Entry = tuple[str, str, bool, str]


class KeyBar(Widget, can_focus=False):
    """A one-line footer of key bindings (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # (first column, end column, key, enabled) of each key drawn: what a click presses.
        self._hits: list[tuple[int, int, str, bool]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Any) -> None:
        if self.is_attached and screen is self.screen:
            self.refresh()

    def shown_keys(self) -> list[tuple[str, str, bool]]:
        """(key as shown, description, enabled) of each key on the bar, left to right, the
        command palette's last."""
        entries, palette = self._entries()
        if palette is not None:
            entries.append(palette)
        return [(shown, description, enabled) for shown, description, enabled, _ in entries]

    def _entries(self) -> tuple[list[_Entry], _Entry | None]:
        """The keys to draw left to right, and the command palette's (drawn on the right)."""
        app = self.app
        active = self.screen.active_bindings
        first_per_action: dict[str, _Entry] = {}
        palette = None
        for key, (_node, binding, enabled, _tooltip) in active.items():
            if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = (app.get_key_display(binding), binding.description, enabled, key)
                continue
            if binding.show and binding.action not in first_per_action:
                entry = (app.get_key_display(binding), binding.description, enabled, binding.key)
                first_per_action[binding.action] = entry
        return list(first_per_action.values()), palette

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        dim = Style(dim=True)
        entries, palette = self._entries()
        line = Text(no_wrap=True, overflow="crop", end="")
        hits: list[tuple[int, int, str, bool]] = []
        for shown, description, enabled, key in entries:
            start = line.cell_len
            extra = Style() if enabled else dim
            line.append(f" {shown} ", key_style + extra)
            if description:
                line.append(f"{description} ", description_style + extra)
            hits.append((start, line.cell_len, key, enabled))
        if palette is not None:
            shown, description, enabled, key = palette
            tail = Text.assemble(
                ("▏", description_style),
                (f"{shown} ", key_style),
                (f"{description} ", description_style),
            )
            gap = self.size.width - line.cell_len - tail.cell_len
            if gap > 0:
                line.append(" " * gap)
                hits.append((line.cell_len, line.cell_len + tail.cell_len, key, enabled))
                line.append_text(tail)
        self._hits = hits
        return line

    def on_mouse_down(self, event: events.MouseDown) -> None:
        for start, end, key, enabled in self._hits:
            if start <= event.x < end:
                if enabled:
                    self.app.simulate_key(key)
                else:
                    self.app.bell()
                return
