"""Deciding whether a URL may be opened, and opening it: the app's only outward action.

URLs come from scraped digests and APIs, so they are untrusted. Only http(s) URLs with a host
are opened; anything else (javascript:, file:, data:, custom schemes, credentials, control or
whitespace characters, backslashes) is refused with a message saying why.

Where no browser can start (an SSH session without a display, a Linux console, or a browser
that fails), the URL is copied to the user's clipboard with an OSC 52 escape sequence written
to the controlling terminal, which most terminal emulators honour even across SSH, and the
URL is put in the message so the user sees it either way. Nothing here runs a shell.
"""

from __future__ import annotations

import base64
import os
import sys
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlsplit

OpenAction = Literal["opened", "copied", "printed", "refused"]
Opener = Callable[[str], object]
Writer = Callable[[bytes], object]

_ALLOWED_SCHEMES = ("http", "https")
_MAX_LENGTH = 8192
# Characters RFC 3986 never allows unescaped; encoding them keeps the URL the same resource
# while making sure no browser launcher (or AppleScript on macOS) sees a quote.
_ENCODE = {ch: quote(ch) for ch in '"<>`^{}|'}
# Unicode categories that must never reach a terminal or a launcher: controls, format
# characters (bidi overrides can disguise a URL), separators.
_FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Zs", "Zl", "Zp")


@dataclass(frozen=True)
class OpenResult:
    """What `open_url` did. `message` is safe to show (control characters escaped)."""

    action: OpenAction
    url: str
    message: str


def refusal_reason(url: object) -> str | None:
    """Why `url` must not be opened, or None when it may be."""
    if not isinstance(url, str) or not url:
        return "empty URL"
    if len(url) > _MAX_LENGTH:
        return f"URL longer than {_MAX_LENGTH} characters"
    for ch in url:
        if ch.isspace():
            return "URL contains whitespace"
        if unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            return "URL contains control or invisible characters"
    if "\\" in url:
        return "URL contains a backslash"  # browsers read it as "/": a way to disguise a host
    scheme, sep, _ = url.partition(":")
    if not sep:
        return "URL has no scheme (only http and https are opened)"
    if scheme.lower() not in _ALLOWED_SCHEMES:
        return f"scheme '{_printable(scheme[:20])}' is not allowed (only http and https)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return "URL is malformed"
    if not url[len(scheme) + 1 :].startswith("//") or not parts.netloc:
        return "URL has no host"
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        return "URL contains credentials"
    host = parts.hostname or ""
    if not host:
        return "URL has no host"
    if not host.isascii():
        return "URL host has non-ASCII characters (use its punycode form)"
    if not all(ch.isalnum() or ch in ".-_:[]" for ch in host):
        return "URL host has invalid characters"
    return None


def is_openable(url: str) -> bool:
    """True only for http/https URLs with a host, no credentials and no odd characters."""
    return refusal_reason(url) is None


def osc52_sequence(text: str) -> bytes:
    """The escape sequence that asks the terminal to put `text` on the system clipboard."""
    payload = base64.b64encode(text.encode("utf-8"))
    return b"\x1b]52;c;" + payload + b"\x07"


def open_url(
    url: str,
    *,
    print_only: bool = False,
    environ: Mapping[str, str] | None = None,
    opener: Opener | None = None,
    writer: Writer | None = None,
) -> OpenResult:
    """Open `url` in a browser, or fall back to the clipboard, or refuse it.

    - refused: the URL is not a safe http(s) URL (the message says why);
    - printed: `print_only`, or no browser and no terminal to copy through; nothing was
      launched and the caller shows `result.url`;
    - copied: no browser could start, so the URL went to the clipboard via OSC 52;
    - opened: the browser accepted it.

    `opener` defaults to `webbrowser.open` (which runs no shell); `writer` receives the OSC 52
    bytes and defaults to writing them to /dev/tty. A Textual app should pass a writer that
    goes through its own driver (`App.copy_to_clipboard`) so the bytes do not interleave with
    its screen updates. Call it from a worker thread: a browser can take a moment to start.
    """
    reason = refusal_reason(url)
    if reason is not None:
        shown = _printable(url if isinstance(url, str) else repr(url))[:200]
        # The escaped form, not the raw string, goes back: the caller may well display it.
        return OpenResult("refused", shown, f"Refused to open '{shown}': {reason}.")
    safe_url = "".join(_ENCODE.get(ch, ch) for ch in url)
    if print_only:
        return OpenResult("printed", safe_url, safe_url)

    env = os.environ if environ is None else environ
    why_not = _no_browser_reason(env)
    if why_not is None:
        try:
            launched = (opener or _default_opener)(safe_url)
        except Exception as exc:  # any launcher failure means: fall back, do not crash the UI
            why_not = f"the browser failed to start ({type(exc).__name__})"
        else:
            if launched is not False:
                return OpenResult("opened", safe_url, f"Opened {safe_url}")
            why_not = "no browser could be started"
    return _copy_fallback(safe_url, why_not, writer)


def _no_browser_reason(env: Mapping[str, str]) -> str | None:
    """Why a graphical browser cannot be expected here, or None when it can."""
    if env.get("BROWSER"):
        return None  # the user chose a launcher; trust it (it may forward over SSH)
    has_display = bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    if (env.get("SSH_CONNECTION") or env.get("SSH_TTY")) and not has_display:
        return "this is an SSH session without a display"
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not has_display:
        # webbrowser would fall back to a console browser (lynx, w3m) that takes over the
        # very terminal the app is drawing in.
        return "there is no graphical display"
    return None


def _default_opener(url: str) -> bool:
    import webbrowser  # deferred: it probes the system for browsers when first imported

    return webbrowser.open(url, new=2)


def _copy_fallback(url: str, why_not: str, writer: Writer | None) -> OpenResult:
    try:
        (writer or _write_tty)(osc52_sequence(url))
    except OSError:
        return OpenResult("printed", url, f"Cannot open a browser ({why_not}). URL: {url}")
    return OpenResult(
        "copied", url, f"Copied to clipboard (cannot open a browser: {why_not}): {url}"
    )


def _write_tty(data: bytes) -> None:
    """Write to the controlling terminal, not stdout: stdout may be a pipe or the app's
    screen buffer. Raises OSError when there is no terminal."""
    fd = os.open("/dev/tty", os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _printable(text: str) -> str:
    """Escape control and format characters so a message can be shown in a terminal."""
    return "".join(_escape(ch) if unicodedata.category(ch) in ("Cc", "Cf") else ch for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
