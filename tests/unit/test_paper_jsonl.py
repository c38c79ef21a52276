"""`papers --format jsonl` splices each line from the row's stored JSON (paper_jsonl) instead of
building the contract's dict and encoding it again. Every line must be byte for byte what the
contract gives: `dumps_json(paper_view(...).to_json())`. Compared on every fixture paper (user
state, machines or none), a synthetic library, and rows crafted in SQLite: unicode, control
and invisible characters, missing fields, JSON columns written by another encoder or enricher.
"""

from __future__ import annotations

import json

import pytest

from digest_tui.cli import main
from digest_tui.commands.common import dumps_json
from digest_tui.config import AppContext, Machine
from digest_tui.machine_fits import MachineFits
from digest_tui.paper_jsonl import COLUMNS, paper_jsonl_line
from digest_tui.paper_view import paper_view
from digest_tui.service import import_files, open_library
from digest_tui.store import paper_batch
from digest_tui.store.query import PaperQuery, build_select
from tests.support.paths import DIGESTS
from tests.unit.test_paper_json_fast import _synthetic, _with_state

MACHINES = [
    Machine.model_validate({"name": "laptop", "devices": [{"id": "rtx-4090"}]}),
    Machine.model_validate({"name": "box", "devices": [{"id": "h100-80gb", "count": 8}]}),
]


def _compare_every_paper(library, machines) -> int:  # type: ignore[no-untyped-def]
    sql, params = build_select(PaperQuery(), COLUMNS)
    rows = library.conn.execute(sql, params).fetchall()
    rowids = [int(r["rowid"]) for r in rows]
    states = paper_batch.user_states(library.conn, rowids)
    digests = paper_batch.digests_of(library.conn, rowids)
    # One cache of machine fits for the whole dump, as `papers --format jsonl` keeps it: a
    # paper whose fit fields equal an earlier one's gets that one's verdicts and reasons.
    fits = MachineFits(machines, lambda: library.enricher.hardware_catalog) if machines else None
    for row, rowid in zip(rows, rowids, strict=True):
        line = paper_jsonl_line(
            library, row, machines, state=states[rowid], digests=digests[rowid], fits=fits
        )
        full = library.conn.execute("SELECT rowid, * FROM papers WHERE rowid = ?", (rowid,))
        expected = dumps_json(paper_view(library, full.fetchone(), machines).to_json())
        assert line == expected, row["id"]
    return len(rows)


@pytest.fixture
def fixture_library(home):  # type: ignore[no-untyped-def]
    library = open_library(AppContext())
    import_files(library, sorted(DIGESTS.glob("*.txt")))
    yield _with_state(library)
    library.close()


@pytest.mark.parametrize("machines", [[], MACHINES], ids=["no-machines", "machines"])
def test_every_fixture_paper_is_the_contracts_line(fixture_library, machines):
    assert _compare_every_paper(fixture_library, machines) > 20


def test_the_current_enricher_writes_the_contracts_shapes(fixture_library):
    # What lets a current row be spliced without checking: the enricher's repos, links and
    # evidence already have the contract's keys in the contract's order.
    library = fixture_library
    current = library.enricher.fingerprint
    rows = library.conn.execute("SELECT enrich_fp, repos, links, topic_evidence FROM papers")
    checked = 0
    for fp, repos, links, evidence in rows:
        assert fp == current
        for repo in json.loads(repos):
            assert list(repo) == [
                "url",
                "host",
                "owner",
                "name",
                "path",
                "kind",
                "source",
                "framework",
                "notes",
                "stars",
            ]
            checked += 1
        for link in json.loads(links):
            assert list(link)[:3] == ["url", "host", "kind"]
            assert None not in link.values()
        for matches in json.loads(evidence).values():
            # A rule's evidence has the contract's four keys; the learned reader's says so
            # with one more, last ("by": "reader", models.TopicEvidence.by).
            assert all(
                list(m) == ["phrase", "field", "start", "end"]
                or (list(m) == ["phrase", "field", "start", "end", "by"] and m["by"] == "reader")
                for m in matches
            )
    assert checked > 5


@pytest.mark.parametrize("machines", [[], MACHINES], ids=["no-machines", "machines"])
def test_a_thousand_synthetic_papers(home, machines):
    synthetic = _synthetic()
    assert synthetic.import_generated(home, 1000) >= 1000
    library = _with_state(open_library(AppContext()))
    assert _compare_every_paper(library, machines) >= 1000
    library.close()


def test_machine_fits_are_judged_once_per_distinct_fit(home):
    """The cache does repeat: far fewer judgements than papers, each answer the paper's own."""
    synthetic = _synthetic()
    synthetic.import_generated(home, 1000)
    library = open_library(AppContext())
    fits = MachineFits(MACHINES, lambda: library.enricher.hardware_catalog)
    texts = [h for (h,) in library.conn.execute("SELECT hardware FROM papers") if h]
    answers = [fits.text(h) for h in texts]
    assert len(texts) >= 1000 and len(fits._texts) < len(texts) / 2
    from digest_tui.paper_view import machine_fit

    catalog = library.enricher.hardware_catalog
    for text, answer in zip(texts, answers, strict=True):
        expected = [f.to_json() for f in machine_fit(json.loads(text), MACHINES, catalog)]
        assert json.loads(answer) == expected
    library.close()


HOSTILE = 'é 中文 🚀 \x1b[31m red \x7f del \x9b csi \u202e bidi \u200b zw \u2028 ls \\ " q'

