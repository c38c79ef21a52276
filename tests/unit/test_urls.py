"""URL safety and opening: refusals, the SSH clipboard fallback, the OSC 52 bytes."""

from __future__ import annotations

import base64
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from digest_tui.urls import is_openable, open_url, osc52_sequence, refusal_reason

URL = "https://github.com/NVIDIA/Megatron-LM"
DESKTOP = {"DISPLAY": ":0"}
SSH = {"SSH_CONNECTION": "10.0.0.2 50522 10.0.0.1 22", "SSH_TTY": "/dev/pts/3"}

OPENABLE = [
    URL,
    "http://example.com",
    "HTTPS://Example.COM/a?b=c#d",
    "https://example.com:8443/path",
    "https://127.0.0.1:8000/",
    "https://[::1]:8080/x",
    "https://xn--caf-dma.example/",
    "https://example.com/caf%C3%A9",
    "https://en.wikipedia.org/wiki/Foo_(bar)",
    "https://example.com/ü",  # IRI path: the browser encodes it
]

REFUSED = [
    ("javascript:alert(1)", "scheme"),
    ("JavaScript:alert(1)", "scheme"),
    ("file:///etc/passwd", "scheme"),
    ("data:text/html,<script>alert(1)</script>", "scheme"),
    ("vscode://file/etc/passwd", "scheme"),
    ("ftp://example.com/x", "scheme"),
    ("ssh://host", "scheme"),
    ("mailto:a@b.c", "scheme"),
    ("example.com/no-scheme", "no scheme"),
    ("", "empty"),
    ("https://", "no host"),
    ("https:///path", "no host"),
    ("https:example.com", "no host"),
    ("https://user:pass@example.com/", "credentials"),
    ("https://user@example.com/", "credentials"),
    ("https://github.com@evil.example/", "credentials"),
    ("https://example.com/a b", "whitespace"),
    ("https://example.com/\n", "whitespace"),
    (" https://example.com", "whitespace"),
    ("https://example.com/\x1b]52;c;aGk=\x07", "control"),
    ("https://example.com/\x00", "control"),
    ("https://example.com/\u202egnp.exe", "control"),  # right-to-left override
    ("https://exa\u200bmple.com", "control"),  # zero-width space
    ("https://example.com\\@evil.example", "backslash"),
    ("https://example.com:99999/", "malformed"),
    ("https://exämple.com/", "non-ASCII"),
    ("https://%65vil.com/", "invalid characters"),
    ("https://" + "a" * 9000 + ".com", "longer"),
]


@pytest.mark.parametrize("url", OPENABLE)
def test_openable(url: str) -> None:
    assert is_openable(url), refusal_reason(url)


@pytest.mark.parametrize(("url", "why"), REFUSED)
def test_refused(url: str, why: str) -> None:
    assert not is_openable(url)
    reason = refusal_reason(url)
    assert reason is not None and why in reason
    calls: list[str] = []
    result = open_url(url, environ=DESKTOP, opener=calls.append)
    assert result.action == "refused"
    assert calls == [], "a refused URL never reaches the opener"
    assert why in result.message
    # The message is safe to print: no control characters survive.
    assert all(ch.isprintable() for ch in result.message)
    assert all(ch.isprintable() for ch in result.url)


def test_non_string_is_refused() -> None:
    assert not is_openable(None)


def test_opened_on_a_desktop() -> None:
    calls: list[str] = []

    def opener(url: str) -> bool:
        calls.append(url)
        return True

    result = open_url(URL, environ=DESKTOP, opener=opener)
    assert (result.action, result.url) == ("opened", URL)
    assert calls == [URL]


def test_print_only_launches_nothing() -> None:
    calls: list[str] = []
    result = open_url(URL, print_only=True, environ=DESKTOP, opener=calls.append)
    assert (result.action, result.message) == ("printed", URL)
    assert calls == []


def test_quotes_and_brackets_are_encoded_before_launching() -> None:
    calls: list[str] = []
    result = open_url('https://example.com/a"b<c>', environ=DESKTOP, opener=calls.append)
    assert calls == ["https://example.com/a%22b%3Cc%3E"]
    assert result.url == calls[0]


def _tty(tmp_path: Path) -> tuple[Path, Callable[[bytes], None]]:
    target = tmp_path / "tty"

    def writer(data: bytes) -> None:
        with target.open("ab") as handle:
            handle.write(data)

    return target, writer


def test_ssh_without_display_copies_via_osc52(tmp_path: Path) -> None:
    target, writer = _tty(tmp_path)
    calls: list[str] = []
    result = open_url(URL, environ=SSH, opener=calls.append, writer=writer)
    assert result.action == "copied"
    assert calls == [], "no browser is tried over SSH without a display"
    assert URL in result.message and "SSH" in result.message
    expected = b"\x1b]52;c;" + base64.b64encode(URL.encode()) + b"\x07"
    assert target.read_bytes() == expected


def test_ssh_with_forwarded_display_opens() -> None:
    calls: list[str] = []
    result = open_url(URL, environ={**SSH, "DISPLAY": "localhost:10.0"}, opener=calls.append)
    assert result.action == "opened" and calls == [URL]


def test_ssh_with_browser_variable_trusts_it() -> None:
    calls: list[str] = []
    result = open_url(URL, environ={**SSH, "BROWSER": "my-forwarder"}, opener=calls.append)
    assert result.action == "opened"


def test_opener_returning_false_falls_back(tmp_path: Path) -> None:
    target, writer = _tty(tmp_path)
    result = open_url(URL, environ=DESKTOP, opener=lambda _u: False, writer=writer)
    assert result.action == "copied" and URL in result.message
    assert target.read_bytes().startswith(b"\x1b]52;c;")


def test_opener_raising_falls_back(tmp_path: Path) -> None:
    _target, writer = _tty(tmp_path)

    def broken(url: str) -> bool:
        raise RuntimeError("no runnable browser")

    result = open_url(URL, environ=DESKTOP, opener=broken, writer=writer)
    assert result.action == "copied" and "RuntimeError" in result.message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux console rule")
def test_linux_console_without_display_does_not_start_a_console_browser(tmp_path: Path) -> None:
    target, writer = _tty(tmp_path)
    calls: list[str] = []
    result = open_url(URL, environ={}, opener=calls.append, writer=writer)
    assert result.action == "copied" and calls == []
    assert target.read_bytes() == osc52_sequence(URL)


def test_no_terminal_either_still_shows_the_url() -> None:
    def no_tty(_data: bytes) -> None:
        raise OSError("no controlling terminal")

    result = open_url(URL, environ=SSH, writer=no_tty)
    assert result.action == "printed"
    assert URL in result.message


def test_osc52_payload_is_utf8_base64() -> None:
    seq = osc52_sequence("https://example.com/café")
    assert seq.startswith(b"\x1b]52;c;") and seq.endswith(b"\x07")
    assert base64.b64decode(seq[7:-1]).decode() == "https://example.com/café"
    assert b"\x1b" not in seq[1:] and b"\x07" not in seq[:-1]
