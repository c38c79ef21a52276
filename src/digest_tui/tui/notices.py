"""The one way the app shows a message: as literal text, never as Textual markup.

Messages carry outside text (server errors, URLs, folder names, sync reports). Textual's
`notify()` parses its message as content markup by default, where `[/x]` raises a MarkupError
that ends the app and `[@click=app.screenshot(...)]` becomes a clickable action. Every
notification therefore goes through `notify_text`, which turns markup off and escapes control
and invisible characters (tests/ui/test_untrusted_text.py checks no other call exists).
"""

from __future__ import annotations

from collections.abc import Sequence
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


def cause_first(summary: str, causes: Sequence[str], *, most: int = 3) -> str:
    """A report as a notice: what went wrong first (a toast is read from the top and may be
    cut), then the statistics. `R` offline used to end with the cause after a line of counts."""
    shown = list(causes[:most])
    if len(causes) > most:
        shown.append(f"… and {len(causes) - most} more")
    return "\n".join([*shown, summary])
