"""Reader of the Papers with Code links dump (`links-between-papers-and-code.json[.gz]`).

The dump is one JSON array of records such as

    {"paper_url": "https://paperswithcode.com/paper/...", "paper_title": "...",
     "paper_arxiv_id": "2205.14135", "paper_url_abs": "https://arxiv.org/abs/2205.14135v2",
     "paper_url_pdf": "...", "repo_url": "https://github.com/Dao-AILab/flash-attention",
     "is_official": true, "mentioned_in_paper": true, "mentioned_in_github": true,
     "framework": "pytorch"}

and the real file is hundreds of megabytes, so it is never loaded whole: `iter_pwc_links`
decodes the top-level array one element at a time from a bounded text buffer, with
`json.JSONDecoder.raw_decode`. A record of the wrong shape yields a `PwcProblem` naming its
index and field and the stream goes on; so does a syntax error inside one element, after
skipping to the next element. Memory stays proportional to the largest single record.

`collect_pwc_repos` is what `digest-tui links import-pwc FILE` runs: it streams the dump and
keeps only the links of the papers it is asked about (by arXiv id or normalised title).
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from digest_tui.errors import PwcFormatError
from digest_tui.ids import normalize_arxiv_id, normalize_title
from digest_tui.models import Repo, RepoKind

CHUNK_CHARS = 1 << 16
# One record of the dump is well under a kilobyte; a "record" that needs more than this many
# characters is a broken file (an unterminated string), not data worth buffering.
MAX_RECORD_CHARS = 1 << 22

_ARXIV_ABS = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:\.pdf)?/?$", re.IGNORECASE)
_WS = " \t\r\n"
# Papers with Code's framework slugs, spelled the way the rest of the app shows frameworks.
_FRAMEWORKS = {
    "pytorch": "PyTorch",
    "tf": "TensorFlow",
    "tensorflow": "TensorFlow",
    "jax": "JAX",
    "mxnet": "MXNet",
    "paddle": "PaddlePaddle",
    "caffe2": "Caffe2",
    "mindspore": "MindSpore",
    "torch": "Torch",
}


@dataclass(frozen=True)
class PwcLink:
    """One paper -> repository link from the dump, normalised."""

    index: int
    repo_url: str
    paper_title: str | None = None
    arxiv_id: str | None = None
    paper_url: str | None = None
    paper_url_abs: str | None = None
    paper_url_pdf: str | None = None
    is_official: bool = False
    mentioned_in_paper: bool = False
    mentioned_in_github: bool = False
    framework: str | None = None


@dataclass(frozen=True)
class PwcProblem:
    """A record that could not be used; the rest of the dump still streams."""

    index: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"record {self.index}" if self.index is not None else "file"
        what = f" field {self.field}" if self.field else ""
        return f"{where}{what}: {self.message}"


# --- streaming ------------------------------------------------------------------------------


def iter_pwc_links(
    path: Path | str, *, chunk_chars: int = CHUNK_CHARS
) -> Iterator[PwcLink | PwcProblem]:
    """Stream the links of a dump (plain or gzip-compressed JSON), one record at a time.

    Raises `PwcFormatError` if the file does not start with a JSON array and OSError if it
    cannot be read; everything else is reported as `PwcProblem` items.
    """
    with _open_text(Path(path)) as stream:
        for index, value in _iter_array(stream, chunk_chars):
            if isinstance(value, PwcProblem):
                yield value
            else:
                yield _record(index, value)


def _open_text(path: Path) -> IO[str]:
    raw = path.open("rb")
    try:
        magic = raw.read(2)
        raw.seek(0)
    except OSError:
        raw.close()
        raise
    # Sniff instead of trusting the name: mirrors serve the dump both ways.
    binary: IO[bytes] = gzip.GzipFile(fileobj=raw) if magic == b"\x1f\x8b" else raw  # type: ignore[assignment]
    return io.TextIOWrapper(binary, encoding="utf-8", errors="replace")


def _iter_array(stream: IO[str], chunk_chars: int) -> Iterator[tuple[int, Any]]:
    """Yield (index, value) for each element of the top-level JSON array in `stream`."""
    reader = _ArrayReader(stream, chunk_chars)
    if not reader.skip_ws() or reader.buffer[reader.pos] != "[":
        raise PwcFormatError("not a Papers with Code links dump: expected a JSON array")
    reader.pos += 1
    index = 0
    expect_value = True
    while True:
        if not reader.skip_ws():
            yield index, PwcProblem(index, None, "file ends before the closing ']'")
            return
        char = reader.buffer[reader.pos]
        if char == "]":  # also accepts a trailing comma, which hurts nobody
            return
        if not expect_value:
            if char == ",":
                reader.pos += 1
                expect_value = True
                continue
            yield (
                index,
                PwcProblem(index, None, f"expected ',' or ']' between records, got {char!r}"),
            )
            if not reader.resync(reader.pos):
                return
            expect_value = True
            continue
        value, error = reader.decode()
        if error is not None:
            yield index, PwcProblem(index, None, f"invalid JSON: {error.msg}")
            index += 1
            if not reader.resync(reader.pos + 1):
                return
            continue
        yield index, value
        index += 1
        expect_value = False


class _ArrayReader:
    """A bounded window over the text: at most one pending record plus one chunk."""

    _NEXT_RECORD = re.compile(r",\s*(?=\{)")

    def __init__(self, stream: IO[str], chunk_chars: int) -> None:
        self.stream = stream
        self.chunk_chars = chunk_chars
        self.decoder = json.JSONDecoder()
        self.buffer = ""
        self.pos = 0
        self.eof = False

    def fill(self) -> bool:
        """Read one more chunk, dropping the text before `pos`; False at end of input."""
        if self.eof:
            return False
        chunk = self.stream.read(self.chunk_chars)
        if not chunk:
            self.eof = True
            return False
        self.buffer = self.buffer[self.pos :] + chunk
        self.pos = 0
        return True

    def skip_ws(self) -> bool:
        """Advance past whitespace; False at end of input."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buffer):
                return True
            if not self.fill():
                return False

    def decode(self) -> tuple[Any, json.JSONDecodeError | None]:
        """Decode the value at `pos`, reading more text while the record is incomplete."""
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                incomplete = _needs_more(exc, self.buffer)
                small = len(self.buffer) - self.pos <= MAX_RECORD_CHARS
                if incomplete and small and self.fill():
                    continue
                return None, exc
            # A number ending exactly at the buffer's end may continue in the next chunk.
            if end == len(self.buffer) and self.fill():
                continue
            self.pos = end
            return value, None

    def resync(self, start: int) -> bool:
        """Move to the next record after a broken one: the '{' that follows a ','.

        A heuristic (a ',' before a '{' inside a string fools it), but dump records are flat
        objects and a damaged file is better read past than abandoned.
        """
        offset = start
        while True:
            match = self._NEXT_RECORD.search(self.buffer, offset)
            if match:
                self.pos = match.end()
                return True
            # Keep a short tail: the ',' may sit at the end of this chunk.
            self.pos = max(offset, len(self.buffer) - 64)
            if not self.fill():
                return False
            offset = 0


