"""What makes a repository practical to run, read from its root listing and its README.

Pure functions of metadata: the names in the root directory (GitHub's contents API) and the
README text (its readme API). Nothing is downloaded or run. The README is untrusted text: it
is only searched with bounded regular expressions, and only the labels below ever leave this
module (never a word of the README itself).

Labels, in the order a readiness line shows them:

- files: `docker` (Dockerfile, Containerfile, compose file, .devcontainer, Apptainer/
  Singularity), `conda` (environment.yml), `reqs` (requirements*.txt, Pipfile), `package`
  (pyproject.toml, setup.py, setup.cfg), `make` (Makefile, CMakeLists.txt, justfile),
  `scripts` (scripts/, experiments/, reproduce.sh, run_*.sh ...), `configs` (configs/, conf/);
- README sections (headings): `install`, `quickstart`, `reproduce`, `artifact-evaluation`;
- badges (images in the README): `available`, `functional`, `reusable`, `reproduced`,
  `replicated` (the ACM/USENIX artifact-evaluation badges).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from typing import Any

FILE_LABELS = ("docker", "conda", "reqs", "package", "make", "scripts", "configs")
SECTION_LABELS = ("install", "quickstart", "reproduce", "artifact-evaluation")
BADGE_LABELS = ("available", "functional", "reusable", "reproduced", "replicated")
# Enough for any real README; a longer one is read this far (no regex runs over megabytes).
README_CHARS = 200_000

# An environment someone could rebuild, and instructions to run something: both make a repo
# "runnable" (has:runnable).
ENVIRONMENT_LABELS = frozenset({"docker", "conda", "reqs", "package"})
INSTRUCTION_LABELS = frozenset(
    {"make", "scripts", "quickstart", "reproduce", "artifact-evaluation"}
)

# Weights of the readiness score (the sort): a container or an artifact-evaluation badge says
# the most, a reproduce section or an environment file next.
WEIGHTS = {
    "docker": 3,
    "conda": 2,
    "reqs": 2,
    "package": 1,
    "make": 1,
    "scripts": 1,
    "configs": 1,
    "install": 1,
    "quickstart": 1,
    "reproduce": 2,
    "artifact-evaluation": 2,
    "badge": 3,
}

# Names of scripts and configs written for a paper's experiments ("runtime.py" is not one).
_EXPERIMENT_NAME = (
    r"(?:experiments?|reproduc\w*|repro|replicat\w*|artifacts?\w*|benchmarks?|bench|"
    r"eval\w*|paper\w*|ae)"
)
_RUN_SCRIPT = rf"(?:{_EXPERIMENT_NAME}|run|run[_-][\w.-]*|{_EXPERIMENT_NAME}[_-][\w.-]*)"
_FILE_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    # (label, pattern on the lower-cased name, entry type: "file", "dir" or "any")
    ("docker", re.compile(r"^(?:docker|container)file(?:[._-].*)?$|^.+\.dockerfile$"), "file"),
    ("docker", re.compile(r"^(?:docker-)?compose\.ya?ml$"), "file"),
    ("docker", re.compile(r"^(?:singularity|apptainer)(?:\.def)?$|^.+\.(?:def|sif)$"), "file"),
    ("docker", re.compile(r"^(?:\.devcontainer|docker|containers?)$"), "dir"),
    ("conda", re.compile(r"^(?:environment|conda|env)(?:[._-][\w.-]*)?\.ya?ml$"), "file"),
    (
        "reqs",
        re.compile(r"^requirements(?:[._-][\w.-]*)?\.(?:txt|in)$|^pipfile(?:\.lock)?$"),
        "file",
    ),
    ("reqs", re.compile(r"^requirements$"), "dir"),
    ("package", re.compile(r"^(?:pyproject\.toml|setup\.py|setup\.cfg)$"), "file"),
    ("make", re.compile(r"^(?:gnu)?makefile$|^cmakelists\.txt$|^justfile$"), "file"),
    ("scripts", re.compile(rf"^(?:scripts?|{_EXPERIMENT_NAME})$"), "dir"),
    ("scripts", re.compile(rf"^{_RUN_SCRIPT}\.(?:sh|py|ipynb)$"), "file"),
    ("configs", re.compile(r"^(?:configs?|conf|cfgs?|recipes?)$"), "dir"),
    ("configs", re.compile(rf"^{_EXPERIMENT_NAME}(?:[_-][\w.-]*)?\.(?:ya?ml|json|toml)$"), "file"),
)

_SECTION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "artifact-evaluation",
        re.compile(r"\bartifact[s]?\b.*\b(?:evaluation|appendix|description)\b|^ae\b"),
    ),
    ("reproduce", re.compile(r"reproduc|replicat|\bexperiments?\b|paper results|\bbenchmark")),
    (
        "install",
        re.compile(r"\binstall|\bsetup\b|\bset up\b|\bdependenc|\brequirements\b|\benvironment\b"),
    ),
    (
        "quickstart",
        re.compile(r"quick\s*-?\s*start|getting started|\busage\b|how to run|\brunning\b|\bdemo\b"),
    ),
)

# Headings: "# Title" (ATX), "Title\n====" or "----" (setext, reST), "<h2>Title</h2>".
_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.{1,200}?)[ \t#]*$", re.MULTILINE)
_SETEXT = re.compile(r"^([^\n]{1,200})\n[ \t]*(?:={3,}|-{3,}|~{3,}|\^{3,})[ \t]*$", re.MULTILINE)
_HTML_HEADING = re.compile(r"<h[1-6][^>]{0,200}>(.{1,200}?)</h[1-6]>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]{0,200}>|[*_`\[\]()]")

# Badges are images: markdown `![alt](url)` or an <img> tag; prose saying "artifacts available
# on request" is not a badge.
_MD_IMAGE = re.compile(r"!\[([^\]\n]{0,200})\]\(([^)\s]{0,500})")
_HTML_IMAGE = re.compile(r"<img\b[^>]{0,1000}>", re.IGNORECASE)
_BADGE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("available", re.compile(r"artifacts?[\s_%20-]*available|usenix[\s_-]*available")),
    ("functional", re.compile(r"(?:artifacts?|evaluated|usenix|acm)[\s\w%-]{0,40}functional")),
    ("reusable", re.compile(r"artifacts?[\s_%20-]*(?:evaluated[\s_%20-]*)?reusable")),
    ("reproduced", re.compile(r"results?[\s_%20-]*reproduced|usenix[\s_-]*reproduced")),
    ("replicated", re.compile(r"results?[\s_%20-]*replicated")),
)


def root_file_labels(entries: Iterable[Any]) -> tuple[str, ...]:
    """Labels for the root directory as GitHub's contents API lists it (a JSON array of
    objects with `name` and `type`: file, dir, symlink, submodule). Unusable items are
    skipped."""
    found: set[str] = set()
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        name, kind = entry.get("name"), entry.get("type")
        if not isinstance(name, str) or not isinstance(kind, str) or len(name) > 255:
            continue
        lowered = name.lower()
        is_dir = kind == "dir"
        for label, pattern, wanted in _FILE_RULES:
            if (wanted == "dir" and not is_dir) or (wanted == "file" and is_dir):
                continue
            if pattern.search(lowered):
                found.add(label)
    return tuple(label for label in FILE_LABELS if label in found)


def readme_text(payload: Any) -> str | None:
    """The README text from the readme API's object (`content`, `encoding` base64), or None
    when the object does not hold one. Undecodable bytes become U+FFFD."""
    if not isinstance(payload, Mapping):
        return None
    content, encoding = payload.get("content"), payload.get("encoding")
    if not isinstance(content, str):
        return None
    if encoding in (None, "", "utf-8"):
        return content[:README_CHARS]
    if encoding != "base64":
        return None
    try:
        raw = base64.b64decode(content, validate=False)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")[:README_CHARS]


def readme_labels(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(section labels, badge labels) found in a README."""
    text = text[:README_CHARS]
    headings = [m.group(1) for m in _ATX.finditer(text)]
    headings += [m.group(1) for m in _SETEXT.finditer(text)]
    headings += [m.group(1) for m in _HTML_HEADING.finditer(text)]
    sections: set[str] = set()
    for heading in headings:
        words = " ".join(_TAGS.sub(" ", heading).lower().split())
        for label, pattern in _SECTION_RULES:
            if pattern.search(words):
                sections.add(label)
                break  # one label per heading: the most specific rule first
    images = [f"{m.group(1)} {m.group(2)}" for m in _MD_IMAGE.finditer(text)]
    images += [m.group(0) for m in _HTML_IMAGE.finditer(text)]
    badges: set[str] = set()
    for image in images:
        lowered = image.lower()
        if "badge" not in lowered and "acm" not in lowered and "usenix" not in lowered:
            continue
        for label, pattern in _BADGE_RULES:
            if pattern.search(lowered):
                badges.add(label)
    return (
        tuple(label for label in SECTION_LABELS if label in sections),
        tuple(label for label in BADGE_LABELS if label in badges),
    )


