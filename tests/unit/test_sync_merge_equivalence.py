"""A fresh machine's merge through sync gives exactly what applying the same ops one at a time
gives (state/log.py's documented semantics: every op stored once, each touched paper and list
derived from all of its ops), in any order.

The merge path is the fast one (segments decoded in batches that share objects, ops applied
many at a time, papers derived from the ops held in memory); applying one op per call takes the
other path (each paper's earlier ops read back from SQLite). Both must agree on every op stored
and on every row of derived state, on a history like the benchmark's at a small scale: three
devices with skewed clocks, bookmarks, read marks, tags added and removed (also across devices),
concurrent note edits, reading lists, and ops for a paper the reader does not hold.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from digest_tui.state.log import apply_ops
from digest_tui.state.materialise import derived_snapshot, rebuild_derived
from digest_tui.state.model import Op
from digest_tui.sync import exchange
from tests.support.state import DAY_MS, Replica, make_paper, replica
from tests.support.sync import Node

PAPERS = [make_paper(f"Merge equivalence paper {i}", f"2502.{i:05d}") for i in range(24)]
MISSING = PAPERS[-2:]  # the reader lacks these: their ops wait (pending)
READER_PAPERS = PAPERS[: -len(MISSING)]
TAGS = ["moe", "kernels", "todo", "serving", "fp8"]


def act(node: Node, rng: random.Random, count: int) -> None:
    """`count` random user actions on one device."""
    state = node.state
    for _ in range(count):
        paper = rng.choice(PAPERS).id
        roll = rng.random()
        if roll < 0.25:
            state.bookmark(paper, rng.random() < 0.7)
        elif roll < 0.45:
            state.set_read(paper, rng.random() < 0.8)
        elif roll < 0.65:
            state.add_tags(paper, rng.sample(TAGS, 2))
        elif roll < 0.75:
            state.remove_tags(paper, [rng.choice(TAGS)])
        elif roll < 0.85:
            # replaces=[] now and then: an edit made without seeing the current version.
            replaces = [] if rng.random() < 0.3 else None
            state.set_note(paper, f"note {rng.randrange(1000)} on {node.name}", replaces=replaces)
        else:
            name = f"list-{node.name}-{rng.randrange(2)}"
            if name not in {info.name for info in state.lists()}:
                state.create_list(name)
            state.add_to_list(name, [paper])
            if rng.random() < 0.3:
                state.remove_from_list(name, [paper])


def ops_dump(replica_or_node: Any) -> list[tuple[Any, ...]]:
    """Every stored op as sync exchanges it, with the paper it resolved to named by id."""
    return sorted(
        tuple(row)
        for row in replica_or_node.conn.execute(
            "SELECT o.op_id, o.device, o.counter, o.hlc, o.kind, o.paper_id, o.title_key, "
            "o.arxiv_id, o.list_id, o.payload, o.created_at, p.id FROM ops o "
            "LEFT JOIN papers p ON p.rowid = o.paper_rowid"
        )
    )


@pytest.fixture
def history(tmp_path) -> tuple[Node, list[Op]]:
    """Three devices' ops on a folder remote; a reader that has not synced yet; all the ops."""
    rng = random.Random(20251231)
    folder = tmp_path / "remote"
    devices = [
        Node(name, folder, papers=PAPERS, skew_ms=skew, compact_at=10_000)
        for name, skew in (("dev0", 0), ("dev1", 3 * DAY_MS), ("dev2", -2 * DAY_MS))
    ]
    for round_ in range(3):
        for node in devices:
            act(node, rng, 60)
        if round_ < 2:  # some ops made after seeing others' (removes naming others' adds)
            for node in devices:
                node.sync()
    for node in devices:
        node.sync()
    reader = Node("reader", folder, papers=READER_PAPERS)
    # Each device's own ops, from the device itself (the last to sync has not seen the others').
    every_op = [op for node in devices for op in node.replica.ops() if op.device == node.name]
    assert {op.device for op in every_op} == {"dev0", "dev1", "dev2"}
    return reader, every_op


def one_at_a_time(ops: list[Op]) -> Replica:
    target = replica(READER_PAPERS, device="ref")
    for op in ops:
        apply_ops(target.conn, [op], wall=target.wall)
    return target


def test_sync_merge_equals_applying_each_op_alone_in_any_order(history, monkeypatch) -> None:
    reader, every_op = history
    # Small batches: papers whose ops span batches are derived from ops stored by an earlier
    # batch plus the ones just arrived.
    monkeypatch.setattr(exchange, "BATCH_OPS", 97)
    report = reader.sync()
    assert report.applied == len(every_op) > 300
    assert report.pending > 0  # ops for MISSING wait for their papers

    shuffled = list(every_op)
    random.Random(7).shuffle(shuffled)
    references = [one_at_a_time(every_op), one_at_a_time(shuffled[::-1])]
    merged = derived_snapshot(reader.conn)
    for reference in references:
        assert derived_snapshot(reference.conn) == merged
        assert ops_dump(reference) == ops_dump(reader)

    # Not a vacuous comparison: the history has every kind of state, conflicts included.
    assert merged["paper_tags"] and merged["list_items"] and merged["search_extra"]
    assert any(row[-1] > 0 for row in merged["paper_state"])  # a note with a conflict
    assert any(row[1] == 1 for row in merged["paper_state"])  # bookmarked
    assert len(merged["lists"]) >= 3

    # And a rebuild from the log alone agrees with what the merge wrote.
    rebuild_derived(reader.conn)
    assert derived_snapshot(reader.conn) == merged


def test_one_batch_merge_equals_many_small_batches(history, monkeypatch, tmp_path) -> None:
    reader, every_op = history
    report = reader.sync()  # the default batch holds the whole history
    assert report.applied == len(every_op)
    small = Node("small", reader.folder, papers=READER_PAPERS)
    monkeypatch.setattr(exchange, "BATCH_OPS", 1)
    assert small.sync().applied == len(every_op)
    assert derived_snapshot(small.conn) == derived_snapshot(reader.conn)
    assert ops_dump(small) == ops_dump(reader)
    # Nothing new: the merged state is left as it is.
    again = reader.sync(full=True)
    assert again.applied == 0
    assert derived_snapshot(reader.conn) == derived_snapshot(small.conn)
