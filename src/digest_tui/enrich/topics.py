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
valid). One pass over the text's words (`enrich/literal_scan.py`, shared with the hardware
extractor) finds the word starts where some pattern's literal prefix begins, and only those
patterns are tried there, instead of scanning the text once per pattern. Overlap tests mark
covered characters (`enrich/coverage.py`), so the whole is linear in the text's length.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from digest_tui.enrich.coverage import Coverage
from digest_tui.enrich.literal_scan import LiteralScanner, ScannedText
from digest_tui.errors import TaxonomyError
from digest_tui.models import TopicEvidence

TAXONOMY_FILE = "taxonomy.yaml"
# Part of the fingerprint: bump when a change to this module changes results for the same data.
CLASSIFIER_VERSION = "1"

FieldName = Literal["title", "abstract", "keywords"]
_FIELD_ORDER: tuple[FieldName, ...] = ("title", "keywords", "abstract")
# Keywords are matched as one text, "kw1, kw2, ...": evidence offsets point into that text.
KEYWORD_SEPARATOR = ", "

# Words inside a phrase may be separated by spaces, hyphens or nothing at all, so
# "mixture of experts", "Mixture-of-Experts" and "KVCache" / "KV cache" all match.
_PHRASE_GAP = r"[\s\-\u2010-\u2015]*"
# URLs are blanked before matching: a repo path such as ".../sequence-parallelism/README.md" is
# not the paper's own words, and highlighting inside a link would be noise.
_URL_SCHEME = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_URL_DOMAIN = re.compile(r"\.(?:com|org|io|ai|net|dev)/", re.IGNORECASE)
_UPPER_LITERAL = re.compile(r"(?<!\\)[A-Z]")


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


class Pattern(PatternSpec):
    weight: float = Field(gt=0, le=100)


class Negative(PatternSpec):
    pass


# "other" is what a paper in no topic is called (views and `topic:other` searches rely on it).
RESERVED_IDS = frozenset({"other"})
_ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"


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


class Scoring(_Strict):
    title_weight: float = Field(default=2.0, gt=0)
    abstract_weight: float = Field(default=1.0, gt=0)
    keywords_weight: float = Field(default=1.5, gt=0)
    # Each repeat of a pattern adds this share of its weight, up to max_repeats times: a word
    # the abstract keeps coming back to is more central than one mentioned in passing.
    repeat_share: float = Field(default=0.25, ge=0, le=1)
    max_repeats: int = Field(default=3, ge=0)


class ScoringOverride(_Strict):
    title_weight: float | None = Field(default=None, gt=0)
    abstract_weight: float | None = Field(default=None, gt=0)
    keywords_weight: float | None = Field(default=None, gt=0)
    repeat_share: float | None = Field(default=None, ge=0, le=1)
    max_repeats: int | None = Field(default=None, ge=0)


class _PackagedFile(_Strict):
    version: Literal[1] = 1
    scoring: Scoring = Field(default_factory=Scoring)
    topics: list[TopicDef] = Field(min_length=1)


class _UserFile(_Strict):
    version: Literal[1] = 1
    scoring: ScoringOverride | None = None
    topics: list[TopicOverride] = Field(default_factory=list)


@dataclass(frozen=True)
class TopicResult:
    topics: list[str]
    evidence: dict[str, list[TopicEvidence]]
    # Every enabled topic's score (also those below threshold): for evaluation and debugging.
    scores: dict[str, float] = field(default_factory=dict)


def _phrase_regex(phrase: str, case_sensitive: bool) -> str:
    words = [w for w in re.split(r"[\s\-\u2010-\u2015]+", phrase.strip()) if w]
    if not case_sensitive:
        words = [w.lower() for w in words]
    body = _PHRASE_GAP.join(re.escape(w) for w in words)
    return body + ("(?:e?s)?" if words[-1][-1].isalpha() else "")


