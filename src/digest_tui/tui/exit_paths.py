"""Leaving the app without waiting for threads stuck in I/O.

Thread workers run on the event loop's default executor. A worker blocked on a stalled server
(a fetch, repo health, sync) cannot be interrupted, and two things would wait for it on exit:
`asyncio.run()` shuts the default executor down with wait=True, and the interpreter joins
every non-daemon thread (ThreadPoolExecutor threads included) before the process ends. The
screen would stay blank for as long as the server stalls.

So workers run on daemon threads whose executor never waits on shutdown (they check the app's
cancel flag and stop at their next step), and `leave` ends the process at once if some other
thread is still blocked once the app has closed its connections.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

# How long a thread that is about to finish gets before the process stops waiting for it.
GRACE_SECONDS = 0.5


class DaemonThreadExecutor(ThreadPoolExecutor):
    """One daemon thread per task, and a shutdown that never waits.

    A ThreadPoolExecutor subclass only because asyncio accepts nothing else as the default
    executor; none of its pool machinery is used, so its threads are not joined at exit.
    """

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to the awaiting worker, which reports it
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name="digest-tui-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Never wait: a worker blocked in I/O must not hold the app's exit."""


def blocked_threads(grace: float = GRACE_SECONDS) -> list[threading.Thread]:
    """Threads other than the main one still running after `grace` seconds in all.

    Daemon threads count too: a ThreadPoolExecutor started from a daemon worker (a fetch
    runs its days in one) makes daemon threads, yet the interpreter joins them at exit.
    """
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    deadline = time.monotonic() + grace
    for thread in others:
        thread.join(max(deadline - time.monotonic(), 0.0))
    return [t for t in others if t.is_alive()]


def leave(status: int) -> None:
    """End the process with `status` now if a thread is stuck (the interpreter might wait
    for it); otherwise return and let the normal exit run. The app has closed its
    connections by then: an open transaction is rolled back, committed work is on disk."""
    if not blocked_threads():
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
