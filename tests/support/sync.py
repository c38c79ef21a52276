"""Helpers for the sync tests: replicas (tests/unit/state_support.py) with sync engines on a
folder remote, and remotes that fail on purpose."""

from __future__ import annotations

from pathlib import Path

from digest_tui.errors import RemoteError
from digest_tui.state.materialise import derived_snapshot
from digest_tui.sync.engine import SyncEngine, init_remote
from digest_tui.sync.remote import FolderRemote
from tests.support.state import PAPERS, Replica, replica


class Node:
    """One machine: a replica and its sync engine on a folder."""

    def __init__(
        self,
        name: str,
        folder: Path,
        *,
        skew_ms: int = 0,
        papers=PAPERS,  # type: ignore[no-untyped-def]
        compact_at: int = 8,
        remote: FolderRemote | None = None,
    ) -> None:
        self.name = name
        self.folder = folder
        self.replica: Replica = replica(papers, skew_ms=skew_ms, device=name)
        self.remote = remote or FolderRemote(folder)
        init_remote(self.replica.library, str(folder), remote=self.remote, label=name)
        self.engine = SyncEngine(
            self.replica.library, self.remote, wall=self.replica.wall, compact_at=compact_at
        )

    @property
    def state(self):  # type: ignore[no-untyped-def]
        return self.replica.state

    @property
    def conn(self):  # type: ignore[no-untyped-def]
        return self.replica.conn

    def sync(self, **options):  # type: ignore[no-untyped-def]
        return self.engine.sync(**options)

    def snapshot(self) -> dict:
        return derived_snapshot(self.conn)

    def op_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM ops").fetchone()[0])

    def unsynced(self) -> int:
        return int(
            self.conn.execute(
                "SELECT count(*) FROM ops WHERE origin = 'local' AND synced = 0"
            ).fetchone()[0]
        )


class FailingFolder(FolderRemote):
    """A folder whose writes of segments fail: before writing, or after (answer lost)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.fail: str | None = None  # "before" or "after"

    def write(self, path: str, data: bytes) -> None:
        if self.fail and "/ops-" in path:
            if self.fail == "before":
                raise RemoteError(f"{self.description}: cannot write {path}: disk on fire")
            super().write(path, data)
            raise RemoteError(f"{self.description}: connection lost after writing {path}")
        super().write(path, data)


def converge(*nodes: Node, rounds: int = 2) -> None:
    for _ in range(rounds):
        for node in nodes:
            node.sync()


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
