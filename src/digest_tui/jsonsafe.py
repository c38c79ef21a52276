"""Parsing JSON documents that come from outside (HTTP answers, sync segments, caches).

`json.loads` recurses once per nesting level, so a document of a million `[` raises
`RecursionError`, which escapes every `except ValueError` and, on a sync remote, used to break
every device on every run. Here such a document is malformed like any other: the caller gets
`MalformedJSON` (a `ValueError`), skips that document, and the rest goes on.
"""

from __future__ import annotations

import json
from typing import Any

from digest_tui.errors import DigestError


class MalformedJSON(DigestError, ValueError):
    """The document is not JSON, or is nested too deeply to parse."""


def loads(data: str | bytes) -> Any:
    """Parse `data`; raise MalformedJSON for invalid or absurdly nested documents."""
    try:
        return json.loads(data)
    except RecursionError:
        # CPython's decoder checks its depth and unwinds cleanly; nothing is left half-done.
        raise MalformedJSON("JSON nested too deeply to be a real document") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedJSON(f"not valid JSON: {exc}") from None
