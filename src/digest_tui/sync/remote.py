"""Where sync keeps its files: a folder, or a WebDAV server (sync/webdav.py).

Both offer the same small interface (`Remote`): list a directory, read a file, write a file
atomically, create a directory, delete a file. Paths are relative to the remote root and use
'/'. Errors are RemoteError with a message fit to show the user: it names the remote with any
credentials removed (`redact`).

`sync.setup.open_remote(spec)` picks the kind: an `https://` (or loopback `http://`) URL is WebDAV,
anything else a folder path.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

from digest_tui.errors import RemoteError, RemoteNotFound, RemoteTooLarge
from digest_tui.net.urls import is_loopback_host


@dataclass(frozen=True)
class Entry:
    name: str
    is_dir: bool
    size: int | None = None
    # Changes whenever the content does: the ETag, or size and modification time.
    fingerprint: str = ""
    mtime: float | None = None  # seconds since the epoch, when known


class Remote(Protocol):
    kind: str  # "folder" or "webdav"
    description: str  # what to show the user: a path, or a URL without credentials

    @property
    def requests(self) -> int:
        """Operations sent (HTTP requests for WebDAV, retries included)."""
        ...

    def list(self, path: str) -> list[Entry] | None:
        """The entries of a directory ('' is the root), or None when it does not exist."""
        ...

    def stat(self, path: str) -> Entry | None:
        """One file's entry (as `list` gives it), or None when it is not there."""
        ...

    def read(self, path: str, max_bytes: int) -> bytes:
        """A file's bytes; RemoteNotFound when it is not there."""
        ...

    def write(self, path: str, data: bytes) -> None:
        """Create or replace a file atomically: readers see the old or the new, never a part."""
        ...

    def ensure_dir(self, path: str) -> None:
        """Create a directory (its parent must exist, except for the levels below the root)."""
        ...

    def delete(self, path: str) -> None:
        """Delete a file; a file already gone is not an error."""
        ...

    def close(self) -> None: ...


# ---- naming the remote safely ----------------------------------------------------------------


def is_url(spec: str) -> bool:
    return bool(urlsplit(spec).scheme) and "://" in spec


def redact(url: str) -> str:
    """A URL fit for messages and logs: no user name, password, query or fragment."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if not parts.scheme:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def normalize_spec(spec: str) -> tuple[str, bool]:
    """(the remote as stored: absolute path or URL without credentials, had_credentials).

    Refuses URLs other than https, and plain http except to this machine (loopback).
    """
    spec = spec.strip()
    if not spec:
        raise RemoteError("no remote given: a folder path or an https:// WebDAV URL")
    if not is_url(spec):
        return str(Path(spec).expanduser().absolute()), False
    parts = urlsplit(spec)
    scheme = parts.scheme.lower()
    had_credentials = bool(parts.username or parts.password)
    clean = redact(spec)
    if scheme == "https":
        pass
    elif scheme == "http":
        if not is_loopback_host(parts.hostname):
            raise RemoteError(
                f"refusing plain http to {clean}: credentials and data would cross the network "
                "unencrypted; use https:// (plain http is allowed only to this machine)"
            )
    else:
        raise RemoteError(
            f"unsupported remote {clean}: use a folder path or an https:// WebDAV URL"
        )
    if not parts.hostname:
        raise RemoteError(f"no host in {clean}")
    if parts.query or parts.fragment:
        raise RemoteError(f"a WebDAV URL takes no query or fragment: {clean}")
    return clean.rstrip("/") + "/", had_credentials


# ---- a folder ------------------------------------------------------------------------------


def temp_name(name: str) -> str:
    """Where a file is written before it is renamed into place (readers skip dot-files)."""
    return f".{name}.tmp-{secrets.token_hex(4)}"


class FolderRemote:
    """A directory kept in step by Syncthing, Dropbox, iCloud, a network share or the like."""

    kind = "folder"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.description = str(self.root)
        self.requests = 0

    def _path(self, path: str) -> Path:
        parts = [p for p in path.split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise RemoteError(f"bad remote path {path!r}")
        return self.root.joinpath(*parts)

    def _fail(self, what: str, path: str, exc: OSError) -> RemoteError:
        reason = exc.strerror or str(exc)
        return RemoteError(f"{self.description}: cannot {what} {path or '.'}: {reason}")

    def list(self, path: str) -> list[Entry] | None:
        self.requests += 1
        target = self._path(path)
        try:
            with os.scandir(target) as found:
                entries = []
                for item in found:
                    try:
                        info = item.stat(follow_symlinks=True)
                        is_dir = item.is_dir(follow_symlinks=True)
                    except OSError:
                        continue  # vanished meanwhile, or a dangling link
                    entries.append(
                        Entry(
                            item.name,
                            is_dir,
                            None if is_dir else info.st_size,
                            _fingerprint(info),
                            info.st_mtime,
                        )
                    )
                return entries
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise self._fail("list", path, exc) from exc

    def stat(self, path: str) -> Entry | None:
        self.requests += 1
        target = self._path(path)
        try:
            info = target.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._fail("look at", path, exc) from exc
        is_dir = target.is_dir()
        return Entry(
            target.name,
            is_dir,
            None if is_dir else info.st_size,
            _fingerprint(info),
            info.st_mtime,
        )

    def read(self, path: str, max_bytes: int) -> bytes:
        self.requests += 1
        try:
            with open(self._path(path), "rb") as handle:
                # Check the size first: read(n) would allocate n bytes up front.
                if os.fstat(handle.fileno()).st_size > max_bytes:
                    raise RemoteTooLarge(
                        f"{self.description}: {path} is larger than {max_bytes} bytes"
                    )
                data = handle.read()
        except FileNotFoundError as exc:
            raise RemoteNotFound(f"{self.description}: {path} is not there") from exc
        except OSError as exc:
            raise self._fail("read", path, exc) from exc
        if len(data) > max_bytes:
            raise RemoteTooLarge(f"{self.description}: {path} is larger than {max_bytes} bytes")
        return data

    def write(self, path: str, data: bytes) -> None:
        self.requests += 1
        target = self._path(path)
        temp = target.with_name(temp_name(target.name))
        try:
            with open(temp, "xb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise self._fail("write", path, exc) from exc
        _fsync_dir(target.parent)

    def ensure_dir(self, path: str) -> None:
        self.requests += 1
        try:
            self._path(path).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._fail("create the directory", path, exc) from exc

    def delete(self, path: str) -> None:
        self.requests += 1
        try:
            self._path(path).unlink(missing_ok=True)
        except OSError as exc:
            raise self._fail("delete", path, exc) from exc

    def close(self) -> None:
        pass


def _fingerprint(info: os.stat_result) -> str:
    # Every atomic write is a new inode: a rewrite within one tick of the clock with the same
    # size still changes the fingerprint.
    return f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"


def _fsync_dir(directory: Path) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def age_seconds(entry: Entry, now: float | None = None) -> float | None:
    if entry.mtime is None:
        return None
    return (now if now is not None else time.time()) - entry.mtime
