"""`backup FILE`: a consistent copy of the whole library, safe while the app is running."""

from __future__ import annotations

import argparse

from digest_tui.commands.common import path_arg, plural
from digest_tui.errors import CommandError

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from pathlib import Path

    from digest_tui.config import AppContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "backup",
        help="copy the library to a file, safely",
        description="Write a consistent copy of the library (papers, user state, op log) to "
        "FILE with SQLite's online backup, even while the app is open. Copying "
        "library.sqlite3 by hand can miss recent changes kept in library.sqlite3-wal; this "
        "cannot. To restore: quit the app, then move FILE to library.sqlite3 in the data "
        "folder (deleting library.sqlite3-wal and -shm).",
    )
    p.add_argument("file", type=path_arg, metavar="FILE")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.set_defaults(func=cmd_backup)


def cmd_backup(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.service import open_library

    destination: Path = args.file
    library_file = ctx.paths.database
    if destination.is_dir():
        raise CommandError(f"{destination}: is a folder; give the name of the backup file")
    if _same_file(destination, library_file):
        raise CommandError(f"{destination}: is the library itself; choose another file")
    if destination.exists() and not args.force:
        raise CommandError(f"{destination}: already exists (use --force to replace it)")
    if not destination.parent.is_dir():
        raise CommandError(f"{destination.parent}: no such folder")
    library = open_library(ctx)
    library.backup(destination)
    print(f"backed up {plural(library.count(), 'paper')} and your reading state to {destination}")
    return 0


def _same_file(a: Path, b: Path) -> bool:
    names = {b.resolve(), *(b.with_name(b.name + s).resolve() for s in ("-wal", "-shm"))}
    return a.resolve() in names
