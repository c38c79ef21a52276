"""The user-state and export commands end to end, on the bundled sample library."""

from __future__ import annotations

import io
import json
import shlex
import sys

import bibtexparser
import pytest

from digest_tui.cli import main


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def papers(capsys, *argv: str) -> list[dict]:
    code, out, err = run(capsys, "papers", "--format", "json", *argv)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def ids(home, capsys) -> list[str]:
    found = [p["id"] for p in papers(capsys, "--sort", "title")]
    assert len(found) > 20
    return found[:6]


def test_bookmark_read_and_filters(ids, capsys):
    a, b, c = ids[:3]
    assert run(capsys, "bookmark", a, b)[0] == 0
    code, out, _ = run(capsys, "bookmark", a)
    assert code == 0 and "already bookmarked" in out
    assert run(capsys, "read", b)[0] == 0
    assert {p["id"] for p in papers(capsys, "--bookmarked")} == {a, b}
    assert {p["id"] for p in papers(capsys, "--bookmarked", "--unread")} == {a}
    assert {p["id"] for p in papers(capsys, "--search", "is:bookmarked is:unread")} == {a}
    unread = {p["id"] for p in papers(capsys, "--search", "is:unread")}
    assert b not in unread and c in unread
    run(capsys, "unbookmark", a)
    run(capsys, "unread", b)
    assert papers(capsys, "--bookmarked") == [next(p for p in papers(capsys) if p["id"] == b)]
    assert [p["id"] for p in papers(capsys, "--search", "is:read")] == []


def test_tags(ids, capsys):
    a, b = ids[:2]
    code, out, _ = run(capsys, "tag", a, "ToRead", "kernels")
    assert code == 0 and "added toread, kernels" in out
    run(capsys, "tag", b, "toread")
    run(capsys, "untag", a, "kernels")
    assert {p["id"] for p in papers(capsys, "--search", "tag:toread")} == {a, b}
    assert {p["id"] for p in papers(capsys, "--tag", "toread")} == {a, b}
    assert papers(capsys, "--search", "tag:kernels") == []
    code, out, _ = run(capsys, "tags", "--format", "json")
    assert json.loads(out) == [{"tag": "toread", "count": 2}]
    code, out, _ = run(capsys, "tags")
    assert "toread" in out
    obj = next(p for p in papers(capsys) if p["id"] == a)
    assert obj["tags"] == ["toread"]
    code, _, err = run(capsys, "tag", a, "two words")
    assert code == 2 and "invalid tag 'two words'" in err


def test_note_from_stdin_show_search_and_conflict(ids, capsys, monkeypatch):
    a = ids[0]
    monkeypatch.setattr(sys, "stdin", io.StringIO("Check the *fused* zqxkernel & its 2x claim\n"))
    code, out, _ = run(capsys, "note", a)
    assert code == 0 and "note saved" in out
    code, out, _ = run(capsys, "note", a, "--show")
    assert out.strip() == "Check the *fused* zqxkernel & its 2x claim"
    assert [p["id"] for p in papers(capsys, "--search", "has:notes")] == [a]
    assert [p["id"] for p in papers(capsys, "--search", "zqxkern")] == [a]
    code, out, _ = run(capsys, "show", a)
    assert "note:      Check the *fused*" in out

    # An edit from another machine that did not see this version: a conflict.
    from digest_tui.config import AppContext
    from digest_tui.service import open_library

    library = open_library(AppContext())
    library.state.set_note(a, "Other machine's note", replaces=[])
    code, out, _ = run(capsys, "note", a, "--show")
    assert "1 conflicting version beside" in out and "Other machine's note" in out
    obj = next(p for p in papers(capsys) if p["id"] == a)
    assert len(obj["note_conflicts"]) == 1
    version = library.state.note(a).versions[-1].version
    code, out, _ = run(capsys, "note", a, "--keep", version)
    assert code == 0
    assert library.state.note(a).conflicts == []
    code, _, err = run(capsys, "note", a, "--keep", "zz:9")
    assert code == 2 and "no version 'zz:9'" in err
    run(capsys, "note", a, "--delete")
    assert papers(capsys, "--search", "has:notes") == []


