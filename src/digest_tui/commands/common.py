"""Helpers shared by CLI commands: opening the library, output formats, errors."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Iterable

from digest_tui.errors import AmbiguousId, UnknownPaper
from digest_tui.textsafe import escape_unsafe_in_json, one_line, printable

# `digest-tui --help` imports every command module and what they import at their top, so
# they leave out what only a command needs: pydantic and sqlite3 (~60 ms), and typing,
# pathlib and json (~10 ms of the ~45 ms it takes). mypy reads any `TYPE_CHECKING` as typing's.
TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import json
    from pathlib import Path
    from typing import Any, Literal, TextIO

    from digest_tui.config import AppContext
    from digest_tui.store.library import Library


def open_for_command(ctx: AppContext, *, enrich: Literal["all", "none"] = "all") -> Library:
    """The library a command works on. After the rules or data files change, stored papers
    are enriched again first when the command reads enrichment across the library
    (`enrich="all"`: listing, search, export); a command that reads none (tags, notes, lists,
    sync) or one paper (`fresh_paper`) does not wait for the whole library."""
    from digest_tui.service import load_sample_if_empty, open_library

    library = open_library(ctx)
    load_sample_if_empty(library)
    # one meta read when nothing is stale, not a scan of every paper
    if enrich == "all" and library.has_stale():
        library.reenrich(progress=ReenrichNotice(sys.stderr))
    return library


def enrich_again(library: Library, rowids: list[int]) -> bool:
    """Enrich these papers again if the rules or data files changed since they were stored;
    whether any was. A command about a few papers waits for those, not for the library (the
    next command that reads the whole library enriches the rest)."""
    return library.has_stale() and library.reenrich(rowids=rowids) > 0


def fresh_paper(library: Library, ident: str):  # type: ignore[no-untyped-def]
    """`resolve_or_fail`, with that one paper enriched again first when the rules changed
    since it was stored: `show ID` after an upgrade answers at once."""
    row = resolve_or_fail(library, ident)
    return library.resolve(row["id"]) if enrich_again(library, [int(row["rowid"])]) else row


class ReenrichNotice:
    """Says on stderr why a command waits: after the rules or data files change, the first
    command enriches every stored paper again (about a minute at 100,000 papers). A terminal
    sees the count go up on one line; a log or a pipe gets one line at the start and one at the
    end. Small jobs (a second or two) say nothing. stdout is left alone: it may be JSON that a
    script reads."""

    MIN_PAPERS = 2000

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        try:
            self._live = stream.isatty()
        except (OSError, ValueError):  # closed
            self._live = False

    def __call__(self, done: int, total: int) -> None:
        if total < self.MIN_PAPERS:
            return
        if done == 0:
            # The why, once, on a line of its own; on a terminal the count below it is then
            # rewritten in place, short enough never to wrap (a wrapped line cannot be).
            self._write(
                f"digest-tui: enriching {total:,} papers again after a change of the rules "
                "or data files (once)\n"
            )
        if done >= total:
            line = f"digest-tui: enriched {total:,} papers again."
            self._write(("\r\x1b[2K" if self._live else "") + line + "\n")
        elif self._live:
            self._write(f"\r\x1b[2K  {done:,} of {total:,} papers")

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not stop the command


# How many candidates an ambiguous prefix lists before "… and more".
_CANDIDATES_SHOWN = 10


def resolve_or_fail(library: Library, ident: str):  # type: ignore[no-untyped-def]
    """The paper `ident` names (id, former id, arXiv id or unique id prefix), or exit 2:
    `UnknownPaper`, or `AmbiguousId` listing the papers the prefix starts (id and title)."""
    found = library.resolve_candidates(ident, limit=_CANDIDATES_SHOWN + 1)
    if len(found) == 1:
        return found[0]
    shown = printable(ident.strip())
    if not found:
        raise UnknownPaper(f"no paper with id {shown!r} (try `digest-tui papers --search ...`)")
    more = len(found) > _CANDIDATES_SHOWN
    lines = [
        f"id prefix {shown!r} is ambiguous: it starts the ids of "
        f"{'more than ' if more else ''}{plural(min(len(found), _CANDIDATES_SHOWN), 'paper')}"
        "; give more of the id:"
    ]
    width = max(len(r["id"]) for r in found[:_CANDIDATES_SHOWN])
    for row in found[:_CANDIDATES_SHOWN]:
        lines.append(f"  {row['id'].ljust(width)}  {one_line(row['title'], 60)}")
    if more:
        lines.append("  …")
    raise AmbiguousId("\n".join(lines))


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 paper', '2 papers', '0 papers'; `many` for irregular plurals ('1 entry', '2 entries')."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def positive_int(text: str) -> int:
    """An argparse `type` for counts such as `--limit N`: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_format(parser: argparse.ArgumentParser, choices: Iterable[str], default: str) -> None:
    parser.add_argument(
        "--format",
        choices=list(choices),
        default=default,
        help=f"output format (default: {default})",
    )


