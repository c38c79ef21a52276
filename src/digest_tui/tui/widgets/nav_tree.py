"""The left pane: topics, digests by date, and (with user state) bookmarks, tags and lists."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from digest_tui.textsafe import printable
from digest_tui.tui.library_service import Selection, TreeData
from digest_tui.tui.navigation import latest_digest_view, tree_name


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

    # How long keys typed into the tree before its first fill are held (see `_on_key`): far
    # more than a start-up takes, so only a start-up that failed gives them back unfilled.
    TYPEAHEAD_SECONDS = 5.0

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("Library", data=Selection(), id=id)
        self.show_root = False
        self.guide_depth = 2
        # Keys typed into the tree before the start-up first filled it; None once filled.
        self._typeahead: list[events.Key] | None = []

    async def _on_key(self, event: events.Key) -> None:
        """Until the start-up fills the tree (its counts come after the first frame: about a
        second, more on a large library), keys typed into it are held and sent again, in order,
        once it is filled, so that `\\ j j j` right after a launch lands where the reader meant
        rather than moving in an empty tree. Every key is held, not only the tree's own, so
        none overtakes the moves before it; quitting is never held."""
        # Not held: the dispatcher goes on to Widget._on_key (it calls each class's handler).
        if self._typeahead is None or event.key in self._quit_keys():
            return
        event.stop()
        event.prevent_default()
        if not self._typeahead:
            self.set_timer(self.TYPEAHEAD_SECONDS, self._replay_typeahead)
        self._typeahead.append(event)

    def _quit_keys(self) -> set[str]:
        """The app's keys bound to quitting (`q`): a reader who quits at once must not wait."""
        return {b.key for b in self.app.BINDINGS if isinstance(b, Binding) and b.action == "quit"}

    def _replay_typeahead(self) -> None:
        """Send the held keys again as if typed now, once (the first fill, or the timer). Not
        when the reader has left the tree meanwhile (`/` to search): they were meant for it."""
        held, self._typeahead = self._typeahead, None
        if not held or not self.has_focus:
            return
        for event in held:
            self.app.simulate_key(event.key)

    def populate(self, data: TreeData, keep: Selection | None = None) -> Selection | None:
        """Rebuild the tree from fresh counts, keeping the highlighted node (or putting the
        cursor on `keep`: the node remembered from the last launch)."""
        if keep is None and self.cursor_node is not None:
            keep = self.cursor_node.data
        # A rebuild is not the user moving: keep the app's selection as it is.
        with self.prevent(Tree.NodeHighlighted):
            self._rebuild(data, keep)
        if self._typeahead is not None:
            self.call_after_refresh(self._replay_typeahead)
        # What the cursor is on now: `keep`, or "All papers" when that node is gone (the last
        # paper left a tag, a list was deleted).
        return self.cursor_node.data if self.cursor_node is not None else None

    def _rebuild(self, data: TreeData, keep: Selection | None) -> None:
        self.clear()
        root = self.root
        root.add_leaf(_label("All papers", data.total), data=Selection())
        if data.today is not None:
            latest = latest_digest_view(data.today.date, dt.date.today().isoformat())
            root.add_leaf(_label(tree_name(latest), data.today.count), data=latest)
        for kind, name, count in (
            ("new", "New since last visit", data.new),
            ("bookmarks", "Bookmarks", data.bookmarks),
            ("unread", "Unread", data.unread),
        ):
            root.add_leaf(_label(name, count), data=Selection(kind, None, name))
        # Ranked against the bookmarks when selected (LibraryService.for_you_rows); under it,
        # one node per tag ranks against that tag's papers instead (collapsed: expand it).
        for_you = Selection("foryou", None, "For you")
        if data.tags:
            node = root.add(_label("For you", None), data=for_you, expand=False)
            for name in data.tags:
                node.add_leaf(
                    _label(f"like tag {name}", None),
                    data=Selection("foryou", name, f"For you: like tag {name}"),
                )
        else:
            root.add_leaf(_label("For you", None), data=for_you)
        topics = root.add("Topics", data=None, expand=True)
        for topic in data.topics:
            topics.add_leaf(
                _label(topic.label, topic.count),
                data=Selection("topic", topic.id, topic.label),
            )
        digests = root.add("Digests", data=None, expand=True)
        for digest in data.digests:
            name = digest.date
            if digest.id.startswith("arxiv-"):  # arxiv-cs.DC-2025-06-04: say which listing
                name += f" arXiv {digest.id[6:-11]}"
            digests.add_leaf(
                _label(name, digest.count),
                data=Selection("digest", digest.id, f"Digest {name}"),
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

    def find(self, key: Selection) -> TreeNode[Selection] | None:
        """The node selecting `key` (by kind and value: a label may have changed), if any."""

        def walk(node: TreeNode[Selection]) -> TreeNode[Selection] | None:
            for child in node.children:
                if child.data is not None and child.data.key == key.key:
                    return child
                found = walk(child)
                if found is not None:
                    return found
            return None

        return walk(self.root)

    def views(self) -> list[Selection]:
        """Every view the tree offers, in the order it shows them (groups' titles skipped)."""
        found: list[Selection] = []

        def walk(node: TreeNode[Selection]) -> None:
            for child in node.children:
                if child.data is not None and child is not self.root:
                    found.append(child.data)
                walk(child)

        walk(self.root)
        return found

    def _restore(self, keep: Selection | None) -> None:
        found = self.find(keep) if keep is not None else None
        if found is not None and found.parent is not None and not found.parent.is_expanded:
            found.parent.expand()  # "For you" ranked against a tag: its node sits in there
        # Node lines are numbered when the tree lays its lines out, lazily: until then every
        # node's line is -1 (which is why the cursor used to fall back to "All papers" after
        # each rebuild). Asking for the last line lays them out now.
        if self.last_line < 0 or found is None:
            self.cursor_line = 0
            return
        self.move_cursor(found)
