"""Compiled patterns and the index that finds every pattern of a taxonomy in a text from one
literal scan (`enrich/literal_scan.py`, shared with the hardware extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from operator import attrgetter
from typing import Any, Literal, NamedTuple

from digest_tui.enrich.coverage import Coverage
from digest_tui.enrich.gate import headed_finditer
from digest_tui.enrich.literal_scan import LiteralScanner, split_tokens
from digest_tui.enrich.topics.schema import PatternSpec, Scoring, TopicDef

FieldName = Literal["title", "abstract", "keywords"]
_UPPER_LITERAL = re.compile(r"(?<!\\)[A-Z]")


@dataclass(frozen=True, eq=False)
class CompiledPattern:
    regex: re.Pattern[str]
    on_original: bool  # case-sensitive: matched on the original text, not the lower-cased copy
    weight: float
    index: int
    # Every match starts with one of these strings (None: unknown). Such a pattern is only tried
    # where a word starts with one of them, instead of scanning the text position by position.
    prefixes: tuple[str, ...] | None
    # Every match contains one of these (None: unknown): a cheap test before a full scan.
    needles: tuple[str, ...] | None
    kinds: frozenset[str] = frozenset()
    # Every match's first word (its leading run of letters and digits, which is the whole word
    # of the text it starts at) is one of these (None: unknown). A pattern is then only tried
    # at a word start whose word is one of them: "pre" begins "present", but the pattern
    # "pre[\s-]*training" can only match where the word is "pre" or "pretraining".
    first_words: FirstWords | None = None
    # For a pattern scanned whole (no literal prefixes): a class of the characters its matches
    # start with, when those are rare (no letter, no space), to find where to try it (`scan`);
    # and the same class for an ASCII text, with 0-9 for \d (faster for `re` to skip to).
    head: re.Pattern[str] | None = None
    head_ascii: re.Pattern[str] | None = None


def compile_pattern(
    spec: PatternSpec, weight: float, index: int, kinds: Sequence[str] = ()
) -> CompiledPattern:
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
    # On the original text the word at a start is not the lower-cased one the scan reports, and
    # IGNORECASE lets a literal stand for several characters: those keep the prefix test only.
    words = None if spec.case_sensitive or flags & re.IGNORECASE else _first_words(source, flags)
    head = _head_class(source, flags) if prefixes is None else None
    head_ascii = _ascii_class(head) if head is not None else None
    return CompiledPattern(
        regex,
        spec.case_sensitive,
        weight,
        index,
        prefixes,
        needles,
        frozenset(kinds),
        words,
        head,
        head_ascii,
    )


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


# --- where a scanned pattern's matches can start ------------------------------------------------

_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
_ASCII_LETTERS_AND_SPACE = " abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _head_class(source: str, flags: int) -> re.Pattern[str] | None:
    """A one-character class holding every character a match of the regex can start with, when
    the regex cannot match the empty string and the class holds no ASCII letter nor space
    (matches that open with a digit: "(?:\\d{3,}|...) GPUs"); else None.

    `re` tries a regex without a literal prefix at every position of the text (~20 ns each);
    `scan` then tries it only where this class finds a character, with the same results."""
    try:
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source, flags)
        if parsed.getwidth()[0] == 0:
            return None
        first = _first_chars(list(parsed.data), c)
        if first is None or first[1] or not first[0]:
            return None
        head = re.compile("[" + "".join(sorted(first[0])) + "]", flags & re.IGNORECASE)
    except Exception:  # pragma: no cover - depends on the stdlib's private parser
        return None
    if any(head.match(char) for char in _ASCII_LETTERS_AND_SPACE):
        return None  # most positions would be tried anyway
    return head


def _ascii_class(head: re.Pattern[str]) -> re.Pattern[str]:
    """`head` (a class from `_head_class`) as it reads an ASCII text: its digits `\\d` are
    0-9 there, and its other items (characters, ranges) are the same."""
    return re.compile(head.pattern.replace(r"\d", "0-9"), head.flags)


def _first_chars(items: list[Any], c: Any) -> tuple[set[str], bool] | None:
    """The class items (regex source) of the characters a match of the sequence `items` can
    start with, and whether it can match without taking a character; None when unknown."""
    atoms: set[str] = set()
    for op, arg in items:
        if op is c.LITERAL:
            return atoms | {f"\\U{arg:08x}"}, False
        if op is c.IN:
            found = _class_atoms(arg, c)
            return None if found is None else (atoms | found, False)
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue  # zero-width: the match's first character is what follows
        if op is c.SUBPATTERN:
            inner = _first_chars(list(arg[-1].data), c)
        elif op is c.ATOMIC_GROUP:
            inner = _first_chars(list(arg.data), c)
        elif op is c.BRANCH:
            branches = [_first_chars(list(branch.data), c) for branch in arg[1]]
            if any(b is None for b in branches):
                return None
            found_atoms = set().union(*(b[0] for b in branches if b is not None))
            inner = found_atoms, any(b[1] for b in branches if b is not None)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            body = _first_chars(list(arg[2].data), c)
            inner = None if body is None else (body[0], body[1] or arg[0] == 0)
        else:
            return None  # a back-reference, "." (any character), ...
        if inner is None:
            return None
        atoms |= inner[0]
        if not inner[1]:
            return atoms, False
    return atoms, True


def _class_atoms(items: list[Any], c: Any) -> set[str] | None:
    """A class "[...]" as class items (regex source); None for a negated or unknown one."""
    atoms: set[str] = set()
    for op, arg in items:
        if op is c.LITERAL:
            atoms.add(f"\\U{arg:08x}")
        elif op is c.RANGE:
            atoms.add(f"\\U{arg[0]:08x}-\\U{arg[1]:08x}")
        elif op is c.CATEGORY and getattr(arg, "name", None) in _CATEGORIES:
            atoms.add(_CATEGORIES[arg.name])
        else:
            return None
    return atoms


# Past this many possible first words a pattern is left ungated (a set that large gates little).
_MAX_FIRST_WORDS = 256


@dataclass(frozen=True)
class FirstWords:
    """The words a pattern's matches can begin with: one of `exact`, or any word starting
    with one of `prefixes` (where the regex goes on with "\\w*", "." or a wide class)."""

    exact: frozenset[str]
    prefixes: tuple[str, ...]

    def allow(self, word: str) -> bool:
        return word in self.exact or word.startswith(self.prefixes)


def _first_words(source: str, flags: int) -> FirstWords | None:
    """Every string a match of the regex can begin with as its first word: the run of letters
    and digits it starts with. None when that is unknown or too many.

    A match of a pattern (which ends at a word edge, see `compile_pattern`) that starts at a word
    start begins with that whole word: its first run is the text's word. So the pattern cannot
    match where the word is not allowed here. This may allow more words than the regex can
    really begin with (lookarounds and anchors are ignored), never fewer."""
    try:
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]

        states = _runs(list(_parser.parse(source, flags).data), {("", _OPEN)}, c)
    except Exception:  # pragma: no cover - depends on the stdlib's private parser
        return None
    if states is None:
        return None
    exact = frozenset(run for run, status in states if status != _WILD)
    prefixes = tuple(sorted({run for run, status in states if status == _WILD}))
    if "" in exact or "" in prefixes:
        return None
    return FirstWords(exact, prefixes)


# A state of `_runs`: the first run so far and whether it is open (the next letter or digit
# extends it), ended (by a non-word character), or wild (any letters or digits may follow).
_OPEN, _ENDED, _WILD = 0, 1, 2
_Runs = set[tuple[str, int]]
_ANY_CHAR = None  # `_class_chars`: a class of too many letters or digits to list


def _runs(items: list[Any], states: _Runs, c: Any) -> _Runs | None:
    """`states` after the sequence `items` (None: unknown)."""
    for op, arg in items:
        if all(status != _OPEN for _, status in states):
            return states  # every run is settled: what follows cannot change them
        step = _run_step(op, arg, states, c)
        if step is None or len(step) > _MAX_FIRST_WORDS:
            return None
        states = step
    return states


def _run_step(op: Any, arg: Any, states: _Runs, c: Any) -> _Runs | None:
    if op is c.LITERAL:
        return _extend(states, [chr(arg)])
    if op is c.IN:
        return _extend(states, _class_chars(arg, c))
    if op in (c.ANY, c.NOT_LITERAL):
        return _extend(states, _ANY_CHAR)
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return states  # zero-width: ignoring the test only lets more through
    if op is c.SUBPATTERN:
        return _runs(list(arg[-1].data), states, c)
    if op is c.ATOMIC_GROUP:
        return _runs(list(arg.data), states, c)
    if op is c.BRANCH:
        out: _Runs = set()
        for branch in arg[1]:
            found = _runs(list(branch.data), states, c)
            if found is None:
                return None
            out |= found
        return out
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        low, high, body = arg[0], arg[1], list(arg[2].data)
        result: _Runs = set()
        current = states
        count = 0
        while True:
            if count >= low:
                if current <= result:
                    return result  # a fixed point: more repeats add nothing
                result |= current
            if count == high:
                return result
            step = _runs(body, current, c)
            if step is None or len(step) > _MAX_FIRST_WORDS:
                return None
            current = step
            count += 1
    return None  # group references, conditionals, ...: unknown


def _extend(states: _Runs, chars: Sequence[str] | None) -> _Runs:
    """After one character, one of `chars` (`_ANY_CHAR`: unknown): a letter or digit extends
    an open run, any other character ends it."""
    out: _Runs = set()
    for run, status in states:
        if status != _OPEN:
            out.add((run, status))
        elif chars is _ANY_CHAR:
            out.add((run, _WILD))
        else:
            for char in chars:
                out.add((run + char, _OPEN) if char.isalnum() else (run, _ENDED))
    return out


def _class_chars(items: list[Any], c: Any) -> list[str] | None:
    """The characters of a class "[...]", with every non-word character as one stand-in (they
    all end a run alike); `_ANY_CHAR` for negated classes and many letters or digits."""
    chars: set[str] = set()
    for op, arg in items:
        if op is c.LITERAL:
            chars.add(chr(arg))
        elif op is c.RANGE and arg[1] - arg[0] < 64:
            chars.update(map(chr, range(arg[0], arg[1] + 1)))
        elif op is c.CATEGORY and arg is c.CATEGORY_SPACE:
            chars.add(" ")
        else:
            return _ANY_CHAR
    words = sorted(ch for ch in chars if ch.isalnum())
    if len(words) > 8:
        return _ANY_CHAR
    return [*words, " "] if len(words) < len(chars) else words


# --- matching ------------------------------------------------------------------------------------

# Distinct tokens and (word, literals) pairs remembered by `PatternIndex`: memory stays bounded
# on a text of millions of distinct words.
_MAX_TOKENS = 200_000


@dataclass(frozen=True)
class MatchField:
    name: FieldName
    original: str
    lower: str
    weight: float


class Hit(NamedTuple):
    """One match taken as evidence (a tuple: ~15 are made per paper, a frozen dataclass costs
    several times more to build)."""

    pattern: CompiledPattern
    field: MatchField
    start: int
    end: int


def _at_word_edges(text: str, start: int, end: int) -> bool:
    if end <= start:
        return False
    before = start == 0 or not text[start - 1].isalnum()
    after = end == len(text) or not text[end].isalnum()
    return before and after


# A pattern to try at a word start, with what the loop over them reads (looked up once here
# instead of per attempt): (pattern, whether it matches the original text, its regex's match).
_Candidate = tuple["CompiledPattern", bool, Any]
# One word start of a token: (offset in the token, the word, the literals it begins with, the
# longer literals to check in place, the patterns to try there).
_Start = tuple[int, str, tuple[str, ...], tuple[str, ...], tuple[_Candidate, ...]]


class _TokenTable(dict[str, tuple[_Start, ...]]):
    """token -> its word starts where some pattern is to be tried, worked out the first time
    the token is seen (a vocabulary repeats) and bounded in size."""

    def __init__(self, index: PatternIndex) -> None:
        super().__init__()
        self.index = index

    def __missing__(self, token: str) -> tuple[_Start, ...]:
        entry = self.index._token_entry(token)
        if len(self) >= _MAX_TOKENS:
            self.clear()
        self[token] = entry
        return entry


class PatternIndex:
    """Finds the matches of every pattern of a taxonomy in a text.

    A pattern whose matches all begin with known literal prefixes is tried (with `match`) only
    at word starts that begin with one of them and whose word is one its matches can begin
    with (`_first_words`), instead of being run over the whole text; patterns without known
    prefixes are scanned whole, and only when a literal they need is in the text.

    The text is split into tokens at ASCII punctuation and spaces (in C, as the literal scanner
    of `enrich/literal_scan.py` does), and each distinct token is worked out once: which of its
    words begin literals and which patterns those words allow. A text then costs a dictionary
    look-up per token and Python work only at the word starts where some pattern is tried.
    """

    def __init__(self, owners: dict[CompiledPattern, str]) -> None:
        """`owners`: every pattern (positive or negative) and the id of its topic."""
        self.owners = owners
        patterns = list(owners)
        self.scan = [p for p in patterns if p.prefixes is None]
        self.by_literal: dict[str, list[CompiledPattern]] = {}
        for pattern in patterns:
            literals: set[str] = set()
            for prefix in pattern.prefixes or ():
                literals.update(_as_lowered(prefix) if pattern.on_original else (prefix,))
            for literal in sorted(literals):
                self.by_literal.setdefault(literal, []).append(pattern)
        self.word_starts = frozenset(self.by_literal)
        # Knows which literals each word begins with (its table of texts stays unused).
        self._literals = LiteralScanner(word_starts=self.word_starts)
        self._tokens = _TokenTable(self)
        # (word, literals beginning there) -> the patterns to try at such a word start.
        self._candidates: dict[tuple[str, tuple[str, ...]], tuple[_Candidate, ...]] = {}

    def _token_entry(self, token: str) -> tuple[_Start, ...]:
        entry = []
        for offset, word, begins, longer in self._literals.token_starts(token):
            candidates = self._candidates_for(word, begins) if begins else ()
            if candidates or longer:
                entry.append((offset, word, begins, longer, candidates))
        return tuple(entry)

    def _candidates_for(self, word: str, literals: tuple[str, ...]) -> tuple[_Candidate, ...]:
        """The patterns of these literals (each once) whose first words allow `word`. The
        answer depends on the word and its literals only, so it is kept: a vocabulary repeats."""
        known = self._candidates.get((word, literals))
        if known is not None:
            return known
        unique: dict[int, CompiledPattern] = {}
        for literal in literals:  # "gpu" and "gpus" both begin here: each pattern is tried once
            unique.update((id(p), p) for p in self.by_literal.get(literal, ()))
        candidates = tuple(
            (p, p.on_original, p.regex.match)
            for p in unique.values()
            if p.first_words is None or p.first_words.allow(word)
        )
        if len(self._candidates) >= _MAX_TOKENS:
            self._candidates.clear()
        self._candidates[(word, literals)] = candidates
        return candidates

    def find(self, fld: MatchField) -> dict[CompiledPattern, list[tuple[int, int]]]:
        found: dict[CompiledPattern, list[tuple[int, int]]] = {}
        lower, original = fld.lower, fld.original
        tokens = split_tokens(lower)
        entries = list(map(self._tokens.__getitem__, tokens))
        relevant = list(compress(range(len(entries)), entries))
        if relevant:
            ends = list(accumulate(map(len, tokens)))
            for i in relevant:
                token_start = ends[i] - len(tokens[i]) + i  # i separators before token i
                for offset, word, begins, longer, candidates in entries[i]:
                    start = token_start + offset
                    if start and lower[start - 1] == "_":
                        continue  # "_kernel": no word boundary before it
                    if longer:  # "c++" where the word is "c": checked in place
                        extra = tuple(s for s in longer if lower.startswith(s, start))
                        if extra:
                            candidates = self._candidates_for(word, begins + extra)
                    for pattern, on_original, match_at in candidates:
                        # In the lower-cased text a word start follows no letter or digit (a
                        # separator or other punctuation); the original may differ there.
                        text = original if on_original else lower
                        if on_original and start and text[start - 1].isalnum():
                            continue
                        match = match_at(text, start)
                        if match is not None:
                            end = match.end()
                            if _at_word_edges(text, start, end):
                                found.setdefault(pattern, []).append((start, end))
        for pattern in self.scan:
            text = original if pattern.on_original else lower
            if pattern.needles is not None and not any(n in text for n in pattern.needles):
                continue
            head = pattern.head_ascii if text.isascii() else pattern.head
            found_all = (
                pattern.regex.finditer(text)
                if head is None
                else headed_finditer(pattern.regex, head, text)
            )
            spans = [m.span() for m in found_all if _at_word_edges(text, m.start(), m.end())]
            if spans:
                found[pattern] = spans
        return found


def _as_lowered(prefix: str) -> set[str]:
    """How a case-sensitive prefix reads in the lower-cased text (`lower_same_length`): each
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