@dataclass(frozen=True, eq=False)
class _Compiled:
    regex: re.Pattern[str]
    on_original: bool  # case-sensitive: matched on the original text, not the lower-cased copy
    weight: float
    index: int
    # Every match starts with one of these strings (None: unknown). Such a pattern is only tried
    # where a word starts with one of them, instead of scanning the text position by position.
    prefixes: tuple[str, ...] | None
    # Every match contains one of these (None: unknown): a cheap test before a full scan.
    needles: tuple[str, ...] | None


def _compile(spec: PatternSpec, weight: float, index: int) -> _Compiled:
    source = spec.source()
    # Verbose: whitespace in a regex is layout (long YAML regexes wrap), phrases escape theirs.
    if spec.case_sensitive:
        flags = re.VERBOSE
    else:
        # Matched on lower-cased text, so a pattern with no upper-case literal needs no
        # IGNORECASE (which would cost the literal-prefix speed-up); one that has them keeps it.
        flags = re.VERBOSE | (re.IGNORECASE if _UPPER_LITERAL.search(source) else 0)
    prefixes, needles = _literals(source, flags)
    if not spec.case_sensitive:
        prefixes = prefixes and tuple(sorted({p.lower() for p in prefixes}))
        needles = needles and tuple(sorted({n.lower() for n in needles}))
    if prefixes and not all(p[0].isalnum() for p in prefixes):
        prefixes = None  # matches can only start at word starts; these need the full scan
    # The match must end at a word edge *inside* the regex, so that in "deploy|deployment" the
    # engine backtracks to the alternative that ends there instead of stopping at "deploy".
    regex = re.compile(f"(?:{source})(?![^\\W_])", flags)
    return _Compiled(regex, spec.case_sensitive, weight, index, prefixes, needles)


# --- literal analysis of a regex (for speed only: a wrong guess here costs time, not results) ---


def _literals(source: str, flags: int) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """The strings every match starts with one of, and those it contains one of.

    Worked out from the stdlib's parse of the regex; any surprise (the parser is private) just
    turns the optimisation off for that pattern.
    """
    try:
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]

        items = list(_parser.parse(source, flags).data)
        prefixes = _prefixes(items, c)
        needles = _needles(items, c)
    except Exception:  # pragma: no cover - depends on the stdlib's private parser
        return None, None

    def usable(found: set[str] | None) -> tuple[str, ...] | None:
        return tuple(sorted(found)) if found and all(found) else None

    return usable(prefixes), usable(needles)


def _prefixes(items: list[Any], c: Any) -> set[str] | None:
    run: list[str] = []
    for position, (op, arg) in enumerate(items):
        if op is c.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            # "m(?:ixture|oe)": the parser factors out common prefixes; put them back.
            rest = _prefixes(items[position:], c)
            return {"".join(run) + r for r in rest} if rest else {"".join(run)}
        if op is c.AT:
            continue  # zero-width (\b, ^): the match still starts with what follows
        if op is c.SUBPATTERN:
            return _prefixes(list(arg[-1].data), c)
        if op is c.ATOMIC_GROUP:
            return _prefixes(list(arg.data), c)
        if op is c.BRANCH:
            branches = [_prefixes(list(branch.data), c) for branch in arg[1]]
            return set().union(*branches) if all(branches) else None  # type: ignore[arg-type]
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            inner = _prefixes(list(arg[2].data), c)
            if arg[0] >= 1 or inner is None:
                return inner
            rest = _prefixes(items[position + 1 :], c)  # optional: it or what follows
            return inner | rest if rest else None
        return None
    return {"".join(run)} if run else None


