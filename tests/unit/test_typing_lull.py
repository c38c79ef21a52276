"""The wait for a pause in typing (tui/typing_lull.py), with a clock the test drives."""

from __future__ import annotations

import asyncio
import threading

import pytest

from digest_tui.tui.typing_lull import TypingLull


class ManualClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_no_key_yet_means_no_wait() -> None:
    lull = TypingLull(settle_s=0.15, limit_s=2.0, clock=ManualClock())
    assert lull.quiet_for() is None
    assert lull.left(started=0.0) == 0.0
    assert lull.wait() == 0.0


def test_a_key_holds_the_wait_until_keys_pause_for_the_settle_time() -> None:
    clock = ManualClock()
    lull = TypingLull(settle_s=0.15, limit_s=2.0, clock=clock)
    started = clock.now
    lull.key_pressed()
    assert lull.left(started) == 0.15
    clock.now += 0.1
    assert lull.left(started) == pytest.approx(0.05)
    lull.key_pressed()  # another key: the pause starts again
    assert lull.left(started) == 0.15
    clock.now += 0.15
    assert lull.left(started) == 0.0
    assert lull.quiet_for() == pytest.approx(0.15)


def test_a_reader_who_never_pauses_holds_the_wait_no_longer_than_the_limit() -> None:
    clock = ManualClock()
    lull = TypingLull(settle_s=0.15, limit_s=2.0, clock=clock)
    started = clock.now
    for _ in range(19):  # a key every 100 ms for 1.9 s
        clock.now += 0.1
        lull.key_pressed()
        assert lull.left(started) > 0
    clock.now += 0.05  # 1.95 s in, 50 ms after the last key
    assert lull.left(started) == pytest.approx(0.05)  # the limit, not the 100 ms left of the pause
    clock.now += 0.05
    lull.key_pressed()
    assert lull.left(started) == pytest.approx(0.0, abs=1e-9)


def test_the_first_frame_counts_as_a_key() -> None:
    clock = ManualClock()
    lull = TypingLull(settle_s=0.15, clock=clock)
    lull.hold()
    assert lull.left(clock.now) == 0.15


def test_a_worker_waits_in_real_time_until_the_pause_and_stops_when_told() -> None:
    lull = TypingLull(settle_s=0.05, limit_s=30.0)
    lull.key_pressed()
    assert lull.wait() >= 0.04  # the real clock: ~50 ms after the key
    # A wait that could last 30 s returns as soon as the app says it is leaving.
    lull = TypingLull(settle_s=30.0, limit_s=30.0)
    lull.key_pressed()
    stop = threading.Event()
    timer = threading.Timer(0.05, stop.set)
    timer.start()
    try:
        assert lull.wait(stop) < 10
    finally:
        timer.cancel()


def test_the_async_wait_follows_the_same_rule() -> None:
    clock = ManualClock()
    lull = TypingLull(settle_s=0.01, limit_s=30.0, clock=clock)
    lull.key_pressed()

    async def scenario() -> bool:
        waiting = asyncio.ensure_future(lull.wait_async())
        await asyncio.sleep(0.05)  # five settle times of real time: the clock has not moved
        held = not waiting.done()
        clock.now += 1.0
        await asyncio.wait_for(waiting, timeout=5)
        return held

    assert asyncio.run(scenario())


def test_steps_that_share_a_start_share_one_limit() -> None:
    """The start-up's steps wait from the first frame: once `limit_s` has passed since then, a
    key just pressed no longer holds the next step."""
    clock = ManualClock()
    lull = TypingLull(settle_s=0.15, limit_s=2.0, clock=clock)
    first_frame = lull.now()
    clock.now += 1.9
    lull.key_pressed()
    assert lull.left(first_frame) == pytest.approx(0.1)  # the shared budget, not the pause
    clock.now += 0.6
    lull.key_pressed()
    assert lull.wait(since=first_frame) == 0.0  # spent: no wait at all
    assert lull.left(clock.now) == pytest.approx(0.15)  # a wait of its own would still wait
