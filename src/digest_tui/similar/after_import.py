"""Keeping the similarity index current as papers arrive (issue 15: "built incrementally at
import"), within a bound so an import never turns into an index rebuild.

Called at the end of `import`, `fetch` (CLI) and the app's refresh (`R`, in its worker). It
does nothing when no index was ever built (the first `similar`, or the app's background build,
makes it) or when a full pass is due (the library grew past REWEIGHT_FACTOR: that minute-long
pass stays with `similar` and the app's background build). Otherwise it rebuilds the vectors of
at most IMPORT_REFRESH_LIMIT changed papers; any beyond that stay marked and the next
`similar`, `recommend` or import picks them up.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from digest_tui.similar.index import RefreshReport, SimilarIndex

# ~1-2 ms a paper at 100,000 papers (docs/similar.md): a few seconds at most, per import.
IMPORT_REFRESH_LIMIT = 2_000


@dataclass(frozen=True)
class ImportRefresh:
    report: RefreshReport
    left: int  # changed papers still waiting (over the limit, or a full pass due)
    skipped: str | None = None  # why nothing was done: "no index", "full pass due"


def refresh_after_import(
    conn: sqlite3.Connection, limit: int = IMPORT_REFRESH_LIMIT
) -> ImportRefresh:
    index = SimilarIndex(conn)
    if not index.built():
        return ImportRefresh(RefreshReport(), 0, "no index")
    if index.needs_full_build():
        return ImportRefresh(RefreshReport(), index.pending(), "full pass due")
    report = index.refresh(limit=limit, full=False)
    return ImportRefresh(report, index.pending())
