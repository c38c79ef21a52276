"""After a taxonomy edit only the papers the edit can change are classified again (issue 12:
re-enriching a large library after a taxonomy edit in seconds; store/topic_edits.py,
enrich/topics/delta.py). Whatever the edit, the stored rows must equal a full enrichment
under the edited taxonomy, and the papers left as they were must be the ones no changed entry
touches."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from digest_tui.enrich.pipeline import TOPICS, Enricher
from digest_tui.enrich.topics.snapshot import snapshot_texts, take_snapshot
from digest_tui.enrich.topics.taxonomy import load_taxonomy
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.topic_edits import settle_unchanged
from tests.unit.test_enrich_parallel import fixture_papers


def _patterns(topic_id: str) -> list[dict[str, Any]]:
    topic = load_taxonomy(None).topic(topic_id)
    assert topic is not None
    return [p.model_dump(exclude_none=True) for p in topic.patterns]


def _user_file(*topics: dict[str, Any], scoring: dict[str, Any] | None = None) -> str:
    doc: dict[str, Any] = {"topics": list(topics)}
    if scoring:
        doc["scoring"] = scoring
    return yaml.safe_dump(doc, sort_keys=False)


# name -> (the user's taxonomy.yaml text, how many papers get classified again: "some" (more
# than none, fewer than all), "none" or "all")
def _edits() -> dict[str, tuple[str, str]]:
    kernels = _patterns("kernels")
    heavier = [dict(p) for p in kernels]
    heavier[0]["weight"] = heavier[0]["weight"] + 3
    return {
        "a pattern added": (
            _user_file(
                {"id": "kernels", "add_patterns": [{"phrase": "gpu", "weight": 4}]},
            ),
            "some",
        ),
        "a weight changed": (_user_file({"id": "kernels", "patterns": heavier}), "some"),
        "a pattern removed": (_user_file({"id": "kernels", "patterns": kernels[1:]}), "some"),
        "a negative added": (
            _user_file({"id": "serving", "add_negatives": [{"phrase": "inference"}]}),
            "some",
        ),
        "a threshold changed": (_user_file({"id": "moe", "threshold": 9}), "some"),
        "a topic disabled": (_user_file({"id": "moe", "enabled": False}), "some"),
        "a topic added": (
            _user_file(
                {
                    "id": "quantization",
                    "label": "Quantization",
                    "threshold": 3,
                    "patterns": [{"phrase": ["quantization", "low-bit"], "weight": 3}],
                }
            ),
            "some",
        ),
        "a label changed": (_user_file({"id": "kernels", "label": "GPU kernels"}), "none"),
        # A reorder can change which of two equal matches wins inside the topic: every paper
        # that one of the topic's patterns matches is classified again, no other.
        "patterns reordered": (
            _user_file({"id": "kernels", "patterns": list(reversed(kernels))}),
            "some",
        ),
        "scoring changed": (_user_file(scoring={"title_weight": 3.0}), "all"),
    }


EDITS = _edits()


def import_papers(library: Library, papers: list[Paper]) -> list[Paper]:
    """Store the papers; return them as stored (a paper listed twice is stored once)."""
    digest = Digest(id="fixtures", source="test", date=dt.date(2026, 1, 1), title="fixtures")
    library.import_parsed(ParsedDigest(digest=digest, papers=papers))
    rowids = [rowid for (rowid,) in library.conn.execute("SELECT rowid FROM papers")]
    return [library.stored_paper(rowid) for rowid in rowids]


def enrichment_rows(conn: sqlite3.Connection) -> dict[str, tuple[Any, ...]]:
    rows = {
        row[0]: tuple(row[1:])
        for row in conn.execute(
            "SELECT id, topics, topic_evidence, hardware, enrich_fp FROM papers"
        )
    }
    linked: dict[str, list[str]] = {}
    for paper_id, topic in conn.execute(
        "SELECT p.id, t.topic FROM paper_topics t JOIN papers p ON p.rowid = t.paper_rowid"
    ):
        linked.setdefault(paper_id, []).append(topic)
    for paper_id, row in rows.items():
        assert sorted(linked.get(paper_id, [])) == sorted(json.loads(row[0])), paper_id
    return rows


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    found = fixture_papers()
    unique = {p.id: p for p in found}
    return list(unique.values())


@pytest.fixture
def classified(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Paper ids classified (the real classifier, counted)."""
    counts: Counter[str] = Counter()
    original = Enricher._classify

    def counted(self, paper):  # type: ignore[no-untyped-def]
        counts[paper.id] += 1
        return original(self, paper)

    monkeypatch.setattr(Enricher, "_classify", counted)
    return counts


