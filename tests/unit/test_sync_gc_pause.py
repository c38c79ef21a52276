"""The cyclic collector is off while a sync runs and back in its former state afterwards."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from digest_tui.sync.gc_pause import collection_paused
from digest_tui.sync.remote import FolderRemote
from tests.support.state import PAPERS
from tests.support.sync import Node


def test_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_error() -> None:
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_nested_pause_leaves_it_off_until_the_outer_one_ends() -> None:
    with collection_paused():
        with collection_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_left_off_when_it_was_off_before() -> None:
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


class WatchingFolder(FolderRemote):
    """A folder remote that notes whether the collector was on at each read."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.collector_on: list[bool] = []

    def read(self, path: str, max_bytes: int) -> bytes:
        self.collector_on.append(gc.isenabled())
        return super().read(path, max_bytes)


def test_a_sync_runs_with_the_collector_paused_and_restores_it(tmp_path: Path) -> None:
    folder = tmp_path / "remote"
    a = Node("aaaa", folder)
    a.state.bookmark(PAPERS[0].id)
    a.sync()
    watching = WatchingFolder(folder)
    b = Node("bbbb", folder, remote=watching)
    assert b.sync().applied == 1
    assert watching.collector_on and not any(watching.collector_on)
    assert gc.isenabled()
