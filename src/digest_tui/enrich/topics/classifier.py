"""Topic classification: which ML-systems topics a paper is about, and the phrases that say so.

The taxonomy is data: `data/taxonomy.yaml` ships with the app and `<config_dir>/taxonomy.yaml`
may add topics, change or disable built-in ones (see docs/topics.md). Each topic has weighted
phrase patterns and negative patterns:

- every pattern match found in the title, the keywords or the abstract is a piece of evidence;
- a negative pattern cancels the evidence it overlaps ("Gaussian kernel" cancels "kernel"), so
  an ambiguous word only counts in the sense the topic means;
- where evidence of one topic overlaps, the strongest (then longest) match explains the text;
- a topic's score is, per pattern, its weight times the weight of the best field it matched in
  (the title counts double) plus a small bonus for each repeat, summed over patterns;
- the paper is in the topic when the score reaches the topic's threshold. A pattern whose weight
  reaches the threshold decides alone; weaker ones need support from others.

`classify` is pure and fast (see docs/topics.md for the figures): patterns are compiled once
per `Taxonomy` and matched on a lower-cased copy of the text (same length, so offsets stay
valid). One pass over the text's tokens (`PatternIndex.find`) finds the word starts where some
pattern's literal prefix begins and whose word the pattern's matches can begin with, and only
those patterns are tried there, instead of scanning the text once per pattern. Overlap tests
mark covered characters (`enrich/coverage.py`), so the whole is linear in the text's length.
Only topics with a pattern found are judged, and evidence records are built only for the
topics a paper is in (`explain` builds them for all).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from digest_tui.enrich.gate import folded, folds
from digest_tui.enrich.topics.casefold import lower_same_length
from digest_tui.enrich.topics.learned import TopicModel
from digest_tui.enrich.topics.matching import FieldName, Hit, MatchField
from digest_tui.enrich.topics.taxonomy import Taxonomy
from digest_tui.models import TopicEvidence

_FIELD_ORDER: tuple[FieldName, ...] = ("title", "keywords", "abstract")
# Keywords are matched as one text, "kw1, kw2, ...": evidence offsets point into that text.
KEYWORD_SEPARATOR = ", "
# URLs are blanked before matching: a repo path such as ".../sequence-parallelism/README.md" is
# not the paper's own words, and highlighting inside a link would be noise.
_URL_SCHEME = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_URL_DOMAIN = re.compile(r"\.(?:com|org|io|ai|net|dev)/", re.IGNORECASE)


class StoredTopics(NamedTuple):
    """The topics a paper is in and their evidence, as the enrichment columns store them."""

    topics: list[str]
    evidence: dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class TopicResult:
    topics: list[str]
    evidence: dict[str, list[TopicEvidence]]
    # Every enabled topic's score (also those below threshold): for evaluation and debugging.
    scores: dict[str, float] = field(default_factory=dict)
    # Topics whose score reached the threshold but whose evidence lacks a required kind.
    unmet: dict[str, list[str]] = field(default_factory=dict)
    # The topics the learned reader may add (`undecided_topics`: rules evidence with every
    # required kind, short of deciding), and its probability of each it read (learned.py).
    undecided: list[str] = field(default_factory=list)
    learned: dict[str, float] = field(default_factory=dict)


def match_fields(
    taxonomy: Taxonomy, title: str, abstract: str, keywords: Sequence[str]
) -> list[MatchField]:
    texts: dict[FieldName, tuple[str, float]] = {
        "title": (title, taxonomy.scoring.title_weight),
        "keywords": (KEYWORD_SEPARATOR.join(keywords), taxonomy.scoring.keywords_weight),
        "abstract": (abstract, taxonomy.scoring.abstract_weight),
    }
    fields = []
    for name in _FIELD_ORDER:
        text, weight = texts[name]
        if text:
            lower = lower_same_length(text)
            masked = _mask_urls(text, lower)
            if masked is not text:
                lower = lower_same_length(masked)
            fields.append(MatchField(name, masked, lower, weight))
    return fields


def _mask_urls(text: str, lower: str) -> str:
    """Blank out URLs (same length, so offsets hold): `text` itself when it has none. Most
    texts have none: a substring test (`lower`: the text lower-cased) decides that before any
    regex runs."""
    if "/" not in text and "www." not in lower:
        return text
    # Every scheme match holds "http" or "www." as written in any case; no letter of them is
    # one that re matches case-insensitively to a character lower() does not give ("ı", "ſ"),
    # so `lower` holds them too. A "/" alone ("GPU/TPU") does not run the regex, and it runs
    # in its folded form on `lower` when that finds the same (gate.folds: 4x faster).
    spans: list[tuple[int, int]] = []
    if "http" in lower or "www." in lower:
        if folds(text, lower):
            spans = [m.span() for m in folded(_URL_SCHEME).finditer(lower)]
        else:
            spans = [m.span() for m in _URL_SCHEME.finditer(text)]
    token_end = -1
    for m in _URL_DOMAIN.finditer(text):
        if m.start() < token_end:
            continue  # inside the token just widened: widening again would be quadratic
        # Widen "github.com/" to the whole whitespace-delimited token it sits in.
        start, end = m.start(), m.end()
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and not text[end].isspace():
            end += 1
        spans.append((start, end))
        token_end = end
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def explain(
    taxonomy: Taxonomy,
    title: str,
    abstract: str,
    keywords: Sequence[str] = (),
) -> dict[str, tuple[float, list[TopicEvidence]]]:
    """Every topic's score and evidence, including topics below their threshold (for the
    evaluation report and for debugging a taxonomy)."""
    judged = _judge(taxonomy, title, abstract, keywords)
    return {topic_id: (score, _evidence(hits)) for topic_id, (score, hits, _) in judged.items()}


def _judge(
    taxonomy: Taxonomy, title: str, abstract: str, keywords: Sequence[str]
) -> dict[str, tuple[float, list[Hit], list[str]]]:
    """Per topic: its score, its accepted matches and the required kinds of evidence it lacks."""
    fields = match_fields(taxonomy, title or "", abstract or "", list(keywords or ()))
    found = [(fld, spans) for fld in fields if (spans := taxonomy.index.find(fld))]
    # Only topics with a pattern found can have evidence; the others score 0 without a look.
    owners = taxonomy.index.owners
    matched = {owners[pattern] for _, spans in found for pattern in spans}
    judged: dict[str, tuple[float, list[Hit], list[str]]] = {}
    for topic in taxonomy.compiled:
        hits = topic.hits(found) if topic.id in matched else []
        if not hits:  # what score and unmet give for no evidence, without asking them
            judged[topic.id] = (0.0, hits, list(topic.requires))
            continue
        score = round(topic.score(hits, taxonomy.scoring), 3)
        judged[topic.id] = (score, hits, topic.unmet(hits))
    return judged


class LearnedCall(NamedTuple):
    """What the learned reader says of the topics the rules left out: those it adds, with
    their evidence as (phrase, field, start, end), and each one's probability."""

    added: dict[str, list[tuple[str, FieldName, int, int]]]
    probabilities: dict[str, float]


