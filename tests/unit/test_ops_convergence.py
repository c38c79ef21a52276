"""Property: derived state is a function of the set of ops.

Random user actions on three replicas with skewed clocks, with random partial syncs between
them, produce an op log. Applying that log to a fresh library in any order, in any batches,
with duplicates, and even before the papers themselves are imported, gives the same state;
and the replicas, once fully synced, agree with it."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from digest_tui.errors import OpsError
from digest_tui.state.log import apply_ops
from digest_tui.state.materialise import derived_snapshot
from tests.support.state import DAY_MS, PAPERS, import_papers, replica

IDS = [p.id for p in PAPERS]
TAGS = ["kernels", "moe", "todo"]
LISTS = ["thesis", "later"]
NOTES = ["", "first", "second thought", "third"]

paper = st.integers(0, len(IDS) - 1)
who = st.integers(0, 2)
action = st.one_of(
    st.tuples(st.just("bookmark"), who, paper, st.booleans()),
    st.tuples(st.just("read"), who, paper, st.booleans()),
    st.tuples(st.just("tag"), who, paper, st.sampled_from(TAGS)),
    st.tuples(st.just("untag"), who, paper, st.sampled_from(TAGS)),
    st.tuples(st.just("note"), who, paper, st.sampled_from(NOTES), st.booleans()),
    st.tuples(st.just("resolve"), who, paper),
    st.tuples(st.just("list_create"), who, st.sampled_from(LISTS)),
    st.tuples(st.just("list_delete"), who, st.sampled_from(LISTS)),
    st.tuples(st.just("list_rename"), who, st.sampled_from(LISTS), st.sampled_from(LISTS)),
    st.tuples(st.just("list_add"), who, st.sampled_from(LISTS), paper),
    st.tuples(st.just("list_remove"), who, st.sampled_from(LISTS), paper),
    st.tuples(st.just("list_move"), who, st.sampled_from(LISTS), paper, st.integers(1, 5)),
    st.tuples(st.just("sync"), who, who),
    st.tuples(st.just("sleep"), who, st.integers(0, 5000)),
)


def run(replicas, step) -> None:
    kind, r = step[0], replicas[step[1]]
    s = r.state
    try:
        if kind == "bookmark":
            s.bookmark(IDS[step[2]], step[3])
        elif kind == "read":
            s.set_read(IDS[step[2]], step[3])
        elif kind == "tag":
            s.add_tags(IDS[step[2]], [step[3]])
        elif kind == "untag":
            s.remove_tags(IDS[step[2]], [step[3]])
        elif kind == "note":
            # A stale editor saw no version at all: its save conflicts with what exists.
            s.set_note(IDS[step[2]], step[3], replaces=[] if step[4] else None)
        elif kind == "resolve":
            versions = s.note(IDS[step[2]]).versions
            if versions:
                s.resolve_note_conflict(IDS[step[2]], keep=versions[-1].version)
        elif kind == "list_create":
            s.create_list(step[2])
        elif kind == "list_delete":
            s.delete_list(step[2])
        elif kind == "list_rename":
            s.rename_list(step[2], step[3])
        elif kind == "list_add":
            s.add_to_list(step[2], [IDS[step[3]]])
        elif kind == "list_remove":
            s.remove_from_list(step[2], [IDS[step[3]]])
        elif kind == "list_move":
            s.move_in_list(step[2], IDS[step[3]], index=step[4])
        elif kind == "sync":
            r.pull(replicas[step[2]])
        elif kind == "sleep":
            r.wall.ms += step[2]
    except OpsError:
        pass  # e.g. no such list on this replica yet: the user would see an error


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(steps=st.lists(action, min_size=1, max_size=40), seed=st.integers(0, 2**32 - 1))
def test_any_order_any_duplicates_same_state(steps, seed):
    replicas = [
        replica(device="a"),
        replica(device="b", skew_ms=-2 * DAY_MS),
        replica(device="c", skew_ms=3 * DAY_MS),
    ]
    for step in steps:
        run(replicas, step)
    log = {op.op_id: op for r in replicas for op in r.ops()}
    ops = list(log.values())

    reference = replica(device="ref")
    apply_ops(reference.conn, sorted(ops, key=lambda op: op.op_id))
    expected = derived_snapshot(reference.conn)

    rng = random.Random(seed)
    shuffled = ops + rng.sample(ops, k=len(ops) // 2)  # duplicates
    rng.shuffle(shuffled)
    batches = replica(device="bat")
    while shuffled:
        cut = rng.randint(1, max(1, len(shuffled)))
        apply_ops(batches.conn, shuffled[:cut])
        shuffled = shuffled[cut:]
    assert derived_snapshot(batches.conn) == expected

    # Ops first, papers later: every op waits, then applies as its paper arrives.
    early = replica([], device="early")
    apply_ops(early.conn, rng.sample(ops, k=len(ops)))
    for p in rng.sample(PAPERS, k=len(PAPERS)):
        import_papers(early.library, [p], day="2025-12-1" + str(PAPERS.index(p)))
    assert derived_snapshot(early.conn) == expected

    for r in replicas:
        for other in replicas:
            r.pull(other)
        assert derived_snapshot(r.conn) == expected
