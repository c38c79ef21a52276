"""Cheap gates in front of regular expressions.

Python's `re` is slow on long case-insensitive alternations (a catalog of ~100 device
aliases took ~3 ms per abstract). Most patterns, though, can only match where a certain
literals appear: "RTX ?4090" needs "4090", "\\bTMA\\b|Tensor Memory Accelerator" needs "tma",
or all of "tensor", "memory" and "accelerator". `triggers(pattern)` derives, for each top-level
branch, the literals every match of it contains, and a `Gated` pattern runs only when all the
literals of some branch are in the (lower-cased) text. A pattern with a branch that has no
required literal of two or more characters always runs: the gate can only skip work, never
change a result.

The literals are not looked for pattern by pattern: a `GateIndex` of all the patterns takes the
set of literals one scan found in the text (`enrich/literal_scan.py`, shared with the topic
classifier) and works out which gates open, touching only the patterns of literals present;
the `Lowered` text then answers `may_match` with one set lookup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_LOOKAROUND = ("?=", "?!", "?<=", "?<!")
_GROUP_PREFIX = re.compile(r"^\?(?:[:>]|P<\w+>|[aiLmsux-]+:)")


def _class_end(p: str, i: int) -> int:
    """Index of the ']' closing the character class opened at p[i]."""
    j = i + 1
    if p[j : j + 1] == "^":
        j += 1
    if p[j : j + 1] == "]":
        j += 1
    while j < len(p) and p[j] != "]":
        j += 2 if p[j] == "\\" else 1
    return j


def _group_end(p: str, i: int) -> int:
    """Index of the ')' closing the group opened at p[i]."""
    depth = 0
    j = i
    while j < len(p):
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(p, j) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(p) - 1


def _branches(p: str) -> list[str]:
    """Split on '|' at the top level only."""
    parts: list[str] = []
    depth = start = j = 0
    while j < len(p):
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(p, j) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(p[start:j])
            start = j + 1
        j += 1
    parts.append(p[start:])
    return parts


def _optional(p: str, j: int) -> bool:
    return p[j : j + 1] in ("?", "*") or p.startswith("{0", j)


def _skip_quantifier(p: str, j: int) -> int:
    if p[j : j + 1] in ("?", "*", "+"):
        return j + 1 + (p[j + 1 : j + 2] == "?")
    if p[j : j + 1] == "{" and "}" in p[j:]:
        return p.index("}", j) + 1
    return j


def _runs(p: str) -> list[str]:
    """Literal alphanumeric runs every match of this branch contains, lower-cased."""
    runs: list[str] = []
    cur: list[str] = []

    def flush() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    j = 0
    while j < len(p):
        c = p[j]
        if c == "\\":
            flush()
            j = _skip_quantifier(p, j + 2)
        elif c == "[":
            flush()
            j = _skip_quantifier(p, _class_end(p, j) + 1)
        elif c == "(":
            flush()
            end = _group_end(p, j)
            inner = p[j + 1 : end]
            if not _optional(p, end + 1) and not inner.startswith(_LOOKAROUND):
                body = _GROUP_PREFIX.sub("", inner) if inner.startswith("?") else inner
                branches = _branches(body)
                if len(branches) == 1:
                    runs.extend(_runs(body))
                else:  # "(?:billion|trillion|million)": every match holds "illion"
                    common = _common_literal([_runs(b) for b in branches])
                    if common:
                        runs.append(common)
            j = _skip_quantifier(p, end + 1)
        elif c in "?*":
            if cur:
                cur.pop()  # "GPUs?": the "s" is optional
            flush()
            j += 1
        elif c in "+{":
            flush()
            j = _skip_quantifier(p, j)
        elif c.isalnum():
            cur.append(c.lower())
            j += 1
        else:
            flush()
            j += 1
    flush()
    return runs


def _common_literal(branches: list[list[str]]) -> str:
    """The longest literal (3 characters or more) that some run of every branch holds, so
    every match of the alternation holds it; "" when there is none."""
    if not branches or not all(branches):
        return ""
    best = ""
    for run in branches[0]:
        for size in range(len(run), max(len(best), 2), -1):
            found = next(
                (
                    run[i : i + size]
                    for i in range(len(run) - size + 1)
                    if all(any(run[i : i + size] in r for r in other) for other in branches[1:])
                ),
                None,
            )
            if found:
                best = found
                break
    return best


def triggers(pattern: str) -> tuple[tuple[str, ...], ...]:
    """Per top-level branch, the lower-case literals all its matches contain; () when some
    branch has none (the pattern must always run)."""
    found: list[tuple[str, ...]] = []
    for branch in _branches(pattern):
        runs = tuple(dict.fromkeys(r for r in _runs(branch) if len(r) >= 2))
        if not runs:
            return ()
        found.append(runs)
    return tuple(dict.fromkeys(found))


def lower_pattern(pattern: str) -> str:
    """The pattern with its literal letters lower-cased; escapes (\\B, \\D, \\S, \\W...) kept."""
    out: list[str] = []
    j = 0
    while j < len(pattern):
        if pattern[j] == "\\":
            out.append(pattern[j : j + 2])
            j += 2
        elif pattern.startswith("(?P", j):  # named group syntax is case-sensitive
            out.append("(?P")
            j += 3
        else:
            out.append(pattern[j].lower())
            j += 1
    return "".join(out)


# ---- the same pattern, led by a character class -----------------------------------------
# `re` tries a pattern that opens with `\b` at every position of the text (~15 ns each); a
# pattern that opens with a character class or a literal is looked for with a fast C loop
# over the text first, and tried only where one of those characters stands. Most rule
# patterns are word alternations ("\bkernels?\b|\bcuda\b|..."), whose every match starts
# at a word edge with one of a few letters: `lead_form` rewrites such a pattern into one that
# opens with the class of those letters and matches exactly the same spans, groups and
# order (see tests/unit/test_rules_speed.py, which checks every rule pattern both ways).

_MAX_LEADS = 48  # alternatives after expansion; past this the pattern is kept as written
_QUANTIFIERS = ("?", "*", "+", "{")
_LITERAL_LOOKBEHIND = re.compile(r"\(\?<([!=])([a-z0-9 -]+)\)")


def _leads(s: str) -> list[tuple[str, str]] | None:
    """Every way a match of the fragment `s` can start, in the order `re` tries them: what
    stands at the start (a literal letter or digit, after `\\b` when the fragment asks for a
    word edge there) and the rest of the fragment after that character; None when some match
    could start otherwise (a class, an escape, a repeat...)."""
    if not s:
        return None
    if s.startswith("\\b"):
        edged = _leads(s[2:])
        if edged is None:
            return None
        return [(c if c.startswith("\\b") else f"\\b{c}", tail) for c, tail in edged]
    lookbehind = _LITERAL_LOOKBEHIND.match(s)
    if lookbehind:
        # "(?<!only )r...": at the position after "r", "(?<!only r)" asks the same.
        kind, body = lookbehind.groups()
        after_it = _leads(s[lookbehind.end() :])
        if after_it is None:
            return None
        return [(c, f"(?<{kind}{body}{c[-1]}){tail}") for c, tail in after_it]
    if s[0].isascii() and s[0].isalnum():
        if not s[1:2].startswith(_QUANTIFIERS):
            return [(s[0], s[1:])]
        if s[1:2] == "?" and s[2:3] not in ("?", "+"):  # "q?lora": with the "q" first
            without = _leads(s[2:])
            return None if without is None else [(s[0], s[2:]), *without]
        return None
    if not s.startswith("(?:"):
        return None
    end = _group_end(s, 0)
    inner, after = s[3:end], s[end + 1 :]
    optional = after[:1] == "?" and after[1:2] not in ("?", "+")
    if optional:
        after = after[1:]
    elif after.startswith(_QUANTIFIERS):
        return None
    out: list[tuple[str, str]] = []
    for branch in _branches(inner):
        found = _leads(branch)
        if found is None:
            return None
        out.extend((c, f"(?:{tail}){after}") for c, tail in found)
    if optional:  # greedy: the group first, then without it
        rest = _leads(after)
        if rest is None:
            return None
        out.extend(rest)
    return out if len(out) <= _MAX_LEADS else None


def _lead_alternatives(pattern: str) -> list[tuple[str, str]] | None:
    """`pattern`'s matches as ordered alternatives, each a first character (after `\\b` when it
    asks for a word edge there) and the rest: see `_leads`; None when some match could start
    otherwise, or there are too many."""
    if re.search(r"\\\d|\(\?P=", pattern):
        return None  # a back-reference: numbering must not move
    leads: list[tuple[str, str]] = []
    for branch in _branches(pattern):
        found = _leads(branch)
        if found is None:
            return None
        leads.extend(found)
    if not leads or len(leads) > _MAX_LEADS:
        return None
    return leads


def _render_leads(leads: list[tuple[str, str]]) -> str:
    """The alternatives `leads` (in their order) as one pattern that opens with the class of
    their first characters."""
    # Alternatives that start with different characters never compete at one position, so
    # they are grouped by that character (each group keeps their order): a position then
    # costs one test per character, not one per alternative.
    first = "".join(dict.fromkeys(c[-1] for c, _ in leads))
    groups: dict[str, list[tuple[bool, str]]] = {}
    for c, tail in leads:
        groups.setdefault(c[-1], []).append((c.startswith("\\b"), tail))
    every_edged = all(c.startswith("\\b") for c, _ in leads)
    parts = []
    for char, alts in groups.items():
        if every_edged or all(edge for edge, _ in alts):
            body = "|".join(tail for _, tail in alts)
            lead = char if every_edged else "\\b" + char
            parts.append(f"(?<={lead})(?:{body})")
        else:
            body = "|".join(f"(?<=\\b.){tail}" if edge else tail for edge, tail in alts)
            parts.append(f"(?<={char})(?:{body})")
    # Consume the first character (so `re` can skip to it), check the word edge before it
    # when every alternative asks for one, then which character it was.
    edge = "(?<=\\b.)" if every_edged else ""
    return f"[{first}]{edge}(?:{'|'.join(parts)})"


def lead_form(pattern: str) -> str | None:
    """`pattern` (no flags but Unicode) rewritten to open with the class of the characters
    its matches can start with, when every top-level branch opens with a literal letter or
    digit, or with `\\b` and then one (after expanding non-capturing groups); else None."""
    leads = _lead_alternatives(pattern)
    if leads is None:
        return None
    edged = any(c.startswith("\\b") for c, _ in leads)
    first = "".join(dict.fromkeys(c[-1] for c, _ in leads))
    if len(first) == 1 and not edged:
        # One leading literal and no edge: `re` already looks for the literal prefix.
        return None
    return _render_leads(leads)


def lead_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled, in its `lead_form` when it has one that keeps its groups."""
    plain = re.compile(pattern, flags)
    if flags & ~re.UNICODE:
        return plain
    form = lead_form(pattern)
    if form is None:
        return plain
    try:
        led = re.compile(form, flags)
    except re.error:  # a named group the expansion repeated
        return plain
    if led.groups != plain.groups or led.groupindex != plain.groupindex:
        return plain
    return led


