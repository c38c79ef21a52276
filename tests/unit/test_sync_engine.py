"""The sync engine on folder remotes: exchange, merges across machines, failures, compaction."""

from __future__ import annotations

import dataclasses
import gzip
import shutil

import pytest

from digest_tui.errors import RemoteMissing, SyncError
from digest_tui.sync.engine import SyncEngine
from digest_tui.sync.remote import FolderRemote
from digest_tui.sync.segments import MARKER, SegmentName, encode_segment
from tests.support.state import DAY_MS, PAPERS, import_papers
from tests.support.sync import FailingFolder, Node, converge, files

A, B, C, D, E = (p.id for p in PAPERS)


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "remote"


def test_two_devices_exchange_both_ways_and_a_quiet_sync_costs_one_listing(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    a.state.add_tags(B, ["moe", "todo"])
    a.state.set_note(C, "read section 4")
    lst = a.state.create_list("thesis")
    a.state.add_to_list(lst.name, [A, D])
    b.state.set_read(E)
    report = a.sync()
    assert (report.sent_ops, report.sent_segments) == (7, 1)
    report = b.sync()
    assert (report.sent_ops, report.applied, report.devices) == (1, 7, ["aaaa"])
    assert a.sync().applied == 1
    assert a.snapshot() == b.snapshot()
    assert b.state.show_list("thesis").entries[1].id == D
    converge(a, b)
    quiet = [a.sync(), b.sync()]
    assert [r.requests for r in quiet] == [1, 1]  # one listing of the root, nothing else
    assert all(r.sent_ops == r.received_ops == 0 for r in quiet)


def test_tag_added_on_one_machine_and_removed_on_another_add_wins(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.add_tags(A, ["kernels"])
    converge(a, b)
    # Offline: B removes the tag it saw; A adds it again (a new add B has not seen).
    b.state.remove_tags(A, ["kernels"])
    a.state.remove_tags(A, ["kernels"])
    a.state.add_tags(A, ["kernels"])
    converge(a, b)
    assert a.snapshot() == b.snapshot()
    assert b.replica.library.user_state(1)["tags"] == ["kernels"]


def test_bookmark_lww_a_causally_later_edit_wins_under_days_of_clock_skew(folder):
    # A's clock runs three days fast, B's two days slow.
    a = Node("aaaa", folder, skew_ms=3 * DAY_MS)
    b = Node("bbbb", folder, skew_ms=-2 * DAY_MS)
    a.state.bookmark(A)
    a.state.set_read(A)
    converge(a, b)
    # B saw A's edits, then changes its mind: later in fact, five days earlier by its clock.
    b.state.bookmark(A, False)
    b.state.set_read(A, False)
    converge(a, b)
    for node in (a, b):
        state = node.replica.library.user_state(1)
        assert (state["bookmarked"], state["read"]) == (False, False), node.name
    assert a.snapshot() == b.snapshot()


def test_concurrent_note_edits_are_both_kept_until_the_user_picks(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.set_note(A, "first draft")
    converge(a, b)
    a.state.set_note(A, "edited on the laptop")
    b.state.set_note(A, "edited on the workstation")
    converge(a, b)
    note = b.state.note(A)
    assert sorted(v.text for v in note.versions) == [
        "edited on the laptop",
        "edited on the workstation",
    ]
    assert a.snapshot() == b.snapshot()
    b.state.resolve_note_conflict(A, keep=note.conflicts[0].version)
    converge(a, b)
    assert len(a.state.note(A).versions) == 1
    assert a.snapshot() == b.snapshot()


def test_state_for_a_paper_not_here_yet_waits_and_applies_when_it_arrives(folder):
    a = Node("aaaa", folder)
    b = Node("bbbb", folder, papers=PAPERS[:3])
    a.state.bookmark(E)
    a.state.add_tags(E, ["serving"])
    a.sync()
    report = b.sync()
    assert (report.applied, report.pending) == (2, 2)
    assert b.engine.status().pending_papers == 2
    import_papers(b.replica.library, PAPERS[3:], day="2025-12-11")
    assert b.snapshot() == a.snapshot()
    assert b.engine.status().pending_papers == 0


# ---- damaged files ------------------------------------------------------------------------


def _segments(folder, device):
    return sorted((folder / "segments" / device).glob("ops-*.jsonl.gz"))


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage-json"])
def test_a_damaged_segment_is_rejected_whole_and_a_retry_converges(folder, damage):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    for paper in (A, B, C):
        a.state.bookmark(paper)
    a.sync()
    (path,) = _segments(folder, "aaaa")
    good = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "flip":
        path.write_bytes(good[:40] + bytes([good[40] ^ 1]) + good[41:])
    else:
        # Valid gzip, but not the content the name promises (and half a line of JSON).
        path.write_bytes(gzip.compress(gzip.decompress(good)[:-30]))
    before = b.snapshot()
    report = b.sync()
    assert report.applied == 0 and b.op_count() == 0
    assert b.snapshot() == before
    assert [s.kind for s in report.skipped] == ["corrupt"]
    assert "nothing of it was applied" in report.skipped[0].reason
    # The sync tool finishes the transfer: the next sync takes it.
    path.write_bytes(good)
    assert b.sync().applied == 3
    assert b.snapshot() == a.snapshot()


def test_a_segment_with_one_invalid_op_is_rejected_whole(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    a.state.bookmark(B)
    a.sync()
    ops = a.engine.ledger.own_ops(1, 2)
    bad = dataclasses.replace(ops[1], payload={"value": "yes"})
    segment = encode_segment("aaaa", [ops[0], bad], 1, 2)
    for old in _segments(folder, "aaaa"):
        old.unlink()
    (folder / "segments" / "aaaa" / segment.name.name).write_bytes(segment.data)
    report = b.sync()
    assert report.applied == 0 and b.op_count() == 0
    assert "boolean" in report.skipped[0].reason


def test_conflict_copies_temporary_and_stray_files_are_ignored_with_a_warning(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    a.sync()
    (seg,) = _segments(folder, "aaaa")
    manifest = folder / "device-aaaa.json"
    strays = {
        "device-aaaa.sync-conflict-20251201-101010-ABCDEFG.json": manifest.read_bytes(),
        "device-aaaa (conflicted copy 2025-12-01).json": b"{}",
        "device-aaaa 2.json": b"{not json",
        "notes.txt": b"hello",
        ".DS_Store": b"",
        ".device-bbbb.json.tmp-1234": b"half",
    }
    for name, data in strays.items():
        (folder / name).write_bytes(data)
    seg_dir = folder / "segments" / "aaaa"
    shutil.copy(seg, seg_dir / seg.name.replace(".jsonl.gz", ".sync-conflict-1.jsonl.gz"))
    (seg_dir / "ops-1-2-abc.jsonl.gz").write_bytes(b"junk")
    report = b.sync()
    assert report.applied == 1
    kinds = {s.path: s.kind for s in report.skipped}
    assert kinds["device-aaaa.sync-conflict-20251201-101010-ABCDEFG.json"] == "conflict"
    assert kinds["device-aaaa (conflicted copy 2025-12-01).json"] == "conflict"
    assert kinds["device-aaaa 2.json"] == "conflict"
    assert kinds["notes.txt"] == "unknown"
    assert kinds[".device-bbbb.json.tmp-1234"] == "temporary"
    assert ".DS_Store" not in kinds
    assert any(k.startswith("segments/aaaa/") and v == "conflict" for k, v in kinds.items())
    assert kinds["segments/aaaa/ops-1-2-abc.jsonl.gz"] == "unknown"
    assert a.snapshot() == b.snapshot()


# ---- crashes and missing remotes ------------------------------------------------------------


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_crash_between_local_commit_and_upload_loses_nothing_and_applies_nothing_twice(
    folder, when
):
    remote = FailingFolder(folder)
    a = Node("aaaa", folder, remote=remote)
    b = Node("bbbb", folder)
    a.state.bookmark(A)
    a.state.add_tags(B, ["moe"])
    remote.fail = when
    with pytest.raises(SyncError, match=r"disk on fire|connection lost"):
        a.sync()
    assert a.unsynced() == 2  # not marked: the upload was not confirmed
    a.state.set_note(C, "written while offline")
    remote.fail = None
    report = a.sync()
    assert report.sent_ops == 3
    assert a.unsynced() == 0
    report = b.sync()
    assert (report.applied, report.duplicates) == (3, 0)
    assert b.op_count() == 3
    assert b.sync().applied == 0
    assert a.snapshot() == b.snapshot()


def test_an_upload_confirmed_but_not_recorded_is_sent_again_harmlessly(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    a.sync()
    # As if the process died after the write but before marking the ops synced.
    a.conn.execute("UPDATE ops SET synced = 0")
    a.conn.execute("DELETE FROM sync_segments")
    a.sync()
    assert len(_segments(folder, "aaaa")) == 1  # the same bytes, the same name
    assert b.sync().applied == 1 and b.op_count() == 1


@pytest.mark.parametrize("how", ["emptied", "missing", "unmounted"])
def test_an_empty_missing_or_unmounted_remote_changes_nothing_and_says_so(tmp_path, how):
    (tmp_path / "mnt").mkdir()
    folder = tmp_path / "mnt" / "share"
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    a.state.add_tags(B, ["moe"])
    converge(a, b)
    b.state.set_note(C, "unsent")
    before = (b.snapshot(), b.op_count(), b.unsynced())
    if how == "emptied":
        for child in folder.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    elif how == "missing":
        shutil.rmtree(folder)
    else:  # the mount point is there, but empty; the data is elsewhere
        folder.rename(tmp_path / "elsewhere")
        folder.mkdir()
    with pytest.raises(RemoteMissing, match="remote looks empty or unmounted"):
        b.sync()
    assert (b.snapshot(), b.op_count(), b.unsynced()) == before
    assert not list(folder.rglob("*")) if folder.exists() else True


def test_a_wiped_and_reinitialised_remote_gets_everything_again(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    b.state.bookmark(B)
    converge(a, b)
    shutil.rmtree(folder)
    from digest_tui.sync.engine import init_remote

    init_remote(a.replica.library, str(folder), remote=a.remote)
    report = a.sync()
    assert any("missing on the remote" in n for n in report.notes)
    assert report.sent_ops == 1
    c = Node("cccc", folder)
    b.sync()
    c.sync()
    assert c.snapshot() == a.snapshot() == b.snapshot()


def test_full_sync_repairs_a_deleted_own_segment(folder):
    a = Node("aaaa", folder)
    a.state.bookmark(A)
    a.sync()
    for path in _segments(folder, "aaaa"):
        path.unlink()
    report = a.sync(full=True)
    assert report.sent_ops == 1
    c = Node("cccc", folder)
    c.sync()
    assert c.snapshot() == a.snapshot()


# ---- compaction -----------------------------------------------------------------------------


def test_compaction_keeps_the_remote_small_and_an_offline_device_still_converges(folder):
    a = Node("aaaa", folder, compact_at=4)
    b = Node("bbbb", folder)
    c = Node("cccc", folder)  # goes offline after its first sync
    converge(a, b, c)
    for round_ in range(60):
        a.state.bookmark(A, round_ % 2 == 0)
        a.state.set_read(B, round_ % 3 == 0)
        if round_ % 10 == 0:
            a.state.add_tags(C, [f"t{round_}"])
        a.sync()
        b.sync()
    # C never acknowledged: the superseded segments it may need are still there.
    live = _segments(folder, "aaaa")
    assert any(SegmentName.parse(p.name).first == 1 for p in live)
    assert len(live) > 6
    c.sync()
    assert c.snapshot() == a.snapshot() == b.snapshot()
    # Now every device has everything: the next syncs delete what merged segments cover.
    converge(a, b, c)
    live = _segments(folder, "aaaa")
    assert len(live) <= 6
    size = sum(p.stat().st_size for p in live)
    assert size < 6_000  # 126 ops of toggles; superseded bookmark/read ops were left out
    # A device that joins after the deletions converges from the merged segments alone.
    d = Node("dddd", folder)
    d.sync()
    assert d.snapshot() == a.snapshot()
    assert d.op_count() < a.op_count()


def test_forgetting_a_device_that_is_gone_lets_compaction_delete(folder):
    a = Node("aaaa", folder, compact_at=3)
    gone = Node("gone", folder)
    converge(a, gone)
    for round_ in range(12):
        a.state.bookmark(A, round_ % 2 == 0)
        a.sync()
    before = len(_segments(folder, "aaaa"))
    a.engine.forget_device("gone")
    a.sync()
    assert len(_segments(folder, "aaaa")) < before
    assert [p.forgotten for p in a.engine.status().peers] == [True]
    # It comes back after all: it still converges.
    gone.sync()
    assert gone.snapshot() == a.snapshot()


def test_status_reports_devices_and_pending_changes(folder):
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    converge(a, b)
    b.state.bookmark(B)
    status = b.engine.status()
    assert status.pending_local == 1
    assert status.remote == str(folder)
    (peer,) = status.peers
    assert (peer.device, peer.label, peer.head, peer.have) == ("aaaa", "aaaa", 1, 1)
    assert status.last_sync and status.last_sync["ok"]


def test_two_syncs_of_one_library_at_once_are_refused(tmp_path, folder):
    from digest_tui.errors import SyncBusy
    from digest_tui.store.db import connect
    from digest_tui.store.library import Library
    from digest_tui.sync.engine import init_remote

    library = Library(connect(tmp_path / "lib.sqlite3"), None)
    init_remote(library, str(folder))
    first = SyncEngine(library, FolderRemote(folder))
    second = SyncEngine(library, FolderRemote(folder))
    with first.exclusive(), pytest.raises(SyncBusy):
        second.sync()
    assert second.sync().requests >= 1


def test_a_marker_only_remote_is_a_valid_empty_remote(folder):
    a = Node("aaaa", folder)
    assert (folder / MARKER).exists()
    report = a.sync()
    assert report.sent_ops == 0 and report.devices == []
    assert files(folder) == ["device-aaaa.json", MARKER]


def test_a_library_copied_to_a_second_machine_is_detected_and_nothing_more_is_sent(folder):
    a = Node("aaaa", folder)
    a.state.bookmark(A)
    a.sync()
    twin = Node("aaaa", folder)  # the same device id: a copied library
    twin.state.bookmark(B)  # op aaaa:1 again, with other content
    twin.sync()
    a.state.bookmark(C)
    with pytest.raises(SyncError, match="another machine is syncing as this device"):
        a.sync()
    assert a.unsynced() == 1
    # A third machine finds two segments for ops 1-1 of aaaa and applies one of them.
    b = Node("bbbb", folder)
    report = b.sync()
    assert report.applied == 1
