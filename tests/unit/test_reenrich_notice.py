"""A command that must enrich the library again first (after the rules or data files change)
says so on stderr, never on stdout (which may be JSON a script reads): commands/common.py
`ReenrichNotice`, through the real CLI on a real library."""

from __future__ import annotations

import io
import json

import pytest

from digest_tui.cli import main
from digest_tui.commands.common import ReenrichNotice
from digest_tui.config import AppContext
from digest_tui.service import import_files, open_library
from tests.support.paths import SEED_DEC09, SEED_DEC10


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_command_after_a_taxonomy_change_says_why_it_waits(home, monkeypatch, capsys):
    library = open_library(AppContext())
    import_files(library, [SEED_DEC09, SEED_DEC10])
    papers = library.conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    library.close()
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "taxonomy.yaml").write_text("topics: []\n", encoding="utf-8")
    monkeypatch.setattr(ReenrichNotice, "MIN_PAPERS", 1)

    assert main(["papers", "--format", "json", "--limit", "3"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 3  # stdout is the JSON alone
    assert err.splitlines() == [
        f"digest-tui: enriching {papers:,} papers again after a change of the rules or data "
        "files (once)",
        f"digest-tui: enriched {papers:,} papers again.",
    ]
    # once: the next command finds nothing stale and says nothing
    assert main(["papers", "--format", "json", "--limit", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_a_terminal_sees_the_count_rewritten_on_one_short_line():
    terminal = _Terminal()
    notice = ReenrichNotice(terminal)
    for done in (0, 500, 1000, 2500):
        notice(done, 2500)
    why, counted = terminal.getvalue().split("\n", 1)
    assert why.startswith("digest-tui: enriching 2,500 papers again")
    assert counted.endswith("digest-tui: enriched 2,500 papers again.\n")
    # each count replaces the last one in place, and is short enough never to wrap at 80
    # columns (a wrapped line cannot be rewritten)
    counts = counted.removesuffix("\n").split("\r\x1b[2K")[1:]
    assert counts[:3] == ["  0 of 2,500 papers", "  500 of 2,500 papers", "  1,000 of 2,500 papers"]
    assert all(len(c) < 80 for c in counts)


@pytest.mark.parametrize("total", [0, 10, ReenrichNotice.MIN_PAPERS - 1])
def test_small_jobs_say_nothing(total):
    log = io.StringIO()
    notice = ReenrichNotice(log)
    notice(0, total)
    notice(total, total)
    assert log.getvalue() == ""


def test_a_closed_stderr_does_not_stop_the_command():
    closed = io.StringIO()
    closed.close()
    ReenrichNotice(closed)(0, 5000)  # no exception


def _stale_library(home) -> tuple[str, int]:
    """A library imported with the packaged taxonomy, then a taxonomy override that disables
    every built-in topic but MoE (every stored paper's topics are stale). Returns a paper with
    topics, none of them MoE, and the count."""
    library = open_library(AppContext())
    import_files(library, [SEED_DEC09, SEED_DEC10])
    paper_id = library.conn.execute(
        "SELECT id FROM papers WHERE topics != '[]' AND topics NOT LIKE '%moe%' ORDER BY id LIMIT 1"
    ).fetchone()[0]
    papers = library.conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    library.close()
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    disabled = "".join(
        f"  - id: {topic}\n    enabled: false\n"
        for topic in ("kernels", "serving", "training-parallelism")
    )
    (config / "taxonomy.yaml").write_text(f"topics:\n{disabled}", encoding="utf-8")
    return paper_id, papers


def _stale_ids() -> set[str]:
    library = open_library(AppContext())
    try:
        fingerprint = library.enricher.fingerprint
        return {
            row[0]
            for row in library.conn.execute(
                "SELECT id FROM papers WHERE enrich_fp IS NOT ?", (fingerprint,)
            )
        }
    finally:
        library.close()


def test_show_after_a_rules_change_enriches_that_paper_only(home, monkeypatch, capsys):
    paper_id, papers = _stale_library(home)
    monkeypatch.setattr(ReenrichNotice, "MIN_PAPERS", 1)

    assert main(["show", paper_id, "--offline", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["topics"] == []  # read under the new taxonomy, not as stored
    assert err == ""  # nothing to wait for
    stale = _stale_ids()
    assert paper_id not in stale and len(stale) == papers - 1

    # a command about the whole library still enriches the rest, once, and says so
    assert main(["papers", "--format", "json", "--limit", "1"]) == 0
    assert "enriching" in capsys.readouterr().err
    assert _stale_ids() == set()


@pytest.mark.parametrize(
    "argv",
    [
        ["tag", "{id}", "to-read"],
        ["bookmark", "{id}"],
        ["tags"],
        ["list", "create", "queue"],
    ],
)
def test_commands_that_read_no_enrichment_do_not_wait_for_it(home, monkeypatch, capsys, argv):
    paper_id, papers = _stale_library(home)
    monkeypatch.setattr(ReenrichNotice, "MIN_PAPERS", 1)

    assert main([a.format(id=paper_id) for a in argv]) == 0
    assert "enriching" not in capsys.readouterr().err
    assert len(_stale_ids()) == papers  # left for a command that reads it


def test_open_after_a_rules_change_enriches_that_paper_only(home, capsys):
    paper_id, papers = _stale_library(home)
    assert main(["open", paper_id, "--paper", "--print"]) == 0
    assert capsys.readouterr().out.strip().startswith("http")
    stale = _stale_ids()
    assert paper_id not in stale and len(stale) == papers - 1


def test_a_list_shown_as_json_enriches_its_papers_only(home, capsys):
    paper_id, papers = _stale_library(home)
    assert main(["list", "create", "queue"]) == 0
    assert main(["list", "add", "queue", paper_id]) == 0
    capsys.readouterr()
    assert main(["list", "show", "queue", "--format", "json"]) == 0
    [shown] = json.loads(capsys.readouterr().out)["papers"]
    assert shown["topics"] == []  # under the new taxonomy, not as stored
    stale = _stale_ids()
    assert paper_id not in stale and len(stale) == papers - 1
