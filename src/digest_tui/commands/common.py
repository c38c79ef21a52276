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
from digest_tui.textsafe import one_line


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


def write_json(obj: Any, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    json.dump(obj, out, ensure_ascii=False, indent=2)
    out.write("\n")


def write_jsonl(objs: Iterable[Any], out: TextIO | None = None) -> None:
    out = out or sys.stdout
    for obj in objs:
        out.write(json.dumps(obj, ensure_ascii=False))
        out.write("\n")


def write_table(rows: list[list[str]], headers: list[str], out: TextIO | None = None) -> None:
    """A plain aligned table; the last column takes what width is left and is truncated."""
    out = out or sys.stdout
    width = shutil.get_terminal_size((120, 24)).columns
    fixed = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
        for i, h in enumerate(headers[:-1])
    ]
    remaining = max(width - sum(fixed) - 2 * len(fixed), 20)

    def line(cells: list[str]) -> str:
        head = "  ".join(c.ljust(w) for c, w in zip(cells[:-1], fixed, strict=True))
        return (head + "  " + one_line(cells[-1], remaining)).rstrip()

    out.write(line(headers) + "\n")
    for row in rows:
        out.write(line(row) + "\n")
