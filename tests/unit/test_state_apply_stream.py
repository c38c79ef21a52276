"""`apply_ops` hands SQLite its rows as it makes them (a merge never holds all 100,000 rows): a
refusal met half-way through undoes the rows already inserted, also inside a transaction the
caller keeps open, so "nothing was applied" stays true."""

from __future__ import annotations

import dataclasses

import pytest

from digest_tui.errors import OpsError
from digest_tui.state.log import apply_ops
from digest_tui.state.materialise import derived_snapshot
from digest_tui.store.db import transaction
from tests.support.state import make_paper, replica

PAPERS = [make_paper(f"Streamed apply paper {i}", f"2503.{i:05d}") for i in range(20)]


def writer_ops() -> list:
    writer = replica(PAPERS, device="writer")
    for paper in PAPERS[:10]:
        writer.state.bookmark(paper.id)
        writer.state.add_tags(paper.id, ["moe"])
    return writer.ops()


def test_a_refusal_after_new_ops_leaves_none_of_them_in_the_callers_transaction() -> None:
    ops = writer_ops()
    reader = replica(PAPERS, device="reader")
    apply_ops(reader.conn, ops[-1:], wall=reader.wall)
    before = derived_snapshot(reader.conn)
    forged = dataclasses.replace(ops[-1], payload={"tag": "other"})
    with transaction(reader.conn):
        # Ten new ops come before the copy that differs from the stored one.
        with pytest.raises(OpsError, match="different content"):
            apply_ops(reader.conn, [*ops[:10], forged], wall=reader.wall)
        # The caller goes on in its transaction and commits what it did itself.
        assert reader.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 1
    assert reader.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 1
    assert derived_snapshot(reader.conn) == before
    # and the same ops, without the forged copy, apply afterwards
    report = apply_ops(reader.conn, ops, wall=reader.wall)
    assert (report.applied, report.duplicates) == (len(ops) - 1, 1)


def test_counts_of_applied_pending_and_duplicates() -> None:
    ops = writer_ops()
    reader = replica(PAPERS[5:], device="reader")  # papers 0-4 are not here yet
    report = apply_ops(reader.conn, [*ops, ops[0]], wall=reader.wall)
    assert report.applied == len(ops)
    assert report.duplicates == 1
    assert report.pending == sum(1 for op in ops if op.paper.id in {p.id for p in PAPERS[:5]})
    assert report.pending > 0
    assert len(report.papers) == 5
