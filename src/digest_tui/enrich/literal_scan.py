"""One pass over a text that finds the trigger literals of a set of patterns.

Both classifiers put cheap literal tests in front of their regular expressions: a topic
pattern is only tried at word starts where one of its literal prefixes begins ("kernel",
"moe"); a hardware pattern only runs when all the literals of one of its branches are ("rtx"
and "4090"). A `LiteralScanner` is built once from such literals and answers, for a
(lower-cased) text, in one pass over its words:

- `present`: the literals that occur anywhere in the text, as substrings;
- `starts`: for each word start (in text order) where some word-start literal begins, those
  literals.

The hardware extractor scans its texts for `present` (`Matchers.scanner`); the topic matcher
makes its own pass over the tokens (`PatternIndex.find`) and asks a scanner of its prefixes
only which literals each new token's words begin (`token_starts`).

The pass is a regex over words (maximal runs of letters and digits), and each distinct word is
looked up in a table that says which literals it contains and which it starts with. Literals
made of letters and digits cannot cross a word's edge, so a word's entry is the same wherever
it occurs; the table is filled the first time a word is seen (the vocabulary of abstracts is
small and repeats) with one combined regex of all literals, and bounded in size. A literal
holding other characters ("c++", "a100-sxm") is checked where its leading word occurs, or
with a substring test when it is a substring literal. Every step is linear in the text.

The results are exact, never approximate: a literal is reported present iff it occurs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate, compress
from operator import attrgetter
from typing import Any

_WORDS = re.compile(r"[^\W_]+")
# Every ASCII character that is neither a letter nor a digit separates tokens.
SEPARATORS = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})
_SEPARATOR = re.compile(
    "[" + re.escape("".join(c for c in map(chr, range(128)) if not c.isalnum())) + "]"
)


def split_tokens(text: str) -> list[str]:
    """`text.translate(SEPARATORS).split(" ")`: the runs of text between ASCII characters that
    are neither letters nor digits (empty between two of them). `str.translate` is fast on an
    ASCII text and ~8x slower once it meets another character (an en dash, "×"); a split on
    the class of separators costs about the same on either."""
    if text.isascii():
        return text.translate(SEPARATORS).split(" ")
    return _SEPARATOR.split(text)


_starts_of = attrgetter("starts")
_LEADING_WORD = re.compile(r"[^\W_]*")
# Distinct words remembered; past this the table starts again (memory stays bounded on a text
# of millions of distinct "words").
_MAX_WORDS = 200_000
# Texts remembered: the hardware extractor scans a paper's title and abstract, then asks again
# for the two joined.
_MAX_TEXTS = 8


@dataclass(frozen=True)
class ScannedText:
    present: frozenset[str]
    starts: list[tuple[int, tuple[str, ...]]]


@dataclass(frozen=True, eq=False)
class _TokenEntry:
    """What one token (a run of text between ASCII separators) holds."""

    contained: frozenset[str]  # substring literals inside the token
    # Per word of the token that begins a word-start literal: (offset in the token, the
    # literals it begins with, the longer literals to check in place: "c++" for the word "c").
    starts: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]


def trie_regex(words: Iterable[str]) -> str:
    """A regex matching the longest of `words` that the text continues with, as a trie:
    at each position one character picks the branch, instead of trying every word."""
    trie: dict[str, Any] = {}
    for word in sorted(set(words)):
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def render(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + render(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:  # a word may end here: the longer continuations are optional (greedy)
            return body + "?" if len(branches) == 1 and len(body) == 1 else f"(?:{body})?"
        return body

    return render(trie)


def _is_word(literal: str) -> bool:
    return _LEADING_WORD.match(literal).end() == len(literal)  # type: ignore[union-attr]


def _prefix_closure(literals: set[str]) -> dict[str, tuple[str, ...]]:
    """For each literal, the literals it starts with (itself included): the longest literal
    found at a position names every shorter one found there."""
    return {
        literal: tuple(literal[:n] for n in range(1, len(literal) + 1) if literal[:n] in literals)
        for literal in literals
    }


class LiteralScanner:
    """Finds, in one pass, which `substrings` occur in a text and where `word_starts` begin.

    `substrings` may occur anywhere (inside words too); `word_starts` must begin with a letter
    or digit and are reported only at the start of a word (after neither a letter, a digit
    nor "_", as `\\b` and the classifiers' own edge tests agree). Texts must be lower-cased by
    the caller if the literals are.
    """

    def __init__(self, substrings: Iterable[str] = (), word_starts: Iterable[str] = ()) -> None:
        substrings = {s for s in substrings if s}
        word_starts = {s for s in word_starts if s}
        if any(not _LEADING_WORD.match(s).group() for s in word_starts):  # type: ignore[union-attr]
            raise ValueError("a word-start literal must begin with a letter or digit")
        self.substrings = frozenset(substrings)
        self.word_starts = frozenset(word_starts)
        self._inner = {s for s in substrings if _is_word(s)}
        self._odd = tuple(sorted(substrings - self._inner))  # checked with `in`
        self._plain_starts = {s for s in word_starts if _is_word(s)}
        self._longer: dict[str, tuple[str, ...]] = {}
        for literal in sorted(word_starts - self._plain_starts):
            head = _LEADING_WORD.match(literal).group()  # type: ignore[union-attr]
            self._longer[head] = (*self._longer.get(head, ()), literal)
        self._inner_closure = _prefix_closure(self._inner)
        self._start_closure = _prefix_closure(self._plain_starts)
        # Every position's longest literal, overlapping ones included (used on single words).
        self._inner_regex = (
            re.compile("(?=(" + trie_regex(self._inner) + "))") if self._inner else None
        )
        self._start_regex = re.compile(trie_regex(self._plain_starts)) if word_starts else None
        self._words: dict[str, _TokenEntry] = {}
        # The substring literals each token of `_words` holds (most hold none).
        self._contained: dict[str, frozenset[str]] = {}
        self._texts: dict[str, ScannedText] = {}

    def _entry(self, token: str) -> _TokenEntry:
        contained: set[str] = set()
        if self._inner_regex is not None:
            # Literals are letters and digits: none crosses a separator, so the token's own
            # occurrences are all of them.
            for found in set(self._inner_regex.findall(token)):
                contained.update(self._inner_closure[found])
        starts = tuple((at, begins, longer) for at, _, begins, longer in self.token_starts(token))
        entry = _TokenEntry(frozenset(contained), starts)
        if len(self._words) >= _MAX_WORDS:
            self._words.clear()
            self._contained.clear()
        self._words[token] = entry
        self._contained[token] = entry.contained
        return entry

    def token_starts(self, token: str) -> list[tuple[int, str, tuple[str, ...], tuple[str, ...]]]:
        """The words of a token (a run of text between ASCII separators, see `scan`) that begin
        a word-start literal: (offset in the token, the word, the literals of letters and digits
        it begins with, the longer literals to check in place: "c++" for the word "c")."""
        starts = []
        # A token is one word but for non-ASCII punctuation ("«kernel»"): each word of it.
        for word in _WORDS.finditer(token):
            begins: tuple[str, ...] = ()
            if self._start_regex is not None:
                head = self._start_regex.match(word.group())
                if head is not None:
                    begins = self._start_closure[head.group()]
            longer = self._longer.get(word.group(), ())
            if begins or longer:
                starts.append((word.start(), word.group(), begins, longer))
        return starts

    def remembers(self, text: str) -> bool:
        """Whether `scan(text)` would answer from memory, without a pass over the text (the
        pipeline relies on this to scan each text once for both classifiers)."""
        return text in self._texts

    def scan(self, text: str) -> ScannedText:
        known = self._texts.get(text)
        if known is not None:
            return known
        # The pass: ASCII punctuation and spaces turned into spaces and the text split there
        # (both in C, several times faster than a regex over words); each token is looked up
        # in the table, and Python only visits tokens where a word-start literal begins.
        tokens = split_tokens(text)
        if not self.word_starts:
            scanned = self._scan_substrings(text, tokens)
            if len(self._texts) >= _MAX_TEXTS:
                self._texts.clear()
            self._texts[text] = scanned
            return scanned
        table = self._words
        entries = list(map(table.get, tokens))
        if None in entries:
            pairs = zip(tokens, entries, strict=True)
            entries = [e if e is not None else self._entry(t) for t, e in pairs]
        present: set[str] = set()
        present.update(*[e.contained for e in set(entries)])  # type: ignore[union-attr]
        starts: list[tuple[int, tuple[str, ...]]] = []
        relevant = list(compress(range(len(entries)), map(_starts_of, entries)))
        if relevant:
            ends = list(accumulate(map(len, tokens)))
            for i in relevant:
                token_start = ends[i] - len(tokens[i]) + i  # i separators before token i
                for offset, begins, longer in entries[i].starts:  # type: ignore[union-attr]
                    at = token_start + offset
                    if at and text[at - 1] == "_":
                        continue  # "_kernel": no word boundary before it
                    found = begins
                    if longer:
                        found += tuple(s for s in longer if text.startswith(s, at))
                    if found:
                        starts.append((at, found))
        present.update(s for s in self._odd if s in text)
        scanned = ScannedText(frozenset(present), starts)
        if len(self._texts) >= _MAX_TEXTS:
            self._texts.clear()
        self._texts[text] = scanned
        return scanned

    def _scan_substrings(self, text: str, tokens: list[str]) -> ScannedText:
        """`scan` for a scanner of substrings only (no word starts): the literals the tokens
        hold, read from the table (in C; a token repeated unites its literals again, cheaper
        than making the tokens distinct first), the tokens not seen yet entered first."""
        contained = self._contained
        try:
            present = frozenset().union(*map(contained.__getitem__, tokens))
        except KeyError:  # a token not seen yet
            distinct = set(tokens)
            table = self._words
            unknown = distinct.difference(table)
            if len(table) + len(unknown) >= _MAX_WORDS:
                # The table may start again while this text's tokens are entered: read each
                # token's entry as it comes instead of the table afterwards.
                entries = [table.get(token) or self._entry(token) for token in distinct]
                present = frozenset().union(*[entry.contained for entry in entries])
            else:
                for token in unknown:
                    self._entry(token)
                present = frozenset().union(*map(contained.__getitem__, distinct))
        if self._odd:
            present = present.union(s for s in self._odd if s in text)
        return ScannedText(present, [])
