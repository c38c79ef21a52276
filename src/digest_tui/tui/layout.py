"""Which layout a terminal width gets: the breakpoints of the main screen.

Kept apart from the app so the rule is one small pure function (and the user guide's table of
widths can be checked against it); `app.tcss` holds what each class looks like.
"""

from __future__ import annotations

from typing import Literal

Layout = Literal["wide", "medium", "narrow"]

# At 140 columns the three panes leave the list ~60; below that the tree narrows and the panel
# takes a third of what is left; below 100 even that starves the list, so only the list stays.
WIDE_FROM = 140
MEDIUM_FROM = 100

LAYOUT_CLASSES: dict[Layout, str] = {"wide": "-wide", "medium": "-medium", "narrow": "-narrow"}


def layout_for_width(width: int) -> Layout:
    if width >= WIDE_FROM:
        return "wide"
    if width >= MEDIUM_FROM:
        return "medium"
    return "narrow"
