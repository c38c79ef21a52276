"""A copy of the taxonomy files a library's topics were computed from, to learn later what an
edit changed (`delta.py`).

Stored enrichment carries only a hash of the taxonomy files (the topics part of
`Enricher.fingerprint`); the snapshot keeps their text under that hash, so after an edit the
old effective taxonomy can be rebuilt and compared with the new one. A snapshot is only
trusted when its text hashes to its key with the same code version (`salt`): the classifier's
code must be the one that computed the stored topics.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from digest_tui.data_files import fingerprint_sources, read_sources

_VERSION = 1
_PACKAGED, _USER = "packaged", "user"


def take_snapshot(files: Sequence[Path], salt: str) -> tuple[str, str]:
    """The taxonomy files as they are now: (their fingerprint, the snapshot's JSON). `files`
    as `enrich.pipeline.component_files` lists them: the packaged file first, then the
    user's."""
    sources = read_sources(files)
    fingerprint = fingerprint_sources(((p.name, b) for p, b in sources), salt=salt)
    entries = [
        [_PACKAGED if path == files[0] else _USER, path.name, _as_text(content)]
        for path, content in sources
    ]
    text = json.dumps({"version": _VERSION, "salt": salt, "files": entries})
    return fingerprint, text


def snapshot_texts(snapshot: str, key: str, salt: str) -> tuple[str, str | None] | None:
    """(packaged text, user text or None) of a snapshot stored under `key`, or None when it
    is unusable: another code version, another format, or text that does not hash to `key`."""
    try:
        data = json.loads(snapshot)
        if data.get("version") != _VERSION or data.get("salt") != salt:
            return None
        entries = [(str(role), str(name), str(text)) for role, name, text in data["files"]]
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    raw = [(name, _as_bytes(text)) for _, name, text in entries]
    if fingerprint_sources(raw, salt=salt) != key:
        return None
    texts = {role: text for role, _, text in entries}
    if _PACKAGED not in texts:
        return None
    return texts[_PACKAGED], texts.get(_USER)


# Bytes that are not UTF-8 survive the round trip through JSON (a file the loader rejects
# still hashes as it was read).
def _as_text(content: bytes) -> str:
    return content.decode("utf-8", "surrogateescape")


def _as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")