def _needs_more(error: json.JSONDecodeError, buffer: str) -> bool:
    """Whether a decode error is just the chunk boundary (more text would fix it)."""
    if error.msg.startswith("Unterminated string"):
        return True
    if error.pos >= len(buffer) - 1:
        return True
    # A literal cut in half ("tr" of "true") is reported at its start, not at the end.
    tail = buffer[error.pos :]
    return len(tail) < 10 and any(literal.startswith(tail) for literal in _LITERALS)


_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


# --- records --------------------------------------------------------------------------------


def _record(index: int, value: Any) -> PwcLink | PwcProblem:
    if not isinstance(value, dict):
        return PwcProblem(index, None, f"expected an object, got {type(value).__name__}")
    problem = _check_types(index, value)
    if problem is not None:
        return problem
    repo_url = value.get("repo_url")
    if not repo_url or not isinstance(repo_url, str):
        return PwcProblem(index, "repo_url", "missing repository URL")
    if not repo_url.strip().lower().startswith(("http://", "https://")):
        return PwcProblem(index, "repo_url", f"not an http(s) URL: {repo_url[:80]!r}")
    raw_arxiv = value.get("paper_arxiv_id")
    arxiv_id = None
    if raw_arxiv:
        arxiv_id = normalize_arxiv_id(str(raw_arxiv))
        if arxiv_id is None:
            return PwcProblem(index, "paper_arxiv_id", f"not an arXiv id: {str(raw_arxiv)[:40]!r}")
    elif isinstance(value.get("paper_url_abs"), str):
        # Many records leave the id empty but link the arXiv abstract page.
        match = _ARXIV_ABS.search(value["paper_url_abs"].strip())
        arxiv_id = normalize_arxiv_id(match.group(1)) if match else None
    title = (value.get("paper_title") or "").strip() or None
    if title is None and arxiv_id is None:
        return PwcProblem(index, "paper_title", "record names no paper (no title, no arXiv id)")
    framework = (value.get("framework") or "").strip()
    return PwcLink(
        index=index,
        repo_url=repo_url.strip(),
        paper_title=title,
        arxiv_id=arxiv_id,
        paper_url=value.get("paper_url") or None,
        paper_url_abs=value.get("paper_url_abs") or None,
        paper_url_pdf=value.get("paper_url_pdf") or None,
        is_official=bool(value.get("is_official")),
        mentioned_in_paper=bool(value.get("mentioned_in_paper")),
        mentioned_in_github=bool(value.get("mentioned_in_github")),
        framework=None
        if framework.lower() in ("", "none")
        else _FRAMEWORKS.get(framework.lower(), framework),
    )


