"""Making untrusted text safe to print in a terminal.

Titles and abstracts come from web pages and APIs: an ANSI or OSC escape sequence in one must
be shown as text, never sent to the terminal where it could recolour, retitle or hijack it.
"""

from __future__ import annotations

import re

# C0 and C1 control characters except tab and newline: ESC starts ANSI/OSC sequences, BEL ends
# OSC ones, and the rest have no place in a title, an abstract, a tag or a note.
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str | None, replacement: str = "") -> str:
    """Remove (or replace) control characters: for text about to be stored."""
    return CONTROL_CHARS.sub(replacement, text or "")


def printable(text: str | None) -> str:
    """Replace control characters (ESC included) by visible escapes like '\\x1b'."""
    if not text:
        return ""
    return CONTROL_CHARS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def one_line(text: str | None, width: int) -> str:
    flat = " ".join(printable(text).split())
    if len(flat) <= width:
        return flat
    return flat[: max(width - 1, 0)] + "…"
