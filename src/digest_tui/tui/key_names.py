"""Keys as a person types them: `?`, `/`, `ctrl+p`, `pgdn`, never Textual's internal names
(`question_mark`, `slash`) or its compact signs (`^p`)."""

from __future__ import annotations

_TYPED = {
    "question_mark": "?",
    "slash": "/",
    "backslash": "\\",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "left_curly_bracket": "{",
    "right_curly_bracket": "}",
    "comma": ",",
    "full_stop": ".",
    "minus": "-",
    "plus": "+",
    "equals_sign": "=",
    "exclamation_mark": "!",
    "number_sign": "#",
    "colon": ":",
    "semicolon": ";",
    "apostrophe": "'",
    "quotation_mark": '"',
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "pagedown": "pgdn",
    "pageup": "pgup",
    "escape": "esc",
    "delete": "del",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
}

# A modifier a terminal rarely delivers (the Cmd key of macOS): a key needing it is one the
# reader cannot type, so help does not offer it.
UNTYPABLE_MODIFIERS = frozenset({"super", "hyper", "meta"})


def typed_key(key: str) -> str:
    """'question_mark' -> '?', 'ctrl+pagedown' -> 'ctrl+pgdn', 'R' -> 'R'."""
    *modifiers, name = key.split("+") if key != "+" else [key]
    return "+".join([*modifiers, _TYPED.get(name, name)])


def typable(key: str) -> bool:
    """False for keys that need a modifier terminals do not send (super+c)."""
    return not UNTYPABLE_MODIFIERS & set(key.split("+")[:-1])
