"""What an arXiv category may look like: checked in config.yaml and before any arXiv query.

Its own module so that the settings' models (settings_schema) and config.py (which re-exports
it) share it without importing each other.
"""

from __future__ import annotations

import re

# An arXiv category as the API spells it: cs.DC, math.OC, hep-th, physics.comp-ph, q-bio.NC.
# Nothing else reaches the query, so a category can never add words of its own to it.
ARXIV_CATEGORY = re.compile(r"^[a-z][a-z-]{0,15}(?:\.[A-Za-z][A-Za-z-]{0,15})?$")


def check_arxiv_category(value: str) -> str:
    """`value` stripped, or ValueError naming it when it is not an arXiv category."""
    name = value.strip()
    if not ARXIV_CATEGORY.match(name):
        raise ValueError(f"{value!r} is not an arXiv category such as cs.DC or hep-th")
    return name
