"""Every network client against servers that misbehave, on real loopback sockets.

A server that trickles bytes (httpx's read timeout restarts with each one), a server that
accepts and never answers, a body that never ends: each client gives up with one clear error
within the deadline it was given, the CLI exits 1 with one line, and Ctrl-C ends a command at
once with status 130. Bounds are pytest timeouts or deadlines the code enforces, never timings.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.config import AppContext
from digest_tui.errors import RemoteError
from digest_tui.repohealth import GitHubHealthClient, HealthCache
from digest_tui.service import open_library
from digest_tui.sources import hf_client
from digest_tui.sources.hf_api import Period
from digest_tui.sources.hf_fetch import FetchSpec, fetch_days
from digest_tui.sync.webdav import WebDavRemote
from tests.support.hostile_servers import endless_body, serve, stall, trickle_body, trickle_headers

pytestmark = pytest.mark.timeout(60)

DAY = FetchSpec(periods=(Period.day(__import__("datetime").date(2025, 6, 5)),))


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def library(home: Path):
    lib = open_library(AppContext())
    yield lib
    lib.conn.close()


def github_client(tmp_path: Path, url: str, **kwargs: object) -> GitHubHealthClient:
    return GitHubHealthClient(HealthCache(tmp_path / "gh.sqlite3"), base_url=url, **kwargs)  # type: ignore[arg-type]


# ---- a total deadline -------------------------------------------------------------------


@pytest.mark.parametrize("behaviour", [trickle_body, trickle_headers, stall])
def test_fetch_gives_up_at_its_deadline(home, library, behaviour):
    with serve(behaviour()) as server:
        report = fetch_days(
            DAY, library=library, cache_dir=home / "cache", base_url=server.url, deadline=1.0
        )
    assert not report.ok
    assert len(report.errors) == 1
    assert "no complete answer within 1 s" in report.errors[0]
    assert report.errors[0].endswith("1 day not fetched (2025-06-05)")


def test_fetch_cli_exits_1_with_one_line_when_the_server_trickles(home, capsys, monkeypatch):
    monkeypatch.setattr(hf_client, "DEADLINE", 1.0)
    with serve(trickle_body()) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        code = main(["fetch", "--date", "2025-06-05"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"digest-tui: GET {server.url}/api/daily_papers?date=2025-06-05")
    assert "no complete answer within 1 s" in err


def test_github_check_gives_up_at_its_deadline(tmp_path):
    with serve(trickle_body()) as server:
        client = github_client(tmp_path, server.url, deadline=1.0)
        health = client.health("NVIDIA", "Megatron-LM")
        client.close()
    assert health.status == "error"
    assert health.message and "no complete answer within 1 s" in health.message


def test_webdav_request_gives_up_at_its_deadline():
    with serve(trickle_headers()) as server:
        remote = WebDavRemote(server.url, deadline=1.0)
        with pytest.raises(RemoteError, match="no complete answer within 1 s"):
            remote.read("segment", 1000)
        remote.close()


# ---- a size cap -------------------------------------------------------------------------


def test_github_answer_is_capped(tmp_path):
    with serve(endless_body()) as server:
        client = github_client(tmp_path, server.url)
        health = client.health("NVIDIA", "Megatron-LM")
        client.close()
    assert health.status == "error"
    assert health.message == "the GitHub API: answer larger than 1 MiB"


def test_hf_page_is_capped(home, library):
    with serve(endless_body()) as server:
        report = fetch_days(DAY, library=library, cache_dir=home / "cache", base_url=server.url)
    assert not report.ok
    assert report.errors[0].endswith("(page 0): answer larger than 32 MiB")


def test_webdav_answer_is_capped():
    with serve(endless_body()) as server:
        remote = WebDavRemote(server.url)
        with pytest.raises(RemoteError, match="answer larger than 4 KiB"):
            remote.read("segment", 4096)
        remote.close()


# ---- Ctrl-C -----------------------------------------------------------------------------


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_when_connected(args: list[str], env: dict[str, str], server) -> tuple[int, str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "digest_tui", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As a terminal would start it. A runner started in the background by a shell without
        # job control ignores SIGINT, the child inherits that, and Python then installs no
        # KeyboardInterrupt handler: the command could never see the Ctrl-C sent below.
        preexec_fn=_default_sigint,
    )
    try:
        # The request is in flight once the server has the connection.
        for _ in range(600):
            if server.connections or child.poll() is not None:
                break
            time.sleep(0.05)
        assert server.connections, "the command never reached the server"
        child.send_signal(signal.SIGINT)
        try:
            _out, err = child.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            # Still running 20 s after Ctrl-C: a hang. SIGABRT makes faulthandler
            # (PYTHONFAULTHANDLER, set by _env) print every thread's stack, so the failure
            # says where it hangs.
            child.send_signal(signal.SIGABRT)
            _out, err = child.communicate(timeout=20)
            stacks = err[-6000:]
            raise AssertionError(f"hung 20 s after Ctrl-C; its threads:\n{stacks}") from None
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, err


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(DIGEST_TUI_HOME=str(home), PYTHONFAULTHANDLER="1", **extra)
    return env


def test_ctrl_c_stops_fetch_at_once(home):
    with serve(stall()) as server:
        code, err = _interrupt_when_connected(
            ["fetch", "--date", "2025-06-05"], _env(home, HF_ENDPOINT=server.url), server
        )
    assert code == 130, err
    assert "Traceback" not in err


def test_ctrl_c_stops_links_health_at_once(home):
    # The first run loads the sample digests, whose papers link GitHub repos.
    subprocess.run(
        [sys.executable, "-m", "digest_tui", "papers"],
        env=_env(home),
        capture_output=True,
        check=True,
        timeout=120,
    )
    with serve(stall()) as server:
        code, err = _interrupt_when_connected(
            ["links", "health"], _env(home, GITHUB_API_URL=server.url), server
        )
    assert code == 130, err
    assert "Traceback" not in err