@pytest.mark.parametrize("name", list(EDITS))
def test_an_edit_classifies_only_what_it_can_change(
    name: str, tmp_path: Path, papers: list[Paper], classified: Counter[str]
) -> None:
    text, expected = EDITS[name]
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    papers = import_papers(library, papers)
    before = enrichment_rows(library.conn)
    (config / "taxonomy.yaml").write_text(text, encoding="utf-8")
    edited = Library(library.conn, Enricher(config))
    classified.clear()
    assert edited.reenrich(workers=0) == len(papers)
    assert edited.stale_count() == 0
    after = enrichment_rows(library.conn)
    again = set(classified)

    # Every paper as a full enrichment under the edited taxonomy gives it.
    enricher = Enricher(config)
    fingerprint = enricher.fingerprint
    for paper in papers:
        full = enricher.columns(paper)
        expected_row = (full["topics"], full["topic_evidence"], full["hardware"], fingerprint)
        assert after[paper.id] == expected_row, paper.id

    if expected == "none":
        assert not again
    elif expected == "all":
        assert len(again) == len(papers)
    else:
        assert 0 < len(again) < len(papers)
    # Papers left unclassified kept their stored rows (only the fingerprint moved).
    for paper in papers:
        if paper.id not in again:
            assert after[paper.id][:3] == before[paper.id][:3]


def test_the_papers_left_as_they_were_are_those_no_changed_entry_touches(
    tmp_path: Path, papers: list[Paper], classified: Counter[str]
) -> None:
    """An added phrase: exactly the papers whose text holds it are classified again."""
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    papers = import_papers(library, papers)
    (config / "taxonomy.yaml").write_text(
        _user_file({"id": "kernels", "add_patterns": [{"phrase": "warp", "weight": 4}]}),
        encoding="utf-8",
    )
    classified.clear()
    Library(library.conn, Enricher(config)).reenrich(workers=0)
    import re

    holding = {
        p.id
        for p in papers
        if re.search(r"(?<![^\W_])warp(?:e?s)?(?![^\W_])", f"{p.title}\n{p.abstract}".lower())
    }
    assert holding  # the fixtures do say "warp"
    assert set(classified) == holding


def test_a_library_without_a_snapshot_classifies_everything_once(
    tmp_path: Path, papers: list[Paper], classified: Counter[str]
) -> None:
    """Papers enriched before snapshots were kept (or whose snapshot is gone): every paper is
    classified, and the next edit is a delta again."""
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    papers = import_papers(library, papers)
    with library.conn:
        library.conn.execute("DELETE FROM meta WHERE key LIKE 'taxonomy_snapshot:%'")
    for text, expected_all in (
        (EDITS["a topic added"][0], True),
        (EDITS["a pattern added"][0], False),
    ):
        (config / "taxonomy.yaml").write_text(text, encoding="utf-8")
        classified.clear()
        Library(library.conn, Enricher(config)).reenrich(workers=0)
        assert (len(classified) == len(papers)) is expected_all
    # Only the current taxonomy's snapshot is kept once every paper carries it.
    keys = [
        k
        for (k,) in library.conn.execute(
            "SELECT key FROM meta WHERE key LIKE 'taxonomy_snapshot:%'"
        )
    ]
    assert keys == [f"taxonomy_snapshot:{Enricher(config).component_fingerprints[TOPICS]}"]


def test_a_paper_changed_since_the_stale_list_was_read_is_classified(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    papers = fixture_papers()[:20]
    import_papers(library, papers)
    (config / "taxonomy.yaml").write_text(EDITS["a label changed"][0], encoding="utf-8")
    enricher = Enricher(config)
    rows = library.conn.execute("SELECT rowid, enrich_fp FROM papers").fetchall()
    todo = [(rowid, frozenset({TOPICS})) for rowid, _ in rows]
    stored = {rowid: fp for rowid, fp in rows}
    # The first paper was enriched again by someone else meanwhile: its fingerprint moved.
    with library.conn:
        library.conn.execute("UPDATE papers SET enrich_fp = 'x' WHERE rowid = ?", (rows[0][0],))
    rest = settle_unchanged(library.conn, enricher, todo, stored)
    assert rest == [(rows[0][0], frozenset({TOPICS}))]


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d.update(salt="another code version"),
        lambda d: d["files"][0].__setitem__(2, d["files"][0][2] + "# edited\n"),
        lambda d: d.update(version=99),
        lambda d: d.pop("files"),
    ],
)
def test_a_snapshot_that_is_not_what_its_key_says_is_not_used(
    tmp_path: Path, tamper: Callable[[dict[str, Any]], None]
) -> None:
    (tmp_path / "taxonomy.yaml").write_text(EDITS["a pattern added"][0], encoding="utf-8")
    files = [Path(load_taxonomy(None).sources[0]), tmp_path / "taxonomy.yaml"]
    key, text = take_snapshot(files, "salt")
    texts = snapshot_texts(text, key, "salt")
    assert texts is not None and texts[1] == EDITS["a pattern added"][0]
    data = json.loads(text)
    tamper(data)
    assert snapshot_texts(json.dumps(data), key, "salt") is None


