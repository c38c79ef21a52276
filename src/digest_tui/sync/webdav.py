"""A WebDAV server (Nextcloud, ownCloud, Apache mod_dav, wsgidav...) as a sync remote, over httpx.

Requests: PROPFIND (Depth 1) to list a collection, GET, PUT, MKCOL, MOVE and DELETE.
- Atomic writes: PUT to a temporary name beside the target, then MOVE onto it (Overwrite: T).
  A PUT cut short leaves at worst a temporary file that readers skip, never a torn target.
- HTTP goes through `digest_tui.net`: 408, 429, 500, 502, 503, 504, refused connections,
  timeouts and dropped connections are retried with exponential backoff and jitter (honouring
  `Retry-After`), a bounded number of times; every request has a total deadline (`DEADLINE`,
  120 s, retries included) and a capped answer. Every request is idempotent or made so: a
  MOVE whose answer was lost is checked by looking at the target when retried.
- Only https, or plain http to this machine, is used, and no redirects are followed
  (credentials stay with the host the user named); the URL in any message has its
  credentials removed.
"""

from __future__ import annotations

import builtins
import contextlib
import random
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from urllib.parse import quote, unquote, urlsplit

import httpx

from digest_tui.errors import (
    AnswerTooLarge,
    NetworkError,
    RemoteAuthError,
    RemoteCancelled,
    RemoteError,
    RemoteNotFound,
    RemoteTooLarge,
    RequestCancelled,
)
from digest_tui.net.retry import RetryPolicy
from digest_tui.net.session import HttpSession, Limits
from digest_tui.net.urls import is_private_channel
from digest_tui.sync.credentials import Credentials
from digest_tui.sync.remote import Entry, redact, temp_name

_PROPFIND_BODY = (
    b'<?xml version="1.0" encoding="utf-8"?>'
    b'<d:propfind xmlns:d="DAV:"><d:prop>'
    b"<d:resourcetype/><d:getcontentlength/><d:getetag/><d:getlastmodified/>"
    b"</d:prop></d:propfind>"
)
_DAV = "{DAV:}"
_MAX_LISTING_BYTES = 32 * 1024 * 1024
DEADLINE = 120.0  # seconds for one request: connect, transfer, retries and their waits


