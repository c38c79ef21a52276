"""`export`: the papers a filter selects, as BibTeX, Markdown, CSL-JSON or JSON.

Takes the same filters as `papers` (so `--search "list:thesis"` exports a reading list in its
order). `--output FILE` writes atomically: a temporary file renamed into place, so an
interrupted export never leaves a half-written bibliography behind.
"""

from __future__ import annotations

import argparse
import io
import os
import sys

from digest_tui.commands.common import (
    add_format,
    dumps_json,
    open_for_command,
    path_arg,
    plural,
    write_json,
)
from digest_tui.commands.library_cmds import (
    add_query_arguments,
    paper_objects,
    query_from_args,
    say_search_problems,
)
from digest_tui.errors import CommandError

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from pathlib import Path

    from digest_tui.config import AppContext


FORMATS = ("bibtex", "markdown", "csl-json", "json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="export papers as BibTeX, Markdown, CSL-JSON or JSON",
        description="Export the papers that the filters select (the same filters as `papers`).",
    )
    add_query_arguments(p)
    add_format(p, FORMATS, "bibtex")
    p.add_argument(
        "--output", "-o", type=path_arg, metavar="FILE", help="write to FILE, not stdout"
    )
    p.set_defaults(func=cmd_export)


def render(fmt: str, papers: list[dict]) -> str:
    if fmt == "bibtex":
        from digest_tui.export.bibtex import to_bibtex

        return to_bibtex(papers)
    if fmt == "markdown":
        from digest_tui.export.markdown import to_markdown

        return to_markdown(papers)
    if fmt == "csl-json":
        from digest_tui.export.csl_json import to_csl_json

        return dumps_json(to_csl_json(papers), indent=2) + "\n"
    buffer = io.StringIO()
    write_json(papers, buffer)  # byte for byte what `papers --format json` prints
    return buffer.getvalue()


def cmd_export(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx)
    query = query_from_args(args)
    say_search_problems(ctx, library, query)
    papers = list(paper_objects(library, query))
    text = render(args.format, papers)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    _write_atomically(args.output, text)
    print(f"exported {plural(len(papers), 'paper')} to {args.output}", file=sys.stderr)
    return 0


def _write_atomically(path: Path, text: str) -> None:
    import tempfile  # (here: `digest-tui --help` imports this module)

    target = path.expanduser()
    try:
        handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    except OSError as exc:
        raise CommandError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        # mkstemp makes the file private; give it the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except OSError as exc:
        from pathlib import Path

        Path(temp).unlink(missing_ok=True)
        raise CommandError(f"{path}: cannot write: {exc.strerror or exc}") from exc