_STRING_FIELDS = (
    "paper_url",
    "paper_title",
    "paper_arxiv_id",
    "paper_url_abs",
    "paper_url_pdf",
    "repo_url",
    "framework",
)
_BOOL_FIELDS = ("is_official", "mentioned_in_paper", "mentioned_in_github")


def _check_types(index: int, value: dict[str, Any]) -> PwcProblem | None:
    """Null is allowed everywhere (the dump is full of it); wrong types are not."""
    for name in _STRING_FIELDS:
        item = value.get(name)
        if item is not None and not isinstance(item, str):
            return PwcProblem(index, name, f"expected a string, got {type(item).__name__}")
    for name in _BOOL_FIELDS:
        item = value.get(name)
        if item is not None and not isinstance(item, bool):
            return PwcProblem(index, name, f"expected true/false, got {item!r}"[:80])
    return None


def pwc_repo(link: PwcLink) -> Repo:
    """The link's repository as a `models.Repo` (source "pwc")."""
    from digest_tui.enrich.repro_catalog import parse_repo_url

    kind: RepoKind = "official" if link.is_official else "community"
    parsed = parse_repo_url(link.repo_url)
    if parsed is None:
        # Not a known code host (an institutional GitLab, a personal site): keep it as given.
        from urllib.parse import urlsplit

        parts = urlsplit(link.repo_url)
        segments = [s for s in parts.path.split("/") if s]
        return Repo(
            url=link.repo_url,
            host=(parts.hostname or "").lower(),
            owner=segments[0] if len(segments) >= 2 else None,
            name=segments[1] if len(segments) >= 2 else None,
            path="/".join(segments[2:]) or None,
            kind=kind,
            source="pwc",
            framework=link.framework,
        )
    return Repo(
        url=parsed.url,
        host=parsed.host,
        owner=parsed.owner,
        name=parsed.name,
        path=parsed.path,
        kind=kind,
        source="pwc",
        framework=link.framework,
    )


# --- import ---------------------------------------------------------------------------------


@dataclass
class PwcImport:
    """What `collect_pwc_repos` found: repos per requested paper key, and the problems."""

    by_arxiv: dict[str, list[Repo]] = field(default_factory=dict)
    by_title: dict[str, list[Repo]] = field(default_factory=dict)
    records: int = 0
    problems: list[PwcProblem] = field(default_factory=list)

    def repos_for(self, arxiv_id: str | None, title: str) -> list[Repo]:
        """Repos for one paper: by arXiv id when the dump has it, else by normalised title."""
        key = normalize_arxiv_id(arxiv_id) if arxiv_id else None
        if key and key in self.by_arxiv:
            return self.by_arxiv[key]
        return self.by_title.get(normalize_title(title), [])


def collect_pwc_repos(
    path: Path | str,
    *,
    arxiv_ids: Collection[str] = (),
    titles: Collection[str] = (),
    max_problems: int = 1000,
) -> PwcImport:
    """Stream the dump and keep the repos of the given papers only.

    `arxiv_ids` and `titles` say which papers are wanted (typically every paper in the
    library); a link matches by arXiv id, or by normalised title when the record has no id
    in the wanted set. Problems beyond `max_problems` are counted but not kept.
    """
    wanted_arxiv = {key for key in (normalize_arxiv_id(a) for a in arxiv_ids) if key}
    wanted_titles = {key for key in (normalize_title(t) for t in titles) if key}
    result = PwcImport()
    for item in iter_pwc_links(path):
        if isinstance(item, PwcProblem):
            if len(result.problems) < max_problems:
                result.problems.append(item)
            continue
        result.records += 1
        target: list[Repo] | None = None
        if item.arxiv_id and item.arxiv_id in wanted_arxiv:
            target = result.by_arxiv.setdefault(item.arxiv_id, [])
        elif item.paper_title:
            key = normalize_title(item.paper_title)
            if key in wanted_titles:
                target = result.by_title.setdefault(key, [])
        if target is None:
            continue
        repo = pwc_repo(item)
        if all(r.url.lower() != repo.url.lower() for r in target):
            target.append(repo)
    return result
