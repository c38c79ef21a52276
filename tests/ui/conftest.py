"""Helpers for driving the app with Textual's Pilot."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.pilot import Pilot

from digest_tui.tui.widgets.nav_tree import NavTree


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Let workers (which start other workers) and the messages they post run to the end."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def tree_nodes(tree: NavTree) -> Iterator[Any]:
    """Every node of the navigation tree, breadth first."""
    stack = list(tree.root.children)
    while stack:
        node = stack.pop(0)
        yield node
        stack.extend(node.children)


def find_node(tree: NavTree, kind: str, value: str | None) -> Any:
    for node in tree_nodes(tree):
        if node.data is not None and node.data.kind == kind and node.data.value == value:
            return node
    raise AssertionError(f"no tree node {kind}:{value}")


def labels(tree: NavTree) -> dict[str, str]:
    """Node label without its count -> label with it ("Bookmarks" -> "Bookmarks 1")."""
    return {str(n.label).rsplit(" ", 1)[0]: str(n.label) for n in tree_nodes(tree)}
