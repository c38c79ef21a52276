"""Where the app's data files live, for an installed wheel and for a source checkout.

The wheel carries the sample digests and the curated repro links inside the package
(pyproject force-includes them); a checkout has them at the repository root. Knowing the files
without parsing them also gives a cheap fingerprint of everything enrichment depends on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT_DIR = PACKAGE_DIR.parents[1]
DATA_DIR = PACKAGE_DIR / "data"
TAXONOMY_FILE = "taxonomy.yaml"
HARDWARE_FILE = "hardware.yaml"
TOPIC_MODEL_FILE = "topic_model.yaml"  # the learned topic reader's weights (generated)
REPRO_DIRNAME = "repro_links"


def _first_dir(*candidates: Path) -> Path | None:
    return next((c for c in candidates if c.is_dir()), None)


def packaged_repro_dir() -> Path | None:
    """The curated repro_links catalog shipped with the app."""
    return _first_dir(PACKAGE_DIR / REPRO_DIRNAME, CHECKOUT_DIR / REPRO_DIRNAME)


def repro_dirs(config_dir: Path | None) -> list[Path]:
    """Catalog directories, lowest precedence first: the packaged one, then the user's."""
    dirs = [d for d in [packaged_repro_dir()] if d is not None]
    if config_dir is not None and (Path(config_dir) / REPRO_DIRNAME).is_dir():
        dirs.append(Path(config_dir) / REPRO_DIRNAME)
    return dirs


def sample_digest_paths() -> list[Path]:
    """The bundled sample digests (loaded into an empty library on first run)."""
    found = _first_dir(PACKAGE_DIR / "sample_digests", CHECKOUT_DIR / "fixtures" / "digests")
    return sorted(found.glob("*.txt")) if found is not None else []


def repro_files(config_dir: Path | None) -> list[Path]:
    """The curated repro-link catalog's files: the packaged ones, then the user's."""
    return [
        path
        for directory in repro_dirs(config_dir)
        for path in sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])
    ]


def read_sources(files: Iterable[Path]) -> list[tuple[Path, bytes]]:
    """The files that exist, with their bytes (missing or unreadable files are left out)."""
    found = []
    for path in files:
        try:
            found.append((path, path.read_bytes()))
        except OSError:
            continue
    return found


def fingerprint_sources(sources: Iterable[tuple[str, bytes]], *, salt: str = "") -> str:
    """A hash of files' names and bytes, as read by `read_sources` (by name: a file's
    directory does not count)."""
    digest = hashlib.sha256(salt.encode())
    for name, content in sources:
        digest.update(f"\0{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()[:16]


def fingerprint_files(files: Iterable[Path], *, salt: str = "") -> str:
    """A hash of the files' names and bytes (missing files count as absent, not as errors)."""
    return fingerprint_sources(
        ((path.name, content) for path, content in read_sources(files)), salt=salt
    )