def _needles(items: list[Any], c: Any) -> set[str] | None:
    options: list[set[str]] = []
    run: list[str] = []
    for op, arg in items:
        if op is c.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            options.append({"".join(run)})
            run = []
        found: set[str] | None = None
        if op is c.SUBPATTERN:
            found = _needles(list(arg[-1].data), c)
        elif op is c.ATOMIC_GROUP:
            found = _needles(list(arg.data), c)
        elif op is c.BRANCH:
            branches = [_needles(list(branch.data), c) for branch in arg[1]]
            if all(branches):
                found = set().union(*branches)  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and arg[0] >= 1:
            found = _needles(list(arg[2].data), c)
        if found:
            options.append(found)
    if run:
        options.append({"".join(run)})
    if not options:
        return None
    # A sequence needs what each of its items needs: keep the most selective item's needles.
    return max(options, key=lambda n: (min(len(x) for x in n), -len(n)))


# --- matching ------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class _Field:
    name: FieldName
    original: str
    lower: str
    weight: float


@dataclass(frozen=True)
class _Hit:
    pattern: _Compiled
    field: _Field
    start: int
    end: int


def _at_word_edges(text: str, start: int, end: int) -> bool:
    if end <= start:
        return False
    before = start == 0 or not text[start - 1].isalnum()
    after = end == len(text) or not text[end].isalnum()
    return before and after


class _Index:
    """Finds the matches of every pattern of a taxonomy in a text, from one literal scan.

    A pattern whose matches all begin with known literal prefixes is tried (with `match`) only
    at the word starts where the scan (`enrich/literal_scan.py`, shared with the hardware
    extractor) found one of them, instead of being run over the whole text; patterns without
    known prefixes are scanned whole, and only when a literal they need is in the text.
    """

    def __init__(self, patterns: Sequence[_Compiled]) -> None:
        self.scan = [p for p in patterns if p.prefixes is None]
        self.by_literal: dict[str, list[_Compiled]] = {}
        for pattern in patterns:
            literals: set[str] = set()
            for prefix in pattern.prefixes or ():
                literals.update(_as_lowered(prefix) if pattern.on_original else (prefix,))
            for literal in sorted(literals):
                self.by_literal.setdefault(literal, []).append(pattern)
        self.word_starts = frozenset(self.by_literal)
        # Case-sensitive patterns test their needles on the original text themselves.
        self.substrings = frozenset(
            n for p in self.scan if not p.on_original for n in p.needles or ()
        )
        self._scanner: LiteralScanner | None = None

    def scanner(self, shared: LiteralScanner | None) -> LiteralScanner:
        """`shared` when it knows every literal of this taxonomy, else a scanner of its own."""
        if shared is not None and shared.serves(self.substrings, self.word_starts):
            return shared
        if self._scanner is None:
            self._scanner = LiteralScanner(self.substrings, self.word_starts)
        return self._scanner

    def find(self, fld: _Field, scanned: ScannedText) -> dict[_Compiled, list[tuple[int, int]]]:
        found: dict[_Compiled, list[tuple[int, int]]] = {}
        by_literal = self.by_literal
        for start, literals in scanned.starts:
            if len(literals) == 1:
                candidates: Sequence[_Compiled] = by_literal.get(literals[0], ())
            else:  # "gpu" and "gpus" both begin here: each pattern is tried once
                unique: dict[int, _Compiled] = {}
                for literal in literals:
                    unique.update((id(p), p) for p in by_literal.get(literal, ()))
                candidates = list(unique.values())
            for pattern in candidates:
                text = fld.original if pattern.on_original else fld.lower
                if start and text[start - 1].isalnum():
                    continue
                match = pattern.regex.match(text, start)
                if match and _at_word_edges(text, start, match.end()):
                    found.setdefault(pattern, []).append((start, match.end()))
        for pattern in self.scan:
            if pattern.on_original:
                text = fld.original
                if pattern.needles is not None and not any(n in text for n in pattern.needles):
                    continue
            else:
                text = fld.lower
                if pattern.needles is not None and not any(
                    n in scanned.present for n in pattern.needles
                ):
                    continue
            spans = [
                m.span()
                for m in pattern.regex.finditer(text)
                if _at_word_edges(text, m.start(), m.end())
            ]
            if spans:
                found[pattern] = spans
        return found


