"""Issue 11: a topic the learned reader added (no rule decided it) says so, in the side panel,
in `show` and in the JSON contract (`"by": "reader"` on its evidence); a rule's evidence keeps
its shape. Read on the sample library, where the reader adds a topic to a few papers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.tui.app import DigestApp
from digest_tui.tui.widgets.paper_panel import PaperBody, PaperPanel
from tests.ui.settle import settle

pytestmark = pytest.mark.timeout(180)

MARK = "(learned reader)"


def _papers(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["papers", "--format", "jsonl"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _reader_topics(paper: dict[str, Any]) -> list[str]:
    return [
        topic
        for topic, evidence in paper["topic_evidence"].items()
        if evidence and all(e.get("by") == "reader" for e in evidence)
    ]


def _a_reader_paper(papers: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    marked = [(p, _reader_topics(p)) for p in papers if _reader_topics(p)]
    assert marked, "the sample library has no topic the learned reader added"
    paper, topics = marked[0]
    return paper, topics[0]


def test_the_json_contract_marks_the_readers_evidence_only(home: Path, capsys) -> None:
    papers = _papers(capsys)
    _a_reader_paper(papers)
    for paper in papers:
        for evidence in paper["topic_evidence"].values():
            for item in evidence:
                # A rule's evidence has the four keys it always had; the reader's one more.
                assert set(item) in (
                    {"phrase", "field", "start", "end"},
                    {"phrase", "field", "start", "end", "by"},
                ), item
                assert item.get("by", "reader") == "reader"


def test_show_names_the_reader_beside_its_topic_and_not_beside_a_rules(home: Path, capsys) -> None:
    papers = _papers(capsys)
    paper, topic = _a_reader_paper(papers)
    assert main(["show", paper["id"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(x for x in lines if x.startswith(f"  {topic}: "))
    assert line.endswith(MARK), line
    ruled = next(
        (p, t)
        for p in papers
        for t in p["topics"]
        if t in p["topic_evidence"] and t not in _reader_topics(p)
    )
    assert main(["show", ruled[0]["id"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(x for x in lines if x.startswith(f"  {ruled[1]}: "))
    assert MARK not in line, line


async def test_the_panel_names_the_reader_beside_its_topic(home: Path, capsys) -> None:
    paper, topic = _a_reader_paper(_papers(capsys))
    ctx = AppContext()
    ctx.paths.config_file.write_text("repo_health: false\n", encoding="utf-8")
    app = DigestApp(ctx)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, rounds=4)
        app._jump_to(paper["id"])
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        assert panel.paper is not None and panel.paper.id == paper["id"]
        body = panel.query_one(PaperBody)
        strips = body.render_lines(Region(0, 0, body.size.width, 60))
        text = " ".join(" ".join(s.text for s in strips).split())
        # The topic's line (wrapped at the panel's width) ends with the mark, before the next
        # topic or the next section.
        after = text[text.index(f"{topic} because of:") :]
        ends = [after.find(f" {t} because of:") for t in paper["topics"] if t != topic]
        ends = [e for e in (*ends, after.find(" Code")) if e > 0]
        assert MARK in after[: min(ends, default=len(after))], text
