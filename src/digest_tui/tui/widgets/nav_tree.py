"""The left pane: topics, digests by date, and (with user state) bookmarks, tags and lists."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from digest_tui.textsafe import printable
from digest_tui.tui.library_service import Selection, TreeData


def _label(name: str, count: int | None) -> Text:
    text = Text(printable(name))
    if count is not None:
        text.append(f" {count}", style="dim")
    return text


class NavTree(Tree[Selection]):
    """Selecting a node posts Tree.NodeHighlighted/NodeSelected carrying its Selection."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("Library", data=Selection(), id=id)
        self.show_root = False
        self.guide_depth = 2

    def populate(self, data: TreeData) -> None:
        """Rebuild the tree from fresh counts, keeping the highlighted selection."""
        keep = self.cursor_node.data if self.cursor_node is not None else None
        # A rebuild is not the user moving: keep the app's selection as it is.
        with self.prevent(Tree.NodeHighlighted):
            self._rebuild(data, keep)

    def _rebuild(self, data: TreeData, keep: Selection | None) -> None:
        self.clear()
        root = self.root
        root.add_leaf(_label("All papers", data.total), data=Selection())
        for kind, name, count in (
            ("new", "New since last visit", data.new),
            ("bookmarks", "Bookmarks", data.bookmarks),
            ("unread", "Unread", data.unread),
        ):
            root.add_leaf(_label(name, count), data=Selection(kind, None, name))
        # Ranked against the bookmarks when selected (LibraryService.for_you_rows).
        root.add_leaf(_label("For you", None), data=Selection("foryou", None, "For you"))
        topics = root.add("Topics", data=None, expand=True)
        for topic in data.topics:
            topics.add_leaf(
                _label(topic.label, topic.count),
                data=Selection("topic", topic.id, topic.label),
            )
        digests = root.add("Digests", data=None, expand=True)
        for digest in data.digests:
            digests.add_leaf(
                _label(digest.date, digest.count),
                data=Selection("digest", digest.id, f"Digest {digest.date}"),
            )
        self._add_group(root, "Tags", "tag", data.tags)
        self._add_group(root, "Reading lists", "list", data.lists)
        self._restore(keep)

    def _add_group(
        self, root: TreeNode[Selection], title: str, kind: str, items: Mapping[str, int]
    ) -> None:
        if not items:
            return
        group = root.add(title, data=None, expand=True)
        for name, count in items.items():
            group.add_leaf(_label(name, count), data=Selection(kind, name, f"{title}: {name}"))

    def _restore(self, keep: Selection | None) -> None:
        if keep is None:
            self.cursor_line = 0
            return

        def walk(node: TreeNode[Selection]) -> TreeNode[Selection] | None:
            for child in node.children:
                if child.data == keep:
                    return child
                found = walk(child)
                if found is not None:
                    return found
            return None

        found = walk(self.root)
        self.cursor_line = found.line if found is not None and found.line >= 0 else 0
