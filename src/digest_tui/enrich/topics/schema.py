"""The taxonomy's schema: topics, weighted phrase/regex patterns, negatives and scoring, as
`data/taxonomy.yaml` and a user's `<config_dir>/taxonomy.yaml` write them (see docs/topics.md).
Validation only; compiling for matching is `matching.py`, loading and merging `taxonomy.py`."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

# Words inside a phrase may be separated by spaces, hyphens or nothing at all, so
# "mixture of experts", "Mixture-of-Experts" and "KVCache" / "KV cache" all match.
_PHRASE_GAP = r"[\s\-\u2010-\u2015]*"
_ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternSpec(_Strict):
    """A phrase (or list of synonym phrases) or a regular expression.

    Phrases match case-insensitively as whole words, with any spacing or hyphens between words
    and an optional plural "s"/"es". Regexes are Python `re` syntax in verbose mode (whitespace
    is ignored, so they can wrap in YAML), also case-insensitive unless `case_sensitive` is set,
    and also required to start and end at word boundaries.
    """

    phrase: str | list[str] | None = None
    regex: str | None = None
    case_sensitive: bool = False
    note: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> PatternSpec:
        if (self.phrase is None) == (self.regex is None):
            raise ValueError("give exactly one of 'phrase' or 'regex'")
        phrases = [self.phrase] if isinstance(self.phrase, str) else self.phrase or []
        if self.phrase is not None and (not phrases or not all(p.strip() for p in phrases)):
            raise ValueError("'phrase' must be a non-empty phrase or list of phrases")
        try:
            re.compile(self.source(), re.VERBOSE)
        except re.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from exc
        return self

    def source(self) -> str:
        """The regex this pattern stands for."""
        if self.regex is not None:
            return self.regex
        phrases = [self.phrase] if isinstance(self.phrase, str) else list(self.phrase or [])
        return "|".join(_phrase_regex(p, self.case_sensitive) for p in phrases)


Kind = Annotated[str, Field(pattern=_ID_PATTERN, max_length=40)]


class Pattern(PatternSpec):
    # 0: the pattern only shows a kind of evidence (see `TopicDef.requires`), it adds no score.
    weight: float = Field(ge=0, le=100)
    # What the evidence says, for `requires` ("training": the text is about training a model).
    kinds: list[Kind] = Field(default_factory=list)


class Negative(PatternSpec):
    pass


# "other" is what a paper in no topic is called (views and `topic:other` searches rely on it).
RESERVED_IDS = frozenset({"other"})


def _not_reserved(value: str) -> str:
    if value in RESERVED_IDS:
        raise ValueError(f"{value!r} is reserved for papers in no topic")
    return value


TopicId = Annotated[str, Field(pattern=_ID_PATTERN, max_length=40), AfterValidator(_not_reserved)]


class TopicDef(_Strict):
    id: TopicId
    label: str = Field(min_length=1, max_length=40)
    description: str = ""
    threshold: float = Field(default=4.0, gt=0)
    patterns: list[Pattern] = Field(min_length=1)
    negatives: list[Negative] = Field(default_factory=list)
    # Kinds of evidence the paper must show, each at least once, besides reaching the threshold:
    # training parallelism needs both a parallel-systems and a training signal, so parallelism
    # at inference time or GPU counts in a footprint study do not make a paper about it.
    requires: list[Kind] = Field(default_factory=list)

    @model_validator(mode="after")
    def _required_kinds_exist(self) -> TopicDef:
        carried = {kind for p in self.patterns for kind in p.kinds}
        missing = [kind for kind in self.requires if kind not in carried]
        if missing:
            raise ValueError(f"requires {missing} but no pattern has that kind")
        return self


class TopicOverride(_Strict):
    """A user's entry: changes a built-in topic (given fields replace, `add_*` append),
    disables it (`enabled: false`), or defines a new topic (needs `label` and `patterns`)."""

    id: TopicId
    enabled: bool = True
    label: str | None = Field(default=None, min_length=1, max_length=40)
    description: str | None = None
    threshold: float | None = Field(default=None, gt=0)
    patterns: list[Pattern] | None = None
    negatives: list[Negative] | None = None
    add_patterns: list[Pattern] = Field(default_factory=list)
    add_negatives: list[Negative] = Field(default_factory=list)
    requires: list[Kind] | None = None


class Scoring(_Strict):
    title_weight: float = Field(default=2.0, gt=0)
    abstract_weight: float = Field(default=1.0, gt=0)
    keywords_weight: float = Field(default=1.5, gt=0)
    # Each repeat of a pattern adds this share of its weight, up to max_repeats times: a word
    # the abstract keeps coming back to is more central than one mentioned in passing.
    repeat_share: float = Field(default=0.25, ge=0, le=1)
    max_repeats: int = Field(default=3, ge=0)
    # The learned reader (learned.py, data/topic_model.yaml) may add a topic the rules did not
    # reach; false leaves the rules alone.
    learned: bool = True


class ScoringOverride(_Strict):
    title_weight: float | None = Field(default=None, gt=0)
    abstract_weight: float | None = Field(default=None, gt=0)
    keywords_weight: float | None = Field(default=None, gt=0)
    repeat_share: float | None = Field(default=None, ge=0, le=1)
    max_repeats: int | None = Field(default=None, ge=0)
    learned: bool | None = None


class _PackagedFile(_Strict):
    version: Literal[1] = 1
    scoring: Scoring = Field(default_factory=Scoring)
    topics: list[TopicDef] = Field(min_length=1)


class _UserFile(_Strict):
    version: Literal[1] = 1
    scoring: ScoringOverride | None = None
    topics: list[TopicOverride] = Field(default_factory=list)


def _phrase_regex(phrase: str, case_sensitive: bool) -> str:
    words = [w for w in re.split(r"[\s\-\u2010-\u2015]+", phrase.strip()) if w]
    if not case_sensitive:
        words = [w.lower() for w in words]
    body = _PHRASE_GAP.join(re.escape(w) for w in words)
    return body + ("(?:e?s)?" if words[-1][-1].isalpha() else "")
