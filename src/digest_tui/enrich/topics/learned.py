"""A learned second reader beside the topic rules: one logistic regression per topic over the
words and word pairs of a paper's title and abstract, trained on the labelled splits
(`bench/train_topic_model.py`) and shipped as data (`data/topic_model.yaml`).

Why: the rules are a lexicon. Thirteen blind splits showed each new split finding new wordings
of the same topics (recall is what falls, docs/topics.md "Known weaknesses"); a model of the
words of ~1,000 labelled papers generalises across wordings no rule names. It only *adds* a
topic the rules did not reach (its probability at or above the file's threshold), so a rule's
decision and its evidence are never overridden; its evidence is the paper's own words that
weigh most for the topic. docs/topics.md ("The learned reader") has the figures: on six blind
splits, trained only on the splits labelled before each, it took the rules' first readings
from 0.838 to 0.903 exactly right.

The featurizer here is the one training uses, so a feature means the same in both.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from digest_tui.data_files import DATA_DIR, TOPIC_MODEL_FILE
from digest_tui.enrich.topics.casefold import lower_same_length

# Words: a letter, then letters, digits, "+" or "-" ("fp8", "all-reduce", "c++"); the text is
# lower-cased first. Stop words carry no topic and would only make pairs of noise.
_TOKEN = re.compile(r"[a-z][a-z0-9+\-]*[a-z0-9+]|[a-z]")
STOP_WORDS = frozenset(
    [
        "the",
        "of",
        "and",
        "a",
        "an",
        "to",
        "in",
        "for",
        "on",
        "with",
        "is",
        "are",
        "we",
        "our",
        "by",
        "that",
        "this",
        "from",
        "as",
        "at",
        "be",
        "it",
        "its",
        "can",
        "or",
        "which",
        "these",
        "their",
        "than",
        "into",
        "has",
        "have",
        "been",
        "show",
        "using",
        "use",
        "based",
    ]
)
_UNIGRAM, _BIGRAM = "u:", "b:"

FieldName = Literal["title", "abstract"]


class Span(NamedTuple):
    """Where a feature first occurs: the field and the character offsets in it."""

    field: FieldName
    start: int
    end: int


@dataclass(frozen=True)
class PaperFeatures:
    # feature -> the sum of the weights of the fields it occurs in (title 2, abstract 1)
    values: dict[str, float]
    # feature -> its first occurrence, the title's before the abstract's
    spans: dict[str, Span]


def paper_features(
    title: str, abstract: str, title_weight: float = 2.0, abstract_weight: float = 1.0
) -> PaperFeatures:
    """The words ("u:kernel") and pairs of neighbouring words ("b:cuda_kernels", stop words
    skipped between them) of each field, each counted once per field."""
    values: dict[str, float] = {}
    spans: dict[str, Span] = {}
    fields: tuple[tuple[FieldName, str, float], ...] = (
        ("title", title, title_weight),
        ("abstract", abstract, abstract_weight),
    )
    for name, text, weight in fields:
        for feature, (begin, end) in _field_features(text).items():
            values[feature] = values.get(feature, 0.0) + weight
            spans.setdefault(feature, Span(name, begin, end))
    return PaperFeatures(values, spans)


def _field_features(text: str) -> dict[str, tuple[int, int]]:
    """Each word and pair of one field, once, with the offsets of its first occurrence."""
    found: dict[str, tuple[int, int]] = {}
    previous: re.Match[str] | None = None
    for match in _TOKEN.finditer(lower_same_length(text)) if text else ():
        word = match.group()
        if word in STOP_WORDS:
            continue
        found.setdefault(_UNIGRAM + word, (match.start(), match.end()))
        if previous is not None:
            pair = _BIGRAM + previous.group() + "_" + word
            found.setdefault(pair, (previous.start(), match.end()))
        previous = match
    return found


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LearnedTopic(_Strict):
    bias: float
    weights: dict[str, float]


class TopicModel(_Strict):
    """`data/topic_model.yaml` as validated."""

    version: Literal[1] = 1
    # A topic is added when its probability reaches this (and the rules did not add it).
    threshold: float = Field(gt=0, lt=1)
    # Trained on whole abstracts (the shortest of ~900 labelled ones has 64 words): on a
    # sentence or a title alone it guesses near its prior, so it reads nothing shorter.
    min_abstract_words: int = Field(default=60, ge=0)
    title_weight: float = Field(default=2.0, gt=0)
    abstract_weight: float = Field(default=1.0, gt=0)
    # The labelled splits it was trained on (fixtures/eval/topics*.yaml), for the record.
    trained_on: list[str] = Field(default_factory=list)
    topics: dict[str, LearnedTopic]

    def reads(self, abstract: str) -> bool:
        """Whether the abstract is long enough for the reader to speak (`min_abstract_words`)."""
        return len(abstract.split(maxsplit=self.min_abstract_words)) >= self.min_abstract_words

    def features(self, title: str, abstract: str) -> PaperFeatures:
        return paper_features(title, abstract, self.title_weight, self.abstract_weight)

    def probability(self, topic: str, found: PaperFeatures) -> float:
        return _probability(self.topics[topic], found.values)

    def evidence(self, topic: str, found: PaperFeatures, limit: int = 3) -> list[Span]:
        """The occurrences of the features that weigh most for `topic` in this paper, in text
        order (title first)."""
        weights = self.topics[topic].weights
        weighed = sorted(
            ((weights[f] * v, f) for f, v in found.values.items() if weights.get(f, 0.0) > 0),
            reverse=True,
        )
        chosen = [found.spans[f] for _, f in weighed[:limit]]
        order: Mapping[str, int] = {"title": 0, "abstract": 1}
        return sorted(chosen, key=lambda s: (order[s.field], s.start))


def packaged_model_bytes() -> bytes:
    """The packaged file's bytes (the topics fingerprint hashes them: a retrained model
    classifies stored papers again)."""
    return (DATA_DIR / TOPIC_MODEL_FILE).read_bytes()


def load_topic_model() -> TopicModel:
    """The packaged model. Generated and tested, so a problem here is a broken install: the
    error names the file and the field."""
    import yaml

    from digest_tui.errors import TaxonomyError

    name = str(DATA_DIR / TOPIC_MODEL_FILE)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~60 ms instead of ~270
    try:
        data = yaml.load(packaged_model_bytes(), Loader=loader)
        return TopicModel.model_validate(data)
    except yaml.YAMLError as exc:
        raise TaxonomyError(f"{name}: not valid YAML: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise TaxonomyError(f"{name}: {where}: {first['msg']}") from None


def _probability(model: LearnedTopic, values: Mapping[str, float]) -> float:
    weights = model.weights
    z = model.bias + sum(weights.get(f, 0.0) * v for f, v in values.items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))
