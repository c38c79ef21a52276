"""The `digest-tui` command line.

With no command it opens the TUI. Commands are registered by the modules in
`digest_tui.commands`; heavy modules are imported inside the command that needs them, so
`digest-tui --help` and the TUI start quickly.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence

from digest_tui import __version__

_COMMAND_MODULES = (
    "library_cmds",
    "links_cmds",
    "fetch_cmds",
    "state_cmds",
    "export_cmds",
    "sync_cmds",
    "backup_cmds",
    "similar_cmds",
    "artifacts_cmds",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="digest-tui",
        description="A terminal reader of ML-systems paper digests. With no command, opens "
        "the TUI (loading the bundled sample digests on a first run).",
        epilog="Set DIGEST_TUI_HOME=DIR to keep all config, data and cache under DIR.",
    )
    parser.add_argument("--version", action="version", version=f"digest-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from importlib import import_module

    # argparse translates its headings through gettext each time a parser is made, and
    # gettext looks for catalogs on disk again for every one it does not find (four stats):
    # ~5 ms of the ~8 ms that building these ~110 parsers takes. Within one process a
    # catalog cannot appear, so each message's translation is looked up once while building.
    translate = getattr(argparse, "_", None)
    if translate is not None:
        argparse._ = functools.cache(translate)  # type: ignore[attr-defined]
    try:
        for name in _COMMAND_MODULES:
            import_module(f"digest_tui.commands.{name}").register(sub)
    finally:
        if translate is not None:
            argparse._ = translate  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    from digest_tui.errors import DigestError

    if not args_list:
        ctx = None
        try:
            from digest_tui.config import AppContext
            from digest_tui.tui.app import run_app

            ctx = AppContext()
            return run_app(ctx)
        except DigestError as exc:
            print(f"digest-tui: {exc}", file=sys.stderr)
            return exc.exit_status
        finally:
            _close(ctx)
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    ctx = None
    try:
        # Imported after parsing, so `--help` and usage errors never load pydantic.
        from digest_tui.config import AppContext

        ctx = AppContext()
        return int(args.func(ctx, args) or 0)
    except DigestError as exc:
        print(f"digest-tui: {exc}", file=sys.stderr)
        return exc.exit_status
    except BrokenPipeError:
        # `digest-tui papers | head` closes the pipe early; that is not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        _close(ctx)


def _close(ctx: object) -> None:
    """Checkpoint and close every library the command opened, whether it succeeded, failed or
    was interrupted. Quietly: a command's own error is the one to report, and a checkpoint
    that cannot finish loses nothing (SQLite keeps the log and replays it on the next open)."""
    if ctx is None:
        return
    from contextlib import suppress

    with suppress(Exception):  # never hide the original error behind a closing one
        ctx.close()  # type: ignore[attr-defined]