def _as_lowered(prefix: str) -> set[str]:
    """How a case-sensitive prefix reads in the lower-cased text (`_lower_same_length`): each
    character lower-cased when that keeps one character, else kept. Only a capital sigma
    lower-cases by context (final or not), so the prefix is cut before one; a prefix that
    starts with it stands for both small sigmas. The scan may then find a few more places
    than the prefix itself (the match on the original text decides), never fewer."""
    out: list[str] = []
    for char in prefix:
        if char == "\u03a3":
            break
        lowered = char.lower()
        out.append(lowered if len(lowered) == 1 else char)
    return {"".join(out)} if out else {"\u03c3", "\u03c2"}


class _CompiledTopic:
    def __init__(self, topic: TopicDef) -> None:
        self.id = topic.id
        self.threshold = topic.threshold
        self.patterns = [_compile(p, p.weight, i) for i, p in enumerate(topic.patterns)]
        self.negatives = [_compile(n, 0.0, i) for i, n in enumerate(topic.negatives)]

    def hits(
        self, found: Sequence[tuple[_Field, dict[_Compiled, list[tuple[int, int]]]]]
    ) -> list[_Hit]:
        accepted: list[_Hit] = []
        for fld, spans in found:
            candidates = [_Hit(p, fld, s, e) for p in self.patterns for s, e in spans.get(p, ())]
            if not candidates:
                continue
            # Which characters are covered is kept as a byte per character, so each overlap
            # test costs the hit's length, not the number of spans seen so far: a long text
            # repeating one keyword stays linear (it was quadratic: 68 s for 460 kB).
            size = len(fld.lower)
            blocked = Coverage(size)
            for neg in self.negatives:
                for start, end in spans.get(neg, ()):
                    blocked.cover(start, end)
            if blocked:
                candidates = [h for h in candidates if not blocked.overlaps(h.start, h.end)]
            # The strongest, then the longest, match explains a stretch of text: "CUDA kernel"
            # is one piece of evidence, not "CUDA kernel" plus "kernel".
            candidates.sort(key=lambda h: (-h.pattern.weight, h.start - h.end, h.start))
            taken: list[_Hit] = []
            covered = Coverage(size)
            for hit in candidates:
                if not covered.overlaps(hit.start, hit.end):
                    covered.cover(hit.start, hit.end)
                    taken.append(hit)
            accepted.extend(sorted(taken, key=lambda h: h.start))
        return accepted

    def score(self, hits: Sequence[_Hit], scoring: Scoring) -> float:
        by_pattern: dict[int, list[_Hit]] = {}
        for hit in hits:
            by_pattern.setdefault(hit.pattern.index, []).append(hit)
        total = 0.0
        for group in by_pattern.values():
            weight = group[0].pattern.weight
            repeats = min(len(group) - 1, scoring.max_repeats)
            total += weight * max(h.field.weight for h in group)
            total += weight * scoring.repeat_share * repeats
        return total


