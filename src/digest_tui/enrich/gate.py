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
from dataclasses import dataclass, field
from typing import Generic, TypeVar

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
# A look-behind of literal letters, digits, spaces or hyphens. Capitals occur only in a
# case-sensitive pattern (a case-insensitive one is lower-cased before `lead_form`), where they
# are literal too: "(?<!Pareto )Frontier" of the catalog's aliases.
_LITERAL_LOOKBEHIND = re.compile(r"\(\?<([!=])([A-Za-z0-9 -]+)\)")


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


def _literal_head(fragment: str) -> tuple[str, str]:
    """The literal characters (letters, digits, spaces, hyphens) `fragment` opens with, each
    matched once, and the rest, with groups of one branch that are not repeated read through:
    "(?:ernels?\\b)x" -> ("ernel", "s?\\bx")."""
    s = fragment
    head: list[str] = []
    i = 0
    while i < len(s):
        if s.startswith("(?:", i):
            end = _group_end(s, i)
            inner = s[i + 3 : end]
            if s[end + 1 : end + 2] in ("?", "*", "+", "{") or len(_branches(inner)) > 1:
                break
            s = s[:i] + inner + s[end + 1 :]
            continue
        c = s[i]
        if not ((c.isascii() and c.isalnum()) or c in " -") or s[i + 1 : i + 2] in _QUANTIFIERS:
            break
        head.append(c)
        i += 1
    return "".join(head), s[i:]


def _common_prefix(words: list[str]) -> str:
    """The longest string every one of `words` starts with."""
    first, last = min(words), max(words)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def _render_leads(leads: list[tuple[str, str]]) -> str:
    """The alternatives `leads` (in their order) as one pattern: an alternation of branches
    that each open with a literal character (`re` then skips to the class of those characters,
    and at a position tries only the branch of the character there)."""
    # Alternatives that start with different characters never compete at one position, so
    # they are grouped by that character (each group keeps their order); the word edge before
    # the character is checked once it is consumed.
    groups: dict[str, list[tuple[bool, str]]] = {}
    for c, tail in leads:
        groups.setdefault(c[-1], []).append((c.startswith("\\b"), tail))
    parts = []
    for char, alts in groups.items():
        edged = {edge for edge, _ in alts}
        if len(edged) == 1:
            # The literal all the group's alternatives go on with is matched before the word
            # edge is checked (behind it), so that a group alone opens with a literal string,
            # which `re` looks for fastest: "train(?<=\\btrain)(?:s|ed)?" for "\\btrain(?:s|ed)?".
            heads = [_literal_head(tail) for _, tail in alts]
            common = _common_prefix([head for head, _ in heads])
            rests = [head[len(common) :] + rest for head, rest in heads]
            lead = char + common
            edge = f"(?<=\\b{lead})" if True in edged else ""
            parts.append(f"{lead}{edge}(?:{'|'.join(rests)})")
        else:
            body = "|".join(f"(?<=\\b.){tail}" if edge else tail for edge, tail in alts)
            parts.append(f"{char}(?:{body})")
    return f"(?:{'|'.join(parts)})"


def _opening(pattern: str) -> str:
    """`pattern` without the non-capturing groups it opens with."""
    while pattern.startswith("(?:"):
        pattern = pattern[3:]
    return pattern


def lead_form(pattern: str) -> str | None:
    """`pattern` (no flags but Unicode) rewritten to open with the class of the characters
    its matches can start with, when every top-level branch opens with a literal letter or
    digit, or with `\\b` and then one (after expanding non-capturing groups); else None."""
    leads = _lead_alternatives(pattern)
    if leads is None:
        return None
    edged = any(c.startswith("\\b") for c, _ in leads)
    first = "".join(dict.fromkeys(c[-1] for c, _ in leads))
    if len(first) == 1 and not edged and _opening(pattern)[:1] == first:
        # One leading literal and no edge: `re` already looks for the literal prefix. Not when
        # look-behinds stand before it ("(?<!Pareto )Frontier"): `re` then tries them at every
        # position, and the rewritten form opens with the literal.
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


