"""Merge rules of the op log: LWW registers under clock skew, add-wins tags, note conflicts,
reading lists, pending ops for papers not yet imported, and malformed remote ops."""

from __future__ import annotations

import sqlite3

import pytest

from digest_tui.errors import OpFormatError, OpsError
from digest_tui.ids import title_key
from digest_tui.state.log import (
    apply_ops,
    mark_synced,
    ops_since,
    unsynced_ops,
    version_vector,
)
from digest_tui.state.materialise import derived_snapshot, rebuild_derived
from digest_tui.state.model import Op
from tests.support.state import DAY_MS, PAPERS, import_papers, make_paper, replica

FLASH = PAPERS[0].id  # 2407.08608
MEGATRON = PAPERS[2].id  # title-derived id


def sync(*replicas):
    for target in replicas:
        for source in replicas:
            if source is not target:
                target.pull(source)


def test_lww_bookmark_causally_later_edit_wins_despite_days_of_skew():
    # The laptop's clock is three days slow; it sees the workstation's bookmark, then removes it.
    workstation = replica(device="ws")
    laptop = replica(device="laptop", skew_ms=-3 * DAY_MS)
    workstation.state.bookmark(FLASH)
    laptop.pull(workstation)
    assert laptop.state.user_state(laptop.library.resolve(FLASH)["rowid"])["bookmarked"]
    laptop.state.bookmark(FLASH, False)  # later in real life, earlier by the laptop's wall clock
    sync(workstation, laptop)
    for r in (workstation, laptop):
        assert not r.state.user_state(r.library.resolve(FLASH)["rowid"])["bookmarked"]
    assert derived_snapshot(workstation.conn) == derived_snapshot(laptop.conn)


def test_lww_read_concurrent_edits_agree_on_one_winner():
    a, b = replica(device="a"), replica(device="b", skew_ms=5_000)
    a.state.set_read(FLASH, True)
    b.state.set_read(FLASH, True)
    b.state.set_read(FLASH, False)
    sync(a, b)
    # b's clock is ahead, so its (concurrent) last write wins on both.
    for r in (a, b):
        assert r.state.user_state(r.library.resolve(FLASH)["rowid"])["read"] is False
    assert derived_snapshot(a.conn) == derived_snapshot(b.conn)


def test_tags_add_wins_over_a_concurrent_remove():
    a, b = replica(device="a"), replica(device="b")
    a.state.add_tags(FLASH, ["kernels"])
    sync(a, b)
    b.state.remove_tags(FLASH, ["kernels"])  # b removes the add it has seen ...
    a.state.add_tags(FLASH, ["Kernels", "todo"])  # ... while a, offline, re-adds nothing new
    a.state.remove_tags(FLASH, ["kernels"])
    a.state.add_tags(FLASH, ["kernels"])  # ... then adds it again: b never saw this add
    sync(a, b)
    for r in (a, b):
        assert r.state.user_state(r.library.resolve(FLASH)["rowid"])["tags"] == ["kernels", "todo"]


def test_tags_removed_everywhere_when_every_add_was_observed():
    a, b = replica(device="a"), replica(device="b")
    a.state.add_tags(FLASH, ["x"])
    b.state.add_tags(FLASH, ["x"])  # the same tag added twice offline
    sync(a, b)
    assert b.state.remove_tags(FLASH, ["x"]) == ["x"]  # names both adds
    sync(a, b)
    for r in (a, b):
        assert r.state.user_state(r.library.resolve(FLASH)["rowid"])["tags"] == []


def test_note_conflict_kept_then_resolved():
    a, b = replica(device="a"), replica(device="b")
    first = a.state.set_note(FLASH, "base")
    sync(a, b)
    a.state.set_note(FLASH, "edit on a", replaces=[first.version])
    b.state.set_note(FLASH, "edit on b", replaces=[first.version])
    sync(a, b)
    for r in (a, b):
        note = r.state.note(FLASH)
        assert sorted(v.text for v in note.versions) == ["edit on a", "edit on b"]
        assert len(note.conflicts) == 1
        shown = r.state.user_state(r.library.resolve(FLASH)["rowid"])
        assert shown["note"] in ("edit on a", "edit on b") and len(shown["note_conflicts"]) == 1
    loser = a.state.note(FLASH).conflicts[0]
    result = a.state.resolve_note_conflict(FLASH, keep=loser.version)
    assert result.conflicts == []
    sync(a, b)
    for r in (a, b):
        assert r.state.note(FLASH).text == loser.text
        assert r.state.note(FLASH).conflicts == []
    assert derived_snapshot(a.conn) == derived_snapshot(b.conn)