class Taxonomy:
    """The effective taxonomy (packaged, merged with the user's file), compiled for matching."""

    def __init__(
        self, topics: Sequence[TopicDef], scoring: Scoring, sources: Sequence[Path] = ()
    ) -> None:
        self.topics: list[TopicDef] = list(topics)
        self.scoring = scoring
        self.sources: list[Path] = list(sources)
        self._compiled = [_CompiledTopic(t) for t in self.topics]
        self._index = _Index([p for t in self._compiled for p in (*t.patterns, *t.negatives)])
        payload = {
            "classifier": CLASSIFIER_VERSION,
            "scoring": scoring.model_dump(mode="json"),
            "topics": [t.model_dump(mode="json") for t in self.topics],
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        self.fingerprint: str = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    @property
    def literals(self) -> tuple[frozenset[str], frozenset[str]]:
        """The literals a `LiteralScanner` must know to serve this taxonomy: (substrings,
        word starts)."""
        return self._index.substrings, self._index.word_starts

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.topics]

    def topic(self, topic_id: str) -> TopicDef | None:
        return next((t for t in self.topics if t.id == topic_id), None)

    def _fields(self, title: str, abstract: str, keywords: Sequence[str]) -> list[_Field]:
        texts: dict[FieldName, tuple[str, float]] = {
            "title": (title, self.scoring.title_weight),
            "keywords": (KEYWORD_SEPARATOR.join(keywords), self.scoring.keywords_weight),
            "abstract": (abstract, self.scoring.abstract_weight),
        }
        fields = []
        for name in _FIELD_ORDER:
            text, weight = texts[name]
            if text:
                masked = _mask_urls(text)
                fields.append(_Field(name, masked, _lower_same_length(masked), weight))
        return fields


def _mask_urls(text: str) -> str:
    """Blank out URLs (same length, so offsets hold). Most texts have none: a substring test
    decides that before any regex runs."""
    if "/" not in text and "www." not in text.lower():
        return text
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


def _lower_same_length(text: str) -> str:
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    # A few characters ("İ") grow when lower-cased; keep those as they are so offsets hold.
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def explain(
    taxonomy: Taxonomy,
    title: str,
    abstract: str,
    keywords: Sequence[str] = (),
    *,
    scanner: LiteralScanner | None = None,
) -> dict[str, tuple[float, list[TopicEvidence]]]:
    """Every topic's score and evidence, including topics below their threshold (for the
    evaluation report and for debugging a taxonomy). `scanner`: a literal scanner shared with
    the hardware extractor (see `Taxonomy.literals`), so each text is scanned once."""
    fields = taxonomy._fields(title or "", abstract or "", list(keywords or ()))
    scan = taxonomy._index.scanner(scanner).scan
    found = [(fld, taxonomy._index.find(fld, scan(fld.lower))) for fld in fields]
    explained: dict[str, tuple[float, list[TopicEvidence]]] = {}
    for topic in taxonomy._compiled:
        hits = topic.hits(found)
        evidence = [
            TopicEvidence(
                phrase=hit.field.original[hit.start : hit.end],
                field=hit.field.name,
                start=hit.start,
                end=hit.end,
            )
            for hit in hits
        ]
        explained[topic.id] = (round(topic.score(hits, taxonomy.scoring), 3), evidence)
    return explained


def classify(
    taxonomy: Taxonomy,
    title: str,
    abstract: str,
    keywords: Sequence[str] = (),
    *,
    scanner: LiteralScanner | None = None,
) -> TopicResult:
    """The topics a paper is in (in the taxonomy's display order) and the evidence for each."""
    topics: list[str] = []
    evidence: dict[str, list[TopicEvidence]] = {}
    scores: dict[str, float] = {}
    thresholds = {topic.id: topic.threshold for topic in taxonomy._compiled}
    explained = explain(taxonomy, title, abstract, keywords, scanner=scanner)
    for topic_id, (score, found) in explained.items():
        scores[topic_id] = score
        if found and score >= thresholds[topic_id]:
            topics.append(topic_id)
            evidence[topic_id] = found
    return TopicResult(topics=topics, evidence=evidence, scores=scores)


# --- loading -----------------------------------------------------------------------------------


def packaged_taxonomy_text() -> tuple[str, str]:
    """The packaged taxonomy's text and a name for it in messages."""
    resource = resources.files("digest_tui") / "data" / TAXONOMY_FILE
    return resource.read_text(encoding="utf-8"), str(resource)


