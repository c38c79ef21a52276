"""Sync against a hostile or broken remote: files that would crash, poison or lock out.

Every test puts crafted files into a real folder remote next to two honest devices and checks
that the honest exchange still completes, the bad file is skipped and reported, and nothing of
it leaks into the local state or clock.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from digest_tui.errors import SyncError
from digest_tui.sync.segments import MAX_MANIFEST_BYTES, MAX_SEGMENT_BYTES, Manifest
from tests.support.state import BASE_MS, DAY_MS, PAPERS
from tests.support.sync import Node

A, B, C, D, E = (p.id for p in PAPERS)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "remote"


def put_segment(folder: Path, device: str, first: int, last: int, lines: list[str]) -> str:
    """A segment file whose name is valid for its bytes (hash included); returns its path."""
    data = gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
    name = f"ops-{first:012d}-{last:012d}-{hashlib.sha256(data).hexdigest()}.jsonl.gz"
    directory = folder / "segments" / device
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data)
    return f"segments/{device}/{name}"


def header(device: str, first: int, last: int, count: int) -> str:
    return json.dumps(
        {"segment": 1, "device": device, "first": first, "last": last, "count": count}
    )


def op_line(device: str, counter: int, paper: str, *, hlc: str | None = None, **extra) -> str:
    stamp = hlc or f"{BASE_MS + counter:016d}-000000-{device}"
    op = {
        "v": 1,
        "op_id": f"{device}:{counter}",
        "device": device,
        "counter": counter,
        "hlc": stamp,
        "kind": "bookmark",
        "paper": {"id": paper, "title_key": None, "arxiv": None},
        "list": None,
        "payload": {"value": True},
        "created_at": "2025-12-06T00:00:00+00:00",
    }
    op.update(extra)
    return json.dumps(op)


def put_manifest(folder: Path, device: str, head: int) -> None:
    (folder / f"device-{device}.json").write_bytes(Manifest(device=device, head=head).to_bytes())


def honest_pair(folder: Path) -> tuple[Node, Node]:
    a, b = Node("aaaa", folder), Node("bbbb", folder)
    a.state.bookmark(A)
    a.sync()
    return a, b


def assert_honest_exchange_completed(a: Node, b: Node) -> None:
    """b received a's ops and published its own: a receives them at its next sync."""
    assert flags(b, A)[0]
    assert b.unsynced() == 0
    a.sync()
    assert flags(a, E)[1]
    assert a.snapshot() == b.snapshot()


def flags(node: Node, paper: str) -> tuple[bool, bool]:
    """(bookmarked, read) of a paper on a node, as derived from its ops."""
    row = node.conn.execute(
        "SELECT s.bookmarked, s.read FROM paper_state s JOIN papers p ON p.rowid = s.paper_rowid "
        "WHERE p.id = ?",
        (paper,),
    ).fetchone()
    return (bool(row[0]), bool(row[1])) if row else (False, False)


def kinds(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {s.path: s.kind for s in report.skipped}


# ---- 1. absurdly nested JSON --------------------------------------------------------------


def test_a_segment_line_nested_a_hundred_thousand_deep_is_skipped_and_the_rest_goes_on(folder):
    a, b = honest_pair(folder)
    deep = "[" * 100_000 + "]" * 100_000
    path = put_segment(folder, "cccc", 1, 1, [header("cccc", 1, 1, 1), deep])
    put_manifest(folder, "cccc", 1)
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)[path] == "corrupt"
    assert "nested too deeply" in next(s.reason for s in report.skipped if s.path == path)
    assert_honest_exchange_completed(a, b)


def test_a_deeply_nested_header_is_skipped_too(folder):
    a, b = honest_pair(folder)
    path = put_segment(folder, "cccc", 1, 1, ["{" + '"a":{' * 50_000 + "}" * 50_001])
    put_manifest(folder, "cccc", 1)
    b.state.set_read(E)
    assert kinds(b.sync())[path] == "corrupt"
    assert_honest_exchange_completed(a, b)