def test_note_edit_that_missed_a_newer_version_reports_the_conflict():
    r = replica()
    first = r.state.set_note(FLASH, "v1")
    r.state.set_note(FLASH, "v2 (from sync)", replaces=[first.version])
    stale = r.state.set_note(FLASH, "my edit of v1", replaces=[first.version])
    assert [v.text for v in stale.conflicts] == ["v2 (from sync)"]
    merged = r.state.resolve_note_conflict(FLASH, text="merged")
    assert merged.conflicts == [] and r.state.note(FLASH).text == "merged"


def test_deleting_a_note_and_unchanged_notes():
    r = replica()
    assert r.state.set_note(FLASH, "").changed is False  # nothing to delete
    r.state.set_note(FLASH, "text\n\n")
    assert r.state.set_note(FLASH, "text").changed is False  # trailing whitespace ignored
    assert r.state.set_note(FLASH, "").changed
    assert r.state.note(FLASH).text is None
    assert r.state.user_state(r.library.resolve(FLASH)["rowid"])["note"] is None


def test_state_waits_for_a_paper_and_applies_when_it_arrives():
    a = replica(device="a")
    b = replica(PAPERS[:1], device="b")  # b has not imported Megatron-LM yet
    a.state.bookmark(MEGATRON)
    a.state.add_tags(MEGATRON, ["parallelism"])
    a.state.set_note(MEGATRON, "read section 3")
    a.state.create_list("thesis")
    a.state.add_to_list("thesis", [FLASH, MEGATRON])
    report = apply_ops(b.conn, a.ops())
    assert report.pending == 4 and b.library.resolve(MEGATRON) is None
    assert [e.id for e in b.state.show_list("thesis").entries] == [FLASH]
    assert b.state.show_list("thesis").pending == 1
    import_papers(b.library, [PAPERS[2]], day="2025-12-11")
    rowid = b.library.resolve(MEGATRON)["rowid"]
    assert b.state.user_state(rowid) == {
        "bookmarked": True,
        "tags": ["parallelism"],
        "read": False,
        "note": "read section 3",
        "note_conflicts": [],
        "lists": ["thesis"],
    }
    assert [e.id for e in b.state.show_list("thesis").entries] == [FLASH, MEGATRON]
    assert b.state.show_list("thesis").pending == 0


def test_ops_find_a_paper_known_by_another_id():
    # Machine a knows the paper by its title only; machine b has its arXiv id.
    title = "Ring Attention with Blockwise Transformers"
    a = replica([make_paper(title)], device="a")
    b = replica([make_paper(title, "2310.01889")], device="b")
    a.state.add_tags(a.library.conn.execute("SELECT id FROM papers").fetchone()[0], ["ring"])
    b.state.bookmark("2310.01889")
    sync(a, b)
    for r in (a, b):
        rowid = r.conn.execute("SELECT rowid FROM papers").fetchone()[0]
        state = r.state.user_state(rowid)
        assert state["tags"] == ["ring"] and state["bookmarked"]
    assert b.conn.execute("SELECT title_key FROM ops LIMIT 1").fetchone()[0] == title_key(title)


def test_lists_rename_delete_and_concurrent_create_merge():
    a, b = replica(device="a"), replica(device="b")
    a.state.create_list("Reading")
    b.state.create_list("reading")  # the same list made offline on two machines: one list
    a.state.add_to_list("reading", [FLASH])
    b.state.add_to_list("reading", [MEGATRON])
    sync(a, b)
    assert len(a.state.lists()) == 1 and a.state.lists()[0].count == 2
    a.state.rename_list("reading", "Thesis")
    sync(a, b)
    assert [i.name for i in b.state.lists()] == ["Thesis"]
    b.state.delete_list("thesis")
    sync(a, b)
    assert a.state.lists() == [] and b.state.lists() == []
    a.state.create_list("Thesis")  # re-created: starts empty (the delete removed what it saw)
    sync(a, b)
    assert b.state.show_list("thesis").entries == []
    assert derived_snapshot(a.conn) == derived_snapshot(b.conn)


