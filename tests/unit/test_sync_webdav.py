"""The WebDAV remote against a real wsgidav server on loopback, and credentials handling."""

from __future__ import annotations

import sys
import types

import pytest

from digest_tui.errors import CredentialsError, RemoteAuthError, RemoteError, RemoteNotFound
from digest_tui.sync.credentials import (
    PASSWORD_ENV,
    USER_ENV,
    Credentials,
    find_credentials,
    store_in_keyring,
)
from digest_tui.sync.engine import SyncEngine, init_remote
from digest_tui.sync.remote import normalize_spec
from digest_tui.sync.webdav import WebDavRemote
from tests.support.state import PAPERS, replica
from tests.support.webdav_server import PASSWORD, USER, serve_webdav

CREDS = Credentials(USER, PASSWORD, "test")


def dav_remote(url: str, **options) -> WebDavRemote:  # type: ignore[no-untyped-def]
    options.setdefault("credentials", CREDS)
    options.setdefault("backoff_base", 0.001)
    options.setdefault("sleep", lambda _s: None)
    return WebDavRemote(url, **options)


@pytest.fixture
def dav(tmp_path):
    with serve_webdav(tmp_path / "dav") as server:
        yield server


def test_list_read_write_delete(dav):
    remote = dav_remote(dav.url + "root/")
    assert remote.list("") is None
    remote.ensure_dir("")
    remote.ensure_dir("segments/dev1")
    remote.ensure_dir("segments/dev1")  # exists already: fine
    assert remote.list("") == [e for e in remote.list("") if e.name == "segments"]
    remote.write("a.json", b"one")
    remote.write("segments/dev1/b.bin", b"\x00" * 1000)
    entries = {e.name: e for e in remote.list("")}
    assert entries["segments"].is_dir and not entries["a.json"].is_dir
    assert entries["a.json"].size == 3 and entries["a.json"].fingerprint
    assert remote.read("a.json", 100) == b"one"
    remote.write("a.json", b"two!")
    assert remote.list("") != list(entries.values())  # the fingerprint changed
    assert remote.read("a.json", 100) == b"two!"
    with pytest.raises(RemoteError, match="larger than"):
        remote.read("segments/dev1/b.bin", 100)
    remote.delete("a.json")
    remote.delete("a.json")  # gone already: fine
    with pytest.raises(RemoteNotFound):
        remote.read("a.json", 100)
    # No temporary file is left behind by the PUT-then-MOVE writes.
    assert sorted(e.name for e in remote.list("")) == ["segments"]
    assert [e.name for e in remote.list("segments/dev1")] == ["b.bin"]


def test_bad_credentials_are_refused_without_showing_them(dav):
    wrong = Credentials(USER, "not-the-password-123", "test")
    remote = dav_remote(dav.url, credentials=wrong)
    with pytest.raises(RemoteAuthError) as info:
        remote.list("")
    message = str(info.value)
    assert "HTTP 401" in message and "check the user name and password" in message
    for secret in (USER, "not-the-password-123", PASSWORD):
        assert secret not in message
    with pytest.raises(RemoteAuthError, match="no credentials found"):
        dav_remote(dav.url, credentials=None).list("")


def test_a_server_that_fails_a_third_of_requests_still_gets_every_write(tmp_path):
    with serve_webdav(tmp_path / "dav", rate=0.35) as dav:
        remote = dav_remote(dav.url, max_attempts=12)
        remote.ensure_dir("d")
        for i in range(25):
            remote.write(f"d/f{i}", str(i).encode() * 100)
        assert sorted(e.name for e in remote.list("d")) == sorted(f"f{i}" for i in range(25))
        assert all(remote.read(f"d/f{i}", 10_000) == str(i).encode() * 100 for i in range(25))
        assert remote.retries > 0
        assert set(dav.flaky.failures) == {"before", "after", "drop"}


def test_unreachable_server_fails_after_bounded_retries():
    slept: list[float] = []
    remote = WebDavRemote("http://127.0.0.1:9/", max_attempts=3, sleep=slept.append)
    gave_up = r"cannot reach http://127.0.0.1:9: .*\(gave up after 3 attempts\)"
    with pytest.raises(RemoteError, match=gave_up):
        remote.list("")
    assert len(slept) == 2


