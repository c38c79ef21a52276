"""What a taxonomy edit can change: the papers whose topics need classifying again.

A topic's result for a paper depends only on that topic's own definition (patterns, negatives,
threshold, required kinds), the scoring, and which of its patterns match the paper's text
(`matching.CompiledTopic.hits`: overlaps are resolved within one topic). So after an edit, a
paper none of whose *changed* entries match (a pattern or negative added, removed or edited,
old and new versions both counted) keeps exactly the hits, scores and evidence it had, as long
as the entries both versions share keep their relative order (ties in the overlap resolution
fall back to pattern order). Such a paper needs no classifying again; finding it costs a
substring test, not a classification (issue 12: re-enriching 100,000 papers after a taxonomy
edit in seconds). Anything this module cannot reason about (a scoring change, reordered topics
or patterns) answers "classify everything", never a guess.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from digest_tui.enrich.topics.casefold import lower_same_length
from digest_tui.enrich.topics.classifier import match_fields
from digest_tui.enrich.topics.matching import CompiledPattern, PatternIndex, compile_pattern
from digest_tui.enrich.topics.schema import PatternSpec, Scoring, TopicDef
from digest_tui.enrich.topics.taxonomy import Taxonomy

_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class TopicDelta:
    """The entries an edit changed, compiled, and the topics it removed. Both empty when the
    edit changed nothing the classifier reads (a label, a description). An entry whose `note`
    alone was edited counts as changed: a few papers classified again for nothing, never one
    missed."""

    taxonomy: Taxonomy  # the new one (its scoring weighs fields alike in both)
    changed: tuple[CompiledPattern, ...]
    removed: frozenset[str]
    # The changed entries as the classifier finds patterns (word starts, word edges).
    index: PatternIndex

    def may_change(
        self, title: str, abstract: str, keywords: Sequence[str], stored_topics: Sequence[str]
    ) -> bool:
        """Whether the paper's topics or evidence can differ under the new taxonomy: a
        changed entry matches its text as the classifier matches it (URLs blanked, the same
        fields), or it is in a removed topic."""
        if self.removed.intersection(stored_topics):
            return True
        if not self.changed or not self._needle_found(title or "", abstract or "", keywords):
            return False
        fields = match_fields(self.taxonomy, title or "", abstract or "", list(keywords or ()))
        return any(self.index.find(fld) for fld in fields)

    def _needle_found(self, title: str, abstract: str, keywords: Sequence[str]) -> bool:
        """Whether some changed entry may match: one of its needles (every match contains
        one) is in the text before URLs are blanked. Blanking only turns characters into
        spaces, so a needle without whitespace found in the blanked text is found here too;
        an entry without such needles answers yes."""
        original = "\n".join((title, ", ".join(keywords), abstract))
        lower = lower_same_length(original)
        for pattern in self.changed:
            needles = pattern.needles
            if needles is None or any(not n or _SPACE.search(n) for n in needles):
                return True
            text = original if pattern.on_original else lower
            if any(n in text for n in needles):
                return True
        return False


def topic_delta(
    old_topics: Sequence[TopicDef], old_scoring: Scoring, new: Taxonomy
) -> TopicDelta | None:
    """The delta from the old definitions to `new`, or None when every paper must be
    classified again (scoring changed, topics reordered)."""
    if old_scoring != new.scoring:
        return None
    old_by_id = {topic.id: topic for topic in old_topics}
    new_by_id = {topic.id: topic for topic in new.topics}
    # The topics a paper is in are listed in taxonomy order: a reorder changes every paper's
    # list, so it is not a delta.
    if [i for i in old_by_id if i in new_by_id] != [i for i in new_by_id if i in old_by_id]:
        return None
    changed: list[PatternSpec] = []
    for topic in new.topics:
        before = old_by_id.get(topic.id)
        if before is None:
            changed.extend(topic.patterns)  # a new topic: only its patterns can add it
            continue
        if (before.threshold, before.requires) != (topic.threshold, topic.requires):
            # Every paper with a hit of the topic may cross the new threshold; one without
            # any scores 0 before and after.
            changed.extend([*before.patterns, *topic.patterns])
            continue
        changed.extend(_changed_entries(before.patterns, topic.patterns))
        changed.extend(_changed_entries(before.negatives, topic.negatives))
    removed = frozenset(old_by_id) - frozenset(new_by_id)
    compiled = tuple(
        compile_pattern(spec, 0.0, index) for index, spec in enumerate(_unique(changed))
    )
    return TopicDelta(new, compiled, removed, PatternIndex(dict.fromkeys(compiled, "changed")))


def _key(entry: PatternSpec) -> str:
    return json.dumps(entry.model_dump(mode="json"), sort_keys=True)


def _changed_entries(
    before: Sequence[PatternSpec], after: Sequence[PatternSpec]
) -> list[PatternSpec]:
    """The entries in one list and not the other (as many times as the counts differ, old
    and new versions of an edited entry both); every entry when those both keep do not keep
    their relative order."""
    old_keys, new_keys = [_key(e) for e in before], [_key(e) for e in after]
    old_counts, new_counts = Counter(old_keys), Counter(new_keys)
    differing = {k for k in old_counts.keys() | new_counts.keys() if old_counts[k] != new_counts[k]}
    if [k for k in old_keys if k not in differing] != [k for k in new_keys if k not in differing]:
        return [*before, *after]
    entries = zip([*before, *after], [*old_keys, *new_keys], strict=True)
    return [entry for entry, key in entries if key in differing]


def _unique(entries: Sequence[PatternSpec]) -> list[PatternSpec]:
    seen: dict[str, PatternSpec] = {}
    for entry in entries:
        seen.setdefault(_key(entry), entry)
    return list(seen.values())
