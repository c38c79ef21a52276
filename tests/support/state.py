"""Helpers for the user-state tests: small libraries ("replicas") with their own device id and
a settable wall clock, so ops can be exchanged between them as sync will."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from digest_tui.ids import paper_id
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.state.log import apply_ops, ops_since
from digest_tui.state.model import Op
from digest_tui.state.user_state import UserState
from digest_tui.store.db import connect
from digest_tui.store.library import Library

DAY_MS = 86_400_000
BASE_MS = 1_765_000_000_000  # December 2025


def make_paper(title: str, arxiv: str | None = None, **extra) -> Paper:
    return Paper(id=paper_id(title, arxiv), title=title, arxiv_id=arxiv, **extra)


PAPERS = [
    make_paper("FlashAttention-3: Fast and Accurate Attention", "2407.08608"),
    make_paper("DeepSeek-V3 Technical Report", "2412.19437"),
    make_paper("Megatron-LM: Training Multi-Billion Parameter Models"),
    make_paper("vLLM: Efficient Memory Management for LLM Serving"),
    make_paper("Switch Transformers: Scaling to Trillion Parameter Models", "2101.03961"),
]


class Wall:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        self.ms += 1  # every reading moves time on a little, like a real clock
        return self.ms


def import_papers(library: Library, papers: Sequence[Paper], day: str = "2025-12-10") -> None:
    digest = Digest(id=f"test-{day}", source="test", date=dt.date.fromisoformat(day), title=day)
    library.import_parsed(ParsedDigest(digest=digest, papers=list(papers)))


@dataclass
class Replica:
    library: Library
    state: UserState
    wall: Wall

    @property
    def conn(self):  # type: ignore[no-untyped-def]
        return self.library.conn

    def ops(self) -> list[Op]:
        return ops_since(self.conn, {})

    def pull(self, other: Replica) -> None:
        """Apply every op `other` has (what a full sync from `other` does)."""
        apply_ops(self.conn, other.ops(), wall=self.wall)


def replica(
    papers: Sequence[Paper] = PAPERS, *, skew_ms: int = 0, device: str | None = None, path=None
) -> Replica:
    library = Library(connect(path or ":memory:"), None)
    if device is not None:
        library.conn.execute("UPDATE meta SET value = ? WHERE key = 'device_id'", (device,))
        library.conn.execute("UPDATE clock SET device = ?", (device,))
    if papers:
        import_papers(library, papers)
    wall = Wall(BASE_MS + skew_ms)
    return Replica(library, UserState(library, wall=wall), wall)
