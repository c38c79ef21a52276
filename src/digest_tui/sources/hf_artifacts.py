"""Hub repos that cite a paper: models, datasets and Spaces tagged with its arXiv id.

The Hub tags a repo `arxiv:<id>` when its card links the paper, and lists them at
`GET /api/models?filter=arxiv:<id>` (likewise `/api/datasets` and `/api/spaces`), which is
what `huggingface_hub`'s `list_models(filter="arxiv:<id>")` requests. Each item is a JSON
object with `id` (older answers also `modelId`), `likes` and, for models and datasets,
`downloads` (Spaces have none).

HTTP is `HfClient`'s (sources/hf_client.py): host from $HF_ENDPOINT, retries with backoff, a
deadline per request, a size cap, and the ETag cache under the cache dir: an answer younger
than TTL is used without asking, an older one is revalidated, and when the network fails any
cached answer is used (the result says so). Offline, only the cache answers.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from digest_tui.sources.hf_cache import ResponseCache

KINDS = ("models", "datasets", "spaces")
TTL = 24 * 3600.0  # repos citing a paper change over days, not minutes
LIST_LIMIT = 1000  # one page; huggingface_hub pages with Link headers past this
MAX_BODY_BYTES = 16 * 1024 * 1024  # 1,000 listed repos are a few hundred kB
PREFETCH_LIMIT = 50  # papers asked about after one fetch: 150 requests at most
# A Hub repo id: "name" or "owner/name" of letters, digits, '-', '_', '.'; anything else
# from the server is not made into a URL.
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}(/[\w.-]{1,96})?$")
_URL_PREFIX = {"models": "", "datasets": "datasets/", "spaces": "spaces/"}


@dataclass(frozen=True)
class Artifact:
    id: str
    likes: int | None
    downloads: int | None
    url: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "likes": self.likes, "downloads": self.downloads, "url": self.url}


@dataclass
class Artifacts:
    arxiv_id: str
    models: list[Artifact] = field(default_factory=list)
    datasets: list[Artifact] = field(default_factory=list)
    spaces: list[Artifact] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # stale cache used, items skipped

    def to_json(self) -> dict[str, Any]:
        return {kind: [a.to_json() for a in getattr(self, kind)] for kind in KINDS}


def listing_url(base_url: str, kind: str, arxiv_id: str) -> str:
    """The Hub listing of `kind` repos citing `arxiv_id` (the cache key too: keep it stable)."""
    query = urlencode([("filter", f"arxiv:{arxiv_id}"), ("limit", LIST_LIMIT)], safe=":/")
    return f"{base_url}/api/{kind}?{query}"


def parse_items(base_url: str, kind: str, items: list[Any]) -> tuple[list[Artifact], int]:
    """Artifacts from a listing, most liked first, and how many items were unusable."""
    found: list[Artifact] = []
    skipped = 0
    for item in items:
        repo = _repo_id(item)
        if repo is None:
            skipped += 1
            continue
        found.append(
            Artifact(
                id=repo,
                likes=_count(item.get("likes")),
                downloads=_count(item.get("downloads")) if kind != "spaces" else None,
                url=f"{base_url}/{_URL_PREFIX[kind]}{quote(repo, safe='/')}",
            )
        )
    found.sort(key=lambda a: (-(a.likes or 0), a.id))
    return found, skipped


def _repo_id(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    for key in ("id", "modelId"):
        value = item.get(key)
        if isinstance(value, str) and _REPO_ID.match(value):
            return value
    return None


def _count(value: Any) -> int | None:
    # bool is an int in Python; a JSON true is not a count.
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def fetch_artifacts(
    arxiv_id: str,
    *,
    cache_dir: Path,
    offline: bool = False,
    refresh: bool = False,
    client: Any = None,
) -> Artifacts:
    """Models, datasets and Spaces citing `arxiv_id`. Raises FetchError (exit status 1) when
    a listing can be had neither from the network nor from the cache; ValueError for a bad
    $HF_ENDPOINT."""
    from digest_tui.sources.hf_client import HfClient

    own = client is None
    if own:
        client = HfClient(cache=ResponseCache(cache_dir), offline=offline, max_body=MAX_BODY_BYTES)
    try:
        result = Artifacts(arxiv_id)
        for kind in KINDS:
            page = client.get_list(
                listing_url(client.base_url, kind, arxiv_id),
                ttl=TTL,
                refresh=refresh,
                what=f"{kind} citing arXiv {arxiv_id}",
            )
            if page.note:
                result.notes.append(page.note)
            found, skipped = parse_items(client.base_url, kind, page.items)
            setattr(result, kind, found)
            if skipped:
                result.notes.append(f"{kind}: {skipped} item(s) without a usable repo id skipped")
        ArtifactIndex(cache_dir).record(result)
        return result
    finally:
        if own:
            client.close()


def cached_artifacts(arxiv_id: str, cache_dir: Path) -> Artifacts | None:
    """The listings as cached (of any age), or None when any of the three was never fetched.
    No network: what the app shows at once, before a worker asks the Hub."""
    from digest_tui.errors import FetchError

    try:
        return fetch_artifacts(arxiv_id, cache_dir=cache_dir, offline=True)
    except (FetchError, ValueError):
        return None


def prefetch_artifacts(
    arxiv_ids: Iterable[str],
    cache_dir: Path,
    *,
    limit: int = PREFETCH_LIMIT,
    cancel: threading.Event | None = None,
) -> int:
    """After a fetch: ask the Hub about at most `limit` papers not yet in the index (newest
    first as given), one client for all, stopping at the first failure or when `cancel` is
    set. Returns how many papers were asked about. Never raises for a network problem: the
    panel and `artifacts` ask again when they need to."""
    from digest_tui.errors import FetchError
    from digest_tui.sources.hf_client import HfClient

    index = ArtifactIndex(cache_dir)
    todo = [a for a in dict.fromkeys(arxiv_ids) if a and not index.known(a)][: max(0, limit)]
    if not todo:
        return 0
    asked = 0
    try:
        client = HfClient(cache=ResponseCache(cache_dir), max_body=MAX_BODY_BYTES, cancel=cancel)
    except ValueError:  # a malformed HF_ENDPOINT: `artifacts` says so when run
        return 0
    try:
        for arxiv_id in todo:
            if cancel is not None and cancel.is_set():
                break
            try:
                fetch_artifacts(arxiv_id, cache_dir=cache_dir, client=client)
            except FetchError:
                break
            asked += 1
    finally:
        client.close()
    return asked


class ArtifactIndex:
    """How many Hub repos cite each paper, as last fetched: one small SQLite file in the cache
    dir (`hub_artifacts.sqlite3`), written whenever a listing is read, so `has:weights` and the
    "reproducible" sort are one set lookup instead of a read of three cached files per paper.
    A cache: an unreadable file is started afresh."""

    FILE = "hub_artifacts.sqlite3"

    def __init__(self, cache_dir: Path) -> None:
        self.path = cache_dir / self.FILE

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
            db.execute(_INDEX_SCHEMA)
        except sqlite3.DatabaseError:
            with contextlib.suppress(OSError):
                self.path.unlink()
            db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
            db.execute(_INDEX_SCHEMA)
        return db

    def record(self, found: Artifacts) -> None:
        with contextlib.suppress(sqlite3.Error, OSError), contextlib.closing(self._connect()) as db:
            db.execute(
                "INSERT INTO hub_artifacts (arxiv_id, models, datasets, spaces, checked_at) "
                "VALUES (?, ?, ?, ?, strftime('%s', 'now')) ON CONFLICT (arxiv_id) DO UPDATE "
                "SET models = excluded.models, datasets = excluded.datasets, "
                "spaces = excluded.spaces, checked_at = excluded.checked_at",
                (found.arxiv_id, len(found.models), len(found.datasets), len(found.spaces)),
            )

    def known(self, arxiv_id: str) -> bool:
        if not self.path.exists():
            return False
        with contextlib.suppress(sqlite3.Error), contextlib.closing(self._connect()) as db:
            row = db.execute("SELECT 1 FROM hub_artifacts WHERE arxiv_id = ?", (arxiv_id,))
            return row.fetchone() is not None
        return False

    def with_weights(self) -> frozenset[str]:
        """arXiv ids of the papers some Hub model or dataset cites."""
        if not self.path.exists():
            return frozenset()
        with contextlib.suppress(sqlite3.Error), contextlib.closing(self._connect()) as db:
            rows = db.execute(
                "SELECT arxiv_id FROM hub_artifacts WHERE models > 0 OR datasets > 0"
            ).fetchall()
            return frozenset(r[0] for r in rows)
        return frozenset()


_INDEX_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS hub_artifacts (arxiv_id TEXT PRIMARY KEY, models INTEGER NOT "
    "NULL, datasets INTEGER NOT NULL, spaces INTEGER NOT NULL, checked_at INTEGER NOT NULL)"
)


def cached_hub_artifacts(
    arxiv_id: str, cache_dir: Path, base_url: str | None = None
) -> bool | None:
    """Whether the cache says the paper has Hub models or datasets (for `has:weights`).

    True when a cached listing of either holds a usable repo, False when both are cached and
    empty, None when not known (never fetched). Reads the cache only: no network.
    """
    from digest_tui import jsonsafe
    from digest_tui.sources.hf_client import resolve_endpoint

    base = resolve_endpoint(base_url)
    cache = ResponseCache(cache_dir)
    known = 0
    for kind in ("models", "datasets"):
        entry = cache.get(listing_url(base, kind, arxiv_id))
        if entry is None:
            continue
        try:
            items = jsonsafe.loads(entry.body)
        except ValueError:
            continue
        if not isinstance(items, list):
            continue
        known += 1
        if parse_items(base, kind, items)[0]:
            return True
    return False if known == 2 else None
