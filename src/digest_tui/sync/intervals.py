"""A union of closed integer intervals: which counters of a device this machine holds."""

from __future__ import annotations

from collections.abc import Iterable


class Intervals:
    """A union of closed integer intervals, kept merged and sorted."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self.spans: list[list[int]] = []
        for first, last in spans:
            self.add(first, last)

    def add(self, first: int, last: int) -> None:
        merged: list[list[int]] = []
        placed = False
        for span in self.spans:
            if span[1] + 1 < first:
                merged.append(span)
            elif last + 1 < span[0]:
                if not placed:
                    merged.append([first, last])
                    placed = True
                merged.append(span)
            else:
                first, last = min(first, span[0]), max(last, span[1])
        if not placed:
            merged.append([first, last])
        merged.sort()
        self.spans = merged

    def covers(self, first: int, last: int) -> bool:
        return any(a <= first and last <= b for a, b in self.spans)

    def overlaps(self, first: int, last: int) -> bool:
        return any(a <= last and first <= b for a, b in self.spans)

    def prefix(self) -> int:
        """N such that 1..N is covered (0 if 1 is not)."""
        if self.spans and self.spans[0][0] <= 1:
            return self.spans[0][1]
        return 0
