"""`digest-tui sync`: exchange reading state with a synced folder or a WebDAV server.

    digest-tui sync init REMOTE     once per machine: a folder path or an https:// WebDAV URL
    digest-tui sync                 send and receive changes, say what happened
    digest-tui sync status          the remote, this device, the others seen, what is pending
    digest-tui sync forget DEVICE   stop waiting for a device that is gone for good

The protocol is in docs/sync.md; credentials come from the environment, the OS keyring or
~/.netrc, never from the config file, and never appear in the output.
"""

from __future__ import annotations

import argparse
import sys

from digest_tui.commands.common import add_format, open_for_command, plural, write_json
from digest_tui.errors import CommandError
from digest_tui.textsafe import printable

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from typing import Any

    from digest_tui.config import AppContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sync",
        help="sync bookmarks, tags, notes and lists with your other machines",
        description="Exchange reading state (bookmarks, read marks, tags, notes, reading "
        "lists) with your other machines through a synced folder (Syncthing, Dropbox, iCloud, "
        "a network share) or a WebDAV server (Nextcloud...). Papers are not synced: state for "
        "a paper this machine does not have waits until it is imported. Set up once per "
        "machine with `digest-tui sync init REMOTE`. See docs/sync.md.",
        epilog="WebDAV credentials: DIGEST_TUI_SYNC_USER and DIGEST_TUI_SYNC_PASSWORD, the OS "
        "keyring (if the keyring package is installed), or ~/.netrc; never the config file.",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="re-read every manifest and list every directory (repairs a damaged remote)",
    )
    p.add_argument("--no-compact", action="store_true", help="do not compact this device's files")
    p.add_argument(
        "--reclaim",
        action="store_true",
        help="take this device's manifest back when sync says another machine is syncing as "
        "this device but none is (the remote was restored from a backup, or the copied library "
        "is gone): sends again what the remote lacks, deletes nothing",
    )
    add_format(p, ("text", "json"), "text")
    p.set_defaults(func=cmd_sync)
    actions = p.add_subparsers(dest="sync_command", metavar="ACTION")

    a = actions.add_parser(
        "init",
        help="set up sync with a folder or a WebDAV URL",
        description="Use REMOTE for sync: a folder path (kept in step by Syncthing, Dropbox, "
        "iCloud, a network share...) or a WebDAV URL such as "
        "https://cloud.example.com/remote.php/dav/files/USER/digest-tui (plain http:// only "
        "to this machine). Creates the remote's marker file if it is new, then syncs.",
    )
    a.add_argument("remote", metavar="REMOTE", help="folder path or https:// WebDAV URL")
    a.add_argument("--user", metavar="NAME", help="WebDAV user name (not a secret; kept)")
    a.add_argument("--name", metavar="LABEL", help="this machine's name as others see it")
    a.add_argument(
        "--keyring",
        action="store_true",
        help="ask for the WebDAV password and keep it in the OS keyring (needs the optional "
        "keyring package)",
    )
    a.add_argument("--no-sync", action="store_true", help="set up only; do not sync now")
    a.set_defaults(func=cmd_init)

    a = actions.add_parser(
        "status",
        help="show the remote, the devices seen and pending changes",
        description="What this machine knows (no network): the remote, this device, the "
        "other devices seen and when, and the changes not yet sent.",
    )
    add_format(a, ("text", "json"), "text")
    a.set_defaults(func=cmd_status)

    a = actions.add_parser(
        "forget",
        help="stop waiting for a device that is gone",
        description="Compaction deletes old files only when every device has them; a device "
        "that will never sync again (a reinstalled or lost machine) holds that up. Forgetting "
        "it lets the others go on. Its files stay, and it still converges if it comes back.",
    )
    a.add_argument("device", metavar="DEVICE", help="device id, as `sync status` shows it")
    a.set_defaults(func=cmd_forget)


def _errors(func: Any) -> Any:
    def wrapper(ctx: AppContext, args: argparse.Namespace) -> int:
        from digest_tui.errors import CredentialsError, SyncError

        try:
            return int(func(ctx, args) or 0)
        except (SyncError, CredentialsError) as exc:
            raise CommandError(printable(str(exc)), exit_status=exc.exit_status) from None

    return wrapper