class WebDavRemote:
    kind = "webdav"

    def __init__(
        self,
        url: str,
        *,
        credentials: Credentials | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 30.0,
        connect_timeout: float = 10.0,
        deadline: float = DEADLINE,
        max_attempts: int = 5,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        sleep: Callable[[float], None] | None = None,
        cancel: threading.Event | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.base = url.rstrip("/") + "/"
        self.description = redact(self.base)
        if not is_private_channel(self.base):
            raise RemoteError(
                f"refusing {self.description}: only https, or plain http to this machine"
            )
        self.base_path = urlsplit(self.base).path
        self.cancel = cancel or threading.Event()
        self._has_credentials = credentials is not None
        self._http = HttpSession(
            limits=Limits(
                connect=connect_timeout,
                read=timeout,
                deadline=deadline,
                max_body=_MAX_LISTING_BYTES,
            ),
            retry=RetryPolicy(
                max_attempts=max(1, max_attempts),
                backoff_base=backoff_base,
                backoff_cap=backoff_cap,
                # A WebDAV server on a home network may blip: a refused connection is retried.
                retry_connect=True,
            ),
            auth=httpx.BasicAuth(credentials.user, credentials.password) if credentials else None,
            follow_redirects=False,
            transport=transport,
            cancel=self.cancel,
            sleep=sleep,
            rng=rng,
        )

    @property
    def requests(self) -> int:
        """HTTP requests sent, retries included."""
        return self._http.requests

    @property
    def retries(self) -> int:
        return self._http.retries

    def close(self) -> None:
        self._http.close()

    # ---- plumbing -------------------------------------------------------------------------

    def url(self, path: str) -> str:
        parts = [p for p in path.split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise RemoteError(f"bad remote path {path!r}")
        suffix = "/".join(quote(p, safe="") for p in parts)
        return self.base + suffix

    def _request(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        content: bytes | None = None,
        ok: frozenset[int] | set[int] = frozenset({200}),
        max_bytes: int = _MAX_LISTING_BYTES,
    ) -> tuple[int, bytes, httpx.Headers]:
        """Send with retries; return (status, body, headers) for an accepted status."""
        url = self.url(path)
        label = f"{method} {redact(url)}"
        try:
            reply = self._http.request(
                method, url, label=label, headers=headers, content=content, max_body=max_bytes
            )
        except RequestCancelled as exc:
            raise RemoteCancelled(str(exc)) from None
        except AnswerTooLarge as exc:
            # Sync skips an oversized file and goes on; other network errors stop the run.
            raise RemoteTooLarge(str(exc)) from None
        except NetworkError as exc:
            raise RemoteError(str(exc)) from None
        status = reply.status
        if status in ok:
            return status, reply.body, reply.headers
        if status in (401, 403):
            hint = (
                "check the user name and password (an app password for Nextcloud)"
                if self._has_credentials
                else "no credentials found: set DIGEST_TUI_SYNC_USER and "
                "DIGEST_TUI_SYNC_PASSWORD, or add the host to ~/.netrc"
            )
            raise RemoteAuthError(f"{label}: HTTP {status}: {hint}")
        if 300 <= status < 400:
            where = redact(reply.headers.get("location", "?"))
            raise RemoteError(
                f"{label}: HTTP {status}: the server redirects to {where}; "
                "use that URL as the remote"
            )
        raise _status_error(label, status, path)

    # ---- the Remote interface ---------------------------------------------------------------

    def list(self, path: str) -> list[Entry] | None:
        try:
            _status, body, _ = self._request(
                "PROPFIND",
                _as_collection(path),
                headers={"Depth": "1", "Content-Type": "application/xml; charset=utf-8"},
                content=_PROPFIND_BODY,
                ok={207},
            )
        except RemoteNotFound:
            return None
        return self._parse_listing(body, path)

    def stat(self, path: str) -> Entry | None:
        try:
            _status, body, _ = self._request(
                "PROPFIND",
                path,
                headers={"Depth": "0", "Content-Type": "application/xml; charset=utf-8"},
                content=_PROPFIND_BODY,
                ok={207},
            )
        except RemoteNotFound:
            return None
        parent, _, name = path.rstrip("/").rpartition("/")
        return next((e for e in self._parse_listing(body, parent) if e.name == name), None)

    def _parse_listing(self, body: bytes, path: str) -> builtins.list[Entry]:
        try:
            root = ET.fromstring(body)
        except ET.ParseError as exc:
            raise RemoteError(
                f"PROPFIND {redact(self.url(path))}: the answer is not WebDAV XML ({exc})"
            ) from None
        own = _norm_path(urlsplit(self.url(_as_collection(path))).path)
        entries: builtins.list[Entry] = []
        for response in root.iter(f"{_DAV}response"):
            href = response.findtext(f"{_DAV}href") or ""
            target = _norm_path(urlsplit(href.strip()).path)
            if target == own or not target.startswith(own + "/"):
                continue
            name = target[len(own) + 1 :]
            if not name or "/" in name:
                continue
            props = None
            for propstat in response.iter(f"{_DAV}propstat"):
                status = propstat.findtext(f"{_DAV}status") or ""
                if " 200 " in f" {status} " or status.strip().endswith("200 OK"):
                    props = propstat.find(f"{_DAV}prop")
                    break
            if props is None:
                props = response.find(f"{_DAV}propstat/{_DAV}prop")
            is_dir = False
            size = etag = modified = None
            if props is not None:
                kind = props.find(f"{_DAV}resourcetype")
                is_dir = kind is not None and kind.find(f"{_DAV}collection") is not None
                length = props.findtext(f"{_DAV}getcontentlength")
                size = int(length) if length and length.strip().isdigit() else None
                etag = (props.findtext(f"{_DAV}getetag") or "").strip() or None
                modified = (props.findtext(f"{_DAV}getlastmodified") or "").strip() or None
            mtime = None
            if modified:
                try:
                    mtime = parsedate_to_datetime(modified).timestamp()
                except (TypeError, ValueError, IndexError):
                    mtime = None
            fingerprint = etag or f"{size}:{modified}"
            entries.append(Entry(name, is_dir, None if is_dir else size, fingerprint, mtime))
        return entries

    def read(self, path: str, max_bytes: int) -> bytes:
        _status, body, _ = self._request("GET", path, max_bytes=max_bytes)
        return body

    def write(self, path: str, data: bytes) -> None:
        parent, _, name = path.rpartition("/")
        temp = f"{parent}/{temp_name(name)}" if parent else temp_name(name)
        self._request(
            "PUT",
            temp,
            headers={"Content-Type": "application/octet-stream"},
            content=data,
            ok={200, 201, 204},
        )
        try:
            self._move(temp, path)
        except RemoteError:
            self._forget(temp)
            raise

    def _move(self, source: str, target: str) -> None:
        headers = {"Destination": self.url(target), "Overwrite": "T"}
        try:
            self._request("MOVE", source, headers=headers, ok={200, 201, 204})
        except RemoteNotFound:
            # Our first MOVE may have succeeded with its answer lost, and a retry then finds
            # no source: the move happened if the source is gone and the target is there.
            if self._exists(source) or not self._exists(target):
                raise

    def _exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def _forget(self, path: str) -> None:
        # A stray temporary file is skipped by readers: not worth failing for.
        with contextlib.suppress(RemoteError):
            self.delete(path)

    def ensure_dir(self, path: str) -> None:
        parts = [p for p in path.split("/") if p]
        # '' is the root collection itself (created by `sync init` when it is missing).
        levels = ["/".join(parts[:depth]) for depth in range(1, len(parts) + 1)] or [""]
        for prefix in levels:
            try:
                # 405: it exists already.
                self._request("MKCOL", _as_collection(prefix), ok={201, 405})
            except RemoteError as exc:
                if "HTTP 409" not in str(exc):
                    raise
                raise RemoteError(
                    f"MKCOL {redact(self.url(prefix))}: the parent collection does not exist"
                ) from None

    def delete(self, path: str) -> None:
        with contextlib.suppress(RemoteNotFound):
            self._request("DELETE", path, ok={200, 204})


def _as_collection(path: str) -> str:
    return path.rstrip("/") + "/" if path else ""


def _norm_path(path: str) -> str:
    return unquote(path).rstrip("/")


def _status_error(label: str, status: int, path: str) -> RemoteError:
    if status == 404:
        return RemoteNotFound(f"{label}: not found")
    if status == 507:
        return RemoteError(f"{label}: HTTP 507: the server is out of storage space")
    if status == 409:
        return RemoteError(f"{label}: HTTP 409: the parent collection does not exist")
    if status == 412:
        return RemoteError(f"{label}: HTTP 412: precondition failed")
    if status == 423:
        return RemoteError(f"{label}: HTTP 423: locked by another client")
    return RemoteError(f"{label}: HTTP {status}")