@dataclass(frozen=True)
class Gated:
    """A compiled pattern with the literals that must be present for it to match.

    A case-insensitive pattern is compiled lower-cased, without IGNORECASE, and run on the
    lower-cased text (much faster in `re`); match offsets are the same as in the original text
    whenever lower-casing keeps the length, which the caller checks (`lowered` is then "").
    Read matched text from the original by offsets, not from the match object.
    """

    pattern: re.Pattern[str]
    triggers: tuple[tuple[str, ...], ...]
    folded: re.Pattern[str] | None = None

    @classmethod
    def compile(cls, pattern: str, flags: int = 0) -> Gated:
        folded = None
        if flags & re.IGNORECASE:
            folded = lead_compile(lower_pattern(pattern), flags & ~re.IGNORECASE)
            return cls(re.compile(pattern, flags), triggers(pattern), folded)
        return cls(lead_compile(pattern, flags), triggers(pattern), folded)

    @classmethod
    def compile_any(cls, patterns: list[str], suffix: str = "", flags: int = 0) -> Gated:
        """One pattern matching any of `patterns` (tried in order), then `suffix`; gated by
        the union of their literals."""
        combined = "(?:" + "|".join(f"(?:{p})" for p in patterns) + ")" + suffix
        gate: list[tuple[str, ...]] = []
        for p in patterns:
            found = triggers(p)
            if not found:
                gate = []
                break
            gate.extend(found)
        made = cls.compile(combined, flags)
        return cls(made.pattern, tuple(dict.fromkeys(gate)), made.folded)

    def may_match(self, lowered: str | Lowered) -> bool:
        if not self.triggers:
            return True
        if isinstance(lowered, Lowered) and lowered.gates is not None:
            opened = lowered.gates.decided(self, lowered.open)
            if opened is not None:
                return opened
        if isinstance(lowered, str):
            return any(all(t in lowered for t in branch) for branch in self.triggers)
        return any(all(lowered.has(t) for t in branch) for branch in self.triggers)

    def _pick(self, text: str, lowered: str | Lowered) -> tuple[re.Pattern[str], str]:
        low = lowered if isinstance(lowered, str) else lowered.text
        if self.folded is not None and len(low) == len(text):
            return self.folded, low
        return self.pattern, text

    def finditer(self, text: str, lowered: str | Lowered) -> Iterator[re.Match[str]]:
        if not self.may_match(lowered):
            return iter(())
        pattern, subject = self._pick(text, lowered)
        return pattern.finditer(subject)

    def search(self, text: str, lowered: str | Lowered) -> re.Match[str] | None:
        if not self.may_match(lowered):
            return None
        pattern, subject = self._pick(text, lowered)
        return pattern.search(subject)


