"""Which URLs the network clients may use: one check for every client.

Only http(s) URLs with a host are requested. Plain http is accepted where nothing secret
travels (the Hugging Face API); where a token, credentials or the user's data travel (the
GitHub token, a WebDAV remote) plain http is allowed only to this machine (loopback), which is
what tests and local servers use.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_host(host: str | None) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1), brackets or not."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_url_problem(url: str) -> str | None:
    """Why `url` cannot be requested at all, or None when it is an http(s) URL with a host."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return "malformed URL"
    if parts.scheme not in ("http", "https"):
        return "not an http(s) URL"
    if not parts.hostname:
        return "no host"
    return None


def is_private_channel(url: str) -> bool:
    """True when secrets may be sent to `url`: https, or plain http to this machine."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and is_loopback_host(parts.hostname)


def origin(url: str) -> str:
    """scheme://host[:port] of `url`, without any credentials or path (for messages)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")
