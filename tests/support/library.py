"""Building libraries for tests from the fixture digests."""

from __future__ import annotations

from pathlib import Path

from digest_tui.sources.hf_page import parse_page
from digest_tui.store.library import ImportReport, Library, content_hash


def import_seed(library: Library, path: Path) -> ImportReport:
    """Import one fixture digest through the same path as `digest-tui import`."""
    text = path.read_text(encoding="utf-8")
    return library.import_parsed(parse_page(text, str(path)), content_hash(text))
