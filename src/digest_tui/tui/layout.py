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

# The medium layout's tree and the least its list keeps (app.tcss: #panes.-medium).
MEDIUM_NAV_COLUMNS = 26
MEDIUM_LIST_MIN = 50
# A panel narrower than this wraps a paper's header and topic evidence every few words (at
# 100x30 it was ~22 columns): below it the panel is shown on demand only (`p`), and the list
# has the room.
PANEL_MIN_COLUMNS = 32
# The class on #panes while the panel is on demand; on the panel, that `p` showed it.
PANEL_ON_DEMAND_CLASS = "-panel-on-demand"
PANEL_SHOWN_CLASS = "-shown"


def layout_for_width(width: int) -> Layout:
    if width >= WIDE_FROM:
        return "wide"
    if width >= MEDIUM_FROM:
        return "medium"
    return "narrow"


def panel_on_demand(width: int) -> bool:
    """Whether at this width the panel is hidden until `p` shows it: in the medium layout when
    the tree and the list's least width leave it fewer than PANEL_MIN_COLUMNS (100-107
    columns). The narrow layout has no panel; the wide one always has room."""
    if layout_for_width(width) != "medium":
        return False
    return width - MEDIUM_NAV_COLUMNS - MEDIUM_LIST_MIN < PANEL_MIN_COLUMNS
