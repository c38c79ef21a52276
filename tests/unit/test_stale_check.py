"""Every command asks whether stored enrichment is stale (`Library.has_stale`). On a large
library that was a count over every row; now a meta key says which fingerprint every paper is
known to carry. The answer must stay right: after imports with and without an enricher, after
the data files change, after a re-enrichment."""

from __future__ import annotations

from digest_tui.config import AppContext
from digest_tui.enrich.pipeline import Enricher
from digest_tui.service import import_files, open_library
from digest_tui.sources.hf_page import parse_file
from digest_tui.store.library import Library
from tests.support.paths import SEED_DEC09, SEED_DEC10


def test_has_stale_follows_the_enrichment_data(home):
    library = open_library(AppContext())
    import_files(library, [SEED_DEC10])
    assert library.has_stale() is False
    assert library.get_meta("enriched_fp") == library.enricher.fingerprint  # next time: 1 read
    assert library.has_stale() is False

    # papers stored without enrichment (enrich_fp NULL): stale, and the shortcut is dropped
    bare = Library(library.conn, None)
    bare.import_parsed(parse_file(SEED_DEC09))
    assert library.get_meta("enriched_fp") is None
    assert library.has_stale() is True and library.stale_count() > 0
    library.reenrich()
    assert library.has_stale() is False and library.stale_count() == 0

    # the user overrides the taxonomy: a new fingerprint, every paper stale again
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "taxonomy.yaml").write_text("topics: []\n", encoding="utf-8")
    changed = Library(library.conn, Enricher(config))
    assert changed.enricher.fingerprint != library.enricher.fingerprint
    assert changed.has_stale() is True
    library.close()
