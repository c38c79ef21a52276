"""Waiting for the app's workers in Pilot tests, without tripping over replaced ones.

`App.workers.wait_for_complete()` gathers `Worker.wait()` of every worker alive at that moment.
Two things made that flaky under load (tests/ui failing once with WorkerCancelled in
test_theme, test_help, test_worker_failures):
- an `exclusive=True` worker started while the test waits (the panel loading the paper under
  the cursor, the tree reloading, the health of a repo) cancels the older worker of its group,
  and that worker's `wait()` raises WorkerCancelled: the replaced work is not a failure, its
  replacement is what the test waits for;
- a worker created but not yet started (PENDING) raises WorkerError from `wait()`.
On a quiet machine the workers finish before the next one starts, so both stay hidden.

`settle` waits until no worker (or none of the named groups) is left running, however many
times they replace one another, and re-raises a worker's real failure (WorkerFailed) unless the
test expects failures. Its deadline is generous and only stops a hang: it is not a timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from textual.pilot import Pilot
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

# Only a hang reaches this: settling takes milliseconds, seconds on a loaded machine.
SETTLE_DEADLINE_S = 120.0


def _unfinished(pilot: Pilot, groups: frozenset[str] | None) -> list[Worker[object]]:
    return [
        worker
        for worker in pilot.app.workers
        if not worker.is_finished and (groups is None or worker.group in groups)
    ]


async def _wait_one(worker: Worker[object], failures: list[BaseException]) -> None:
    if worker.state == WorkerState.PENDING:
        await asyncio.sleep(0.001)  # not started yet: looked at again on the next pass
        return
    try:
        await worker.wait()
    except WorkerCancelled:
        pass  # replaced by a newer worker of its group (exclusive): that one is waited for
    except WorkerFailed as failed:
        failures.append(failed)


async def settle(
    pilot: Pilot,
    rounds: int = 3,
    *,
    groups: Iterable[str] | None = None,
    expect_failures: bool = False,
) -> None:
    """Let workers (of `groups`, or all), the workers they start and the messages they post
    run to the end: done when `rounds` passes in a row found nothing left running."""
    wanted = frozenset(groups) if groups is not None else None
    deadline = asyncio.get_running_loop().time() + SETTLE_DEADLINE_S
    quiet = 0
    while quiet < rounds:
        running = _unfinished(pilot, wanted)
        if running:
            quiet = 0
            failures: list[BaseException] = []
            await asyncio.gather(*(_wait_one(worker, failures) for worker in running))
            if failures and not expect_failures:
                raise failures[0]
        else:
            quiet += 1
        await pilot.pause()  # the messages the workers posted, and what they start
        if asyncio.get_running_loop().time() > deadline:
            names = [f"{w.group}/{w.name}" for w in _unfinished(pilot, wanted)]
            raise AssertionError(f"workers still running after {SETTLE_DEADLINE_S} s: {names}")