def test_a_sync_with_nothing_new_is_one_request(dav):
    url = dav.url + "digest/"
    a, b = replica(device="aaaa"), replica(device="bbbb")
    engines = []
    for node in (a, b):
        init_remote(node.library, url, remote=dav_remote(url))
        engines.append(SyncEngine(node.library, dav_remote(url), wall=node.wall))
    a.state.bookmark(PAPERS[0].id)
    b.state.add_tags(PAPERS[1].id, ["moe"])
    for _ in range(2):
        for engine in engines:
            engine.sync()
    dav.flaky.reset()
    reports = [engine.sync() for engine in engines]
    assert [r.requests for r in reports] == [1, 1]
    assert dict(dav.flaky.counts) == {"PROPFIND": 2}


# ---- naming the remote, credentials ------------------------------------------------------------


def test_remote_specs():
    assert normalize_spec("https://u:p@cloud.example.com/dav/x") == (
        "https://cloud.example.com/dav/x/",
        True,
    )
    assert normalize_spec("http://127.0.0.1:8080/dav")[0] == "http://127.0.0.1:8080/dav/"
    assert normalize_spec("http://localhost/dav")[0] == "http://localhost/dav/"
    assert normalize_spec("http://[::1]:81/dav")[0] == "http://[::1]:81/dav/"
    with pytest.raises(RemoteError, match="refusing plain http") as info:
        normalize_spec("http://user:secret-pw@cloud.example.com/dav")
    assert "secret-pw" not in str(info.value) and "user" not in str(info.value)
    with pytest.raises(RemoteError, match="unsupported remote"):
        normalize_spec("ftp://example.com/x")
    assert normalize_spec("~/Sync/digest")[0].endswith("/Sync/digest")


def test_credentials_from_the_environment(monkeypatch):
    monkeypatch.setenv(USER_ENV, "alice")
    monkeypatch.setenv(PASSWORD_ENV, "s3cret")
    found = find_credentials("https://cloud.example.com/dav/")
    assert (found.user, found.password, found.source) == ("alice", "s3cret", "environment")
    assert "s3cret" not in repr(found) and "s3cret" not in str(found)
    monkeypatch.delenv(USER_ENV)
    monkeypatch.setenv("NETRC", "/nonexistent")
    with pytest.raises(CredentialsError, match=USER_ENV):
        find_credentials("https://cloud.example.com/dav/")


def test_credentials_from_netrc(monkeypatch, tmp_path):
    monkeypatch.delenv(USER_ENV, raising=False)
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    netrc = tmp_path / "netrc"
    netrc.write_text("machine cloud.example.com login bob password hunter2-netrc\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setitem(sys.modules, "keyring", None)  # not installed
    found = find_credentials("https://cloud.example.com/dav/")
    assert (found.user, found.password, found.source) == ("bob", "hunter2-netrc", "netrc")
    assert find_credentials("https://other.example.com/dav/") is None
    netrc.write_text("machine cloud.example.com login bob frobnicate hunter2-netrc\n")
    with pytest.raises(CredentialsError) as info:
        find_credentials("https://cloud.example.com/dav/")
    assert "hunter2" not in str(info.value)


def test_credentials_from_the_os_keyring_when_it_is_installed(monkeypatch):
    monkeypatch.delenv(USER_ENV, raising=False)
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    monkeypatch.setenv("NETRC", "/nonexistent")
    store: dict[tuple[str, str], str] = {}
    fake = types.ModuleType("keyring")
    fake.get_password = lambda service, user: store.get((service, user))  # type: ignore[attr-defined]
    fake.set_password = lambda service, user, pw: store.__setitem__((service, user), pw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", fake)
    store_in_keyring("https://cloud.example.com/dav/", "carol", "kr-pass")
    assert store == {("digest-tui-sync:cloud.example.com", "carol"): "kr-pass"}
    found = find_credentials("https://cloud.example.com/dav/", user="carol")
    assert (found.user, found.password, found.source) == ("carol", "kr-pass", "keyring")
    assert find_credentials("https://cloud.example.com/dav/") is None  # no user name known
    monkeypatch.setitem(sys.modules, "keyring", None)
    with pytest.raises(CredentialsError, match="not installed"):
        store_in_keyring("https://cloud.example.com/dav/", "carol", "kr-pass")


def test_retry_after_is_honoured_by_the_webdav_client_too():
    from tests.support.loopback import Recorded, serve

    answers = [Recorded(503, b"busy", {"Retry-After": "3"}), Recorded(200, b"segment")]
    slept: list[float] = []
    with serve({"/dav/seg": lambda _path: answers.pop(0)}) as server:
        remote = WebDavRemote(server.url + "/dav/", sleep=slept.append, backoff_base=0.01)
        assert remote.read("seg", 100) == b"segment"
        remote.close()
    assert len(slept) == 1 and slept[0] >= 3.0
    assert (remote.requests, remote.retries) == (2, 1)
