"""The curated catalog of paper -> code: schema, loader, checker and lookup.

The catalog is data: YAML files under `repro_links/` (shipped with the app) plus, optionally,
`<config dir>/repro_links/*.yaml` written by the user. Each file holds

    papers:
      - arxiv: "2205.14135"
        title: "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness"
        topics: [kernels]
        hardware: ["A100 40GB (kernel benchmarks)"]
        repos:
          - url: https://github.com/Dao-AILab/flash-attention
            kind: official          # official | community | framework
            framework: CUDA
            notes: "..."

A bad entry never stops loading: it is skipped and reported as a `CatalogProblem` naming the
file, the line and what is wrong, and the rest of the catalog still loads. `check_catalog`
runs the same checks for `digest-tui links check`.

Matching is by arXiv id (version and "arXiv:" prefix ignored) or by normalised title (case,
punctuation and accents folded), the same keys that make paper ids stable. User entries add
to the packaged ones or replace a packaged entry for the same paper, whichever key matches.

Pure apart from reading the YAML files; no network.

Why this module is long: the schema, the loader that reports a bad entry by file and line,
and the URL checks are the three halves of one promise (a bad entry is named and skipped, the
rest loads), and `links check` runs exactly these checks; the YAML plumbing at the end keeps
the line numbers and turns validation errors into those messages.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from digest_tui import yaml_files
from digest_tui.data_files import packaged_repro_dir, repro_dirs
from digest_tui.errors import DataFileError
from digest_tui.ids import normalize_arxiv_id, normalize_title
from digest_tui.models import Repo

CatalogKind = Literal["official", "community", "framework"]
CatalogTopic = Literal["kernels", "moe", "serving", "training-parallelism", "other"]

# Hosts a catalog URL may point at: public code forges, plus Hugging Face for Spaces and model
# repos that carry code. Anything else is more likely a typo or a project page than a repo.
CODE_HOSTS = frozenset(
    {"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co"}
)
# Hugging Face puts a type prefix before owner/name for everything but models.
_HF_PREFIXES = frozenset({"spaces", "datasets"})
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


# --- schema ---------------------------------------------------------------------------------


class _Strict(BaseModel):
    # Unknown keys are almost always typos ("framwork", "repo"); refuse them loudly.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class CatalogRepo(_Strict):
    """One code repository for a paper."""

    url: str = Field(min_length=1)
    kind: CatalogKind = "official"
    framework: str | None = None
    notes: str | None = None


class CatalogEntry(_Strict):
    """One paper and its code. At least one of `arxiv` and `title` identifies it."""

    arxiv: str | None = None
    title: str | None = None
    repos: list[CatalogRepo] = Field(default_factory=list)
    # What the authors report testing on ("8x H100 80GB (one node)"): the hardware suggestion
    # treats it as its strongest evidence, so only write what the paper or README says.
    hardware: list[str] = Field(default_factory=list)
    topics: list[CatalogTopic] = Field(default_factory=list)

    _origin: str = PrivateAttr(default="")

    @property
    def origin(self) -> str:
        """Where the entry was defined, as "file:line" (empty for entries built in code)."""
        return self._origin

    @property
    def arxiv_key(self) -> str | None:
        return normalize_arxiv_id(self.arxiv) if self.arxiv else None

    @property
    def title_key(self) -> str | None:
        key = normalize_title(self.title) if self.title else ""
        return key or None


class _CatalogFile(_Strict):
    papers: list[Any] = Field(default_factory=list)


@dataclass(frozen=True)
class CatalogProblem:
    """A problem in a catalog file; str() is "file:line: message" like a compiler's."""

    path: Path
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


