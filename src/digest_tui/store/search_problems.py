"""Every warning about a search's filters, worded once for the CLI and the app.

The CLI prints each as `warning: search: PROBLEM`; the app shows the same line under its search
box. Parsing problems come from `search_syntax`; the ones that need the library (a topic the
taxonomy does not have) or the config (a machine that is not declared) are checked here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from digest_tui.search_syntax import ParsedSearch
from digest_tui.store.fits import MachinesSource, fits_problems

if TYPE_CHECKING:
    from digest_tui.store.library import Library

# What the papers in no topic are called in `topic:` (see enrich/topics/schema.py).
_NO_TOPIC = "other"


def topic_problems(parsed: ParsedSearch, topic_ids: list[str]) -> list[str]:
    """`topic:foo` with no such topic would silently list nothing: say so, with the choices."""
    known = {topic.casefold() for topic in topic_ids} | {_NO_TOPIC}
    choices = ", ".join([*topic_ids, _NO_TOPIC])
    return [
        f"topic:{value} is unknown (try {choices})"
        for value in parsed.values("topic") + parsed.values("-topic")
        if value.casefold() not in known
    ]


def search_problems(library: Library, parsed: ParsedSearch, machines: MachinesSource) -> list[str]:
    """Parsing problems, unknown topics, then undeclared machines, in the order typed within
    each kind. `machines` may be a callable, called only when the search uses `fits:`."""
    problems = list(parsed.problems)
    # The taxonomy (YAML parsed, ~100 patterns compiled: ~90 ms) is loaded only when a topic
    # filter needs checking: most listings have none, and the CLI's budget is 300 ms.
    topics_used = parsed.values("topic") or parsed.values("-topic")
    if topics_used and library.enricher is not None:
        taxonomy = library.enricher.taxonomy
        problems += topic_problems(parsed, [topic.id for topic in taxonomy.topics])
    return problems + fits_problems(parsed, machines)
