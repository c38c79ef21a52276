"""README's keys table and docs/user-guide.md's name every key help offers, and no key the app
does not have: both generated lists (help) and written ones (docs) come from the bindings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Tree

from digest_tui.tui.app import DigestApp
from digest_tui.tui.screens.help import describe, key_of
from digest_tui.tui.screens.lists_screen import ListsScreen
from digest_tui.tui.screens.paper_screen import PaperScreen
from digest_tui.tui.widgets.nav_tree import NavTree
from digest_tui.tui.widgets.paper_list import PaperList

ROOT = Path(__file__).resolve().parents[2]
DOCS = {
    "README.md": (ROOT / "README.md").read_text(encoding="utf-8"),
    "docs/user-guide.md": (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8"),
}
# Where the keys a reader presses live: the app, the list, the tree, the paper view, `L`.
HOLDERS = [DigestApp, PaperList, NavTree, Tree, PaperScreen, ListsScreen]
_BACKTICKED = re.compile(r"`([^`]+)`")


def keys_table(text: str) -> str:
    start = text.index("| key | action |")
    end = text.index("\n\n", start)
    return text[start:end]


def help_keys() -> set[str]:
    keys: set[str] = set()
    for holder in HOLDERS:
        for bindings in holder._merge_bindings().key_to_bindings.values():  # type: ignore[attr-defined]
            for binding in bindings:
                if describe(binding) is not None:
                    keys.update(key_of(binding).split())
    # The palette's key is added by Textual at run time (help shows it: "All commands").
    return keys | {DigestApp.COMMAND_PALETTE_BINDING}


def table_keys(table: str) -> set[str]:
    """Every key the table's first column names, `shift+←`/`shift+→` split at the slash."""
    keys: set[str] = set()
    for line in table.splitlines()[2:]:
        first = line.split(" | ", 1)[0].lstrip("| ")
        for quoted in _BACKTICKED.findall(first):
            keys.update(part for part in quoted.split("/") if part)
    return keys


@pytest.mark.parametrize("doc", sorted(DOCS))
def test_every_key_help_offers_is_in_the_keys_table(doc: str) -> None:
    table = keys_table(DOCS[doc])
    named = table_keys(table) | set(_BACKTICKED.findall(table))
    # The lists screen's `r`, `d` and `y` are worded inside `L`'s row.
    assert "`d` then `y`" in table
    missing = sorted(help_keys() - named)
    assert missing == [], missing


@pytest.mark.parametrize("doc", sorted(DOCS))
def test_every_key_in_the_keys_table_is_bound(doc: str) -> None:
    extra = sorted(table_keys(keys_table(DOCS[doc])) - help_keys())
    assert extra == [], extra