@dataclass
class ReproCatalog:
    """Loaded catalog entries with indexes by arXiv id and normalised title."""

    entries: list[CatalogEntry] = field(default_factory=list)
    problems: list[CatalogProblem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_arxiv: dict[str, CatalogEntry] = {}
        self._by_title: dict[str, CatalogEntry] = {}
        for entry in self.entries:
            if entry.arxiv_key:
                self._by_arxiv.setdefault(entry.arxiv_key, entry)
            if entry.title_key:
                self._by_title.setdefault(entry.title_key, entry)

    def lookup(self, arxiv_id: str | None, title: str) -> CatalogEntry | None:
        """The entry for a paper: by arXiv id first, then by normalised title."""
        if arxiv_id:
            key = normalize_arxiv_id(arxiv_id)
            if key and key in self._by_arxiv:
                return self._by_arxiv[key]
        title_key = normalize_title(title) if title else ""
        return self._by_title.get(title_key) if title_key else None

    @property
    def fingerprint(self) -> str:
        """A stable hash of the entries' content: changes exactly when the catalog does.

        The store keeps it beside enrichment results so that an edited catalog (a new release
        or a user override) causes affected papers to be enriched again.
        """
        payload = json.dumps(
            [entry.model_dump(mode="json") for entry in self.entries],
            sort_keys=True,
            ensure_ascii=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("ascii")).hexdigest()[:16]

    def __len__(self) -> int:
        return len(self.entries)


# --- locations ------------------------------------------------------------------------------


def packaged_dir() -> Path | None:
    """The catalog shipped with the app (inside the wheel, or at a checkout's root)."""
    return packaged_repro_dir()


def catalog_dirs(config_dir: Path | None) -> list[Path]:
    """Directories to load, lowest precedence first: the packaged catalog, then the user's."""
    return repro_dirs(config_dir)


# --- loading and checking -------------------------------------------------------------------


def load_catalog(config_dir: Path | None = None) -> ReproCatalog:
    """Load the packaged catalog and the user's additions and overrides.

    Never raises for bad content: broken files and entries are skipped and listed in
    `problems`. A user entry replaces every packaged entry with the same arXiv id or title.
    """
    return _load(catalog_dirs(config_dir))


def load_catalog_dirs(dirs: Sequence[Path]) -> ReproCatalog:
    """Like `load_catalog` for explicit directories (later ones override earlier ones)."""
    return _load(dirs)


def check_catalog(dirs: Sequence[Path]) -> list[CatalogProblem]:
    """Every problem in the catalog files of `dirs`, in file and line order."""
    return _load(dirs).problems


def _load(dirs: Sequence[Path]) -> ReproCatalog:
    problems: list[CatalogProblem] = []
    merged: list[CatalogEntry] = []
    for directory in dirs:
        layer = _load_dir(Path(directory), problems)
        if merged:
            # A user entry replaces every earlier entry it matches by either key.
            arxiv_keys = {e.arxiv_key for e in layer if e.arxiv_key}
            title_keys = {e.title_key for e in layer if e.title_key}
            merged = [
                e
                for e in merged
                if not (e.arxiv_key and e.arxiv_key in arxiv_keys)
                and not (e.title_key and e.title_key in title_keys)
            ]
        merged.extend(layer)
    return ReproCatalog(entries=merged, problems=problems)


def _load_dir(directory: Path, problems: list[CatalogProblem]) -> list[CatalogEntry]:
    """Entries of one directory; duplicates within it are problems (across dirs: overrides)."""
    if not directory.is_dir():
        problems.append(CatalogProblem(directory, None, "catalog directory does not exist"))
        return []
    entries: list[CatalogEntry] = []
    seen_arxiv: dict[str, str] = {}
    seen_title: dict[str, str] = {}
    files = sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])
    for path in files:
        for entry, line in _load_file(path, problems):
            where = f"{path.name}:{line}"
            clash = None
            if entry.arxiv_key and entry.arxiv_key in seen_arxiv:
                clash = f"same arXiv id {entry.arxiv_key} as {seen_arxiv[entry.arxiv_key]}"
            elif entry.title_key and entry.title_key in seen_title:
                clash = f"same title as {seen_title[entry.title_key]}"
            if clash:
                problems.append(
                    CatalogProblem(path, line, f"duplicate paper: {clash} (entry skipped)")
                )
                continue
            if entry.arxiv_key:
                seen_arxiv[entry.arxiv_key] = where
            if entry.title_key:
                seen_title[entry.title_key] = where
            entries.append(entry)
    return entries


