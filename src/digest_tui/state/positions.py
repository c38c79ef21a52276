"""Fractional positions for ordered reading lists.

Each member of a list has a position key: a string over base-62 digits that sorts (byte-wise,
as SQLite and Python compare text) in list order. Moving a member writes one new key between
its new neighbours, so a reorder is a single op that never renumbers the others, and two
devices reordering different members never conflict. Keys never end in '0', so there is always
room between two distinct keys.
"""

from __future__ import annotations

from digest_tui.errors import PositionError

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BASE = len(DIGITS)
_INDEX = {ch: i for i, ch in enumerate(DIGITS)}


def valid(key: str) -> bool:
    return bool(key) and not key.endswith("0") and all(ch in _INDEX for ch in key)


def key_between(before: str | None, after: str | None) -> str:
    """A key strictly between `before` and `after` (None = the start / the end of the list)."""
    low = before or ""
    if low and not valid(low):
        raise PositionError(f"bad position key {before!r}")
    if after is not None:
        if not valid(after):
            raise PositionError(f"bad position key {after!r}")
        if low >= after:
            raise PositionError(f"no key between {before!r} and {after!r}")
    return _midpoint(low, after)


def _midpoint(low: str, high: str | None) -> str:
    if high is not None:
        # Skip the common prefix (`low` padded with zeros).
        n = 0
        while n < len(high) and (low[n] if n < len(low) else "0") == high[n]:
            n += 1
        if n:
            return high[:n] + _midpoint(low[n:], high[n:])
    digit_low = _INDEX[low[0]] if low else 0
    digit_high = _INDEX[high[0]] if high is not None else _BASE
    if digit_high - digit_low > 1:
        if high is None:
            # Appending: step by one digit so keys stay short over many appends.
            return DIGITS[digit_low + 1]
        return DIGITS[(digit_low + digit_high + 1) // 2]
    if high is not None and len(high) > 1:
        return high[:1]
    return DIGITS[digit_low] + _midpoint(low[1:], None)


def spread(count: int) -> list[str]:
    """`count` evenly spaced keys of equal length, for renumbering a whole list."""
    if count <= 0:
        return []
    width = 1
    while _BASE**width <= count + 1:
        width += 1
    step = _BASE**width // (count + 1)
    keys = []
    for i in range(1, count + 1):
        value = i * step
        digits = []
        for _ in range(width):
            value, rem = divmod(value, _BASE)
            digits.append(DIGITS[rem])
        key = "".join(reversed(digits)).rstrip("0")
        keys.append(key)
    return keys
