"""Property: another writer claiming a device's counters never costs that device its own ops.

Three honest machines share one folder; an impersonator drops segments into `aaaa`'s directory
claiming counters `aaaa` has used or is about to use, with ops of its own making. Hypothesis
interleaves edits on every machine, forgeries and syncs (full or not). Once `aaaa` has synced
with `--full` and everyone has synced twice, every machine must hold the same state, and every
op `aaaa` made itself must be on every machine with exactly the content `aaaa` gave it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from digest_tui.sync.segments import op_digest
from tests.support.state import BASE_MS, PAPERS
from tests.support.sync import Node

IDS = [p.id for p in PAPERS]

edit = st.tuples(st.just("edit"), st.integers(0, 2), st.integers(0, len(IDS) - 1), st.booleans())
forge = st.tuples(st.just("forge"), st.integers(0, 1), st.integers(0, len(IDS) - 1), st.booleans())
sync = st.tuples(st.just("sync"), st.integers(0, 2), st.booleans(), st.booleans())
steps = st.lists(st.one_of(edit, forge, sync), min_size=1, max_size=14)


def forge_segment(folder: Path, counter: int, paper: str, value: bool, nonce: int) -> None:
    op = {
        "v": 1,
        "op_id": f"aaaa:{counter}",
        "device": "aaaa",
        "counter": counter,
        "hlc": f"{BASE_MS + 10 + nonce:016d}-000000-aaaa",
        "kind": "bookmark",
        "paper": {"id": paper, "title_key": None, "arxiv": None},
        "list": None,
        "payload": {"value": value},
        "created_at": "2025-12-06T00:00:00+00:00",
    }
    head = {"segment": 1, "device": "aaaa", "first": counter, "last": counter, "count": 1}
    data = gzip.compress((json.dumps(head) + "\n" + json.dumps(op) + "\n").encode(), mtime=0)
    name = f"ops-{counter:012d}-{counter:012d}-{hashlib.sha256(data).hexdigest()}.jsonl.gz"
    directory = folder / "segments" / "aaaa"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data)


def newest_local_seq(node: Node) -> int:
    return int(node.conn.execute("SELECT coalesce(max(seq), 0) FROM ops").fetchone()[0])


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(steps)
def test_the_owners_own_ops_reach_everyone_whatever_an_impersonator_writes(plan):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "remote"
        nodes = [Node(name, folder) for name in ("aaaa", "bbbb", "cccc")]
        genuine: dict[str, str] = {}  # op id -> digest of every op aaaa made itself
        for number, step in enumerate(plan):
            if step[0] == "edit":
                _, who, paper, value = step
                before = newest_local_seq(nodes[who])
                nodes[who].state.bookmark(IDS[paper], value)
                if who == 0:  # the ops aaaa itself made, if any (a no-op edit makes none)
                    for (op_id,) in (
                        nodes[0]
                        .conn.execute("SELECT op_id FROM ops WHERE seq > ?", (before,))
                        .fetchall()
                    ):
                        op = nodes[0].engine.ledger.stored_ops([op_id])[op_id]
                        genuine[op_id] = op_digest(op)
            elif step[0] == "forge":
                _, ahead, paper, value = step
                used = (
                    nodes[0]
                    .conn.execute("SELECT coalesce(max(counter), 0) FROM ops WHERE device = 'aaaa'")
                    .fetchone()[0]
                )
                forge_segment(folder, max(1, used + ahead), IDS[paper], value, number)
            else:
                _, who, full, compact = step
                nodes[who].sync(full=full, compact=compact)
        nodes[0].sync(full=True)
        for _ in range(2):
            for node in nodes:
                node.sync()
        snapshots = [node.snapshot() for node in nodes]
        assert snapshots[0] == snapshots[1] == snapshots[2]
        for node in nodes:
            held = node.engine.ledger.stored_ops(list(genuine))
            assert {k: op_digest(v) for k, v in held.items()} == genuine, node.name
