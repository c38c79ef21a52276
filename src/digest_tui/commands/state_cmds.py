"""The user's state from the command line: bookmark, read, tag, note, reading lists, tags.

Each command changes the library in one transaction (recorded as ops that sync carries to
the user's other machines). A bad id, tag or list name exits with status 1 and a message
naming it; nothing is changed when any of several ids is unknown.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable

from digest_tui.commands.common import (
    add_format,
    enrich_again,
    open_for_command,
    plural,
    resolve_or_fail,
    write_json,
    write_table,
)
from digest_tui.errors import CommandError, OpsError, StoreError
from digest_tui.textsafe import printable

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from typing import Any

    from digest_tui.config import AppContext
    from digest_tui.state.model import NoteVersion
    from digest_tui.store.library import Library


Handler = Callable[["AppContext", argparse.Namespace], int]

_CONFLICT_START = "<<<<<<< version "
_CONFLICT_NEXT = "======= version "
_CONFLICT_END = ">>>>>>> end of conflicting versions"


def _state_errors(func: Handler) -> Handler:
    """StateError and friends become CommandError: 'digest-tui: <message>', exit 2."""

    def wrapper(ctx: AppContext, args: argparse.Namespace) -> int:
        try:
            return func(ctx, args)
        except OpsError as exc:
            raise CommandError(str(exc)) from exc

    wrapper.__doc__ = func.__doc__
    return wrapper


def register(sub: argparse._SubParsersAction) -> None:
    for name, on, verb in (
        ("bookmark", True, "bookmark"),
        ("unbookmark", False, "remove the bookmark of"),
        ("read", True, "mark read"),
        ("unread", False, "mark unread"),
    ):
        p = sub.add_parser(name, help=f"{verb} papers", description=f"{verb.capitalize()} papers.")
        p.add_argument("ids", nargs="+", metavar="ID", help="paper id, arXiv id or id prefix")
        p.set_defaults(func=_state_errors(cmd_flag), flag=name, on=on)

    for name, verb in (("tag", "add tags to"), ("untag", "remove tags from")):
        p = sub.add_parser(
            name,
            help=f"{verb} a paper",
            description=f"{verb.capitalize()} a paper. Tags are lower-cased words without "
            "spaces (letters, digits and - _ . + # / : @).",
        )
        p.add_argument("id", metavar="ID")
        p.add_argument("tags", nargs="+", metavar="TAG")
        p.set_defaults(func=_state_errors(cmd_tag), remove=name == "untag")

    p = sub.add_parser(
        "tags", help="list tags with counts", description="All tags in use, with paper counts."
    )
    add_format(p, ("table", "json"), "table")
    p.set_defaults(func=_state_errors(cmd_tags))

    p = sub.add_parser(
        "note",
        help="write, show or resolve a paper's note",
        description="Write a paper's note: from standard input when it is not a terminal, "
        "else in $VISUAL/$EDITOR. An empty note deletes it. When edits made on two machines "
        "conflict, both versions are kept: --show lists them, editing merges them, --keep "
        "picks one.",
    )
    p.add_argument("id", metavar="ID")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--show", action="store_true", help="print the note and any conflicts")
    action.add_argument("--keep", metavar="VERSION", help="resolve a conflict: keep VERSION")
    action.add_argument("--delete", action="store_true", help="delete the note")
    p.set_defaults(func=_state_errors(cmd_note))

    _register_lists(sub)


def _register_lists(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "list",
        help="reading lists",
        description="Named, ordered reading lists. With no action, lists them.",
    )
    add_format(p, ("table", "json"), "table")
    p.set_defaults(func=_state_errors(cmd_lists))
    actions = p.add_subparsers(dest="list_action", metavar="ACTION")

    a = actions.add_parser("create", help="create a list", description="Create a list.")
    a.add_argument("name", metavar="NAME")
    a.set_defaults(func=_state_errors(cmd_list_create))
    a = actions.add_parser("rename", help="rename a list", description="Rename a list.")
    a.add_argument("name", metavar="NAME")
    a.add_argument("new_name", metavar="NEW_NAME")
    a.set_defaults(func=_state_errors(cmd_list_rename))
    a = actions.add_parser("delete", help="delete a list", description="Delete a list.")
    a.add_argument("name", metavar="NAME")
    a.set_defaults(func=_state_errors(cmd_list_delete))
    for verb, text in (("add", "append papers to"), ("remove", "remove papers from")):
        a = actions.add_parser(
            verb, help=f"{text} a list", description=f"{text.capitalize()} a list."
        )
        a.add_argument("name", metavar="NAME")
        a.add_argument("ids", nargs="+", metavar="ID")
        a.set_defaults(func=_state_errors(cmd_list_members), remove=verb == "remove")
    a = actions.add_parser(
        "move",
        help="move a paper within a list",
        description="Move a paper to a 1-based position, or before or after another paper.",
    )
    a.add_argument("name", metavar="NAME")
    a.add_argument("id", metavar="ID")
    where = a.add_mutually_exclusive_group(required=True)
    where.add_argument("--to", type=int, metavar="N", help="new position, 1 = first")
    where.add_argument("--before", metavar="ID", help="just before this paper")
    where.add_argument("--after", metavar="ID", help="just after this paper")
    a.set_defaults(func=_state_errors(cmd_list_move))
    a = actions.add_parser("show", help="show a list in order", description="Show a list.")
    a.add_argument("name", metavar="NAME")
    add_format(a, ("table", "json"), "table")
    a.set_defaults(func=_state_errors(cmd_list_show))


# ---- per-paper state -----------------------------------------------------------------------


def _resolve_all(library: Library, idents: list[str]) -> list[str]:
    """Canonical ids for every ident, or an error before anything changes."""
    return [resolve_or_fail(library, ident)["id"] for ident in idents]


_FLAG_WORDS = {
    "bookmark": ("bookmarked", "was already bookmarked"),
    "unbookmark": ("removed bookmark of", "was not bookmarked"),
    "read": ("marked read", "was already read"),
    "unread": ("marked unread", "was already unread"),
}


def cmd_flag(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx, enrich="none")
    state = library.state
    done, already = _FLAG_WORDS[args.flag]
    for paper_id in _resolve_all(library, args.ids):
        if args.flag in ("bookmark", "unbookmark"):
            changed = state.bookmark(paper_id, args.on)
        else:
            changed = state.set_read(paper_id, args.on)
        print(f"{done} {paper_id}" if changed else f"{paper_id} {already}")
    return 0


def cmd_tag(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx, enrich="none")
    paper_id = resolve_or_fail(library, args.id)["id"]
    if args.remove:
        removed = library.state.remove_tags(paper_id, args.tags)
        print(
            f"{paper_id}: removed {', '.join(removed)}"
            if removed
            else f"{paper_id}: had none of those tags"
        )
    else:
        added = library.state.add_tags(paper_id, args.tags)
        print(
            f"{paper_id}: added {', '.join(added)}"
            if added
            else f"{paper_id}: already had those tags"
        )
    tags = library.state.user_state(resolve_or_fail(library, paper_id)["rowid"])["tags"]
    print(f"{paper_id}: tags: {', '.join(tags) or '(none)'}")
    return 0


def cmd_tags(ctx: AppContext, args: argparse.Namespace) -> int:
    counts = open_for_command(ctx, enrich="none").state.tag_counts()
    if args.format == "json":
        write_json([{"tag": tag, "count": n} for tag, n in counts.items()])
    else:
        write_table([[str(n), tag] for tag, n in counts.items()], ["COUNT", "TAG"])
    return 0


# ---- notes ---------------------------------------------------------------------------------


def _describe(version: NoteVersion) -> str:
    return f"{version.version} (device {version.device}, {version.created_at})"


def _print_conflicts(paper_id: str, conflicts: list[NoteVersion], out=sys.stderr) -> None:  # type: ignore[no-untyped-def]
    if not conflicts:
        return
    print(
        f"{paper_id}: the note has {plural(len(conflicts), 'conflicting version')} "
        "from other edits; "
        f"see `digest-tui note {paper_id} --show`, then edit to merge or use --keep VERSION:",
        file=out,
    )
    for version in conflicts:
        first = printable(version.text.splitlines()[0] if version.text else "(deleted)")
        print(f"  {_describe(version)}: {first[:70]}", file=out)


def cmd_note(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx, enrich="none")
    paper_id = resolve_or_fail(library, args.id)["id"]
    state = library.state
    current = state.note(paper_id)
    if args.show:
        return _show_note(paper_id, current)
    if args.keep:
        result = state.resolve_note_conflict(paper_id, keep=args.keep)
        print(f"{paper_id}: kept note version {args.keep}")
        _print_conflicts(paper_id, result.conflicts)
        return 0
    seen = [v.version for v in current.versions]
    if args.delete:
        text = ""
    elif not sys.stdin.isatty():
        text = sys.stdin.read()
    else:
        text = _edit(_editor_text(current), ctx)
        if _CONFLICT_START in text or _CONFLICT_END in text:
            raise CommandError(
                f"{paper_id}: conflict markers are still in the edited note; nothing saved"
            )
    try:
        result = state.set_note(paper_id, text, replaces=seen)
    except StoreError as exc:
        # The user typed this: it must outlive a full disk or a locked library.
        raise CommandError(f"{exc}; {_keep_unsaved_note(ctx, paper_id, text)}") from exc
    if not result.changed:
        print(f"{paper_id}: note unchanged")
    elif text.strip():
        print(f"{paper_id}: note saved")
    else:
        print(f"{paper_id}: note deleted")
    _print_conflicts(paper_id, result.conflicts)
    return 0


def _keep_unsaved_note(ctx: AppContext, paper_id: str, text: str) -> str:
    """Write a note that could not be saved to a recovery file; say where it went."""
    import tempfile  # (here, not at the top: `digest-tui --help` imports this module)

    if not text.strip():
        return "the note was not deleted"
    folder = ctx.paths.data_dir / "unsaved-notes"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe_id = re.sub(r"[^A-Za-z0-9._-]", "_", paper_id)[:80]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f"{safe_id}-{stamp}-", suffix=".md", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as exc:
        # Not even that could be written: the terminal is the last place the text can go.
        print(text, file=sys.stderr)
        return f"the note could not be kept in a file either ({exc.strerror}); it is printed above"
    return f"the note was kept in {name}"


def _show_note(paper_id: str, current: Any) -> int:
    if current.text is None and not current.versions:
        print(f"{paper_id}: no note")
        return 0
    print(printable(current.text) if current.text is not None else "(no text)")
    if current.conflicts:
        print()
        print(f"{plural(len(current.conflicts), 'conflicting version')} beside {current.version}:")
        for version in current.conflicts:
            print(f"--- {_describe(version)}")
            print(printable(version.text) if version.text else "(deleted the note)")
    return 0


def _editor_text(current: Any) -> str:
    if not current.conflicts:
        return (current.text or "") + "\n"
    # Every version, marked like a merge conflict: the user edits them into one note.
    parts = []
    for i, version in enumerate(current.versions):
        marker = _CONFLICT_START if i == 0 else _CONFLICT_NEXT
        parts.append(f"{marker}{_describe(version)}\n{version.text or '(deleted)'}\n")
    parts.append(f"{_CONFLICT_END}: merge into one note, remove these markers, save\n")
    return "".join(parts)


def _edit(initial: str, ctx: AppContext) -> str:
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    handle, name = tempfile.mkstemp(prefix="digest-tui-note-", suffix=".md")
    from pathlib import Path

    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(initial)
        try:
            status = subprocess.run([*shlex.split(editor), str(path)], check=False).returncode
        except OSError as exc:
            raise CommandError(f"cannot start editor {editor!r}: {exc}") from exc
        if status != 0:
            raise CommandError(f"editor {editor!r} exited with status {status}; nothing saved")
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)


# ---- reading lists -------------------------------------------------------------------------


def cmd_lists(ctx: AppContext, args: argparse.Namespace) -> int:
    lists = open_for_command(ctx, enrich="none").state.lists()
    if args.format == "json":
        write_json([{"id": i.list_id, "name": i.name, "count": i.count} for i in lists])
    elif not lists:
        print("no reading lists (create one: digest-tui list create NAME)")
    else:
        write_table([[str(i.count), i.list_id, i.name] for i in lists], ["COUNT", "ID", "NAME"])
    return 0


def cmd_list_create(ctx: AppContext, args: argparse.Namespace) -> int:
    info = open_for_command(ctx, enrich="none").state.create_list(args.name)
    print(f"created list {info.name!r} ({info.list_id})")
    return 0


def cmd_list_rename(ctx: AppContext, args: argparse.Namespace) -> int:
    info = open_for_command(ctx, enrich="none").state.rename_list(args.name, args.new_name)
    print(f"renamed list {args.name!r} to {info.name!r}")
    return 0


def cmd_list_delete(ctx: AppContext, args: argparse.Namespace) -> int:
    info = open_for_command(ctx, enrich="none").state.delete_list(args.name)
    print(f"deleted list {info.name!r} ({plural(info.count, 'paper')})")
    return 0


def cmd_list_members(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx, enrich="none")
    library.state.find_list(args.name)  # a missing list is the first thing to report
    ids = _resolve_all(library, args.ids)
    if args.remove:
        done = library.state.remove_from_list(args.name, ids)
        skipped = [i for i in ids if i not in done]
        print(
            f"removed {len(done)} from {args.name!r}"
            + (f"; not in it: {', '.join(skipped)}" if skipped else "")
        )
    else:
        done = library.state.add_to_list(args.name, ids)
        skipped = [i for i in ids if i not in done]
        print(
            f"added {len(done)} to {args.name!r}"
            + (f"; already in it: {', '.join(skipped)}" if skipped else "")
        )
    return 0


def cmd_list_move(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx, enrich="none")
    paper_id = resolve_or_fail(library, args.id)["id"]
    anchor = args.before or args.after
    if anchor is not None:
        anchor = resolve_or_fail(library, anchor)["id"]
    index = library.state.move_in_list(
        args.name,
        paper_id,
        index=args.to,
        before=anchor if args.before else None,
        after=anchor if args.after else None,
    )
    print(f"{paper_id} is now #{index} in {args.name!r}")
    return 0


def cmd_list_show(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.paper_view import paper_view

    library = open_for_command(ctx, enrich="none")
    view = library.state.show_list(args.name)
    if args.format == "json":
        rows = [library.resolve(e.id) for e in view.entries]
        if enrich_again(library, [int(r["rowid"]) for r in rows if r is not None]):
            rows = [library.resolve(e.id) for e in view.entries]  # as enriched now
        write_json(
            {
                "id": view.info.list_id,
                "name": view.info.name,
                "count": view.info.count,
                "pending": view.pending,
                "papers": [paper_view(library, r).to_json() for r in rows if r is not None],
            }
        )
        return 0
    print(f"{printable(view.info.name)} ({plural(view.info.count, 'paper')})")
    table = [[str(i), e.id, e.published or "", e.title] for i, e in enumerate(view.entries, 1)]
    write_table(table, ["#", "ID", "PUBLISHED", "TITLE"])
    if view.pending:
        print(f"({view.pending} more not in this library yet: they appear when imported)")
    return 0