class Lowered:
    """A lower-cased text that remembers which literals it holds: a substring test costs about
    a microsecond per kilobyte, and many patterns share literals ("gpu", "single").

    With `gates` and the literals a scan found (`present`), whether each gate of the index is
    open is worked out once (`open`), and `Gated.may_match` is a lookup.
    """

    __slots__ = ("_seen", "gates", "open", "text")

    def __init__(
        self, text: str, present: Iterable[str] | None = None, gates: GateIndex | None = None
    ) -> None:
        self.text = text
        self._seen: dict[str, bool] = {}
        self.gates = gates if present is not None else None
        self.open: set[int] = set()
        if present is not None and gates is not None:
            self.open = gates.open_gates(frozenset(present))

    def opened(self, items: list[tuple[int | None, T]]) -> list[T]:
        """The items (from `GateIndex.tagged`) whose gates this text opens, in order."""
        if self.gates is None:
            raise ValueError("this text was not scanned for literals")
        opened = self.open
        return [item for gate, item in items if gate is None or gate in opened]

    def __len__(self) -> int:
        return len(self.text)

    def has(self, literal: str) -> bool:
        found = self._seen.get(literal)
        if found is None:
            found = self._seen[literal] = literal in self.text
        return found


class GateIndex:
    """The gates of many patterns, indexed by literal: given the literals present in a text,
    which gates are open, at the cost of the patterns of the literals present (not of every
    pattern). Each branch is filed under its longest literal (likely the rarest)."""

    def __init__(self, gates: Iterable[Gated]) -> None:
        self.gates = list(dict.fromkeys(gates))
        self.literals = frozenset(t for g in self.gates for branch in g.triggers for t in branch)
        self._indexed = {id(g) for g in self.gates if g.triggers}
        self._by_literal: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        for gate in self.gates:
            for branch in gate.triggers:
                key = max(branch, key=len)
                self._by_literal.setdefault(key, []).append((id(gate), branch))

    def open_gates(self, present: frozenset[str]) -> set[int]:
        """The `id`s of the gated patterns of the index that may match."""
        opened: set[int] = set()
        for literal in present:
            for gate_id, branch in self._by_literal.get(literal, ()):
                if gate_id not in opened and all(t in present for t in branch):
                    opened.add(gate_id)
        return opened

    def decided(self, gate: Gated, opened: set[int]) -> bool | None:
        """Whether `gate` may match, when it is one of the index's gated patterns."""
        key = id(gate)
        return key in opened if key in self._indexed else None

    def tagged(self, items: Iterable[tuple[Gated, T]]) -> list[tuple[int | None, T]]:
        """Items with the key of their gate (None: always runs), for `Lowered.opened`."""
        return [(id(g) if id(g) in self._indexed else None, item) for g, item in items]