def test_a_payload_nested_within_the_parser_limit_is_still_refused_before_it_is_stored(folder):
    # 900 levels parse, but storing and re-serialising them would recurse to the limit.
    a, b = honest_pair(folder)
    payload = "[" * 900 + "]" * 900
    line = op_line("cccc", 1, B, kind="custom_kind")[:-1] + f', "extra": {payload}}}'
    line = line.replace('"payload": {"value": true}', f'"payload": {{"deep": {payload}}}')
    path = put_segment(folder, "cccc", 1, 1, [header("cccc", 1, 1, 1), line])
    put_manifest(folder, "cccc", 1)
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)[path] == "corrupt"
    assert "nested" in next(s.reason for s in report.skipped if s.path == path)
    assert_honest_exchange_completed(a, b)


def test_a_deeply_nested_manifest_is_reported_and_that_devices_segments_still_count(folder):
    a, b = honest_pair(folder)
    path = put_segment(folder, "cccc", 1, 1, [header("cccc", 1, 1, 1), op_line("cccc", 1, C)])
    (folder / "device-cccc.json").write_text("[" * 200_000)
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)["device-cccc.json"] == "manifest"
    assert path not in kinds(report)
    assert flags(b, C)[0]  # its segment was still read
    assert_honest_exchange_completed(a, b)


# ---- 3. one oversized file ------------------------------------------------------------------


def sparse(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(size)  # sparse: costs no disk


def test_an_oversized_segment_with_a_valid_name_is_skipped_and_own_ops_are_announced(folder):
    a, b = honest_pair(folder)
    name = f"ops-{1:012d}-{1:012d}-{'0' * 64}.jsonl.gz"
    sparse(folder / "segments" / "cccc" / name, MAX_SEGMENT_BYTES + 1)
    put_manifest(folder, "cccc", 1)
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)[f"segments/cccc/{name}"] == "oversized"
    assert report.manifest_written
    assert_honest_exchange_completed(a, b)


def test_an_oversized_manifest_is_skipped_and_the_exchange_completes(folder):
    a, b = honest_pair(folder)
    sparse(folder / "device-cccc.json", MAX_MANIFEST_BYTES + 1)
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)["device-cccc.json"] == "oversized"
    assert_honest_exchange_completed(a, b)


def test_a_segment_that_grows_past_the_limit_after_the_listing_is_skipped(folder):
    """The listing said small; the read finds it too large (the folder's own check)."""
    a, b = honest_pair(folder)
    name = f"ops-{1:012d}-{1:012d}-{'1' * 64}.jsonl.gz"
    target = folder / "segments" / "cccc" / name
    sparse(target, 10)
    put_manifest(folder, "cccc", 1)
    listing = b.remote.list

    def grow_after_listing(path: str):  # type: ignore[no-untyped-def]
        entries = listing(path)
        if path == "segments/cccc":
            os.truncate(target, MAX_SEGMENT_BYTES + 1)
        return entries

    b.remote.list = grow_after_listing  # type: ignore[method-assign]
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)[f"segments/cccc/{name}"] == "oversized"
    assert_honest_exchange_completed(a, b)


# ---- 2. far-future stamps -------------------------------------------------------------------


def clock_wall(node: Node) -> int:
    return int(node.conn.execute("SELECT wall_ms FROM clock").fetchone()[0])


