"""A lone two- or three-letter word matches titles, tags and notes only (docs/search.md): the
app's header and the CLI say so, with the way to search abstracts too, so `gpu` finding fewer
papers than expected is never a silent surprise."""

from __future__ import annotations

import json

from digest_tui.search_syntax import parse_search, short_word, short_word_hint
from digest_tui.tui.navigation import SearchScope, list_header
from digest_tui.tui.selection import Selection
from tests.support.paths import SEED_DEC10


def test_only_a_lone_short_word_gets_the_hint() -> None:
    assert short_word(parse_search("gpu")) == "gpu"
    assert short_word(parse_search("kv tag:todo")) == "kv"  # filters keep it alone
    for text in ["g", "gpus", "kv cache", '"kv"', "-kv", "topic:moe", ""]:
        assert short_word(parse_search(text)) is None, text
    hint = short_word_hint(parse_search("KV"))
    assert hint is not None and '"kv"' in hint and "abstracts" in hint


def test_the_header_carries_the_hint_only_while_it_applies() -> None:
    everything = Selection()
    short = list_header(everything, 3, "kv", "relevance", None)
    assert "titles, tags, notes only" in short and '("kv")' in short
    assert "titles, tags" not in list_header(everything, 3, "kv cache", "relevance", None)
    assert "titles, tags" not in list_header(everything, 3, '"kv"', "relevance", None)


def test_the_cli_notes_it_on_stderr_and_quoting_searches_abstracts(home, capsys) -> None:
    from digest_tui.cli import main

    assert main(["import", str(SEED_DEC10)]) == 0
    capsys.readouterr()
    assert main(["papers", "--search", "gpu", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "note: search: 'gpu' is short" in out.err
    in_titles = {paper["id"] for paper in json.loads(out.out)}
    assert main(["papers", "--search", '"gpu"', "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "note: search" not in out.err
    everywhere = {paper["id"] for paper in json.loads(out.out)}
    # The quoted word (a whole word, not a prefix: "GPUs" is another word) also finds papers
    # that say "GPU" only in their abstracts.
    assert in_titles and everywhere - in_titles


def test_export_notes_it_too_and_keeps_it_out_of_the_data(home, capsys) -> None:
    from digest_tui.cli import main

    assert main(["import", str(SEED_DEC10)]) == 0
    capsys.readouterr()
    assert main(["export", "--search", "gpu", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "note: search: 'gpu' is short" in out.err
    assert "note: search" not in out.out
    assert json.loads(out.out)  # stdout is still the export alone


def test_the_header_never_claims_a_total_it_does_not_know() -> None:
    """Until a search's counts arrive (once typing pauses) the view's size is unknown: the
    header says how many match, not "5 of 5"; with the counts it says "5 of 26"."""
    latest = Selection(kind="digest", value="2026-01-08", label="Latest digest")
    before = list_header(latest, 5, "expert", "relevance", None)
    assert before.startswith("in Latest digest: 5 papers match 'expert' · ")
    assert " of " not in before.split("·")[0]
    one = list_header(latest, 1, "expert", "relevance", None)
    assert one.startswith("in Latest digest: 1 paper matches 'expert'")
    scope = SearchScope(scope_total=26, everywhere=None, problems=())
    after = list_header(latest, 5, "expert", "relevance", scope)
    assert after.startswith("in Latest digest: 5 of 26 papers match 'expert' · ")
