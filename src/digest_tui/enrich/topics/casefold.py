"""Lower-casing that keeps offsets: what the rules and the learned reader match on."""

from __future__ import annotations


def lower_same_length(text: str) -> str:
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    # A few characters ("İ") grow when lower-cased; keep those as they are so offsets hold.
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