_INDEX = attrgetter("index")


class CompiledTopic:
    def __init__(self, topic: TopicDef) -> None:
        self.id = topic.id
        self.threshold = topic.threshold
        self.requires = tuple(topic.requires)
        self.patterns = [
            compile_pattern(p, p.weight, i, p.kinds) for i, p in enumerate(topic.patterns)
        ]
        self.negatives = [compile_pattern(n, 0.0, i) for i, n in enumerate(topic.negatives)]
        self._positive = frozenset(self.patterns)
        self._negative = frozenset(self.negatives)

    def hits(
        self, found: Sequence[tuple[MatchField, dict[CompiledPattern, list[tuple[int, int]]]]]
    ) -> list[Hit]:
        accepted: list[Hit] = []
        for fld, spans in found:
            # The topic's patterns found in this field, in the topic's order (the order of
            # `self.patterns`, which the stable sort below keeps for ties): a field finds a few
            # patterns of all topics, a topic has dozens.
            mine = sorted(self._positive.intersection(spans), key=_INDEX)
            if not mine:
                continue
            candidates = [Hit(p, fld, s, e) for p in mine for s, e in spans[p]]
            # Which characters are covered is kept as a byte per character, so each overlap
            # test costs the hit's length, not the number of spans seen so far: a long text
            # repeating one keyword stays linear (it was quadratic: 68 s for 460 kB).
            size = len(fld.lower)
            blocked = Coverage(size)
            for neg in self._negative.intersection(spans):  # (cover is order-free)
                for start, end in spans[neg]:
                    blocked.cover(start, end)
            if blocked:
                candidates = [h for h in candidates if not blocked.overlaps(h.start, h.end)]
            # The strongest, then the longest, match explains a stretch of text: "CUDA kernel"
            # is one piece of evidence, not "CUDA kernel" plus "kernel".
            candidates.sort(key=lambda h: (-h.pattern.weight, h.start - h.end, h.start))
            taken: list[Hit] = []
            covered = Coverage(size)
            for hit in candidates:
                if not covered.overlaps(hit.start, hit.end):
                    covered.cover(hit.start, hit.end)
                    taken.append(hit)
            accepted.extend(sorted(taken, key=lambda h: h.start))
        return accepted

    def unmet(self, hits: Sequence[Hit]) -> list[str]:
        """The required kinds of evidence that no hit shows."""
        shown = {kind for hit in hits for kind in hit.pattern.kinds}
        return [kind for kind in self.requires if kind not in shown]

    def score(self, hits: Sequence[Hit], scoring: Scoring) -> float:
        by_pattern: dict[int, list[Hit]] = {}
        for hit in hits:
            by_pattern.setdefault(hit.pattern.index, []).append(hit)
        total = 0.0
        for group in by_pattern.values():
            weight = group[0].pattern.weight
            repeats = min(len(group) - 1, scoring.max_repeats)
            total += weight * max(h.field.weight for h in group)
            total += weight * scoring.repeat_share * repeats
        return total
