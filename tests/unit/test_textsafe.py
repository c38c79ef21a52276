"""textsafe: the one definition of characters that must not reach an output raw."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from digest_tui.textsafe import escape_unsafe_in_json, printable, printable_offsets

DANGEROUS = [
    "\x1b",
    "\x9b",
    "\x7f",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
]


def test_printable_makes_every_dangerous_character_visible():
    for ch in DANGEROUS:
        shown = printable(f"a{ch}b")
        assert ch not in shown
        expected = f"\\x{ord(ch):02x}" if ord(ch) <= 0xFF else f"\\u{ord(ch):04x}"
        assert shown == f"a{expected}b"
    assert printable("tab\tand\nnewline, Mélange, 日本語, [b]x[/b]") == (
        "tab\tand\nnewline, Mélange, 日本語, [b]x[/b]"
    )


def test_offsets_follow_the_escapes():
    shown, offsets = printable_offsets("ab\u202ecd")
    assert shown == "ab\\u202ecd"
    assert shown[offsets[3] : offsets[5]] == "cd"
    assert offsets[0] == 0 and offsets[5] == len(shown)


@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_json_escapes_parse_back_to_the_same_value(value):
    document = escape_unsafe_in_json(json.dumps(value, ensure_ascii=False))
    assert json.loads(document) == value
    assert not any(ch in document for ch in DANGEROUS)
