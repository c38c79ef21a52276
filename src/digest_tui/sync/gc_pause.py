"""Pausing Python's cyclic garbage collector while a sync merges ops.

A merge allocates hundreds of thousands of small containers (parsed JSON, ops, op rows) that
all stay alive until it ends. Each of them counts towards the collector's thresholds, so it
keeps walking the ever larger heap and finds nothing: a third of the CPU time of merging
10 devices x 10,000 ops (docs/performance.md, "Sync"). Reference counting still frees
everything that is not in a cycle, and the merge makes no cycles worth waiting for.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Run the body with the cyclic collector off; on again afterwards if it was on before.

    Only the call that turned it off turns it back on, so nested or concurrent pauses (a sync
    in a worker thread while another caller pauses too) end with it on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
