"""`apply_ops` looks known ops up a chunk at a time, inserts new ones with one executemany and
recomputes papers 500 at a time (merge speed). Its results must stay those of applying the
same ops one at a time: same derived state, same duplicate and conflict decisions, also for
two copies of one op inside a single call."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from digest_tui.errors import OpsError
from digest_tui.state.log import apply_ops
from digest_tui.state.materialise import derived_snapshot
from tests.support.state import make_paper, replica

PAPERS = [make_paper(f"Batched merge paper {i}", f"2502.{i:05d}") for i in range(1200)]


@pytest.fixture(scope="module")
def writer_ops():
    """Ops of one device touching ~980 of 1,200 papers: two recompute chunks of 500."""
    rng = random.Random(7)
    writer = replica(PAPERS, device="writer")
    ids = [p.id for p in PAPERS]
    for n in range(2500):
        paper = rng.choice(ids)
        action = n % 5
        if action == 0:
            writer.state.bookmark(paper)
        elif action == 1:
            writer.state.set_read(paper)
        elif action == 2:
            writer.state.add_tags(paper, [rng.choice(["moe", "kernels", "todo"])])
        elif action == 3:
            writer.state.set_note(paper, f"note {n}")
        else:
            writer.state.remove_tags(paper, ["todo"])
    writer.state.create_list("reading")
    writer.state.add_to_list("reading", ids[:30])
    return writer.ops()


def test_one_call_gives_the_state_of_one_op_at_a_time(writer_ops):
    together, one_by_one = replica(PAPERS, device="a"), replica(PAPERS, device="b")
    report = apply_ops(together.conn, writer_ops, wall=together.wall)
    assert (
        report.applied == len(writer_ops) and len(report.papers) > 900
    )  # two recompute chunks of 500
    for op in writer_ops:
        apply_ops(one_by_one.conn, [op], wall=one_by_one.wall)
    assert derived_snapshot(together.conn) == derived_snapshot(one_by_one.conn)
    # and again: every op is now a duplicate, nothing changes
    again = apply_ops(together.conn, writer_ops, wall=together.wall)
    assert (again.applied, again.duplicates) == (0, len(writer_ops))


def test_two_copies_of_an_op_in_one_call(writer_ops):
    r = replica(PAPERS, device="a")
    op = writer_ops[0]
    report = apply_ops(r.conn, [op, op], wall=r.wall)
    assert (report.applied, report.duplicates) == (1, 1)


def test_two_versions_of_an_op_in_one_call_apply_nothing(writer_ops):
    r = replica(PAPERS, device="a")
    op = writer_ops[0]
    other = dataclasses.replace(op, payload={"value": not op.payload["value"]})
    with pytest.raises(OpsError, match="different content"):
        apply_ops(r.conn, [writer_ops[1], op, other], wall=r.wall)
    assert r.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 0


def test_batches_that_meet_stored_ops_derive_what_a_rebuild_derives(writer_ops):
    """A merge derives each paper from its ops stored before the merge plus the ones it holds
    in memory (materialise.Arrived), not by reading them all back: across uneven batches in
    shuffled order, with duplicates, the result is what recomputing every paper and list from
    the whole log gives."""
    from digest_tui.state.materialise import rebuild_derived

    r = replica(PAPERS, device="a")
    shuffled = list(writer_ops)
    random.Random(11).shuffle(shuffled)
    cuts = [0, 7, 900, 901, 2000, len(shuffled)]
    for start, end in itertools.pairwise(cuts):
        apply_ops(r.conn, shuffled[start:end] + shuffled[: start // 3], wall=r.wall)
    merged = derived_snapshot(r.conn)
    rebuild_derived(r.conn)
    assert derived_snapshot(r.conn) == merged
    one_call = replica(PAPERS, device="b")
    apply_ops(one_call.conn, writer_ops, wall=one_call.wall)
    assert derived_snapshot(one_call.conn) == merged
