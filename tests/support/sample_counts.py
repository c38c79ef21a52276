"""How many papers of the bundled sample library the packaged rules put in each topic.

UI tests look for a tree label ("Kernels 34"); the number follows the taxonomy, which each
judgement round changes, so it is counted here with the app's own import rather than written
into the tests (they test the tree, not the classifier)."""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

from digest_tui.data_files import sample_digest_paths
from digest_tui.enrich.pipeline import Enricher
from digest_tui.service import import_files
from digest_tui.store.db import connect
from digest_tui.store.library import Library


@lru_cache(maxsize=1)
def _counts() -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        library = Library(connect(Path(tmp) / "library.sqlite3"), Enricher(None))
        try:
            import_files(library, sample_digest_paths())
            return library.topic_counts()  # what the tree's labels show
        finally:
            library.close()


def sample_topic_count(topic: str) -> int:
    return _counts().get(topic, 0)


def kernels_label() -> str:
    """The tree's label of the Kernels topic on the sample library: "Kernels 34"."""
    return f"Kernels {sample_topic_count('kernels')}"