def test_note_in_the_editor(ids, capsys, monkeypatch):
    a = ids[1]
    script = "import sys; open(sys.argv[1], 'a').write('written in the editor')"
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setattr(sys, "stdin", TTY())
    code, out, err = run(capsys, "note", a)
    assert code == 0, err
    code, out, _ = run(capsys, "note", a, "--show")
    assert out.strip() == "written in the editor"
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} -c 'raise SystemExit(3)'")
    code, _, err = run(capsys, "note", a)
    assert code == 2 and "exited with status 3" in err


def test_reading_lists(ids, capsys):
    a, b, c = ids[:3]
    code, out, _ = run(capsys, "list")
    assert "no reading lists" in out
    assert run(capsys, "list", "create", "Thesis")[0] == 0
    code, _, err = run(capsys, "list", "create", "thesis")
    assert code == 2 and "already exists" in err
    run(capsys, "list", "add", "thesis", a, b, c)
    run(capsys, "list", "move", "thesis", c, "--to", "1")
    run(capsys, "list", "move", "thesis", a, "--after", b)
    assert [p["id"] for p in papers(capsys, "--search", "list:thesis")] == [c, b, a]
    code, out, _ = run(capsys, "list", "show", "thesis", "--format", "json")
    shown = json.loads(out)
    assert shown["name"] == "Thesis" and [p["id"] for p in shown["papers"]] == [c, b, a]
    code, out, _ = run(capsys, "list", "show", "thesis")
    assert out.splitlines()[0] == "Thesis (3 papers)" and c in out.splitlines()[2]
    run(capsys, "list", "remove", "thesis", b)
    run(capsys, "list", "rename", "thesis", "Done")
    code, out, _ = run(capsys, "list", "--format", "json")
    assert [(x["name"], x["count"]) for x in json.loads(out)] == [("Done", 2)]
    code, _, err = run(capsys, "list", "add", "nope", a)
    assert code == 2 and "no reading list named 'nope'" in err
    code, _, err = run(capsys, "list", "move", "done", b, "--to", "1")
    assert code == 2 and "is not in list 'Done'" in err
    run(capsys, "list", "delete", "done")
    assert papers(capsys, "--search", "list:done") == []


def test_errors_name_the_id(home, capsys):
    for argv in (
        ["bookmark", "no-such-paper"],
        ["tag", "no-such-paper", "x"],
        ["note", "no-such-paper", "--show"],
        ["read", "no-such-paper"],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "no-such-paper" in err, argv


def test_export_formats(ids, capsys, tmp_path):
    a, b = ids[:2]
    run(capsys, "tag", a, "export-me")
    run(capsys, "tag", b, "export-me")
    run(capsys, "bookmark", a)

    code, bib, _ = run(capsys, "export", "--format", "bibtex", "--search", "tag:export-me")
    assert code == 0
    library = bibtexparser.parse_string(bib)
    assert library.failed_blocks == [] and len(library.entries) == 2
    keys = [e.key for e in library.entries]
    assert len(set(keys)) == 2
    assert run(capsys, "export", "--search", "tag:export-me")[1] == bib  # stable across runs

    everything = run(capsys, "export", "--format", "bibtex")[1]
    parsed = bibtexparser.parse_string(everything)
    assert parsed.failed_blocks == []
    all_keys = [e.key for e in parsed.entries]
    assert len(all_keys) == len(set(all_keys)) == len(papers(capsys))

    code, out, _ = run(capsys, "export", "--format", "csl-json", "--bookmarked")
    items = json.loads(out)
    assert [i["id"] for i in items] == [a]
    assert items[0]["type"] and items[0]["keyword"] == "export-me"

    code, out, _ = run(capsys, "export", "--format", "json", "--tag", "export-me")
    code, expected, _ = run(capsys, "papers", "--format", "json", "--tag", "export-me")
    assert out == expected

    target = tmp_path / "out" / "list.md"
    target.parent.mkdir()
    code, _, err = run(
        capsys, "export", "--format", "markdown", "--tag", "export-me", "--output", str(target)
    )
    assert code == 0 and "exported 2 papers" in err
    assert target.read_text(encoding="utf-8").startswith("# Reading list")
    code, _, err = run(capsys, "export", "--output", str(tmp_path / "missing" / "x.bib"))
    assert code == 2 and "cannot write" in err