def _load_file(path: Path, problems: list[CatalogProblem]) -> list[tuple[CatalogEntry, int]]:
    import yaml  # deferred: keeps `import digest_tui.enrich.repro_catalog` cheap

    try:
        doc = yaml_files.load_file(path, DataFileError, loader=_loader_class())
    except DataFileError as exc:
        problem = exc.problem  # type: ignore[attr-defined]
        problems.append(CatalogProblem(path, problem.line, problem.message))
        return []
    node, data = doc.root, doc.data
    if node is None:
        return []  # an empty file is a valid, empty catalog

    for key_node, duplicate_line in yaml_files.duplicate_keys(node):
        problems.append(
            CatalogProblem(path, duplicate_line, f"duplicate key '{key_node}' (the last one wins)")
        )

    if not isinstance(data, dict):
        problems.append(
            CatalogProblem(path, node.start_mark.line + 1, "expected a mapping with 'papers:'")
        )
        return []
    try:
        parsed = _CatalogFile.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            problems.append(
                CatalogProblem(
                    path, yaml_files.line_of(node, error["loc"]), _describe(error, top=True)
                )
            )
        return []

    papers_node = yaml_files.child(node, "papers")
    items = papers_node.value if isinstance(papers_node, yaml.SequenceNode) else []
    loaded: list[tuple[CatalogEntry, int]] = []
    for index, raw in enumerate(parsed.papers):
        item_node = items[index] if index < len(items) else papers_node
        line = item_node.start_mark.line + 1 if item_node is not None else None
        entry = _entry(raw, item_node, path, line, problems)
        if entry is not None:
            entry._origin = f"{path}:{line}"
            loaded.append((entry, line or 0))
    return loaded


def _entry(
    raw: Any, node: Any, path: Path, line: int | None, problems: list[CatalogProblem]
) -> CatalogEntry | None:
    """Validate one entry; on any problem report it (with its line) and return None."""
    if not isinstance(raw, dict):
        problems.append(CatalogProblem(path, line, "entry must be a mapping (entry skipped)"))
        return None
    try:
        entry = CatalogEntry.model_validate(raw)
    except ValidationError as exc:
        for error in exc.errors():
            problems.append(
                CatalogProblem(
                    path, yaml_files.line_of(node, error["loc"]) or line, _describe(error)
                )
            )
        return None
    found = _entry_problems(entry, node)
    for message, at in found:
        problems.append(CatalogProblem(path, at or line, message))
    return None if found else entry


def _entry_problems(entry: CatalogEntry, node: Any) -> list[tuple[str, int | None]]:
    found: list[tuple[str, int | None]] = []
    if not entry.arxiv and not entry.title:
        found.append(("entry has neither 'arxiv' nor 'title': nothing to match a paper by", None))
    if entry.arxiv and not normalize_arxiv_id(entry.arxiv):
        found.append(
            (
                f"field arxiv: '{entry.arxiv}' is not an arXiv id "
                '(expected e.g. "2205.14135" or "hep-th/9901001")',
                yaml_files.line_of(node, ("arxiv",)),
            )
        )
    if entry.title is not None and not entry.title_key:
        found.append(
            ("field title: empty after normalisation", yaml_files.line_of(node, ("title",)))
        )
    seen: dict[str, int] = {}
    for index, repo in enumerate(entry.repos):
        at = yaml_files.line_of(node, ("repos", index, "url"))
        reason = url_problem(repo.url)
        if reason:
            found.append((f"field repos[{index}].url: {reason}", at))
            continue
        key = _repo_key(repo.url)
        if key in seen:
            found.append((f"duplicate repo {repo.url} (also repos[{seen[key]}])", at))
        else:
            seen[key] = index
    return found


# --- URLs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RepoUrl:
    """A code-host URL split into the parts `models.Repo` keeps."""

    url: str
    host: str
    owner: str
    name: str
    path: str | None


def url_problem(url: str) -> str | None:
    """Why `url` is not an acceptable catalog repo URL, or None when it is.

    Strict on purpose: catalog URLs are written by hand and shown as links, so the canonical
    form is required (https, a known code host, owner/name, no ".git" and no trailing slash).
    """
    if any(ch.isspace() for ch in url):
        return "URL contains whitespace"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "malformed URL"
    if parts.scheme != "https":
        return f"only https URLs are allowed (got '{parts.scheme or 'no scheme'}')"
    host = (parts.hostname or "").lower()
    if parts.username or parts.password or port is not None:
        return "URL must not contain credentials or a port"
    if host.startswith("www."):
        return f"use the bare host '{host[4:]}', not '{host}'"
    if host not in CODE_HOSTS:
        return f"host '{host}' is not a known code host ({', '.join(sorted(CODE_HOSTS))})"
    if parts.query or parts.fragment:
        return "URL must not have a query or fragment"
    if url.endswith("/"):
        return "URL must not end with '/'"
    segments = parts.path.strip("/").split("/") if parts.path.strip("/") else []
    if host == "huggingface.co" and segments and segments[0] in _HF_PREFIXES:
        segments = segments[1:]
    if len(segments) < 2:
        return "URL must name a repository as owner/name"
    owner, name = segments[0], segments[1]
    if not _SEGMENT.match(owner) or not _SEGMENT.match(name):
        return f"'{owner}/{name}' is not a valid owner/name"
    if name.lower().endswith(".git") or url.lower().endswith(".git"):
        return "URL must not end with '.git'"
    return None


