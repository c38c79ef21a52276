"""CSL-JSON export: the schema's required fields, dates, names, and plain JSON types."""

from __future__ import annotations

import json

from digest_tui.export.csl_json import author, to_csl_json
from tests.support.export import exported_papers

# Field names and JSON types from the CSL-JSON schema (csl-data.json) that the export uses.
_SCHEMA_TYPES = {
    "id": str,
    "type": str,
    "title": str,
    "author": list,
    "issued": dict,
    "URL": str,
    "DOI": str,
    "publisher": str,
    "number": str,
    "genre": str,
    "abstract": str,
    "note": str,
    "keyword": str,
}


def test_every_item_has_the_required_fields_and_schema_types():
    items = to_csl_json(exported_papers())
    json.loads(json.dumps(items))
    assert len(items) == 5
    for item in items:
        assert item["id"] and item["type"] == "article"
        for key, value in item.items():
            assert key in _SCHEMA_TYPES, key
            assert isinstance(value, _SCHEMA_TYPES[key]), key
            assert value not in (None, "", [])  # empty fields are left out, never null


def test_arxiv_item():
    item = to_csl_json(exported_papers())[0]
    assert item["id"] == "2407.08608"
    assert item["issued"] == {"date-parts": [[2024, 7, 11]]}
    assert item["author"] == [
        {"family": "Shah", "given": "Jay"},
        {"family": "Dao", "given": "Tri"},
    ]
    assert item["URL"] == "https://arxiv.org/abs/2407.08608"
    assert item["DOI"] == "10.48550/arXiv.2407.08608"
    assert item["keyword"] == "kernels, to-read"
    assert item["note"].startswith("Uses TMA & warp")


def test_items_without_arxiv_authors_or_date():
    items = to_csl_json(exported_papers())
    assert items[1]["author"] == [{"literal": "AMD & Friends"}]
    assert "DOI" not in items[1]
    assert "issued" not in items[4] and "author" not in items[4]
    assert "\x1b" not in items[3]["title"]


def test_author_names():
    assert author("Plato") == {"literal": "Plato"}
    assert author("Ludwig van Beethoven") == {"family": "Beethoven", "given": "Ludwig van"}
