"""What a CLI command pays before its work: the topic taxonomy (YAML parsed, ~100 patterns
compiled) is loaded only when a search names a topic, yet an unknown topic is still reported."""

from __future__ import annotations

from digest_tui.config import AppContext
from digest_tui.search_syntax import parse_search
from digest_tui.service import import_files, open_library
from digest_tui.store.search_problems import search_problems
from tests.support.paths import SEED_DEC10


def _no_machines() -> list[object]:
    return []


def test_a_listing_without_topic_filters_never_loads_the_taxonomy(home):
    library = open_library(AppContext())
    import_files(library, [SEED_DEC10])
    fresh = type(library)(library.conn, type(library.enricher)(None))
    assert search_problems(fresh, parse_search("flash has:code"), _no_machines) == []
    assert "taxonomy" not in vars(fresh.enricher)  # the cached_property was never computed
    library.close()


def test_an_unknown_topic_is_still_reported_with_the_choices(home):
    library = open_library(AppContext())
    fresh = type(library)(library.conn, type(library.enricher)(None))
    problems = search_problems(fresh, parse_search("topic:nope -topic:moe"), _no_machines)
    assert len(problems) == 1
    assert problems[0].startswith("topic:nope is unknown (try ")
    assert "moe" in problems[0] and "other" in problems[0]
    assert "taxonomy" in vars(fresh.enricher)
    library.close()


def test_the_cli_warns_about_an_unknown_topic(home, capsys):
    from digest_tui.cli import main

    assert main(["import", str(SEED_DEC10)]) == 0
    capsys.readouterr()
    assert main(["papers", "--search", "topic:nope", "--limit", "3"]) == 0
    assert "warning: search: topic:nope is unknown (try " in capsys.readouterr().err


def test_export_warns_about_an_unknown_topic_on_stderr_only(home, capsys):
    from digest_tui.cli import main

    assert main(["import", str(SEED_DEC10)]) == 0
    capsys.readouterr()
    assert main(["export", "--search", "topic:nope", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "warning: search: topic:nope is unknown (try " in out.err
    assert out.out == "[]\n"  # stdout is the export alone
