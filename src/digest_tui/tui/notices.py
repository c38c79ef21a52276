"""The one way the app shows a message: as literal text, never as Textual markup.

Messages carry outside text (server errors, URLs, folder names, sync reports). Textual's
`notify()` parses its message as content markup by default, where `[/x]` raises a MarkupError
that ends the app and `[@click=app.screenshot(...)]` becomes a clickable action. Every
notification therefore goes through `notify_text`, which turns markup off and escapes control
and invisible characters (tests/ui/test_untrusted_text.py checks no other call exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from digest_tui.textsafe import printable

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel


@dataclass(frozen=True)
class ShownNotice:
    """A notice as the user saw it: its text (escaped) and severity."""

    text: str
    severity: str


def notify_text(
    app: App[Any],
    message: str,
    *,
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> ShownNotice:
    """Show `message` as a toast exactly as written (control/bidi characters escaped)."""
    shown = printable(message)
    app.notify(shown, severity=severity, timeout=timeout, markup=False)
    return ShownNotice(shown, severity)
