"""A small on-disk cache of API responses, keyed by URL, with their validators (ETag).

One JSON file per URL under `<cache_dir>/hf_api/`, written atomically (temp file + rename), so
concurrent fetches of different URLs never share a file and a crash never leaves half a file.
Only answers that parsed as the expected JSON are stored: a cached body is always usable.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

CACHE_SUBDIR = "hf_api"
_FORMAT = 1


@dataclass(frozen=True)
class CachedResponse:
    url: str
    body: str
    fetched_at: float  # epoch seconds of the last download or successful revalidation
    etag: str | None = None
    last_modified: str | None = None


class ResponseCache:
    def __init__(self, cache_dir: Path) -> None:
        self.directory = cache_dir / CACHE_SUBDIR

    def path_for(self, url: str) -> Path:
        return self.directory / (hashlib.sha256(url.encode("utf-8")).hexdigest()[:40] + ".json")

    def get(self, url: str) -> CachedResponse | None:
        """The cached answer for `url`, or None (also when the file is unreadable or foreign)."""
        try:
            data = json.loads(self.path_for(url).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != _FORMAT or data.get("url") != url:
            return None
        try:
            return CachedResponse(
                url=url,
                body=str(data["body"]),
                fetched_at=float(data["fetched_at"]),
                etag=data.get("etag"),
                last_modified=data.get("last_modified"),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, entry: CachedResponse) -> None:
        """Store `entry`; raises OSError when the cache directory is not writable."""
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path_for(entry.url)
        data = {"format": _FORMAT, **asdict(entry)}
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, ensure_ascii=False)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