def test_list_order_and_concurrent_moves():
    a, b = replica(device="a"), replica(device="b", skew_ms=1000)
    ids = [p.id for p in PAPERS]
    a.state.create_list("q")
    a.state.add_to_list("q", ids)
    assert [e.id for e in a.state.show_list("q").entries] == ids
    assert a.state.move_in_list("q", ids[4], index=1) == 1
    assert a.state.move_in_list("q", ids[0], after=ids[2]) == 4
    expected = [ids[4], ids[1], ids[2], ids[0], ids[3]]
    assert [e.id for e in a.state.show_list("q").entries] == expected
    sync(a, b)
    # Both move different papers concurrently: both moves survive.
    a.state.move_in_list("q", ids[3], index=1)
    b.state.move_in_list("q", ids[1], before=ids[4])  # b does not know a's move
    sync(a, b)
    order_a = [e.id for e in a.state.show_list("q").entries]
    assert order_a == [e.id for e in b.state.show_list("q").entries]
    assert set(order_a[:2]) == {ids[3], ids[1]}


def test_equal_positions_from_concurrent_appends_are_renumbered_on_move():
    a, b = replica(device="a"), replica(device="b")
    a.state.create_list("q")
    sync(a, b)
    a.state.add_to_list("q", [FLASH])
    b.state.add_to_list("q", [MEGATRON])  # both append at the same spot: equal positions
    sync(a, b)
    entries = a.state.show_list("q").entries
    assert entries[0].position == entries[1].position
    third = PAPERS[1].id
    a.state.add_to_list("q", [third])
    a.state.move_in_list("q", third, index=2)  # between the two equal keys: renumbers
    sync(a, b)
    order = [e.id for e in b.state.show_list("q").entries]
    assert order[1] == third and order == [e.id for e in a.state.show_list("q").entries]


def test_unknown_paper_or_list_raise_clear_errors():
    r = replica()
    with pytest.raises(OpsError, match="no paper with id 'nope'"):
        r.state.bookmark("nope")
    with pytest.raises(OpsError, match="no reading list named 'missing'"):
        r.state.add_to_list("missing", [FLASH])
    with pytest.raises(OpsError, match="invalid tag"):
        r.state.add_tags(FLASH, ["two words"])
    r.state.create_list("x")
    with pytest.raises(OpsError, match="already exists"):
        r.state.create_list("X")
    with pytest.raises(OpsError, match="is not in list"):
        r.state.move_in_list("x", FLASH, index=1)
    assert r.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 1
    assert not r.conn.in_transaction


