"""`links check`'s result kept across runs, keyed by everything it depends on.

Checking the curated repro_links catalog costs ~0.25 s however large the library: importing
pydantic and PyYAML, parsing ~250 entries and validating them. Its result (the entry and repo
counts, the problems as printed) depends only on the directories' YAML files, the checking
code and the two libraries, so it is kept in `<cache dir>/links_check.json` under a hash of
those and printed from there while none of them changes (~1 ms to hash ~250 KB).

A cache beats a cheaper check here: a second validator would have to give pydantic's and
PyYAML's exact messages for every bad file, and would be a second copy of the schema to keep
in step; the cache runs the one checker whenever anything it reads changes.

The key (`check_key`): each directory as given (the problems name files by it), the names and
bytes of its `*.yaml`/`*.yml` files in the loader's order, the source of the modules the
checker runs, the Python version, and for pydantic, pydantic_core and PyYAML the names in
their package directories and their `__init__.py`'s size and time (an upgrade rewrites them;
PyYAML's messages also differ with and without its C loader, a file in that directory). A file
that cannot be read gives no key: the check runs, and says so as it always did. A cache file
that cannot be read, parsed or written is worked around: the check runs as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

FILE_NAME = "links_check.json"
_FORMAT = "1"

# The modules the check runs (enrich/repro_catalog.py and its imports in digest_tui).
_CHECK_SOURCES = (
    "enrich/repro_catalog.py",
    "yaml_files.py",
    "data_files.py",
    "ids.py",
    "models.py",
    "errors.py",
    "enrich/repro_check_cache.py",
)
_LIBRARIES = ("pydantic", "pydantic_core", "yaml")


@dataclass(frozen=True)
class CheckResult:
    """What `links check` prints: counts, and each problem as `str(CatalogProblem)`."""

    papers: int
    repos: int
    problems: tuple[str, ...]


def check_key(dirs: Sequence[Path]) -> str | None:
    """A hash of everything the check's result depends on; None when a file cannot be read."""
    h = hashlib.sha256(f"links-check {_FORMAT}\0{sys.version}\0".encode())
    try:
        for directory in dirs:
            directory = Path(directory)
            h.update(f"dir\0{directory}\0".encode())
            for path in sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")]):
                content = path.read_bytes()
                h.update(f"\0{path.name}\0{len(content)}\0".encode() + content)
        package = Path(__file__).resolve().parents[1]
        for name in _CHECK_SOURCES:
            h.update(f"\0{name}\0".encode() + package.joinpath(*name.split("/")).read_bytes())
        for library in _LIBRARIES:
            spec = find_spec(library)
            origin = spec.origin if spec is not None else None
            if origin is None:
                h.update(f"\0{library} absent\0".encode())
                continue
            stat = os.stat(origin)
            names = sorted(os.listdir(os.path.dirname(origin)))
            h.update(f"\0{origin}\0{stat.st_size}\0{stat.st_mtime_ns}\0{names}".encode())
    except (OSError, ValueError, ImportError):
        return None
    return h.hexdigest()


def kept_or_checked(
    dirs: Sequence[Path], cache_dir: Path | None, check: Callable[[], CheckResult]
) -> CheckResult:
    """The result kept for these files and code, else `check()`'s, kept for the next run."""
    key = check_key(dirs) if cache_dir is not None else None
    if key is None or cache_dir is None:
        return check()
    path = cache_dir / FILE_NAME
    kept = _read(path, key)
    if kept is not None:
        return kept
    result = check()
    _write(path, key, result)
    return result


def _read(path: Path, key: str) -> CheckResult | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        papers, repos, problems = data["papers"], data["repos"], data["problems"]
        if not (
            type(papers) is int
            and type(repos) is int
            and isinstance(problems, list)
            and all(type(p) is str for p in problems)
        ):
            return None
        return CheckResult(papers, repos, tuple(problems))
    except (OSError, ValueError, KeyError):
        return None  # none kept, unreadable, or not ours: check again, rewrite


def _write(path: Path, key: str, result: CheckResult) -> None:
    """Atomically (a reader never sees half a file); quietly gives up on any error."""
    data = {
        "key": key,
        "papers": result.papers,
        "repos": result.repos,
        "problems": list(result.problems),
    }
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(temp, path)
    except (OSError, ValueError):  # ValueError: text that UTF-8 cannot encode
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
