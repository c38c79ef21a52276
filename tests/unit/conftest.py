"""Fixtures shared by the unit tests of the enrichers: the packaged hardware catalog and topic
taxonomy, loaded once per module (the tests only read them), and the taxonomy's rules read
alone, without the learned reader (the judgement tests of each rule round)."""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.catalog import HardwareCatalog, load_hardware_catalog
from digest_tui.enrich.topics.taxonomy import Taxonomy, load_taxonomy


@pytest.fixture(scope="module")
def catalog() -> HardwareCatalog:
    return load_hardware_catalog()


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return load_taxonomy()


@pytest.fixture(scope="module")
def rules(taxonomy: Taxonomy) -> Taxonomy:
    """The packaged rules with the learned reader off: what a rule round changes."""
    return Taxonomy(taxonomy.topics, taxonomy.scoring.model_copy(update={"learned": False}))