def parse_repo_url(url: str) -> RepoUrl | None:
    """Split a code-host URL, tolerating the usual noise (http, www., .git, trailing slash).

    Returns None for URLs that are not on a known code host or do not name owner/name. The
    returned `url` is the canonical https form of the repository (or sub-path).
    """
    text = url.strip()
    try:
        parts = urlsplit(text if "://" in text else f"https://{text}")
    except ValueError:
        return None
    if parts.scheme not in ("http", "https"):
        return None
    host = (parts.hostname or "").lower().removeprefix("www.")
    if host not in CODE_HOSTS:
        return None
    segments = [s for s in parts.path.split("/") if s]
    prefix: list[str] = []
    if host == "huggingface.co" and segments and segments[0] in _HF_PREFIXES:
        prefix, segments = segments[:1], segments[1:]
    if len(segments) < 2:
        return None
    owner, name = segments[0], segments[1].removesuffix(".git")
    if not _SEGMENT.match(owner) or not name or not _SEGMENT.match(name):
        return None
    rest = segments[2:]
    canonical = "/".join([f"https://{host}", *prefix, owner, name, *rest])
    return RepoUrl(canonical, host, owner, name, "/".join(rest) or None)


def _repo_key(url: str) -> str:
    """Case-insensitive identity of a repo URL: GitHub and friends ignore case in owner/name."""
    parsed = parse_repo_url(url)
    return url.lower() if parsed is None else parsed.url.lower()


def catalog_repos(entry: CatalogEntry) -> list[Repo]:
    """The entry's repos as `models.Repo` records (source "curated")."""
    repos: list[Repo] = []
    for item in entry.repos:
        parsed = parse_repo_url(item.url)
        if parsed is None:  # cannot happen for a checked entry; stay total anyway
            continue
        repos.append(
            Repo(
                url=item.url,
                host=parsed.host,
                owner=parsed.owner,
                name=parsed.name,
                path=parsed.path,
                kind=item.kind,
                source="curated",
                framework=item.framework,
                notes=item.notes,
            )
        )
    return repos


# --- YAML plumbing --------------------------------------------------------------------------


_LOADER: type | None = None


def _loader_class() -> type:
    """A safe YAML loader that reads every plain scalar as a string, except null.

    With the stock resolvers `arxiv: 2309.06180` would become the float 2309.0618 and lose
    its last digit; strings are what every catalog field wants anyway.
    """
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        resolvers = {
            first: [(tag, regexp) for tag, regexp in entries if tag == "tag:yaml.org,2002:null"]
            for first, entries in base.yaml_implicit_resolvers.items()
        }
        _LOADER = type("_CatalogLoader", (base,), {"yaml_implicit_resolvers": resolvers})
    return _LOADER


def _describe(error: Any, *, top: bool = False) -> str:
    """A pydantic error as one short sentence naming the field."""
    loc = error.get("loc", ())
    name = _dotted(loc)
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        parent = _dotted(loc[:-1])
        scope = f" in {parent}" if parent else ""
        allowed = _allowed_fields(loc, top)
        return f"unknown field '{loc[-1] if loc else name}'{scope} (allowed: {allowed})"
    message = error.get("msg", "invalid value")
    return f"field {name}: {message}" if name else message


def _allowed_fields(loc: Sequence[Any], top: bool) -> str:
    if top:
        return "papers"
    inside_repo = len(loc) >= 3 and loc[0] == "repos"
    model = CatalogRepo if inside_repo else CatalogEntry
    return ", ".join(model.model_fields)


def _dotted(loc: Sequence[Any]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text