def load_taxonomy(config_dir: Path | None = None) -> Taxonomy:
    """The packaged taxonomy merged with `config_dir/taxonomy.yaml` when that file exists.

    Raises TaxonomyError, `FILE:LINE: field: problem`, when either file is invalid.
    """
    from digest_tui import yaml_files

    text, name = packaged_taxonomy_text()
    packaged_doc = yaml_files.parse(text, name, TaxonomyError)
    packaged = _validate(_PackagedFile, packaged_doc)
    topics = list(packaged.topics)
    scoring = packaged.scoring
    sources = [Path(name)]
    if config_dir is not None:
        user_path = Path(config_dir) / TAXONOMY_FILE
        if user_path.is_file():
            user_doc = yaml_files.load_file(user_path, TaxonomyError)
            user = _validate(_UserFile, user_doc)
            topics, scoring = _merge(topics, scoring, user, user_doc)
            sources.append(user_path)
    if not topics:
        raise TaxonomyError(f"{sources[-1]}: every topic is disabled; at least one must remain")
    return Taxonomy(topics, scoring, sources)


def _validate(model: type[_Strict], doc: Any) -> Any:
    from digest_tui import yaml_files

    yaml_files.require_mapping(doc, TaxonomyError, "a mapping with 'topics' at the top level")
    return yaml_files.validate(model, doc, TaxonomyError, data=doc.data or {})


def _merge(
    topics: list[TopicDef], scoring: Scoring, user: _UserFile, doc: Any
) -> tuple[list[TopicDef], Scoring]:
    from digest_tui import yaml_files

    def fail(index: int, message: str, loc: tuple[str | int, ...] = ()) -> TaxonomyError:
        problem = doc.problem(("topics", index, *loc), message)
        return yaml_files.fail(TaxonomyError, problem)  # type: ignore[return-value]

    if user.scoring is not None:
        changes = user.scoring.model_dump(exclude_none=True)
        scoring = scoring.model_copy(update=changes)
    merged: dict[str, TopicDef | None] = {t.id: t for t in topics}
    order = [t.id for t in topics]
    seen: set[str] = set()
    for index, entry in enumerate(user.topics):
        if entry.id in seen:
            raise fail(index, "the same id appears twice in this file", ("id",))
        seen.add(entry.id)
        base = merged.get(entry.id)
        if not entry.enabled:
            if entry.id not in merged:
                raise fail(index, "enabled: false names no known topic", ("enabled",))
            merged[entry.id] = None
            continue
        try:
            if base is None:
                if entry.id in merged:
                    raise fail(index, "this topic was disabled earlier in the file")
                if entry.label is None or entry.patterns is None:
                    raise fail(index, "a new topic needs 'label' and 'patterns'")
                merged[entry.id] = _apply(None, entry)
                order.append(entry.id)
            else:
                merged[entry.id] = _apply(base, entry)
        except ValidationError as exc:
            raise yaml_files.validation_error(
                exc, doc, TaxonomyError, prefix=("topics", index)
            ) from None
    return [t for t in (merged[i] for i in order) if t is not None], scoring


def _apply(base: TopicDef | None, entry: TopicOverride) -> TopicDef:
    """The topic `entry` describes: `base` with the fields `entry` gives replaced and its
    `add_*` lists appended, re-validated as a whole (so an emptied pattern list is an error)."""
    patterns = entry.patterns if entry.patterns is not None else (base.patterns if base else [])
    negatives = entry.negatives if entry.negatives is not None else (base.negatives if base else [])
    values: dict[str, Any] = {
        "id": entry.id,
        "label": entry.label if entry.label is not None else (base.label if base else None),
        "description": entry.description
        if entry.description is not None
        else (base.description if base else ""),
        "patterns": [p.model_dump() for p in [*patterns, *entry.add_patterns]],
        "negatives": [n.model_dump() for n in [*negatives, *entry.add_negatives]],
    }
    threshold = entry.threshold if entry.threshold is not None else (base and base.threshold)
    if threshold:
        values["threshold"] = threshold
    return TopicDef.model_validate(values)