def _lead_prefix_form(pattern: str) -> str | None:
    """`pattern` with only its opening group (`\\b(?:...)` or `(?:...)`, not repeated) in its
    `lead_form`, the rest as written: "\\b(?:we|this) (?P<name>...)" expands to the group's
    alternatives, not to copies of the named group after it. The alternatives of the opening
    group are tried in their order at each position, and the rest after each, as before."""
    start = 2 if pattern.startswith("\\b(?:") else 0
    if not pattern.startswith("(?:", start) or len(_branches(pattern)) > 1:
        return None
    end = _group_end(pattern, start)
    if pattern[end + 1 : end + 2] in ("?", "*", "+", "{"):
        return None
    leads = _leads(pattern[: end + 1])
    if leads is None or re.search(r"\\\d|\(\?P=", pattern):
        return None
    return _render_leads(leads) + pattern[end + 1 :]


def fold_compile(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """A case-insensitive `pattern` as one to run on the lower-cased text (see `folds`): lower-
    cased, without IGNORECASE, in its `lead_form` (or with its opening group in it) when that
    keeps its groups."""
    source = lower_pattern(pattern.pattern)
    flags = pattern.flags & ~re.IGNORECASE
    led = lead_compile(source, flags)
    if led.pattern != source or flags & ~re.UNICODE:
        return led
    form = _lead_prefix_form(source)
    if form is None:
        return led
    try:
        prefixed = re.compile(form, flags)
    except re.error:
        return led
    if prefixed.groups != led.groups or prefixed.groupindex != led.groupindex:
        return led
    return prefixed


_folded: dict[re.Pattern[str], re.Pattern[str]] = {}


def folded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """`fold_compile(pattern)`, compiled once."""
    made = _folded.get(pattern)
    if made is None:
        made = _folded[pattern] = fold_compile(pattern)
    return made


def fold_parts(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...] | None:
    """`folded(pattern)` as one pattern per first character of its matches (see `merged`),
    when they open with two or more: each opens with its literal characters, which `re` skips
    to several times faster than to the class of all of them. None when there are fewer, or a
    group would be repeated."""
    source = lower_pattern(pattern.pattern)
    flags = pattern.flags & ~re.IGNORECASE
    if flags & ~re.UNICODE or re.search(r"\\\d|\(\?P=", source):
        return None
    leads = _lead_alternatives(source)
    rest = ""
    if leads is None:  # only the opening group, as in `_lead_prefix_form`
        start = 2 if source.startswith("\\b(?:") else 0
        if not source.startswith("(?:", start) or len(_branches(source)) > 1:
            return None
        end = _group_end(source, start)
        if source[end + 1 : end + 2] in _QUANTIFIERS:
            return None
        leads, rest = _leads(source[: end + 1]), source[end + 1 :]
        if leads is None:
            return None
    by_char: dict[str, list[tuple[str, str]]] = {}
    for c, tail in leads:
        by_char.setdefault(c[-1], []).append((c, tail))
    if len(by_char) < 2:
        return None
    whole = folded(pattern)
    parts = []
    for group in by_char.values():
        try:
            part = re.compile(_render_leads(group) + rest, flags)
        except re.error:  # a named group the expansion repeated
            return None
        if part.groups != whole.groups or part.groupindex != whole.groupindex:
            return None
        parts.append(part)
    return tuple(parts)


_fold_parts: dict[re.Pattern[str], tuple[re.Pattern[str], ...] | None] = {}


def folded_parts(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...] | None:
    """`fold_parts(pattern)`, compiled once."""
    if pattern not in _fold_parts:
        _fold_parts[pattern] = fold_parts(pattern)
    return _fold_parts[pattern]


# Characters that a case-insensitive pattern matches to ASCII letters that `str.lower` does not
# turn them into: "İ" (lower-cased to "i" and a combining dot), "ı" and "ſ" (matched to "i" and
# "s"). Every other character matches a letter iff its lower-case form is that letter.
_UNFOLDED = ("\u0130", "\u0131", "\u017f")


def folds(text: str, lowered: str) -> bool:
    """Whether a case-insensitive pattern of ASCII letters (no back-references) finds in `text`
    exactly what `folded(pattern)` finds, at the same offsets, in `lowered` (`text.lower()`)."""
    return len(text) == len(lowered) and (text.isascii() or not any(c in text for c in _UNFOLDED))


# ---- which alternatives of a pattern a text can match ----------------------------------
# A gate opens a whole pattern; most rule patterns are alternations of words, and a text that
# opens the gate usually holds the words of a few of them. `needs` says what each alternative
# of a pattern requires (literals, and sets of literals one of which it requires); the gate
# index works out, per text, which units of alternatives (those sharing a first character in a
# `lead_form`, or the top-level branches) may match, and the pattern runs with only those: an
# alternative left out can match nowhere in the text, so the matches, their order and their
# spans are the same, and `re` stops at fewer positions.

_ESCAPE_LENGTH = {"x": 2, "u": 4, "U": 8}
# A literal (two characters or more), or a set of literals one of which every match contains.
Needs = tuple[tuple[str, ...], tuple[frozenset[str], ...]]


def _quantifier_end(p: str, j: int) -> tuple[int, bool]:
    """Where the quantifier at p[j] ends (j when there is none) and whether it allows zero."""
    c = p[j : j + 1]
    if c in ("?", "*", "+"):
        end = j + 1
    elif c == "{":
        found = re.match(r"\{(\d*)(?:,(\d*))?\}", p[j:])
        if found is None or (not found.group(1) and found.group(2) is None):
            return j, False  # a literal "{"
        end = j + found.end()
        return end + (p[end : end + 1] in ("?", "+")), not found.group(1) or found.group(1) == "0"
    else:
        return j, False
    return end + (p[end : end + 1] in ("?", "+")), c != "+"


def needs(pattern: str, wide: bool = False) -> Needs:
    """What every match of `pattern` (a regex source, no inline flags) contains: lower-cased
    runs of ASCII letters and digits of two characters or more, and clauses, each a set of such
    literals one of which it contains. Conservative: a construct it does not read adds nothing
    (so the result is only ever weaker than the truth).

    `wide`: runs of any character written as itself ("-", " "...), and a run followed by a
    group of alternatives that each open with a literal gives the clause of the run with each
    ("-(?:gpu|npu)": "-gpu" or "-npu"); for substring tests, not for the literal scan."""
    branches = _branches(pattern)
    if len(branches) > 1:
        found = [needs(b, wide) for b in branches]
        best = [max(literals, key=len) if literals else "" for literals, _ in found]
        common = _common_literal([list(literals) for literals, _ in found])
        return ((common,) if common else ()), ((frozenset(best),) if all(best) else ())
    p = pattern
    literals: list[str] = []
    clauses: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 2:
            literals.append("".join(run))
        run.clear()

    j = 0
    while j < len(p):
        c = p[j]
        if c == "\\":
            kind = p[j + 1 : j + 2]
            if kind in ("b", "B"):  # a word edge: takes no character, the run goes on
                j += 2
                continue
            flush()
            end = j + 2
            if kind in _ESCAPE_LENGTH:
                end += _ESCAPE_LENGTH[kind]
            elif kind == "N" and p[end : end + 1] == "{":
                end = p.index("}", end) + 1
            elif kind.isdigit():
                while end < len(p) and p[end].isdigit():
                    end += 1
            j = _quantifier_end(p, end)[0]
        elif c == "[":
            flush()
            j = _quantifier_end(p, _class_end(p, j) + 1)[0]
        elif c == "(":
            end = _group_end(p, j)
            inner = p[j + 1 : end]
            q_end, optional = _quantifier_end(p, end + 1)
            if inner.startswith(_LOOKAROUND):  # takes no character: the run goes on
                if q_end != end + 1:
                    flush()
                j = q_end
                continue
            prefix = _GROUP_PREFIX.match(inner) if inner.startswith("?") else None
            if inner.startswith("?") and (prefix is None or prefix.group().startswith("?>")):
                flush()  # flags, a back-reference, an atomic group...: not read
                j = q_end
                continue
            body = inner[prefix.end() :] if prefix is not None else inner
            if optional:
                flush()
                j = q_end
                continue
            if q_end == end + 1 and len(_branches(body)) == 1:
                p = p[:j] + body + p[end + 1 :]  # "k(?:ernels?)": read on as "kernels?"
                continue
            if wide and run and q_end == end + 1:
                heads = [_literal_head(b)[0].lower() for b in _branches(body)]
                if all(heads):
                    clauses.append(frozenset("".join(run) + head for head in heads))
            flush()
            inner_literals, inner_clauses = needs(body, wide)
            literals.extend(inner_literals)
            clauses.extend(inner_clauses)
            j = q_end
        elif c in "?*+{":
            q_end, optional = _quantifier_end(p, j)
            if q_end == j:  # a literal "{"
                flush()
                j += 1
                continue
            if optional and run:
                run.pop()  # "GPUs?": the "s" may be absent
            flush()
            j = q_end
        elif (c.isascii() and c.isalnum()) or (wide and c not in _SPECIAL):
            run.append(c.lower())
            j += 1
        else:
            flush()
            j += 1
    flush()
    return tuple(dict.fromkeys(literals)), tuple(dict.fromkeys(clauses))


_SPECIAL = frozenset("\\[](){}?*+|.^$")


class Alternatives:
    """A compiled pattern cut into units of alternatives, with what each unit's alternatives
    need, and the pattern made of any subset of the units (compiled on first use)."""

    def __init__(
        self,
        pattern: re.Pattern[str],
        units: list[list[str]],
        unit_needs: list[list[Needs]],
        led: bool,
    ) -> None:
        self.pattern = pattern  # the pattern as compiled: every unit
        self.units = units  # per unit, its alternatives' sources
        self.needs = unit_needs  # per unit, what each of its alternatives needs
        # Units of `lead_form` alternatives: each source is its first character (after "\\b"
        # when it asks for a word edge) and the rest, joined by "\x00".
        self.led = led
        self.full = (1 << len(units)) - 1
        self._made: dict[int, re.Pattern[str]] = {}
        self._parts: dict[int, tuple[re.Pattern[str], ...]] = {}
        self._unit_made: dict[int, re.Pattern[str]] = {}
        # Each alternative is looked for by one literal it needs (its longest), or by the
        # literals of its first clause, any of which it needs: weaker than all it needs, and a
        # bit-or per literal present. `_always`: units with an alternative that needs nothing.
        self._by_literal: dict[str, int] = {}
        self._always = 0
        for index, needed in enumerate(unit_needs):
            for literals, clauses in needed:
                if literals:
                    keys: Iterable[str] = (max(literals, key=len),)
                elif clauses:
                    keys = clauses[0]
                else:
                    self._always |= 1 << index
                    continue
                for key in keys:
                    self._by_literal[key] = self._by_literal.get(key, 0) | 1 << index
        self.literals = frozenset(self._by_literal)

    @classmethod
    def of(cls, compiled: re.Pattern[str], source: str) -> Alternatives | None:
        """The units of `compiled` (made from `source` by `lead_compile`), or None when there
        are fewer than two, or the pattern has groups (leaving units out would renumber them)."""
        if compiled.groups or compiled.flags & ~re.UNICODE:
            return None
        leads = _lead_alternatives(source)
        if leads is not None and compiled.pattern == _render_leads(leads):
            by_char: dict[str, list[tuple[str, str]]] = {}
            for c, tail in leads:
                by_char.setdefault(c[-1], []).append((c, tail))
            groups = list(by_char.values())
            units = [[f"{c}\x00{tail}" for c, tail in group] for group in groups]
            unit_needs = [[needs(c[-1] + tail) for c, tail in group] for group in groups]
            made = cls(compiled, units, unit_needs, True)
        else:
            if compiled.pattern != source:
                return None
            branches = _branches(source)
            made = cls(compiled, [[b] for b in branches], [[needs(b)] for b in branches], False)
        return made if len(made.units) >= 2 else None

    def mask(self, present: frozenset[str]) -> int:
        """The units that may match in a text holding the literals `present` (of `literals`:
        the scan looks for them), as bits (a unit is `1 << its index`)."""
        bits = self._always
        by_literal = self._by_literal
        for literal in self.literals.intersection(present):
            bits |= by_literal[literal]
        return bits

    def subset(self, mask: int) -> re.Pattern[str]:
        """The pattern of the units whose bit is set in `mask`."""
        made = self._made.get(mask)
        if made is None:
            chosen = [alt for i, unit in enumerate(self.units) if mask >> i & 1 for alt in unit]
            if self.led and mask.bit_count() == 1:
                made = self._unit(mask.bit_length() - 1)  # the same pattern as the unit's
            elif self.led:
                leads = [(alt.split("\x00", 1)[0], alt.split("\x00", 1)[1]) for alt in chosen]
                made = re.compile(_render_leads(leads), self.pattern.flags)
            else:
                made = lead_compile("|".join(chosen), self.pattern.flags)
            if len(self._made) >= _MAX_SUBSETS:
                self._made.clear()
            self._made[mask] = made
        return made

    def parts(self, mask: int) -> tuple[re.Pattern[str], ...] | None:
        """For units of `lead_form` alternatives: the pattern of each unit whose bit is set in
        `mask`, when there are several but not many (see `Gated.finditer`); else None."""
        if not self.led:
            return None
        count = mask.bit_count()
        if count < 2 or count > _MAX_PARTS:
            return None
        made = self._parts.get(mask)
        if made is None:
            made = self._parts[mask] = tuple(
                self._unit(i) for i in range(len(self.units)) if mask >> i & 1
            )
        return made

    def _unit(self, index: int) -> re.Pattern[str]:
        made = self._unit_made.get(index)
        if made is None:
            unit = self.units[index]
            leads = [(alt.split("\x00", 1)[0], alt.split("\x00", 1)[1]) for alt in unit]
            made = self._unit_made[index] = re.compile(_render_leads(leads), self.pattern.flags)
        return made


def _substrings(
    source: str, gates: tuple[tuple[str, ...], ...], alternatives: Alternatives | None
) -> tuple[frozenset[str], ...]:
    """For a pattern with no literal to gate it (`gates` empty) nor units of alternatives: the
    clauses of substrings every match holds (`needs(source, wide=True)`), those of two
    characters or more, without a clause another implies ({"-gpu", "-npu"} implies {"gpu",
    "npu"}), the longest substrings (likely the rarest) first."""
    if gates or alternatives is not None:
        return ()
    literals, clauses = needs(source, wide=True)
    found = [frozenset((t,)) for t in literals if len(t) >= 2]
    found += [c for c in clauses if all(len(t) >= 2 for t in c)]
    kept = [
        c
        for c in dict.fromkeys(found)
        if not any(o != c and all(any(t in u for t in c) for u in o) for o in found)
    ]
    return tuple(sorted(kept, key=lambda c: -min(map(len, c))))


# Subsets of one pattern kept compiled (`re`'s own cache holds 512 patterns in all).
_MAX_SUBSETS = 256
# A pattern of units of lead_form alternatives runs one pattern per unit (each opens with one
# literal character, which `re` skips to several times faster than to a class of characters)
# when the text allows this many units or fewer.
_MAX_PARTS = 6
# ...on a text this long or longer: on a title the calls cost more than the skipping saves.
_PARTS_FROM = 300


def _leftmost(parts: tuple[re.Pattern[str], ...], subject: str) -> re.Match[str] | None:
    """The first match of the alternation of `parts`, patterns no two of which can match at
    one position (each opens with characters of its own): the one that starts first."""
    best: re.Match[str] | None = None
    for part in parts:
        found = part.search(subject)
        if found is not None and (best is None or found.start() < best.start()):
            best = found
    return best


def merged(parts: tuple[re.Pattern[str], ...], subject: str) -> Iterator[re.Match[str]]:
    """`finditer` of the alternation of `parts` (patterns no two of which can match at one
    position, none matching the empty string): the first match of any from the end of the
    last one found, as `finditer` goes on. Each part's next match is kept, and searched again
    from there when the match found overlaps it."""
    heads = [part.search(subject) for part in parts]
    at = 0
    while True:
        best: re.Match[str] | None = None
        for i, head in enumerate(heads):
            if head is not None and head.start() < at:
                head = heads[i] = parts[i].search(subject, at)
            if head is not None and (best is None or head.start() < best.start()):
                best = head
        if best is None:
            return
        yield best
        at = best.end()


def headed_finditer(
    regex: re.Pattern[str], head: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    """`regex.finditer(text)` for a regex that cannot match the empty string and whose every
    match starts where `head` finds something (a class of its first characters, or a longer
    pattern that finds every possible start): tried only there. At each such
    position `match` is what `finditer` tries there (look-behinds see the text before it), and
    after a match the search goes on from its end, as `finditer` does."""
    search, match = head.search, regex.match
    at = 0
    while True:
        found = search(text, at)
        if found is None:
            return
        start = found.start()
        matched = match(text, start)
        if matched is None:
            at = start + 1
        else:
            yield matched
            at = matched.end()


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
    # The units of alternatives of the pattern that runs on a text whose case folding keeps its
    # length: `folded`, or `pattern` when the pattern is case-sensitive.
    alternatives: Alternatives | None = field(default=None, compare=False)
    # For a pattern without literals to gate it: what every match of that same pattern holds,
    # read `wide` (clauses of substrings: "-gpu" or "-npu"), tested in the lower-cased text.
    substrings: tuple[frozenset[str], ...] = field(default=(), compare=False)
    # The literals of its one-literal branches (any opens the gate), and its other branches.
    _solo: frozenset[str] = field(init=False, compare=False, repr=False)
    _multi: tuple[frozenset[str], ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        solo = frozenset(branch[0] for branch in self.triggers if len(branch) == 1)
        multi = tuple(frozenset(b) for b in self.triggers if len(b) > 1)
        object.__setattr__(self, "_solo", solo)
        object.__setattr__(self, "_multi", multi)

    @classmethod
    def compile(cls, pattern: str, flags: int = 0) -> Gated:
        gates = triggers(pattern)
        if flags & re.IGNORECASE:
            source = lower_pattern(pattern)
            folded = lead_compile(source, flags & ~re.IGNORECASE)
            alternatives = Alternatives.of(folded, source)
            return cls(
                re.compile(pattern, flags),
                gates,
                folded,
                alternatives,
                _substrings(source, gates, alternatives),
            )
        compiled = lead_compile(pattern, flags)
        alternatives = Alternatives.of(compiled, pattern)
        substrings = _substrings(pattern, gates, alternatives)
        return cls(compiled, gates, None, alternatives, substrings)

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
        gates = tuple(dict.fromkeys(gate))
        substrings = made.substrings if not gates else ()
        return cls(made.pattern, gates, made.folded, made.alternatives, substrings)

    def may_match(self, lowered: str | Lowered) -> bool:
        if not self.triggers:
            return True
        if isinstance(lowered, Lowered) and lowered.gates is not None:
            if lowered.present is not None and lowered._open is None:
                # Not worked out for every gate yet (the joined title and abstract only ask a
                # few): this gate's branches against the literals present, as `open_gates`.
                if id(self) in lowered.gates._indexed:
                    present = lowered.present
                    return not self._solo.isdisjoint(present) or bool(
                        self._multi and any(branch <= present for branch in self._multi)
                    )
            else:
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

    def _runner(self, text: str, lowered: str | Lowered) -> _Run | None:
        """The pattern to run and the text to run it on; None when it cannot match. What
        `may_match`, `_pick` and the units of alternatives decide, in one pass for a scanned
        text (this runs ~50 times per paper: its own cost counts)."""
        if not isinstance(lowered, Lowered) or lowered.gates is None:
            if not self.may_match(lowered):
                return None
            return self._pick(text, lowered)
        gates = lowered.gates
        key = id(self)
        if self.triggers:
            if key in gates._indexed:
                opened = lowered._open
                if opened is None:
                    # Not worked out for every gate yet (the joined title and abstract only ask
                    # a few): this gate's branches against the literals present.
                    present = lowered.present
                    assert present is not None
                    if self._solo.isdisjoint(present) and not (
                        self._multi and any(branch <= present for branch in self._multi)
                    ):
                        return None
                elif key not in opened:
                    return None
            elif not any(all(lowered.has(t) for t in branch) for branch in self.triggers):
                return None
        low = lowered.text
        folded = self.folded
        if folded is None:
            pattern, subject = self.pattern, text
        elif len(low) == len(text):
            pattern, subject = folded, low
        else:
            return self.pattern, text
        if self.substrings and not all(any(t in low for t in clause) for clause in self.substrings):
            return None  # the text the pattern runs on (or its lower-cased form) lacks them
        alternatives = self.alternatives
        if alternatives is not None and key in gates.scanned:
            # Only the units of alternatives whose literals the text holds (the literals were
            # looked for in the lower-cased text, which is the one `folded` runs on; a
            # case-sensitive match holds them too, lower-cased).
            mask = alternatives.mask(lowered.present)  # type: ignore[arg-type]
            if not mask:
                return None
            if len(subject) >= _PARTS_FROM:
                parts = alternatives.parts(mask)
                if parts is not None:
                    return pattern, subject, parts
            if mask != alternatives.full:
                pattern = alternatives.subset(mask)
        return pattern, subject

    def finditer(self, text: str, lowered: str | Lowered) -> Iterator[re.Match[str]]:
        runner = self._runner(text, lowered)
        if runner is None:
            return iter(())
        if len(runner) == 3:  # one pattern per unit of alternatives: their matches merged
            return merged(runner[2], runner[1])
        return runner[0].finditer(runner[1])

    def search(self, text: str, lowered: str | Lowered) -> re.Match[str] | None:
        runner = self._runner(text, lowered)
        if runner is None:
            return None
        if len(runner) == 3:
            return _leftmost(runner[2], runner[1])
        return runner[0].search(runner[1])


class Lowered:
    """A lower-cased text that remembers which literals it holds: a substring test costs about
    a microsecond per kilobyte, and many patterns share literals ("gpu", "single").

    With `gates` and the literals a scan found (`present`), whether each gate of the index is
    open is worked out once, when a list of gated items is first asked for (`open`), and
    `Gated.may_match` is then a lookup (before, a test of that gate's literals).
    """

    __slots__ = ("_open", "_seen", "gates", "present", "text")

    def __init__(
        self, text: str, present: Iterable[str] | None = None, gates: GateIndex | None = None
    ) -> None:
        self.text = text
        self._seen: dict[str, bool] = {}
        self.gates = gates if present is not None else None
        self._open: set[int | None] | None = None
        # The literals of the index's gates (and units of alternatives) the text holds.
        self.present: frozenset[str] | None = None
        if present is not None and gates is not None:
            self.present = frozenset(present)

    @property
    def open(self) -> set[int | None]:
        """The `id`s of the index's gated patterns that may match in this text (and None)."""
        if self._open is None:
            if self.gates is None or self.present is None:
                return set()
            self._open = self.gates.open_gates(self.present)
        return self._open

    def opened(self, items: Tagged[T]) -> list[T]:
        """The items (from `GateIndex.tagged`) whose gates this text opens, in order."""
        if self.gates is None:
            raise ValueError("this text was not scanned for literals")
        # A text opens few of a list's gates: their positions, from the (C) intersection of
        # the list's gates and the open ones, instead of a test per item.
        hits = items.keys.intersection(self.open)
        values = items.values
        if not hits:
            return [values[i] for i in items.always]
        at = items.positions
        chosen = sorted([*items.always, *(i for key in hits for i in at[key])])
        return [values[i] for i in chosen]

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
        given = list(gates)
        self.gates = list(dict.fromkeys(given))
        # Every gated pattern whose literals a scan for `literals` finds (an equal pattern
        # given twice is indexed once, and has the same literals): the units of alternatives
        # of another pattern are not narrowed on a text scanned for these.
        self.scanned = frozenset(id(g) for g in given)
        literals = {t for g in self.gates for branch in g.triggers for t in branch}
        self._indexed = {id(g) for g in self.gates if g.triggers}
        # Branches of one literal open their gate alone: per literal, the gates it opens so
        # (`_solo`); longer branches are filed under their longest literal (`_by_literal`).
        solo: dict[str, set[int]] = {}
        self._by_literal: dict[str, list[tuple[int, frozenset[str]]]] = {}
        for gate in self.gates:
            for branch in gate.triggers:
                if len(branch) == 1:
                    solo.setdefault(branch[0], set()).add(id(gate))
                    continue
                key = max(branch, key=len)
                self._by_literal.setdefault(key, []).append((id(gate), frozenset(branch)))
        self._solo = {literal: frozenset(ids) for literal, ids in solo.items()}
        self._solo_literals = frozenset(self._solo)
        self._multi_literals = frozenset(self._by_literal)
        for gate in self.gates:
            if gate.alternatives is not None:
                literals.update(gate.alternatives.literals)
        self.literals = frozenset(literals)

    def open_gates(self, present: frozenset[str]) -> set[int | None]:
        """The `id`s of the gated patterns of the index that may match, and None (the key of
        the items of `tagged` that always run)."""
        solo = self._solo
        opened: set[int | None] = {None}
        opened.update(*[solo[literal] for literal in self._solo_literals.intersection(present)])
        for literal in self._multi_literals.intersection(present):
            for gate_id, branch in self._by_literal[literal]:
                if gate_id not in opened and branch <= present:
                    opened.add(gate_id)
        return opened

    def decided(self, gate: Gated, opened: set[int | None]) -> bool | None:
        """Whether `gate` may match, when it is one of the index's gated patterns."""
        key = id(gate)
        return key in opened if key in self._indexed else None

    def tagged(self, items: Iterable[tuple[Gated, T]]) -> Tagged[T]:
        """Items with the key of their gate (None: always runs), for `Lowered.opened`."""
        return Tagged([(id(g) if id(g) in self._indexed else None, item) for g, item in items])


class Tagged(Generic[T]):
    """Items, each with the key of its gate (`GateIndex.tagged`; None: it always runs): the
    items, the positions of those that always run, and per key the positions of its items."""

    def __init__(self, pairs: list[tuple[int | None, T]]) -> None:
        self.values = tuple(item for _, item in pairs)
        self.always = tuple(i for i, (key, _) in enumerate(pairs) if key is None)
        positions: dict[int, list[int]] = {}
        for i, (key, _) in enumerate(pairs):
            if key is not None:
                positions.setdefault(key, []).append(i)
        self.positions = {key: tuple(at) for key, at in positions.items()}
        self.keys = frozenset(self.positions)


# What a gated pattern runs on a text: the pattern and the text, and the patterns of its units
# when they run one by one (`Alternatives.parts`).
_Run = tuple[re.Pattern[str], str] | tuple[re.Pattern[str], str, tuple[re.Pattern[str], ...]]
