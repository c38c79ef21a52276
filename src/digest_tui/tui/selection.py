"""What the navigation tree selects, as a query: its own module so the view's helpers
(`navigation.py`) and the library service both use it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

from digest_tui.store.query import PaperQuery


@dataclass(frozen=True)
class Selection:
    """What the navigation tree has selected: all papers, a topic, a digest, ..."""

    kind: str = "all"  # all | today | topic | digest | bookmarks | unread | tag | list | new
    value: str | None = None
    label: str = "All papers"

    @property
    def key(self) -> tuple[str, str | None]:
        """What names the node (its label carries counts and may change between rebuilds)."""
        return (self.kind, self.value)

    def query(self, search: str = "") -> PaperQuery:
        # Filters are fields, never search syntax spliced into the box's text: a list named
        # `my "best" papers` is a name, not a phrase and two words.
        query = PaperQuery(search=search)
        if self.kind == "topic":
            query.topic = self.value
        elif self.kind == "digest":
            query.digest = self.value
        elif self.kind == "bookmarks":
            query.bookmarked = True
        elif self.kind == "unread":
            query.read = False
        elif self.kind == "tag":
            query.tag = self.value
        elif self.kind == "list":
            query.reading_list = self.value
        elif self.kind == "new":
            query.new_only = True
        return query
