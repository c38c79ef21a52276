"""Which characters of a text some span already covers.

Overlap tests against every span seen so far made enrichment quadratic on long repetitive
text (a 460 kB abstract of one keyword took 68 s). Here marking a span and testing one cost the
span's length, in C (bytearray slice assignment and `find`), whatever was marked before.
"""

from __future__ import annotations


class Coverage:
    __slots__ = ("_any", "_marks")

    def __init__(self, size: int) -> None:
        self._marks = bytearray(size)
        self._any = False

    def __bool__(self) -> bool:
        return self._any

    def cover(self, start: int, end: int) -> None:
        if end > start:
            self._marks[start:end] = b"\x01" * (end - start)
            self._any = True

    def overlaps(self, start: int, end: int) -> bool:
        """Whether [start, end) shares a character with a covered span."""
        return self._any and self._marks.find(1, start, end) != -1

    def covers(self, position: int) -> bool:
        return self._any and 0 <= position < len(self._marks) and self._marks[position] == 1
