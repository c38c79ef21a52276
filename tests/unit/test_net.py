"""The pieces of digest_tui.net that need no server: Retry-After, back-off, URL checks."""

from __future__ import annotations

import email.utils
import random

import pytest

from digest_tui.net.body import describe_size
from digest_tui.net.retry import RetryPolicy, parse_retry_after
from digest_tui.net.urls import http_url_problem, is_loopback_host, is_private_channel, origin

NOW = 1_750_000_000.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("3", 3.0),
        (" 2.5 ", 2.5),
        ("-4", 0.0),
        (email.utils.formatdate(NOW + 90, usegmt=True), 90.0),
        (email.utils.formatdate(NOW - 90, usegmt=True), 0.0),
        ("Wed, 21 Oct 2015 07:28:00", 0.0),  # a date without a zone is GMT, long past
        ("soon", None),
        ("nan", None),
        ("inf", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_in_seconds_or_as_a_date(value, expected):
    assert parse_retry_after(value, NOW) == expected


def test_backoff_doubles_with_equal_jitter_and_a_cap():
    policy = RetryPolicy(backoff_base=1.0, backoff_cap=8.0)
    rng = random.Random(3)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)]:
        waits = [policy.backoff(attempt, rng) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert max(waits) - min(waits) > ceiling / 4  # jittered, not fixed


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("LOCALHOST", True),
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("10.0.0.1", False),
        ("localhost.example.com", False),
        ("127.0.0.1.nip.io", False),
        ("", False),
        (None, False),
    ],
)
def test_loopback_hosts(host, loopback):
    assert is_loopback_host(host) is loopback


def test_secrets_go_only_over_https_or_to_this_machine():
    assert is_private_channel("https://api.github.com")
    assert is_private_channel("http://127.0.0.1:8080/dav/")
    assert is_private_channel("http://[::1]/dav/")
    assert not is_private_channel("http://ghe.example.test/api/v3")
    assert not is_private_channel("ftp://127.0.0.1/")


def test_url_problems_and_origins():
    assert http_url_problem("https://huggingface.co") is None
    assert http_url_problem("huggingface.co") == "not an http(s) URL"
    assert http_url_problem("https://") == "no host"
    assert http_url_problem("http://host:99999999/") == "malformed URL"
    assert origin("https://user:pw@example.com:8443/dav/x?q=1") == "https://example.com:8443"
    assert origin("http://[::1]:81/dav") == "http://[::1]:81"


def test_sizes_in_messages():
    assert describe_size(32 * 2**20) == "32 MiB"
    assert describe_size(4096) == "4 KiB"
    assert describe_size(1000) == "1000 bytes"