def test_a_command_about_one_paper_does_not_rebuild_the_old_taxonomy(
    tmp_path: Path, papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`show ID` after an edit: classifying its one paper costs less than the delta."""
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    papers = import_papers(library, papers)
    (config / "taxonomy.yaml").write_text(EDITS["a pattern added"][0], encoding="utf-8")
    deltas: list[str] = []
    monkeypatch.setattr(Enricher, "topic_delta", lambda self, key, text: deltas.append(key))
    edited = Library(library.conn, Enricher(config))
    rowid = library.conn.execute("SELECT min(rowid) FROM papers").fetchone()[0]
    assert edited.reenrich(rowids=[rowid]) == 1
    assert not deltas
    assert edited.reenrich(workers=0) == len(papers) - 1
    assert len(deltas) == 1  # a library's worth: once per stored fingerprint


def test_a_changed_phrase_is_searched_as_the_classifier_searches_it(tmp_path: Path) -> None:
    """URLs are blanked before matching: a phrase only inside a link changes nothing, while
    one whose words a blanked link separates does (the gap between them is spaces)."""
    from digest_tui.enrich.topics.delta import topic_delta

    (tmp_path / "taxonomy.yaml").write_text(
        _user_file(
            {"id": "kernels", "add_patterns": [{"phrase": "warp specialization", "weight": 4}]}
        ),
        encoding="utf-8",
    )
    from digest_tui.enrich.topics.classifier import classify

    old, new = load_taxonomy(None), load_taxonomy(tmp_path)
    delta = topic_delta(old.topics, old.scoring, new)
    assert delta is not None and len(delta.changed) == 1
    inside = "Code: https://github.com/lab/warp-specialization-kernels for the paper."
    across = "We use warp https://example.org/x specialization on Hopper."
    plain = "Warp-specialized pipelines? No: WARP SPECIALIZATION, in capitals."
    assert classify(new, "A title", inside).topics == classify(old, "A title", inside).topics
    assert not delta.may_change("A title", inside, [], [])
    assert "kernels" in set(classify(new, "A title", across).topics) - set(
        classify(old, "A title", across).topics
    )
    assert delta.may_change("A title", across, [], [])
    assert delta.may_change("A title", plain, [], [])
    assert delta.may_change("A title", "", ["warp specialization"], [])  # keywords count
    assert not delta.may_change("Warp scheduling", "Specialization of experts.", [], [])


def test_the_settling_pass_reports_progress_and_pauses_outside_transactions(
    tmp_path: Path, papers: list[Paper], monkeypatch: pytest.MonkeyPatch, classified: Counter[str]
) -> None:
    """What the app and the CLI notice see: the count starts at 0 and ends at every stale
    paper, never going back; each chunk of the settling pass waits on `pause` with no write
    transaction open (the reader's marks get in between)."""
    import digest_tui.store.topic_edits as topic_edits

    monkeypatch.setattr(topic_edits, "_CHUNK", 50)  # several chunks of the fixture papers
    config = tmp_path / "config"
    config.mkdir()
    library = Library(connect(tmp_path / "a.sqlite3"), Enricher(config))
    papers = import_papers(library, papers)
    (config / "taxonomy.yaml").write_text(EDITS["a pattern added"][0], encoding="utf-8")
    edited = Library(library.conn, Enricher(config))
    seen: list[tuple[int, int]] = []
    in_transaction: list[bool] = []
    settled_before_classifying: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if done and not classified:
            settled_before_classifying.append(done)

    classified.clear()
    edited.reenrich(
        workers=0,
        progress=progress,
        pause=lambda: in_transaction.append(library.conn.in_transaction),
    )
    total = len(papers)
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert all(t == total for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    # the settling pass counts too, before any paper is classified
    assert len(settled_before_classifying) > 1
    assert len(in_transaction) > -(-total // 50) and not any(in_transaction)
