"""Untrusted JSON: absurd nesting is a malformed document, not a RecursionError."""

from __future__ import annotations

import pytest

from digest_tui import jsonsafe
from digest_tui.errors import DigestError


@pytest.mark.parametrize(
    "doc",
    ["[" * 1_000_000 + "]" * 1_000_000, '{"a":' * 200_000 + "1" + "}" * 200_000],
)
def test_deep_nesting_is_malformed_not_a_crash(doc):
    with pytest.raises(jsonsafe.MalformedJSON, match="nested too deeply"):
        jsonsafe.loads(doc)


def test_invalid_documents_are_malformed_and_catchable_as_value_error():
    for doc in (b"\xff\xfe", "{", ""):
        with pytest.raises(ValueError):
            jsonsafe.loads(doc)
    assert issubclass(jsonsafe.MalformedJSON, DigestError)


def test_real_documents_parse_unchanged():
    assert jsonsafe.loads('{"a": [1, {"b": "[[[["}]}') == {"a": [1, {"b": "[[[["}]}
    assert jsonsafe.loads(b'[1, 2.5, null, "\\u00e9"]') == [1, 2.5, None, "é"]
