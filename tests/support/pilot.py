"""Helpers for driving the app with Textual's Pilot and reading what it showed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.nav_tree import NavTree


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


def notices(app: Any) -> list[str]:
    """The text of every notice the app showed (DigestApp.notices_shown), oldest first."""
    return [notice.text for notice in app.notices_shown]


def toast_texts(app: Any) -> list[str]:
    """The plain text of the toasts on screen now (Textual's Toast widgets, by type name)."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


def assert_literal_toasts(app: Any) -> None:
    """Every toast on screen shows a notice's text exactly (no markup was read in it), and
    none carries a click action."""
    shown = notices(app)
    for toast in app.screen.query("Toast"):
        content = toast.render()
        assert any(text in str(content) for text in shown), (str(content), shown)
        for span in content.spans:
            style = span.style
            meta = getattr(style, "meta", None) or {}
            assert "@click" not in meta and "@click" not in str(style)


def offline_app(config: str = "") -> DigestApp:
    """The app on the test's home (the sample library) with no repo-health lookups, so that
    nothing it shows depends on the network or its timing; `config` is more of config.yaml."""
    ctx = AppContext()
    ctx.paths.config_file.write_text("repo_health: false\n" + config, encoding="utf-8")
    return DigestApp(ctx)
