"""`digest-tui sync` end to end through a real WebDAV server (wsgidav) on loopback.

Three machines sync through it, once on a healthy server and once on one that fails a share of
requests (500 before or after doing the work, dropped connections); both converge. The
credentials (from the environment) never appear in any output, file or the library.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from digest_tui.sync import webdav
from tests.e2e.test_sync_folder import Machines
from tests.support.webdav_server import PASSWORD, USER, serve_webdav

NAMES = ("laptop", "desk", "cluster")


@pytest.fixture
def machines(home, tmp_path, monkeypatch, capsys) -> Machines:
    monkeypatch.setenv("DIGEST_TUI_SYNC_USER", USER)
    monkeypatch.setenv("DIGEST_TUI_SYNC_PASSWORD", PASSWORD)
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    # Retries back off for milliseconds, not seconds, in tests.
    original = webdav.WebDavRemote.__init__

    def fast(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs.setdefault("backoff_base", 0.005)
        kwargs["max_attempts"] = 10
        original(self, *args, **kwargs)

    monkeypatch.setattr(webdav.WebDavRemote, "__init__", fast)
    return Machines(tmp_path / "machines", monkeypatch, capsys)


def _converge(machines: Machines, url: str, outputs: list[str]) -> None:
    ids = sorted(machines.papers("laptop"))[:6]
    for name in NAMES:
        code, out, err = machines.run(name, "sync", "init", url, "--name", name)
        assert code == 0, err
        outputs += [out, err]
    a, b, c = ids[:3]
    edits = {
        "laptop": [("bookmark", a), ("tag", a, "moe"), ("list", "create", "Reading")],
        "desk": [("read", a, b), ("tag", b, "kernels")],
        "cluster": [("bookmark", c), ("tag", c, "serving", "todo")],
    }
    for name, commands in edits.items():
        for command in commands:
            outputs.append(machines.ok(name, *command))
    for round_ in range(3):
        for name in NAMES:
            code, out, err = machines.run(name, "sync")
            assert code == 0, err
            outputs += [out, err]
        if round_ == 0:
            outputs.append(machines.ok("desk", "untag", a, "moe"))  # it has seen the tag now
    states = [machines.state(name) for name in NAMES]
    assert states[0] == states[1] == states[2]
    papers = machines.papers("cluster")
    assert papers[a]["bookmarked"] and papers[a]["read"]
    # The desk removed the tag it had seen: no concurrent add, so it is gone everywhere.
    assert papers[a]["tags"] == [] and papers[b]["tags"] == ["kernels"]
    assert papers[c]["tags"] == ["serving", "todo"]
    for name in NAMES:
        outputs.append(machines.ok(name, "sync", "status"))
        outputs.append(machines.ok(name, "sync", "status", "--format", "json"))


def _assert_no_credentials(machines: Machines, outputs: list[str]) -> None:
    text = "\n".join(outputs)
    assert USER not in text and PASSWORD not in text
    for name in NAMES:
        home = machines.home(name)
        if not home.exists():
            continue
        for path in home.rglob("*"):
            if path.is_file() and path.suffix not in (".sqlite3-wal", ".sqlite3-shm"):
                data = path.read_bytes()
                assert PASSWORD.encode() not in data, path
                assert USER.encode() not in data, path
        conn = sqlite3.connect(home / "data" / "library.sqlite3")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        conn.close()
        assert PASSWORD not in json.dumps(meta) and USER not in json.dumps(meta)


def test_three_machines_converge_through_webdav(machines, tmp_path):
    with serve_webdav(tmp_path / "dav") as dav:
        outputs: list[str] = []
        _converge(machines, dav.url + "digest-tui", outputs)
        dav.flaky.reset()
        report = json.loads(machines.ok("desk", "sync", "--format", "json"))
        assert report["requests"] == 1 and dict(dav.flaky.counts) == {"PROPFIND": 1}
        _assert_no_credentials(machines, outputs)


def test_three_machines_converge_through_a_failing_webdav_server(machines, tmp_path):
    with serve_webdav(tmp_path / "dav", rate=0.25) as dav:
        outputs: list[str] = []
        _converge(machines, dav.url + "digest-tui", outputs)
        assert sum(dav.flaky.failures.values()) > 10
        assert set(dav.flaky.failures) == {"before", "after", "drop"}
        _assert_no_credentials(machines, outputs)


def test_wrong_or_missing_credentials_say_so_without_showing_them(machines, tmp_path, monkeypatch):
    with serve_webdav(tmp_path / "dav") as dav:
        url = dav.url + "digest-tui"
        monkeypatch.setenv("DIGEST_TUI_SYNC_PASSWORD", "wrong-pw-77")
        code, out, err = machines.run("laptop", "sync", "init", url)
        assert code == 1 and "HTTP 401" in err and "check the user name and password" in err
        assert "wrong-pw-77" not in out + err and USER not in out + err
        monkeypatch.delenv("DIGEST_TUI_SYNC_PASSWORD")
        monkeypatch.delenv("DIGEST_TUI_SYNC_USER")
        code, out, err = machines.run("laptop", "sync", "init", url)
        assert code == 1 and "no credentials found" in err
        # Credentials in the URL are used for nothing and stored nowhere.
        leaky = url.replace("http://", f"http://{USER}:{PASSWORD}@")
        monkeypatch.setenv("DIGEST_TUI_SYNC_USER", USER)
        monkeypatch.setenv("DIGEST_TUI_SYNC_PASSWORD", PASSWORD)
        code, out, err = machines.run("laptop", "sync", "init", leaky)
        assert code == 0, err
        assert "were not saved" in err
        assert USER not in out + err and PASSWORD not in out + err
        _assert_no_credentials(machines, [out, err])
        status = machines.ok("laptop", "sync", "status")
        assert f"remote:        {url}/" in status


def test_a_down_server_is_a_clear_error(machines, tmp_path):
    with serve_webdav(tmp_path / "dav") as dav:
        url = dav.url + "digest-tui"
        machines.ok("laptop", "sync", "init", url)
    code, _out, err = machines.run("laptop", "sync")
    assert code == 1 and "cannot reach http://127.0.0.1:" in err
    assert "(gave up after 10 attempts)" in err
    assert PASSWORD not in err
