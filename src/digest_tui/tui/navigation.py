"""Where the reader is: the remembered view (node, sort, panel), the list header's words, and
finding the next unread paper. Plain data and functions, no Textual: the app wires them in.
"""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from dataclasses import dataclass

from digest_tui.search_syntax import parse_search, short_word_hint
from digest_tui.textsafe import printable
from digest_tui.tui.selection import Selection

# The sorts `s` cycles through, and how the header says each.
SORTS = ("date", "upvotes", "stars", "title", "reproducible", "readiness")
_SORT_WORDS = {
    "date": "newest first",
    "upvotes": "most upvoted first",
    "stars": "most starred code first",
    "title": "by title",
    "reproducible": "reproducible on my machines first",
    "readiness": "most ready-to-run code first",
    "relevance": "best match first",
    "list": "in list order",
}
# The key that widens a search to the whole library (the app binds it; the header names it).
SEARCH_EVERYWHERE_KEY = "ctrl+g"


@dataclass(frozen=True)
class ViewPrefs:
    """What the app remembers between launches (meta `ui_prefs`, local: never synced).
    `selection` None: never remembered (a first launch), which opens the newest digest."""

    selection: Selection | None = None
    sort: str | None = None
    panel_hidden: bool = False

    def to_json(self) -> str:
        node = None
        if self.selection is not None:
            node = {
                "kind": self.selection.kind,
                "value": self.selection.value,
                "label": self.selection.label,
            }
        return json.dumps({"node": node, "sort": self.sort, "panel_hidden": self.panel_hidden})

    @classmethod
    def from_json(cls, text: str | None) -> ViewPrefs:
        """Lenient: a value this version does not understand is dropped, never fatal (the
        prefs of a newer or older version must not stop the app from opening)."""
        from digest_tui.jsonsafe import loads

        if not text:
            return cls()
        try:
            data = loads(text)
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        node = data.get("node")
        selection = None
        if isinstance(node, dict) and isinstance(node.get("kind"), str):
            value = node.get("value")
            label = node.get("label")
            selection = Selection(
                node["kind"],
                value if isinstance(value, str) else None,
                label if isinstance(label, str) else node["kind"],
            )
        sort = data.get("sort")
        return cls(
            selection=selection,
            sort=sort if sort in SORTS else None,
            panel_hidden=data.get("panel_hidden") is True,
        )


def latest_digest_view(date: str, today: str) -> Selection:
    """The view of the newest digest, named honestly: "Today" only when it is today's, else
    "Latest digest 2026-01-08" (a library not fetched for days must not claim to be today's)."""
    label = "Today" if date == today else f"Latest digest {date}"
    return Selection("today", None, label)


def tree_name(view: Selection) -> str:
    """A view's name in the tree, where the pane is narrow: "Latest 2026-01-08"."""
    return view.label.replace("Latest digest ", "Latest ", 1)


def effective_sort(selection: Selection, search: str, sort: str | None) -> str:
    """The order the list is really in: the chosen sort, else the view's own default."""
    from digest_tui.search_syntax import fts_query, parse_search

    if sort is not None:
        return sort
    parsed = parse_search(search)
    typed = next(iter(parsed.values("sort")), None)
    if typed is not None:
        return typed
    if fts_query(parsed) is not None:
        return "relevance"
    if selection.kind == "list":
        return "list"
    if selection.kind == "today":
        return "upvotes"
    return "date"


def sort_words(sort: str) -> str:
    return _SORT_WORDS.get(sort, f"by {sort}")


@dataclass(frozen=True)
class SearchScope:
    """What a search found beyond the rows: the view's size without the search, the matches
    in the whole library (None: the view is the whole library), and the filter warnings."""

    scope_total: int
    everywhere: int | None
    problems: tuple[str, ...] = ()


def list_header(
    selection: Selection, count: int, search: str, sort: str, scope: SearchScope | None
) -> str:
    """The line over the list: where, how many, in which order, and the search's scope.

    "All papers · 152 papers · newest first", or while searching
    "in Other: 0 of 12 papers match "flashmoe" · best match first · ctrl+g: search everywhere".
    Until the search's counts are in (`scope`, asked once typing pauses) the view's total is
    not known, and the line says only how many match, never a made-up "N of N".
    """
    order = sort_words(sort)
    if not search.strip():
        return f"{selection.label} · {plural(count, 'paper')} · {order}"
    if scope is None:
        matched = "1 paper matches" if count == 1 else f"{count} papers match"
    else:
        matched = f"{count} of {plural(scope.scope_total, 'paper')} match"
    text = f"in {selection.label}: {matched} "
    text += f"{printable(search.strip())!r} · {order}"
    hint = short_word_hint(parse_search(search))
    if hint is not None:
        text += f" · {printable(hint)}"
    if selection.kind != "all":
        text += f" · {SEARCH_EVERYWHERE_KEY}: search everywhere"
    return text


def search_notes(selection: Selection, count: int, scope: SearchScope | None) -> list[str]:
    """The lines under the search box: each filter problem as the CLI prints it, then a hint
    when this view has no match but the whole library has."""
    if scope is None:
        return []
    lines = [f"warning: search: {problem}" for problem in scope.problems]
    if count == 0 and scope.everywhere:
        lines.append(
            f"No match in {selection.label}, but {plural(scope.everywhere, 'paper')} in all "
            f"papers: press {SEARCH_EVERYWHERE_KEY} to search everywhere."
        )
    return lines


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# Views that hold every other view's papers: going there when a view runs out of unread papers
# would not move the reader on (newsboat goes to the next feed, not to "all articles"). "For you"
# is skipped too: it is a ranking of the whole library, not a place papers arrive in.
_AGGREGATE_KINDS = frozenset({"all", "unread", "foryou"})


def views_after(views: Sequence[Selection], current: Selection, step: int) -> list[Selection]:
    """The tree's views after (step 1) or before (step -1) `current`, wrapping around, without
    `current` and the aggregate views: where `.`/`,` look next for an unread paper."""
    keys = [view.key for view in views]
    start = keys.index(current.key) if current.key in keys else -1 if step > 0 else len(views)
    size = len(views)
    ordered = [views[(start + step * offset) % size] for offset in range(1, size + 1)]
    return [v for v in ordered if v.key != current.key and v.kind not in _AGGREGATE_KINDS]


def first_unread(rowids: Sequence[int], read: Container[int], step: int) -> int | None:
    """The first (step 1) or last (step -1) unread paper: where `.`/`,` land in a new view."""
    return next_unread(rowids, read, -1 if step > 0 else len(rowids), step) if rowids else None


def next_unread(rowids: Sequence[int], read: Container[int], cursor: int, step: int) -> int | None:
    """The index of the next (step 1) or previous (step -1) unread paper after `cursor` in a
    list of rowids (`read`: the rowids marked read), wrapping around the list; None when no
    paper is unread but the current one (or none)."""
    size = len(rowids)
    for offset in range(1, size + 1):
        index = (cursor + step * offset) % size
        if rowids[index] not in read and index != cursor:
            return index
    return None