@_errors
def cmd_sync(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.sync.engine import SyncEngine

    library = open_for_command(ctx, enrich="none")
    progress = _progress() if args.format == "text" else None
    with SyncEngine(library, progress=progress) as engine:
        report = engine.sync(full=args.full, compact=not args.no_compact, reclaim=args.reclaim)
    _clear_progress(progress)
    if args.format == "json":
        write_json(report.to_json())
    else:
        print(f"synced with {printable(report.remote)}")
        for line in report.lines():
            print(printable(line))
    _warn_skipped(report.skipped)
    return 0


@_errors
def cmd_init(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.sync.credentials import PASSWORD_ENV, USER_ENV, store_in_keyring
    from digest_tui.sync.engine import SyncEngine, init_remote
    from digest_tui.sync.remote import is_url, normalize_spec

    library = open_for_command(ctx, enrich="none")
    stored, had_credentials = normalize_spec_or_fail(normalize_spec, args.remote)
    if args.keyring:
        if not is_url(stored):
            raise CommandError("--keyring is for WebDAV URLs; a folder needs no password")
        import getpass
        import os

        from digest_tui.sync.credentials import keyring_available

        user = args.user or os.environ.get(USER_ENV)
        if not user:
            raise CommandError("--keyring needs a user name: add --user NAME")
        if not keyring_available():
            raise CommandError(
                "--keyring needs the optional `keyring` package (pip install keyring); or use "
                f"{USER_ENV}/{PASSWORD_ENV} or ~/.netrc"
            )
        if not sys.stdin.isatty():
            raise CommandError("--keyring asks for the password: run it in a terminal")
        try:
            password = getpass.getpass(f"WebDAV password for {user}: ")
        except (EOFError, KeyboardInterrupt):
            password = ""
        if not password:
            raise CommandError("no password given; nothing stored")
        store_in_keyring(stored, user, password)
        print("password stored in the OS keyring")
    report = init_remote(library, stored, user=args.user, label=args.name)
    what = "created a new sync remote" if report.created_marker else "joined the sync remote"
    print(f"{what}: {printable(report.remote)}")
    if report.devices:
        print(f"other devices already there: {', '.join(report.devices)}")
    if report.switched:
        print("this machine synced with another remote before: it will send all of its changes")
    if had_credentials:
        print(
            "warning: the user name and password in the URL were not saved; give them with "
            f"{USER_ENV}/{PASSWORD_ENV}, ~/.netrc or `sync init --keyring`",
            file=sys.stderr,
        )
    if args.no_sync:
        return 0
    progress = _progress()
    with SyncEngine(library, progress=progress) as engine:
        result = engine.sync()
    _clear_progress(progress)
    for line in result.lines():
        print(printable(line))
    _warn_skipped(result.skipped)
    return 0


def normalize_spec_or_fail(normalize: Any, spec: str) -> tuple[str, bool]:
    from digest_tui.errors import RemoteError

    try:
        return normalize(spec)
    except RemoteError as exc:
        raise CommandError(printable(str(exc)), exit_status=exc.exit_status) from None


@_errors
def cmd_status(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.sync.ledger import configured_remote
    from digest_tui.sync.status import local_status

    library = open_for_command(ctx, enrich="none")
    status = local_status(library)  # what this machine knows: no network
    if args.format == "json":
        write_json(status.to_json())
        return 0
    if configured_remote(library.conn) is None:
        print("sync is not set up: run `digest-tui sync init FOLDER-OR-URL`")
    else:
        print(f"remote:        {printable(status.remote)}")
    print(f"this device:   {status.device} ({printable(status.label)})")
    print(f"not yet sent:  {plural(status.pending_local, 'change')}")
    if status.pending_papers:
        print(
            f"waiting:       {plural(status.pending_papers, 'change')} "
            "for papers not in this library"
        )
    if status.last_sync:
        outcome = "ok" if status.last_sync.get("ok") else "FAILED"
        print(
            f"last sync:     {status.last_sync.get('at')} {outcome}: "
            f"{printable(status.last_sync.get('summary', ''))}"
        )
    if status.own_segments:
        print(
            f"uploaded:      ops 1-{status.uploaded_head} in "
            f"{plural(status.own_segments, 'segment')}"
        )
    if not status.peers:
        print("other devices: none seen yet")
    for peer in status.peers:
        facts = [
            f"has {peer.have} of its {plural(peer.head, 'op')} here",
            f"has {peer.acked_ours} of ours",
            f"last wrote {peer.updated_at or '?'}",
        ]
        if peer.forgotten:
            facts.append("forgotten")
        if peer.problem:
            facts.append(f"problem: {peer.problem}")
        label = f" ({printable(peer.label)})" if peer.label else ""
        print(f"device {peer.device}{label}: " + printable("; ".join(facts)))
    return 0


@_errors
def cmd_forget(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.sync.status import forget_device, local_status

    library = open_for_command(ctx, enrich="none")
    known = {p.device for p in local_status(library).peers}
    if args.device not in known:
        raise CommandError(
            f"no device {args.device!r} seen on the remote (known: {', '.join(sorted(known))})"
            if known
            else f"no device {args.device!r} seen on the remote"
        )
    forget_device(library, args.device)
    print(f"forgot device {args.device}: the next sync tells the other devices")
    return 0


def _progress() -> Any:
    if not sys.stderr.isatty():
        return None

    def show(message: str) -> None:
        sys.stderr.write("\r\x1b[K" + printable(message)[:100])
        sys.stderr.flush()

    return show


def _clear_progress(progress: Any) -> None:
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def _warn_skipped(skipped: list[Any]) -> None:
    for item in skipped:
        word = "note" if item.kind == "temporary" else "warning"
        print(f"{word}: skipped {printable(item.path)}: {printable(item.reason)}", file=sys.stderr)