def undecided_topics(
    judged: dict[str, tuple[float, list[Hit], list[str]]], present: Sequence[str]
) -> list[str]:
    """The topics the learned reader may add: those the rules found evidence for (a score
    above 0, so a negative's sense — "graph kernels" — is respected) with every kind the topic
    requires (so GPU counts in a footprint study stay out), but not enough to decide."""
    return [
        t
        for t, (score, _, missing) in judged.items()
        if score > 0 and not missing and t not in present
    ]


def learned_additions(
    model: TopicModel | None, title: str, abstract: str, undecided: Sequence[str]
) -> LearnedCall:
    """The learned reader's additions among `undecided` (see learned.py), read on the same
    URL-blanked text as the rules. bench/eval_learned.py measures it through this too."""
    if model is None:
        return LearnedCall({}, {})
    candidates = [t for t in undecided if t in model.topics]
    if not candidates or not model.reads(abstract):
        return LearnedCall({}, {})
    texts: dict[FieldName, str] = {"title": masked_text(title), "abstract": masked_text(abstract)}
    found = model.features(texts["title"], texts["abstract"])
    added: dict[str, list[tuple[str, FieldName, int, int]]] = {}
    probabilities: dict[str, float] = {}
    for topic in candidates:
        probabilities[topic] = probability = model.probability(topic, found)
        if probability >= model.threshold:
            added[topic] = [
                (texts[span.field][span.start : span.end], span.field, span.start, span.end)
                for span in model.evidence(topic, found)
            ]
    return LearnedCall(added, probabilities)