def score(labels: Iterable[str], badges: Iterable[str] = ()) -> int:
    """The readiness score: the sum of WEIGHTS of the labels found (a badge counts once)."""
    total = sum(WEIGHTS.get(label, 0) for label in set(labels))
    return total + (WEIGHTS["badge"] if any(True for _ in badges) else 0)


def runnable(labels: Iterable[str]) -> bool:
    """An environment to rebuild and instructions to run: what `has:runnable` asks for."""
    found = set(labels)
    return bool(found & ENVIRONMENT_LABELS) and bool(found & INSTRUCTION_LABELS)


# The cached labels that score: repos fetched ("ok") with labels.
READINESS_ROWS = "SELECT key, labels FROM repo_readiness WHERE state = 'ok' AND labels IS NOT NULL"


def scores_of(rows: Iterable[tuple[str, str]]) -> dict[str, tuple[int, bool]]:
    """key -> (score, runnable) from `repo_readiness` rows of (key, labels JSON); rows whose
    labels do not parse are left out. Shared by the health cache and the SQL functions of
    store/repro_sql.py, which read the cache file without loading the health models."""
    import json

    out: dict[str, tuple[int, bool]] = {}
    for key, labels_json in rows:
        try:
            labels = json.loads(labels_json)
            found = [*labels.get("files", []), *labels.get("sections", [])]
            out[key] = (score(found, labels.get("badges", [])), runnable(found))
        except (ValueError, AttributeError, TypeError):
            continue
    return out
