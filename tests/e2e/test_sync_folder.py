"""`digest-tui sync` end to end: three machines (three DIGEST_TUI_HOMEs) and one synced folder."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from digest_tui.cli import main


class Machines:
    def __init__(self, root: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
        self.root = root
        self.monkeypatch = monkeypatch
        self.capsys = capsys

    def home(self, name: str) -> Path:
        return self.root / name

    def run(self, name: str, *argv: str, stdin: str | None = None) -> tuple[int, str, str]:
        self.monkeypatch.setenv("DIGEST_TUI_HOME", str(self.home(name)))
        if stdin is not None:
            self.monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def ok(self, name: str, *argv: str, stdin: str | None = None) -> str:
        code, out, err = self.run(name, *argv, stdin=stdin)
        assert code == 0, err
        return out

    def papers(self, name: str, *argv: str) -> dict[str, dict]:
        return {p["id"]: p for p in json.loads(self.ok(name, "papers", "--format", "json", *argv))}

    def show(self, name: str, paper: str) -> dict:
        return json.loads(self.ok(name, "show", paper, "--format", "json"))

    def state(self, name: str) -> dict:
        """Everything the user sees of their state: per paper, and the reading lists."""
        papers = {
            pid: (p["bookmarked"], p["read"], tuple(p["tags"]))
            for pid, p in self.papers(name).items()
        }
        lists = self.ok(name, "list")
        return {"papers": papers, "lists": lists}


@pytest.fixture
def machines(home, tmp_path, monkeypatch, capsys) -> Machines:
    return Machines(tmp_path / "machines", monkeypatch, capsys)


@pytest.fixture
def ids(machines) -> list[str]:
    found = sorted(machines.papers("laptop"))
    return found[:8]


def test_three_machines_converge_through_a_folder(machines, ids, tmp_path):
    remote = tmp_path / "Sync" / "digest-tui"
    remote.parent.mkdir()
    out = machines.ok("laptop", "sync", "init", str(remote), "--name", "laptop")
    assert f"created a new sync remote: {remote}" in out
    out = machines.ok("desk", "sync", "init", str(remote), "--name", "desk")
    assert "joined the sync remote" in out and "other devices already there" in out
    machines.ok("cluster", "sync", "init", str(remote), "--name", "cluster")

    a, b, c, d = ids[:4]
    machines.ok("laptop", "bookmark", a, b)
    machines.ok("laptop", "tag", a, "moe", "todo")
    machines.ok("laptop", "note", a, stdin="Needs 8 GPUs.\n")
    machines.ok("laptop", "list", "create", "Thesis")
    machines.ok("laptop", "list", "add", "Thesis", a, c)
    machines.ok("desk", "read", c, d)
    machines.ok("desk", "tag", d, "kernels")
    machines.ok("cluster", "bookmark", d)

    out = machines.ok("laptop", "sync")
    assert "sent 8 ops in 1 segment" in out
    out = machines.ok("desk", "sync")
    assert "sent 3 ops" in out and "applied 8 new" in out
    for _round in range(2):
        for name in ("cluster", "laptop", "desk"):
            machines.ok(name, "sync")

    states = [machines.state(name) for name in ("laptop", "desk", "cluster")]
    assert states[0] == states[1] == states[2]
    shown = machines.show("cluster", a)
    assert (shown["bookmarked"], shown["tags"], shown["note"]) == (
        True,
        ["moe", "todo"],
        "Needs 8 GPUs.",
    )
    assert "Thesis" in machines.ok("cluster", "list")
    assert machines.papers("cluster", "--bookmarked").keys() == {a, b, d}

    # Nothing new: one listing of the folder.
    report = json.loads(machines.ok("desk", "sync", "--format", "json"))
    assert (report["sent_ops"], report["received_ops"], report["requests"]) == (0, 0, 1)

    status = machines.ok("laptop", "sync", "status")
    assert f"remote:        {remote}" in status
    assert "not yet sent:  0 changes" in status
    assert "(desk)" in status and "(cluster)" in status
    machines.ok("laptop", "read", a)
    status = json.loads(machines.ok("laptop", "sync", "status", "--format", "json"))
    assert status["pending_local"] == 1 and len(status["peers"]) == 2


def test_concurrent_note_edits_are_kept_side_by_side_until_one_is_picked(machines, ids, tmp_path):
    remote = tmp_path / "share"
    for name in ("laptop", "desk"):
        machines.ok(name, "sync", "init", str(remote))
    paper = ids[0]
    machines.ok("laptop", "note", paper, stdin="original\n")
    machines.ok("laptop", "sync")
    machines.ok("desk", "sync")
    machines.ok("laptop", "note", paper, stdin="laptop version\n")
    machines.ok("desk", "note", paper, stdin="desk version\n")
    for name in ("laptop", "desk", "laptop"):
        machines.ok(name, "sync")
    shown = machines.show("desk", paper)
    texts = {shown["note"], *(c["text"] for c in shown["note_conflicts"])}
    assert texts == {"laptop version", "desk version"}
    keep = next(c["version"] for c in shown["note_conflicts"])
    machines.ok("desk", "note", paper, "--keep", keep)
    machines.ok("desk", "sync")
    machines.ok("laptop", "sync")
    final = machines.show("laptop", paper)
    assert final["note_conflicts"] == [] and final["note"] in texts


def test_unmounted_folder_conflict_copies_and_bad_remotes(machines, ids, tmp_path):
    remote = tmp_path / "mnt" / "share"
    code, _out, err = machines.run("laptop", "sync", "init", str(remote))
    assert code == 1 and "does not exist (is the drive or share mounted?)" in err
    code, _out, err = machines.run("laptop", "sync")
    assert code == 1 and "sync is not set up" in err
    remote.parent.mkdir()
    machines.ok("laptop", "sync", "init", str(remote))
    machines.ok("laptop", "bookmark", ids[0])
    machines.ok("laptop", "sync")

    (remote / "device-x.sync-conflict-20251201-000000-ABC.json").write_text("{}")
    (remote / "notes (conflicted copy).txt").write_text("")
    code, _out, err = machines.run("laptop", "sync")
    assert code == 0
    assert "warning: skipped device-x.sync-conflict-20251201-000000-ABC.json: conflict copy" in err
    assert "warning: skipped notes (conflicted copy).txt" in err

    # The share is unmounted: the mount point is an empty folder.
    remote.rename(tmp_path / "elsewhere")
    remote.mkdir()
    machines.ok("laptop", "bookmark", ids[1])
    code, _out, err = machines.run("laptop", "sync")
    assert code == 1
    assert "remote looks empty or unmounted" in err and "Nothing was changed here" in err
    assert machines.papers("laptop", "--bookmarked").keys() == set(ids[:2])
    assert list(remote.iterdir()) == []
    status = machines.ok("laptop", "sync", "status")
    assert "not yet sent:  1 change" in status and "FAILED" in status

    code, _out, err = machines.run("laptop", "sync", "init", "http://example.com/dav")
    assert code == 1 and "refusing plain http" in err