def masked_text(text: str) -> str:
    """`text` with its URLs blanked, as the rules read it (and the learned reader, in training
    too: bench/evaluation/learned_training.py)."""
    return _mask_urls(text, lower_same_length(text)) if text else ""


def _in_order(taxonomy: Taxonomy, topics: Sequence[str]) -> list[str]:
    chosen = set(topics)
    return [t for t in taxonomy.ids if t in chosen]


def _evidence(hits: Sequence[Hit]) -> list[TopicEvidence]:
    return [
        TopicEvidence(phrase=field.original[start:end], field=field.name, start=start, end=end)
        for _, field, start, end in hits
    ]


def classify_stored(
    taxonomy: Taxonomy,
    title: str,
    abstract: str,
    keywords: Sequence[str] = (),
) -> StoredTopics:
    """`classify`'s topics and evidence as the store keeps them: each piece of evidence as
    `TopicEvidence(...).model_dump()` would give it, built as a plain dict (the enrichment
    pipeline made ~12 pydantic records per paper only to dump them again: ~25 us)."""
    topics: list[str] = []
    evidence: dict[str, list[dict[str, Any]]] = {}
    judged = _judge(taxonomy, title, abstract, keywords)
    for topic in taxonomy.compiled:
        topic_id = topic.id
        score, hits, missing = judged[topic_id]
        if hits and score >= topic.threshold and not missing:
            topics.append(topic_id)
            evidence[topic_id] = [
                {"phrase": fld.original[start:end], "field": fld.name, "start": start, "end": end}
                for _, fld, start, end in hits
            ]
    undecided = undecided_topics(judged, topics)
    added = learned_additions(taxonomy.learned, title, abstract, undecided).added
    if added:
        for topic_id, found in added.items():
            evidence[topic_id] = [
                {"phrase": phrase, "field": name, "start": start, "end": end, "by": "reader"}
                for phrase, name, start, end in found
            ]
        topics = _in_order(taxonomy, [*topics, *added])
    return StoredTopics(topics, evidence)


def classify(
    taxonomy: Taxonomy,
    title: str,
    abstract: str,
    keywords: Sequence[str] = (),
) -> TopicResult:
    """The topics a paper is in (in the taxonomy's display order) and the evidence for each.

    A paper is in a topic when the score reaches the threshold and the evidence shows every
    kind the topic requires (`unmet` names the kinds missing where only that kept it out)."""
    topics: list[str] = []
    evidence: dict[str, list[TopicEvidence]] = {}
    scores: dict[str, float] = {}
    unmet: dict[str, list[str]] = {}
    thresholds = {topic.id: topic.threshold for topic in taxonomy.compiled}
    judged = _judge(taxonomy, title, abstract, keywords)
    for topic_id, (score, hits, missing) in judged.items():
        scores[topic_id] = score
        if hits and score >= thresholds[topic_id]:
            if missing:
                unmet[topic_id] = missing
                continue
            topics.append(topic_id)
            # Evidence objects only for the topics the paper is in: the others' are not kept.
            evidence[topic_id] = _evidence(hits)
    undecided = undecided_topics(judged, topics)
    learned = learned_additions(taxonomy.learned, title, abstract, undecided)
    for topic_id, found in learned.added.items():
        evidence[topic_id] = [
            TopicEvidence(phrase=phrase, field=name, start=start, end=end, by="reader")
            for phrase, name, start, end in found
        ]
    topics = _in_order(taxonomy, [*topics, *learned.added])
    return TopicResult(
        topics=topics,
        evidence=evidence,
        scores=scores,
        unmet=unmet,
        undecided=undecided,
        learned=learned.probabilities,
    )