def dumps_json(obj: Any, indent: int | None = None) -> str:
    """JSON text of `obj`, UTF-8 kept readable, but with control and invisible characters
    (C1 CSI, bidi overrides, zero-width...) as `\\uXXXX` escapes: the same value when parsed,
    and nothing a terminal would act on when the output is shown."""
    if indent is None:  # jsonl: one encoder for every line, not one built per json.dumps
        text = _compact().encode(obj)
        # json.dumps already escapes C0 controls, so in ASCII text only DEL can be unsafe;
        # `isascii` is a flag check, sparing most lines the regex scan (~20 us per paper).
        if text.isascii() and "\x7f" not in text:
            return text
        return escape_unsafe_in_json(text)
    import json

    return escape_unsafe_in_json(json.dumps(obj, ensure_ascii=False, indent=indent))


@functools.cache
def _compact() -> json.JSONEncoder:
    """What json.dumps(obj, ensure_ascii=False) builds on every call, built once."""
    import json

    return json.JSONEncoder(ensure_ascii=False)


def path_arg(text: str) -> Path:
    """`type=` of a file argument: pathlib is imported when a command runs, not for --help."""
    from pathlib import Path

    return Path(text)


def write_json(obj: Any, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write(dumps_json(obj, indent=2))
    out.write("\n")


def write_jsonl(objs: Iterable[Any], out: TextIO | None = None) -> None:
    out = out or sys.stdout
    for obj in objs:
        out.write(dumps_json(obj))
        out.write("\n")


_LAST_FLOOR = 10


def write_table(
    rows: list[list[str]],
    headers: list[str],
    out: TextIO | None = None,
    *,
    shrink: dict[int, int] | None = None,
    last_min: int = 20,
) -> None:
    """A plain aligned table that fits the terminal's width (COLUMNS, else the terminal's).

    The last column takes the width that is left, `last_min` or more when it can; when that
    is not enough, the columns in `shrink` (index -> narrowest width) give up width first,
    their cells cut with "…", then the last column itself. Every cell may be untrusted (a
    tag, a list name, a title): each becomes one printable line, escaped before the columns
    are measured so they stay aligned."""
    import shutil  # (here: `digest-tui --help` imports this module)

    out = out or sys.stdout
    width = shutil.get_terminal_size((120, 24)).columns
    cells = [[_cell(c) for c in row[:-1]] + [row[-1]] for row in rows]
    fixed = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
        for i, h in enumerate(headers[:-1])
    ]
    excess = sum(fixed) + 2 * len(fixed) + last_min - width
    for column, narrowest in (shrink or {}).items():
        if excess <= 0:
            break
        give = min(excess, max(fixed[column] - narrowest, 0))
        fixed[column] -= give
        excess -= give
    # Past the narrowest columns, the last one gives way too: a line never wraps unless even
    # `_LAST_FLOOR` characters of it do not fit.
    remaining = max(width - sum(fixed) - 2 * len(fixed), min(last_min, _LAST_FLOOR))

    def line(row: list[str]) -> str:
        head = "  ".join(one_line(c, w).ljust(w) for c, w in zip(row[:-1], fixed, strict=True))
        return (head + "  " + one_line(row[-1], remaining)).rstrip()

    out.write(line(headers) + "\n")
    for row in cells:
        out.write(line(row) + "\n")


def _cell(text: str) -> str:
    return " ".join(printable(text).split())
