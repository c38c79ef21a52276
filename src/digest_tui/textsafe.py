"""Making untrusted text safe to print in a terminal, a table, an export or JSON.

Titles, abstracts, tags, notes and server messages come from web pages, APIs and other
machines. Two kinds of characters in them must never reach an output raw:

- control characters: an ANSI/OSC escape sequence (ESC, or the one-byte C1 CSI U+009B) could
  recolour, retitle or hijack the terminal;
- invisible formatting characters: bidi overrides and isolates reorder what is shown (a title
  or URL can read as something else than it is), zero-width characters and the BOM hide text.

This module is the one definition of both sets. Stored text keeps them (it is the data);
outputs make them visible as escapes (`\\x1b`, `\\u202e`) with `printable`, or, in JSON, as
`\\uXXXX` escapes that parse back to the same value with `escape_unsafe_in_json`.
"""

from __future__ import annotations

import re

# C0 and C1 control characters except tab and newline: ESC starts ANSI/OSC sequences, BEL ends
# OSC ones, U+009B is a one-character CSI, and none has a place in a title, a tag or a note.
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# Invisible characters that change how the text around them reads: the Arabic letter mark,
# zero-width space/non-joiner/joiner, LRM/RLM, line and paragraph separators, bidi embeddings
# and overrides (U+202A-202E), word joiner and invisible operators, bidi isolates
# (U+2066-2069), deprecated format controls, and the BOM / zero-width no-break space.
_INVISIBLE = "\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"

CONTROL_CHARS = re.compile(f"[{_CONTROL}]")
INVISIBLE_CHARS = re.compile(f"[{_INVISIBLE}]")
UNSAFE_CHARS = re.compile(f"[{_CONTROL}{_INVISIBLE}]")


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def strip_control(text: str | None, replacement: str = "") -> str:
    """Remove (or replace) control characters: for text about to be stored."""
    return CONTROL_CHARS.sub(replacement, text or "")


def mark_invisible(text: str | None) -> str:
    """Replace invisible formatting characters by visible escapes like '\\u202e'."""
    return INVISIBLE_CHARS.sub(lambda m: _escape(m.group()), text or "")


def printable(text: str | None) -> str:
    """Replace control (ESC included) and invisible characters by visible escapes like
    '\\x1b' and '\\u202e': text shown in a terminal reads as what it is."""
    if not text:
        return ""
    return UNSAFE_CHARS.sub(lambda m: _escape(m.group()), text)


def printable_offsets(text: str | None) -> tuple[str, list[int]]:
    """`printable(text)` and, for every offset 0..len(text) in `text`, the same place in the
    printable string: so spans computed on the stored text (topic evidence) still fit."""
    raw = text or ""
    shown: list[str] = []
    offsets: list[int] = []
    position = 0
    for ch in raw:
        offsets.append(position)
        piece = _escape(ch) if UNSAFE_CHARS.match(ch) else ch
        shown.append(piece)
        position += len(piece)
    offsets.append(position)
    return "".join(shown), offsets


def escape_unsafe_in_json(document: str) -> str:
    """Serialised JSON with every unsafe character written as a `\\uXXXX` escape.

    `json.dumps(ensure_ascii=False)` escapes only C0 controls; DEL, C1 (U+009B) and the
    invisible characters would go out raw. They can only occur inside JSON strings, where an
    escape means the same character: the document parses to exactly the same value.
    """
    return UNSAFE_CHARS.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def one_line(text: str | None, width: int) -> str:
    flat = " ".join(printable(text).split())
    if len(flat) <= width:
        return flat
    return flat[: max(width - 1, 0)] + "…"