# Each: columns set on one stored paper, as another writer (an older version, a manual edit,
# another enricher) could have left them; enrich_fp "old" marks the row as not current.
CRAFTED = {
    "hostile text": {
        "title": HOSTILE,
        "abstract": HOSTILE + "\n\ttab",
        "organization_name": HOSTILE,
        "authors": json.dumps([HOSTILE, "Zoë"], ensure_ascii=False),
        "keywords": json.dumps([HOSTILE], ensure_ascii=False),
    },
    "missing fields": {
        "published": None,
        "upvotes": None,
        "arxiv_id": None,
        "organization": None,
        "organization_name": None,
        "project_page": None,
        "authors_count": None,
        "hardware": None,
    },
    "empty hardware text": {"hardware": ""},
    "ascii-escaped columns": {
        "topics": json.dumps(["caf\u00e9"]),
        "authors": json.dumps(["Zoë \u202e"]),
        "hardware": json.dumps({"target": "Ünïcode", "devices": []}),
    },
    "hostile hardware": {
        "hardware": json.dumps(
            {"target": HOSTILE, "memory_gb": 1e-7, "n": [1.5, None, True]}, ensure_ascii=False
        )
    },
    "old repo shape, stale row": {
        "enrich_fp": "old",
        "repos": json.dumps([{"host": "github.com", "url": "https://github.com/a/b"}]),
        "links": json.dumps(
            [
                {"url": "https://x.org/é", "host": "x.org", "kind": "project", "owner": None},
                {"kind": "repo", "url": "https://github.com/a/b", "host": "github.com"},
            ],
            ensure_ascii=False,
        ),
        "topic_evidence": json.dumps(
            {"moe": [{"end": 3, "start": 0, "field": "title", "phrase": "MoE"}]}
        ),
    },
    "canonical shapes, stale row": {
        "enrich_fp": None,
        "repos": json.dumps(
            [
                {
                    "url": "https://github.com/a/b",
                    "host": "github.com",
                    "owner": "a",
                    "name": "b",
                    "path": None,
                    "kind": "official",
                    "source": "abstract",
                    "framework": None,
                    "notes": HOSTILE,
                    "stars": 12,
                }
            ],
            ensure_ascii=False,
        ),
        "links": json.dumps([{"url": "u", "host": "h", "kind": "k", "name": "n"}]),
        "topic_evidence": json.dumps(
            {"moe": [{"phrase": "é", "field": "title", "start": 0, "end": 1}]}, ensure_ascii=False
        ),
    },
    "withdrawn": {"withdrawn": 1},
}


@pytest.mark.parametrize("machines", [[], MACHINES], ids=["no-machines", "machines"])
@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_rows_are_the_contracts_line(fixture_library, case, machines):
    library = fixture_library
    # The paper with the most user state (tags, bookmark, list), so both halves are tested.
    rowid = library.conn.execute(
        "SELECT paper_rowid FROM paper_tags GROUP BY paper_rowid ORDER BY count(*) DESC"
    ).fetchone()[0]
    columns = CRAFTED[case]
    assignments = ", ".join(f"{name} = ?" for name in columns)
    library.conn.execute(
        f"UPDATE papers SET {assignments} WHERE rowid = ?", (*columns.values(), rowid)
    )
    library.conn.commit()
    assert _compare_every_paper(library, machines) > 20
    sql, params = build_select(PaperQuery(), COLUMNS)
    row = next(r for r in library.conn.execute(sql, params) if r["rowid"] == rowid)
    state = paper_batch.user_states(library.conn, [rowid])[rowid]
    line = paper_jsonl_line(library, row, machines, state=state, digests=[])
    # Safe to print and the same value: nothing a terminal acts on goes out raw.
    assert not {"\x1b", "\x7f", "\x9b", "\u202e", "\u200b", "\u2028"} & set(line)
    paper = json.loads(line)
    assert paper["tags"] and paper["bookmarked"] is True
    for name, value in columns.items():
        if name in ("title", "abstract", "organization_name", "published", "upvotes"):
            assert paper[name] == value


def test_a_note_conflict_and_lists_print_as_the_contract(fixture_library):
    # _with_state leaves a note conflict on one paper and a list on two: compared above;
    # here the line itself carries them, so the comparison did cover them.
    lines = [json.loads(line) for line in _cli_lines()]
    assert any(p["note_conflicts"] for p in lines)
    assert any(p["lists"] == ["Zoo"] for p in lines)
    assert any(p["note"] and "\x1b" in p["note"] for p in lines)


def _cli_lines() -> list[str]:
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(["papers", "--format", "jsonl"]) == 0
    return buffer.getvalue().splitlines()


def test_lines_written_in_batches_are_the_lines_and_newlines(monkeypatch):
    """`papers --format jsonl` gathers lines into ~64 KiB writes: the text is exactly each line
    and a newline, whatever the lines' sizes, and nothing for no line."""
    import io

    from digest_tui.commands import library_cmds

    monkeypatch.setattr(library_cmds, "_CHARS_PER_WRITE", 100)
    for lines in ([], ["{}"], ["x" * 250, "", "y", *(f"{{{n}}}" for n in range(60)), "z" * 99]):
        out = io.StringIO()
        writes: list[str] = []
        monkeypatch.setattr(out, "write", lambda text, writes=writes: writes.append(text) or 0)
        monkeypatch.setattr("sys.stdout", out)
        library_cmds.write_lines(iter(lines))
        assert "".join(writes) == "".join(f"{line}\n" for line in lines)
        assert all(len(w) <= 100 + 250 + 1 for w in writes)  # streamed, not one write at the end
        assert len(writes) > 1 or len(lines) < 3
