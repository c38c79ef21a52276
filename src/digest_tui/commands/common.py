"""Helpers shared by CLI commands: opening the library, output formats, errors."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from digest_tui.config import AppContext
from digest_tui.errors import CommandError
from digest_tui.store.library import Library
from digest_tui.textsafe import escape_unsafe_in_json, one_line, printable


def open_for_command(ctx: AppContext) -> Library:
    from digest_tui.service import load_sample_if_empty, open_library

    library = open_library(ctx)
    load_sample_if_empty(library)
    if library.stale_count():
        library.reenrich()
    return library


def resolve_or_fail(library: Library, ident: str):  # type: ignore[no-untyped-def]
    row = library.resolve(ident)
    if row is None:
        raise CommandError(f"no paper with id {ident!r} (try `digest-tui papers --search ...`)")
    return row


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
    return escape_unsafe_in_json(json.dumps(obj, ensure_ascii=False, indent=indent))


def write_json(obj: Any, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write(dumps_json(obj, indent=2))
    out.write("\n")


def write_jsonl(objs: Iterable[Any], out: TextIO | None = None) -> None:
    out = out or sys.stdout
    for obj in objs:
        out.write(dumps_json(obj))
        out.write("\n")


def write_table(rows: list[list[str]], headers: list[str], out: TextIO | None = None) -> None:
    """A plain aligned table; the last column takes what width is left and is truncated.

    Every cell may be untrusted (a tag, a list name, a title): each becomes one printable
    line, escaped before the columns are measured so they stay aligned."""
    out = out or sys.stdout
    width = shutil.get_terminal_size((120, 24)).columns
    cells = [[_cell(c) for c in row[:-1]] + [row[-1]] for row in rows]
    fixed = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
        for i, h in enumerate(headers[:-1])
    ]
    remaining = max(width - sum(fixed) - 2 * len(fixed), 20)

    def line(row: list[str]) -> str:
        head = "  ".join(c.ljust(w) for c, w in zip(row[:-1], fixed, strict=True))
        return (head + "  " + one_line(row[-1], remaining)).rstrip()

    out.write(line(headers) + "\n")
    for row in cells:
        out.write(line(row) + "\n")


def _cell(text: str) -> str:
    return " ".join(printable(text).split())
