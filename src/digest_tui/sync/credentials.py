"""WebDAV credentials: from the environment, the OS keyring (if installed) or ~/.netrc.

Never from the config file, never written to the library, never shown: `Credentials.__repr__`
hides the password, and messages say where credentials came from, not what they are.

Order, first found wins:
1. DIGEST_TUI_SYNC_USER and DIGEST_TUI_SYNC_PASSWORD;
2. the OS keyring (only when the optional `keyring` package is importable): service
   `digest-tui-sync:<host>`, user name from step 1, `sync init --user`, or netrc;
3. ~/.netrc (or $NETRC): the `machine <host>` entry.
"""

from __future__ import annotations

import netrc
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from digest_tui.errors import CredentialsError

USER_ENV = "DIGEST_TUI_SYNC_USER"
PASSWORD_ENV = "DIGEST_TUI_SYNC_PASSWORD"


@dataclass(frozen=True)
class Credentials:
    user: str
    password: str = field(repr=False)
    source: str  # "environment", "keyring", "netrc"

    def __repr__(self) -> str:
        return f"Credentials(source={self.source!r})"


def keyring_service(url: str) -> str:
    return f"digest-tui-sync:{(urlsplit(url).hostname or '').lower()}"


def _keyring():  # type: ignore[no-untyped-def]
    try:
        import keyring  # optional: never a requirement
    except Exception:
        return None
    return keyring


def keyring_available() -> bool:
    return _keyring() is not None


def _netrc_entry(host: str) -> tuple[str, str] | None:
    path = os.environ.get("NETRC") or str(Path.home() / ".netrc")
    if not Path(path).is_file():
        return None
    try:
        found = netrc.netrc(path).authenticators(host)
    except (netrc.NetrcParseError, OSError) as exc:
        # NetrcParseError's message quotes the offending line: keep it out of the output.
        raise CredentialsError(
            f"{path}: cannot be read as a netrc file (line {getattr(exc, 'lineno', '?')})"
        ) from None
    if not found:
        return None
    login, _account, password = found
    return (login or "", password or "")


def find_credentials(url: str, user: str | None = None) -> Credentials | None:
    """Credentials for a WebDAV URL, or None when none are configured anywhere."""
    host = (urlsplit(url).hostname or "").lower()
    env_user = os.environ.get(USER_ENV) or None
    env_password = os.environ.get(PASSWORD_ENV)
    if env_password:
        name = env_user or user
        if name is None:
            entry = _netrc_entry(host)
            name = entry[0] if entry else None
        if not name:
            raise CredentialsError(
                f"{PASSWORD_ENV} is set but no user name: set {USER_ENV} as well"
            )
        return Credentials(name, env_password, "environment")
    name = env_user or user
    entry = None
    if name is None:
        entry = _netrc_entry(host)
        name = entry[0] if entry else None
    keyring = _keyring()
    if keyring is not None and name:
        try:
            password = keyring.get_password(keyring_service(url), name)
        except Exception:
            password = None
        if password:
            return Credentials(name, password, "keyring")
    entry = entry or _netrc_entry(host)
    if entry and entry[1] and (not name or entry[0] == name):
        return Credentials(entry[0], entry[1], "netrc")
    return None


def store_in_keyring(url: str, user: str, password: str) -> None:
    keyring = _keyring()
    if keyring is None:
        raise CredentialsError(
            "the optional `keyring` package is not installed: use "
            f"{USER_ENV}/{PASSWORD_ENV} or ~/.netrc instead"
        )
    try:
        keyring.set_password(keyring_service(url), user, password)
    except Exception as exc:
        raise CredentialsError(
            f"the OS keyring refused to store the password ({type(exc).__name__})"
        ) from None
