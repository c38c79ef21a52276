"""Setting sync up: opening the configured remote, and `sync init` (marker, directory, remote)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from digest_tui.errors import RemoteError, SyncError
from digest_tui.sync.ledger import META_USER, Ledger, configured_remote, get_meta
from digest_tui.sync.remote import Remote
from digest_tui.sync.report import InitReport
from digest_tui.sync.segments import MARKER, MARKER_BYTES, manifest_device, segment_dir

if TYPE_CHECKING:
    import sqlite3

    from digest_tui.store.library import Library


def make_remote(conn: sqlite3.Connection, spec: str | None = None, **options: Any) -> Remote:
    """The remote configured for this library (or `spec`), with WebDAV credentials looked up."""
    from digest_tui.errors import CredentialsError
    from digest_tui.sync.credentials import find_credentials
    from digest_tui.sync.remote import is_url, normalize_spec

    spec = spec or configured_remote(conn)
    if not spec:
        raise SyncError("sync is not set up: run `digest-tui sync init FOLDER-OR-URL` first")
    try:
        stored, _ = normalize_spec(spec)
        if is_url(stored) and "credentials" not in options:
            options["credentials"] = find_credentials(stored, get_meta(conn, META_USER))
        return open_remote(stored, **options)
    except (RemoteError, CredentialsError) as exc:
        raise SyncError(str(exc)) from None


def init_remote(
    library: Library,
    spec: str,
    *,
    user: str | None = None,
    label: str | None = None,
    remote: Remote | None = None,
    **options: Any,
) -> InitReport:
    """Set up sync with a folder or WebDAV URL: create the marker when it is new, remember it."""
    from digest_tui.store.db import transaction
    from digest_tui.sync.remote import normalize_spec

    conn = library.conn
    ledger = Ledger(conn)
    try:
        stored, had_credentials = normalize_spec(spec)
    except RemoteError as exc:
        raise SyncError(str(exc)) from None
    if user is not None:
        with transaction(conn):
            ledger.write_meta(META_USER, user)
    own_remote = remote is None
    remote = remote or make_remote(conn, stored, **options)
    try:
        created_root = created_marker = False
        root = remote.list("")
        if root is None:
            if remote.kind == "folder":
                parent = Path(stored).parent
                if not parent.is_dir():
                    raise SyncError(
                        f"{stored}: its parent folder {parent} does not exist (is the drive "
                        "or share mounted?); create it first"
                    )
            remote.ensure_dir("")
            created_root = True
            root = []
        names = {e.name for e in root}
        if MARKER not in names:
            remote.write(MARKER, MARKER_BYTES)
            created_marker = True
        me = ledger.device
        remote.ensure_dir(segment_dir(me))
        devices = sorted(
            d for d in (manifest_device(n) for n in names) if d is not None and d != me
        )
        previous = configured_remote(conn)
        switched = previous is not None and previous != stored
        ledger.switch_remote(stored, switched=switched, label=label)
        return InitReport(
            remote.description, created_root, created_marker, devices, switched, had_credentials
        )
    except RemoteError as exc:
        raise SyncError(str(exc)) from None
    finally:
        if own_remote:
            remote.close()


def open_remote(spec: str, **webdav_options: object) -> Remote:
    """The remote a stored spec names (see remote.normalize_spec); WebDAV options go to
    WebDavRemote. Here, not in remote.py, so that the protocol module never imports a remote."""
    from digest_tui.sync.remote import FolderRemote, is_url, normalize_spec
    from digest_tui.sync.webdav import WebDavRemote

    stored, _ = normalize_spec(spec)
    if is_url(stored):
        return WebDavRemote(stored, **webdav_options)  # type: ignore[arg-type]  # options from the CLI
    return FolderRemote(Path(stored))
