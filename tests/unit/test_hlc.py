"""The Hybrid Logical Clock: monotonic, ahead of everything received, fine under skew."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from digest_tui.errors import ClockError
from digest_tui.state.clock import MAX_COUNTER, HybridClock, Stamp

DAY_MS = 86_400_000


class Wall:
    """A settable wall clock in milliseconds."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def test_stamps_follow_the_wall_clock_and_never_repeat():
    wall = Wall(1_000)
    clock = HybridClock("a", wall=wall)
    first = clock.now()
    assert (first.wall_ms, first.counter) == (1_000, 0)
    second = clock.now()  # same millisecond: the counter moves
    assert second > first and (second.wall_ms, second.counter) == (1_000, 1)
    wall.ms = 2_000
    assert clock.now() == Stamp(2_000, 0, "a")


def test_a_wall_clock_going_backwards_does_not_move_stamps_back():
    wall = Wall(10_000)
    clock = HybridClock("a", wall=wall)
    before = clock.now()
    wall.ms = 5_000  # NTP step back, or a suspended VM
    after = clock.now()
    assert after > before and after.wall_ms == 10_000


def test_encoding_sorts_like_the_stamp():
    stamps = [Stamp(5, 0, "b"), Stamp(5, 1, "a"), Stamp(40, 0, "a"), Stamp(5, 0, "a")]
    assert sorted(s.encode() for s in stamps) == [s.encode() for s in sorted(stamps)]
    for stamp in stamps:
        assert Stamp.decode(stamp.encode()) == stamp


@pytest.mark.parametrize("bad", ["", "12-3-a", "0000000000000001-000000-bad-id", None, 5])
def test_malformed_stamps_are_refused(bad):
    with pytest.raises(ClockError):
        Stamp.decode(bad)  # type: ignore[arg-type]


def test_device_ids_are_checked():
    with pytest.raises(ClockError):
        HybridClock("has-dash")


def test_receive_from_a_machine_days_ahead_keeps_causality():
    """Laptop's clock is 3 days slow: an edit it makes after seeing the workstation's edit
    must still get a larger stamp, so last-writer-wins picks the causally later edit."""
    laptop_wall = Wall(100 * DAY_MS)
    workstation = HybridClock("ws", wall=Wall(103 * DAY_MS))
    laptop = HybridClock("laptop", wall=laptop_wall)
    remote = workstation.now()
    laptop.receive(remote)
    later = laptop.now()
    assert later > remote
    laptop_wall.ms += 60_000  # a minute later, still days behind the workstation
    assert laptop.now() > later > remote


def test_receive_from_a_machine_days_behind_changes_nothing_of_ours():
    clock = HybridClock("a", wall=Wall(10 * DAY_MS))
    mine = clock.now()
    clock.receive(Stamp(1 * DAY_MS, 7, "b"))
    assert clock.now() > mine
    assert clock.now().wall_ms == 10 * DAY_MS


def test_equal_wall_times_merge_counters():
    clock = HybridClock("a", wall=Wall(0), last=(500, 3))
    merged = clock.receive(Stamp(500, 9, "b"))
    assert (merged.wall_ms, merged.counter) == (500, 10)


def test_counter_overflow_borrows_a_millisecond():
    clock = HybridClock("a", wall=Wall(0), last=(1_000, MAX_COUNTER))
    stamp = clock.now()
    assert (stamp.wall_ms, stamp.counter) == (1_001, 0)


def test_max_drift_refuses_absurd_stamps_when_asked():
    clock = HybridClock("a", wall=Wall(0), max_drift_ms=DAY_MS)
    clock.receive(Stamp(DAY_MS // 2, 0, "b"))  # within the allowed drift
    with pytest.raises(ClockError, match="days ahead"):
        clock.receive(Stamp(400 * DAY_MS, 0, "b"))


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["now", "receive"]),
            st.integers(min_value=0, max_value=30 * DAY_MS),  # this machine's wall
            st.integers(min_value=0, max_value=30 * DAY_MS),  # a remote stamp's wall
            st.integers(min_value=0, max_value=50),
        ),
        max_size=60,
    )
)
def test_every_stamp_exceeds_all_earlier_ones(events):
    wall = Wall(0)
    clock = HybridClock("a", wall=wall)
    seen: list[Stamp] = []
    for action, local_ms, remote_ms, counter in events:
        wall.ms = local_ms
        if action == "now":
            stamp = clock.now()
        else:
            remote = Stamp(remote_ms, counter, "b")
            stamp = clock.receive(remote)
            assert stamp > remote
            seen.append(remote)
        assert all(stamp > earlier for earlier in seen)
        # Close to real time: never behind the wall clock.
        assert stamp.wall_ms >= local_ms
        seen.append(stamp)