@pytest.mark.parametrize("stamp", ["9999999999990000-000000-cccc", "9999999999999999-999999-cccc"])
def test_a_forged_far_future_stamp_is_held_back_and_never_moves_the_clock(folder, stamp):
    a, b = honest_pair(folder)
    path = put_segment(
        folder,
        "cccc",
        1,
        2,
        [header("cccc", 1, 2, 2), op_line("cccc", 1, C, hlc=stamp), op_line("cccc", 2, D)],
    )
    put_manifest(folder, "cccc", 2)
    b.state.set_read(E)
    report = b.sync()
    assert kinds(report)[path] == "future"
    assert flags(b, D)[0] and not flags(b, C)[0]  # the honest op of that file applies
    assert clock_wall(b) < BASE_MS + DAY_MS
    assert_honest_exchange_completed(a, b)
    assert clock_wall(a) < BASE_MS + DAY_MS
    # Every later sync goes on working, and local edits keep today's stamps.
    b.state.bookmark(B)
    assert kinds(b.sync())[path] == "future"
    newest = b.conn.execute("SELECT max(hlc) FROM ops WHERE device = 'bbbb'").fetchone()[0]
    assert newest < f"{BASE_MS + DAY_MS:016d}"


def test_an_op_a_little_too_far_ahead_applies_once_this_clock_catches_up(folder):
    a, b = honest_pair(folder)
    ahead = BASE_MS + 40 * DAY_MS
    path = put_segment(
        folder,
        "cccc",
        1,
        1,
        [header("cccc", 1, 1, 1), op_line("cccc", 1, C, hlc=f"{ahead:016d}-000000-cccc")],
    )
    put_manifest(folder, "cccc", 1)
    b.state.set_read(E)
    assert kinds(b.sync())[path] == "future"
    assert not flags(b, C)[0]
    b.replica.wall.ms += 40 * DAY_MS  # forty days later
    report = b.sync()
    assert path not in kinds(report) and report.applied == 1
    assert flags(b, C)[0]
    a.replica.wall.ms += 40 * DAY_MS  # a's clock gets there too: the same state everywhere
    assert_honest_exchange_completed(a, b)


# ---- 5. a remote restored from an older copy -------------------------------------------------


def restore(folder: Path, backup: Path) -> None:
    shutil.rmtree(folder)
    shutil.copytree(backup, folder)


def test_a_remote_restored_from_an_older_copy_is_recognised_and_repaired(folder, tmp_path):
    a, b = honest_pair(folder)
    b.sync()
    backup = tmp_path / "backup"
    shutil.copytree(folder, backup)
    a.state.bookmark(B)
    a.state.add_tags(C, ["later"])
    a.sync()
    restore(folder, backup)  # the share comes back from last night's copy
    a.state.set_read(D)
    report = a.sync()  # was: "another machine is syncing as this device"
    assert any("restored from an older copy" in note for note in report.notes)
    assert any("missing or damaged" in note for note in report.notes)
    assert a.sync().requests == 1  # settled: a quiet sync again
    late = Node("cccc", folder)
    late.sync()
    b.sync()
    assert late.snapshot() == a.snapshot() == b.snapshot()
    assert flags(late, B)[0] and flags(late, D)[1]


def test_a_manifest_this_machine_never_wrote_stops_sync_until_reclaimed(folder, tmp_path):
    a, b = honest_pair(folder)
    a.state.bookmark(B)
    a.sync()
    # The manifest is replaced by one this device never wrote (a backup of a library that was
    # since restored, or a twin that is gone for good).
    foreign = Manifest(device="aaaa", head=1, nonce="feedface").to_bytes()
    (folder / "device-aaaa.json").write_bytes(foreign)
    a.state.set_read(C)
    with pytest.raises(SyncError, match="sync --reclaim"):
        a.sync()
    assert a.unsynced() == 1  # nothing was sent
    report = a.sync(reclaim=True)
    assert any("reclaimed device aaaa" in note for note in report.notes)
    assert report.manifest_written and a.unsynced() == 0
    assert a.sync().requests == 1
    b.sync()
    assert b.snapshot() == a.snapshot()
    assert flags(b, B)[0] and flags(b, C)[1]


