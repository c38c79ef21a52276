"""One-line readings of a hand-written abstract, for the judgement tests of the hardware
suggestion and the topic classifier (tests/unit/test_hardware_*.py, test_topics_*.py)."""

from __future__ import annotations

from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.suggest import HardwareSuggestion, suggest_hardware
from digest_tui.enrich.topics.classifier import classify
from digest_tui.enrich.topics.taxonomy import Taxonomy


def suggest(catalog: HardwareCatalog, abstract: str, title: str = "") -> HardwareSuggestion:
    return suggest_hardware(catalog, title, abstract)


def topics(taxonomy: Taxonomy, title: str, abstract: str) -> list[str]:
    return classify(taxonomy, title, abstract).topics