def test_a_failed_change_leaves_nothing_behind():
    r = replica()
    # SQLite itself fails the write of the derived state (the paper's tags).
    r.conn.execute(
        "CREATE TEMP TRIGGER broken BEFORE INSERT ON paper_tags "
        "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    with pytest.raises(sqlite3.Error, match="disk full"):
        r.state.add_tags(FLASH, ["a", "b"])
    assert r.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 0
    assert not r.conn.in_transaction


def test_each_change_is_committed_at_once(tmp_path):
    path = tmp_path / "lib.sqlite3"
    r = replica(path=path)
    r.state.bookmark(FLASH)
    r.state.set_note(FLASH, "durable")
    other = replica([], path=path)  # a second connection, as after a crash and restart
    rowid = other.library.resolve(FLASH)["rowid"]
    assert other.state.user_state(rowid)["note"] == "durable"


def test_apply_is_idempotent_and_rejects_a_forged_duplicate():
    a, b = replica(device="a"), replica(device="b")
    a.state.add_tags(FLASH, ["t"])
    first = apply_ops(b.conn, a.ops())
    again = apply_ops(b.conn, [op.to_json() for op in a.ops()])
    assert (first.applied, again.applied, again.duplicates) == (1, 0, 1)
    forged = dict(a.ops()[0].to_json(), payload={"tag": "other"})
    with pytest.raises(OpsError, match="different content"):
        apply_ops(b.conn, [forged])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"op_id": "a-1"}, "op_id"),
        ({"hlc": "yesterday"}, "not a clock stamp"),
        ({"counter": 2}, "do not match"),
        ({"payload": {"tag": 5}}, "bad tag"),
        ({"paper": None}, "needs a paper"),
        ({"paper": {"id": None, "title_key": None}}, "needs an id or a title_key"),
        ({"v": 99}, "format"),
    ],
)
def test_malformed_remote_ops_are_refused_and_nothing_applies(change, message):
    a, b = replica(device="a"), replica(device="b")
    a.state.add_tags(FLASH, ["t"])
    good = a.ops()[0].to_json()
    bad = dict(good, **change)
    with pytest.raises(OpFormatError, match=message):
        apply_ops(b.conn, [good, bad])
    assert b.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 0


def test_unknown_kinds_from_newer_versions_are_kept_but_ignored():
    a, b = replica(device="a"), replica(device="b")
    a.state.bookmark(FLASH)
    future = dict(
        a.ops()[0].to_json(), op_id="a:2", counter=2, kind="highlight", payload={"span": [1, 5]}
    )
    apply_ops(b.conn, [a.ops()[0].to_json(), future])
    assert b.conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 2
    assert b.state.user_state(b.library.resolve(FLASH)["rowid"])["bookmarked"]


def test_version_vector_ops_since_and_synced_marks():
    a, b = replica(device="a"), replica(device="b")
    a.state.bookmark(FLASH)
    a.state.add_tags(FLASH, ["x", "y"])
    b.state.set_read(FLASH)
    assert version_vector(a.conn) == {"a": 3}
    b.pull(a)
    assert version_vector(b.conn) == {"a": 3, "b": 1}
    assert [op.op_id for op in ops_since(b.conn, {"a": 2})] == ["a:3", "b:1"]
    assert [op.op_id for op in ops_since(b.conn, {"a": 3}, device="b")] == ["b:1"]
    # A gap (op a:2 missing) stops the vector at a:1, so a peer sends a:2 again.
    c = replica(device="c")
    apply_ops(c.conn, [op for op in a.ops() if op.op_id != "a:2"])
    assert version_vector(c.conn) == {"a": 1}
    assert [op.op_id for op in unsynced_ops(a.conn)] == ["a:1", "a:2", "a:3"]
    assert unsynced_ops(b.conn)[0].op_id == "b:1"  # remote ops never count as unsynced
    assert mark_synced(a.conn, ["a:1", "a:2"]) == 2
    assert [op.op_id for op in unsynced_ops(a.conn)] == ["a:3"]


def test_own_ops_coming_back_never_reuse_a_counter():
    a = replica(device="a")
    a.state.bookmark(FLASH)
    a.state.add_tags(FLASH, ["x"])
    lost = a.ops()
    restored = replica(device="a")  # the library was lost; the remote still has a's ops
    apply_ops(restored.conn, lost)
    restored.state.add_tags(FLASH, ["y"])
    assert [op.op_id for op in restored.ops()][-1] == "a:3"


def test_rebuild_from_the_log_equals_the_incremental_state():
    a = replica(device="a")
    a.state.bookmark(FLASH)
    a.state.add_tags(MEGATRON, ["p", "q"])
    a.state.remove_tags(MEGATRON, ["p"])
    a.state.set_note(FLASH, "n")
    a.state.create_list("l")
    a.state.add_to_list("l", [FLASH, MEGATRON])
    before = derived_snapshot(a.conn)
    rebuild_derived(a.conn)
    assert derived_snapshot(a.conn) == before


def test_op_json_round_trip():
    a = replica(device="a")
    a.state.create_list("l")
    a.state.add_to_list("l", [FLASH])
    for op in a.ops():
        assert Op.from_json(op.to_json()) == op