def test_sync_reclaim_from_the_command_line(tmp_path, monkeypatch, capsys):
    from digest_tui.cli import main

    remote = tmp_path / "remote"
    monkeypatch.setenv("DIGEST_TUI_HOME", str(tmp_path / "home"))
    assert main(["sync", "init", str(remote)]) == 0
    manifest = next(remote.glob("device-*.json"))
    device = manifest.stem.removeprefix("device-")
    manifest.write_bytes(Manifest(device=device, head=0, nonce="00").to_bytes())
    capsys.readouterr()
    assert main(["sync"]) == 1
    assert "digest-tui: another machine is syncing as this device" in capsys.readouterr().err
    assert main(["sync", "--reclaim"]) == 0
    assert f"reclaimed device {device}" in capsys.readouterr().out
    assert main(["sync"]) == 0


# ---- 4. two writers for one device ----------------------------------------------------------


def tags(node: Node, paper: str) -> list[str]:
    return [
        r[0]
        for r in node.conn.execute(
            "SELECT t.tag FROM paper_tags t JOIN papers p ON p.rowid = t.paper_rowid "
            "WHERE p.id = ? ORDER BY t.tag",
            (paper,),
        )
    ]


def forge_next_op_of_aaaa(folder: Path) -> str:
    """Another writer claims aaaa's next counter (2) with an op aaaa never made."""
    line = op_line("aaaa", 2, D, hlc=f"{BASE_MS + 5:016d}-000000-aaaa")
    return put_segment(folder, "aaaa", 2, 2, [header("aaaa", 2, 2, 1), line])


def test_an_impersonated_counter_does_not_hide_the_owners_genuine_op(folder):
    a, b = honest_pair(folder)
    c = Node("cccc", folder)
    converge_all = (b, c)
    for node in converge_all:
        node.sync()
    forged = forge_next_op_of_aaaa(folder)
    assert b.sync(full=True).applied == 1 and flags(b, D)[0]  # b believes the forgery
    a.state.add_tags(C, ["genuine"])  # a, offline meanwhile, makes its own op aaaa:2
    report = a.sync()
    assert kinds(report)[forged] == "impersonation"
    b_report = b.sync()
    assert b_report.applied == 1
    c.sync()
    for node in (a, b, c):
        assert tags(node, C) == ["genuine"], node.name
        assert not flags(node, D)[0], node.name
    assert a.snapshot() == b.snapshot() == c.snapshot()
    # Settled: --full reads the forged file again and still ignores it.
    b.sync(full=True)
    late = Node("dddd", folder)
    late.sync()
    assert late.snapshot() == b.snapshot() == a.snapshot()


def test_ops_claimed_under_a_devices_name_before_it_used_those_counters_are_adopted(folder):
    a, b = honest_pair(folder)
    forge_next_op_of_aaaa(folder)
    b.sync(full=True)
    assert flags(b, D)[0]
    report = a.sync()  # b acknowledges aaaa:2, which a never announced: a looks
    assert any("adopted 1 op" in note for note in report.notes)
    a.state.add_tags(C, ["mine"])
    a.sync()
    b.sync()
    mine = a.conn.execute("SELECT op_id FROM ops WHERE kind = 'tag_add'").fetchone()[0]
    assert mine == "aaaa:3"  # numbered after the adopted one: no collision
    assert tags(b, C) == ["mine"] and flags(a, D)[0]
    assert a.snapshot() == b.snapshot()


def test_a_second_file_for_the_same_counters_is_reported_by_a_full_sync(folder):
    a, b = honest_pair(folder)
    b.sync()
    # Someone writes another version of aaaa:1 (already applied on b from a's own file).
    line = op_line("aaaa", 1, D, hlc=f"{BASE_MS + 5:016d}-000000-aaaa")
    forged = put_segment(folder, "aaaa", 1, 1, [header("aaaa", 1, 1, 1), line])
    report = b.sync(full=True)
    assert kinds(report)[forged] == "impersonation"
    assert not flags(b, D)[0] and flags(b, A)[0]
    report = a.sync(full=True)
    assert kinds(report)[forged] == "impersonation"
    b.sync()
    assert a.snapshot() == b.snapshot()
