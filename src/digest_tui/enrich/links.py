"""Find the links in a paper's text, classify them, and pick out the code repositories.

Pure and fast: a few regular expressions over the text, no I/O. Abstracts are messy (scraped
web pages, LaTeX leftovers, URLs wrapped in brackets or split by a stray space), so every
candidate is cleaned and rebuilt from its parts; a URL is never passed on as written. Only
http(s) URLs come out, and code-host URLs are always rebuilt as https.

What comes out of `extract_links`:
- code forges (GitHub, GitLab, Bitbucket, Codeberg, Gitee) with owner/name: kind "repo", with
  the rest of the path (`tree/main/sub/dir`) in `path`; a forge page that is no repo (the bare
  host, a user page, `github.com/topics/...`) is "other";
- Hugging Face models, datasets and Spaces ("model", "dataset", "space"), its paper pages and
  arXiv-like sites ("paper"), documentation sites ("docs");
- any other site, github.io pages included: "project" (a few social/package hosts: "other").

`repos_from_links` turns the "repo" links into `models.Repo` records and decides, from the
sentence around each occurrence, whether the paper presents it as its own code ("official")
or merely mentions it ("mentioned").

Why this module is long: the candidate scanning, the per-host URL rebuilding (forges, GitLab
subgroups, Hugging Face, arXiv-like sites) and the official-or-mentioned wording form one
pipeline over one text whose private types (`_Parsed`, `_Found`) pass between the steps; the
public surface is the four functions under "public API".
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import quote, unquote, urlsplit

from digest_tui.enrich.gate import folded, folds
from digest_tui.models import Link, LinkKind, Repo, RepoKind

# --- candidate URLs -------------------------------------------------------------------------

# A URL ends at whitespace, quotes, angle brackets, braces (LaTeX `\href{url}{text}`), square
# brackets (`[url]`), control characters and CJK/typographic punctuation. A backslash is only
# allowed as a LaTeX escape such as `\_`.
_BODY = r"(?:\\[_%#&~]|[^\s<>\"'`{}|\\^\[\]\x00-\x1f\x7f-\x9f，。；：！？、（）「」【】“”‘’…])+"

# Written without a scheme, only well-known hosts and www. names count: "CUDA.jl" or "e.g."
# must never turn into links.
_SCHEMELESS = (
    r"(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|hf\.co|hf-mirror\.com|bitbucket\.org"
    r"|codeberg\.org|gitee\.com|arxiv\.org|raw\.githubusercontent\.com"
    r"|[a-z0-9-]+\.github\.io|[a-z0-9-]+\.gitlab\.io|[a-z0-9-]+\.readthedocs\.io)"
    r"|www\.[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}"
)

# `https://` may be followed by one stray space ("https:// github.com/a/b"); the lookbehind keeps
# a scheme-less match from starting inside a word, an e-mail address or a longer host.
_CANDIDATE = re.compile(
    r"(?P<scheme>https?)://[ \t]?(?=[^\s])"
    r"|(?<![\w@./:\\-])(?=(?:" + _SCHEMELESS + r")(?![\w-]))",
    re.IGNORECASE,
)
_BODY_RE = re.compile(_BODY)
# "https://github.com/ owner/repo": a space right after a forge host; joined when the next word
# looks like owner/name.
_JOIN_RE = re.compile(r"[ \t](?=[A-Za-z0-9][\w.-]*/[A-Za-z0-9_.-])(" + _BODY + ")")
_LATEX_ESCAPE = re.compile(r"\\([_%#&~])")
# "url1,https://url2": two URLs glued by a comma; a "/https://" inside is a proxy prefix instead.
_GLUED = re.compile(r"[,;](?=https?://)", re.IGNORECASE)
_HTML_STOP = re.compile(r"&(?:gt|lt|quot|#39|#x27);", re.IGNORECASE)
_TRAILING = ".,;:!?*'\"-"
_HOST_RE = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$")
_IPV4_RE = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
# Cheap gate: text with none of these cannot contain a link, so most abstracts cost one search.
# Every candidate contains one of these (in ASCII lower case). Finding them with str.find is
# some 20x faster than letting the case-insensitive regex walk the whole abstract, and most
# abstracts have none at all.
_ANCHORS = (
    "http",
    "www.",
    "github",
    "gitlab",
    "huggingface",
    "hf.co",
    "hf-mirror",
    "bitbucket",
    "codeberg",
    "gitee",
    "arxiv.org",
    ".io",
)
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
# How far a candidate may start before its anchor (a DNS label before ".github.io"), and how
# far after it the regex must see to decide (a www. host name).
_ANCHOR_BEFORE = 64
_ANCHOR_AFTER = 300
# Anchors closer together than this are searched in one go, so text dense with anchors
# ("http" 100,000 times) costs one linear regex pass, not one search per anchor.
_ANCHOR_CHUNK = 4096
# Longer "URLs" are junk (and is_openable refuses anything past 8 KB).
_MAX_URL = 2048


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- hosts ----------------------------------------------------------------------------------

_GITHUB = "github.com"
_HF = "huggingface.co"
# Forges whose URLs are /owner/name/...; GitLab (nested groups) is handled apart.
_FORGES = {_GITHUB, "bitbucket.org", "codeberg.org", "gitee.com"}
_GITHUB_MIRRORS = {"hub.fastgit.org", "hub.fastgit.xyz", "kgithub.com", "githubfast.com"}
_HF_MIRRORS = {"hf.co", "hf-mirror.com", "huggingface.com"}
# Digests scraped through a Pages proxy carry "hf-2025.pages.dev/org/model" for huggingface.co.
_HF_MIRROR_RE = re.compile(r"^hf(?:-[a-z0-9]+)*\.pages\.dev$")
# Proxies that put a whole URL in their path: ghproxy.com/https://github.com/a/b.
_PROXY_PREFIXES = ("https:", "http:")
_PROXY_TARGETS = {_GITHUB, "www.github.com", "raw.githubusercontent.com", "gitlab.com", _HF}

# First path segments on github.com that are site pages, not user or organisation names.
_GITHUB_RESERVED = _words(
    "about account apps blog codespaces collections contact customer-stories dashboard "
    "discussions enterprise events explore features issues join login logout marketplace "
    "new notifications organizations orgs pricing pulls readme resources search security "
    "sessions settings signup site solutions sponsors stars team topics trending users "
    "watching"
)
_GITLAB_RESERVED = _words("explore users groups dashboard help search - projects")
_GITLAB_SUBPAGES = _words(
    "tree blob raw issues merge_requests commits commit wikis releases tags archive"
)
_HF_RESERVED = _words(
    "api blog chat collections docs enterprise inference-endpoints join learn login models "
    "new organizations posts pricing privacy search settings tasks terms-of-service "
    "welcome"
)
_HF_SUBPAGES = _words("tree blob resolve raw viewer discussions commits")

_PAPER_HOSTS = _words(
    "arxiv.org export.arxiv.org openreview.net aclanthology.org doi.org dl.acm.org "
    "ieeexplore.ieee.org proceedings.neurips.cc papers.nips.cc proceedings.mlr.press "
    "openaccess.thecvf.com www.semanticscholar.org semanticscholar.org "
    "paperswithcode.com"
)
_OTHER_HOSTS = _words(
    "gist.github.com youtube.com youtu.be twitter.com x.com pypi.org linkedin.com discord.gg "
    "discord.com colab.research.google.com"
)
_DOCS_SEGMENTS = _words("docs doc documentation tutorials tutorial api-docs")

_OWNER_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$")
_NAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_ARXIV_ID = re.compile(r"(\d{4}\.\d{4,5})(?:v\d+)?")

# Characters kept as they are when a path is re-encoded (a valid escape stays valid).
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_SEGMENT_SAFE = "@!$&'()*+,;=-._~"


class _Parsed(NamedTuple):
    """One link's fields (immutable, so scan results can be cached) and its dedupe key."""

    url: str
    host: str
    kind: LinkKind
    owner: str | None
    name: str | None
    path: str | None
    key: str

    def link(self) -> Link:
        return Link(
            url=self.url,
            host=self.host,
            kind=self.kind,
            owner=self.owner,
            name=self.name,
            path=self.path,
        )


class _Found(NamedTuple):
    parsed: _Parsed
    start: int
    end: int


# --- public API -----------------------------------------------------------------------------


def extract_links(text: str) -> list[Link]:
    """The links in `text`, in order of appearance, each once (by canonical URL, ignoring case
    on code hosts, where owner and repo names are case-insensitive)."""
    seen: set[str] = set()
    links: list[Link] = []
    for found in _scan(text or ""):
        if found.parsed.key not in seen:
            seen.add(found.parsed.key)
            links.append(found.parsed.link())
    return links


def repos_from_links(links: Sequence[Link], text: str = "") -> list[Repo]:
    """The code repositories among `links`, once each, as `Repo(source="abstract")`.

    `Repo.url` is the repository's root; a deeper link keeps the rest in `path`. With `text`
    (the abstract the links came from) a repo is "official" when a sentence around any of its
    occurrences presents it as the paper's code ("our code is available at ..."); without
    text, or with no such wording, it is "mentioned".
    """
    kinds = _repo_kinds(text) if text else {}
    repos: list[Repo] = []
    seen: set[str] = set()
    for link in links:
        if link.kind != "repo" or not link.owner or not link.name:
            continue
        key = _repo_key(link.host, link.owner, link.name)
        if key in seen:
            continue
        seen.add(key)
        repos.append(
            Repo(
                url=_repo_root(link.host, link.owner, link.name),
                host=link.host,
                owner=link.owner,
                name=link.name,
                path=link.path,
                kind=kinds.get(key, "mentioned"),
                source="abstract",
            )
        )
    return repos


def repos_from_text(text: str) -> list[Repo]:
    """Shorthand for `repos_from_links(extract_links(text), text)`."""
    return repos_from_links(extract_links(text), text)


def canonical_link(url: str) -> Link | None:
    """Classify one URL (with or without scheme) the way `extract_links` would, or None."""
    for found in _scan(url.strip()):
        return found.parsed.link()
    return None


# --- scanning -------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _scan(text: str) -> tuple[_Found, ...]:
    """Every link occurrence with its span (trailing punctuation excluded); cached because the
    pipeline scans the same abstract twice (links, then repo kinds)."""
    anchors = _anchor_positions(text)
    found: list[_Found] = []
    pos = 0
    while True:
        i = bisect.bisect_left(anchors, pos)
        if i == len(anchors):
            break
        last = anchors[bisect.bisect_right(anchors, anchors[i] + _ANCHOR_CHUNK) - 1]
        window_start = max(pos, anchors[i] - _ANCHOR_BEFORE)
        match = _CANDIDATE.search(text, window_start, last + _ANCHOR_AFTER)
        if match is None:
            pos = last + 1
            continue
        scheme = match.group("scheme")
        body_match = _BODY_RE.match(text, match.end())
        if body_match is None:
            pos = match.end() + 1
            continue
        body = body_match.group()
        if len(body) > _MAX_URL:
            pos = body_match.end()
            continue
        glued = _GLUED.search(body)
        if glued:
            body = body[: glued.start()]
        body = _trim(body)
        end = body_match.start() + len(body)
        pos = max(end, match.start() + 1)
        if _is_bare_host(body):
            joined = _JOIN_RE.match(text, end)
            rejoined = None
            if joined and _is_forge_host(body):
                tail = _trim(joined.group(1))
                rejoined = _parse(scheme, body.rstrip("/") + "/" + tail)
            if joined is not None and rejoined is not None and rejoined.kind == "repo":
                end = joined.start(1) + len(tail)
                found.append(_Found(rejoined, match.start(), end))
                pos = end
                continue
            if scheme is None:
                continue  # "hosted on github.com" in prose is no link
        parsed = _parse(scheme, body)
        if parsed is not None:
            found.append(_Found(parsed, match.start(), end))
    return tuple(found)


def _anchor_positions(text: str) -> list[int]:
    # Keeps positions, unlike str.lower() on some non-ASCII text; on an ASCII text the two
    # are the same, and lower() is ~6x faster than translate().
    lowered = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
    positions: list[int] = []
    for anchor in _ANCHORS:
        at = lowered.find(anchor)
        while at != -1:
            positions.append(at)
            at = lowered.find(anchor, at + 1)
    positions.sort()
    return positions


def _host_of(body: str) -> str:
    return body.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].lower().removeprefix("www.")


def _is_forge_host(body: str) -> bool:
    host = _host_of(body)
    return host in _FORGES or host == "gitlab.com" or host == _HF


def _is_bare_host(body: str) -> bool:
    """A big well-known host with nothing after it ("https://github.com/", "arxiv.org")."""
    host = _host_of(body)
    known = host in _FORGES or host in ("gitlab.com", _HF, "arxiv.org")
    return known and not body.partition("/")[2].strip("/")


def _trim(body: str) -> str:
    """Cut what trails a URL in prose: sentence punctuation, an unbalanced closing parenthesis,
    an HTML-escaped closing bracket or quote."""
    stop = _HTML_STOP.search(body)
    if stop:
        body = body[: stop.start()]
    while body:
        last = body[-1]
        if last in _TRAILING or (last == ")" and body.count(")") > body.count("(")):
            body = body[:-1]
        else:
            break
    return body


def _parse(scheme: str | None, body: str) -> _Parsed | None:
    body = _LATEX_ESCAPE.sub(r"\1", _trim(body)).replace("&amp;", "&")
    if not body:
        return None
    scheme = (scheme or "https").lower()
    try:
        parts = urlsplit(f"{scheme}://{body}")
        port = parts.port
    except ValueError:
        return None
    if "@" in parts.netloc:
        return None  # credentials, or "github.com@evil.example" trickery: not a link we keep
    host = _normalise_host(parts.hostname or "")
    if host is None:
        return None
    path = unquote(parts.path)
    if any(ch.isspace() or ord(ch) < 0x20 for ch in path):
        return None
    segments = [s for s in path.split("/") if s]

    # Proxies and mirrors first: they rewrite to the host they mirror.
    if segments and segments[0].lower() in _PROXY_PREFIXES and len(segments) > 1:
        inner_host = segments[1].lower()
        if inner_host in _PROXY_TARGETS:
            return _parse(None, "/".join(segments[1:]))
    if segments and segments[0].lower() in _PROXY_TARGETS and host not in _PROXY_TARGETS:
        return _parse(None, "/".join(segments))  # gitclone.com/github.com/a/b
    bare = host.removeprefix("www.")
    if bare == _GITHUB or bare in _GITHUB_MIRRORS or bare.startswith("github.com."):
        return _forge(_GITHUB, segments)
    if bare == "raw.githubusercontent.com":
        if len(segments) >= 2:
            rest = ["blob", *segments[2:]] if len(segments) > 2 else []
            return _forge(_GITHUB, [*segments[:2], *rest])
        return _forge(_GITHUB, [])
    if bare == "codeload.github.com":
        return _forge(_GITHUB, segments[:2])
    if bare == "api.github.com" and segments[:1] == ["repos"]:
        return _forge(_GITHUB, segments[1:3])
    if bare in _FORGES:
        return _forge(bare, segments)
    if bare == "gitlab.com" or bare.startswith("gitlab."):
        return _gitlab(bare, segments)
    if bare == _HF or bare in _HF_MIRRORS or _HF_MIRROR_RE.match(bare):
        return _huggingface(segments)
    return _site(scheme, host, port, parts.path, parts.query, parts.fragment, segments)


def _normalise_host(host: str) -> str | None:
    host = host.rstrip(".")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    host = host.lower()
    if _HOST_RE.match(host) or _IPV4_RE.match(host):
        return host
    return None


def _quote_segments(segments: Sequence[str]) -> str:
    return "/".join(quote(s, safe=_SEGMENT_SAFE) for s in segments)


def _forge(host: str, segments: list[str]) -> _Parsed:
    """github.com-style URLs: /owner/name[/rest]."""
    if segments and segments[0].lower() in _GITHUB_RESERVED:
        return _other(host, segments)  # a site page such as /topics/llm
    if not segments or not _OWNER_RE.match(segments[0]):
        return _other(host, [])
    owner = segments[0]
    name = segments[1].removesuffix(".git") if len(segments) > 1 else ""
    if not name or name in (".", "..") or not _NAME_RE.match(name):
        return _other(host, [owner], owner=owner)
    rest = segments[2:]
    return _code(host, owner, name, rest)


def _gitlab(host: str, segments: list[str]) -> _Parsed:
    """GitLab: /group/subgroup/project[/-/rest]; the owner may hold slashes."""
    if not segments or segments[0].lower() in _GITLAB_RESERVED:
        return _other(host, [])
    if "-" in segments:
        cut = segments.index("-")
        project, rest = segments[:cut], segments[cut + 1 :]
    else:
        cut = next(
            (i for i, s in enumerate(segments) if i >= 2 and s in _GITLAB_SUBPAGES),
            len(segments),
        )
        project, rest = segments[:cut], segments[cut:]
    if len(project) < 2 or not all(_NAME_RE.match(s) for s in project):
        return _other(host, segments[:1], owner=segments[0])
    name = project[-1].removesuffix(".git")
    if not name or name in (".", ".."):
        return _other(host, segments[:1], owner=segments[0])
    return _code(host, "/".join(project[:-1]), name, ["-", *rest] if rest else [])


def _code(host: str, owner: str, name: str, rest: list[str]) -> _Parsed:
    path = "/".join(s for s in rest if s != "-") or None
    url = _repo_root(host, owner, name) + ("/" + _quote_segments(rest) if rest else "")
    return _Parsed(url, host, "repo", owner, name, path, url.lower())


def _repo_root(host: str, owner: str, name: str) -> str:
    return f"https://{host}/{_quote_segments(owner.split('/'))}/{quote(name, safe=_SEGMENT_SAFE)}"


def _repo_key(host: str, owner: str, name: str) -> str:
    return f"{host}/{owner}/{name}".lower()


def _other(host: str, segments: list[str], owner: str | None = None) -> _Parsed:
    url = f"https://{host}/" + _quote_segments(segments)
    return _Parsed(url, host, "other", owner, None, None, url.lower())


def _huggingface(segments: list[str]) -> _Parsed:
    host = _HF
    head = segments[0].lower() if segments else ""
    kind: LinkKind
    if head in ("datasets", "spaces"):
        kind = "dataset" if head == "datasets" else "space"
        rest = segments[1:]
        if len(rest) >= 2 and rest[1] not in _HF_SUBPAGES:
            owner, name, tail = rest[0], rest[1], rest[2:]
        elif rest:
            owner, name, tail = None, rest[0], rest[1:]
        else:
            return _other(host, segments[:1])
        if (owner and not _NAME_RE.match(owner)) or not _NAME_RE.match(name):
            return _other(host, segments[:1])
        parts = [head, *([owner] if owner else []), name, *tail]
        return _hf_parsed(kind, parts, owner, name, "/".join(tail) or None)
    if head == "papers":
        paper = _ARXIV_ID.match(segments[1]) if len(segments) > 1 else None
        return _hf_parsed("paper", segments[:2], None, paper.group(1) if paper else None, None)
    if head == "docs":
        return _hf_parsed("docs", segments, None, None, None)
    if not segments or head in _HF_RESERVED:
        return _other(host, segments)  # a site page such as /blog/moe
    if len(segments) == 1 or not _NAME_RE.match(segments[1]) or not _NAME_RE.match(segments[0]):
        return _other(host, segments[:1], owner=segments[0])
    owner, name, tail = segments[0], segments[1], segments[2:]
    return _hf_parsed("model", segments, owner, name, "/".join(tail) or None)


def _hf_parsed(
    kind: LinkKind, segments: list[str], owner: str | None, name: str | None, path: str | None
) -> _Parsed:
    url = f"https://{_HF}/" + _quote_segments(segments)
    return _Parsed(url, _HF, kind, owner, name, path, url.lower())


def _site(
    scheme: str,
    host: str,
    port: int | None,
    raw_path: str,
    query: str,
    fragment: str,
    segments: list[str],
) -> _Parsed:
    """Any other site: a paper, docs, a project page or "other", kept close to as written."""
    bare = host.removeprefix("www.")
    kind: LinkKind = "project"
    owner = name = None
    if host in _PAPER_HOSTS or bare in _PAPER_HOSTS:
        kind = "paper"
        if bare.endswith("arxiv.org"):
            arxiv = _ARXIV_ID.search(raw_path)
            name = arxiv.group(1) if arxiv else None
    elif (
        bare.endswith((".readthedocs.io", ".readthedocs.org", ".gitbook.io"))
        or bare.startswith("docs.")
        or (segments and segments[0].lower() in _DOCS_SEGMENTS)
    ):
        kind = "docs"
    elif bare in _OTHER_HOSTS:
        kind = "other"
    elif bare.endswith((".github.io", ".gitlab.io")):
        # Owner and first path segment usually name the repo behind the page: a hint for later.
        owner = bare.split(".", 1)[0]
        name = segments[0] if segments else None
    netloc = (
        host
        if port is None or (scheme, port) in (("http", 80), ("https", 443))
        else (f"{host}:{port}")
    )
    path = quote(raw_path, safe=_PATH_SAFE)
    url = f"{scheme}://{netloc}{path}"
    if query:
        url += "?" + quote(query, safe=_PATH_SAFE + "?")
    # A fragment is an anchor on the same page (dropped) unless it is a client-side route.
    if fragment.startswith(("/", "!")):
        url += "#" + quote(fragment, safe=_PATH_SAFE + "?#")
    key = f"{bare}{':' + str(port) if port else ''}{path.rstrip('/')}"
    if query:
        key += "?" + query
    return _Parsed(url, host, kind, owner, name, None, key)


# --- official or mentioned ------------------------------------------------------------------

# Wording that presents a link as the paper's own code or artefacts.
_OFFICIAL = re.compile(
    r"\bcodes?\b|source[- ]code|implementation|\bavailable\b|\breleas(?:e|ed|es|ing)\b"
    r"|open[- ]?sourc(?:e|ed|es|ing)\b|\bpublicly\b|can be (?:found|accessed|downloaded)"
    r"|\b(?:placed|hosted|accessible|located)\s+(?:at|on|in)\b|\bwe\s+(?:provide|share)\b"
    r"|\b(?:github|repo(?:sitory)?|project(?:\s+page)?|homepage|website)\s*:",
    re.IGNORECASE,
)
# Wording that points at somebody else's code: a base, a baseline, a tool used.
_MENTIONED = re.compile(
    r"\b(?:built|build|builds|building|based|implemented|developed|runs?|running)\s+(?:up)?on\b"
    r"|\bon\s+top\s+of\b|\bextend(?:s|ed|ing)?\b|\bfork(?:ed)?\s+(?:of|from)\b"
    r"|\b(?:adapted|borrowed|derived|ported|modified)\s+from\b|\bus(?:e|es|ed|ing)\b"
    r"|\bcompar(?:e|ed|es|ing)\b|\bagainst\b|\bbaselines?\b|\bsuch\s+as\b|\be\.g\."
    r"|\bintegrat(?:e|ed|es|ing)\s+(?:in|into|with)\b|\bmerged\s+into\b|\bupstream"
    r"|\bprior\s+work\b|\bexisting\b|\bthird[- ]party\b|\bsee\s+also\b|\blike\b",
    re.IGNORECASE,
)
_BOUNDARY = re.compile(r"[.!?;](?=\s)|\n")
_ABBREVIATIONS = _words("e.g i.e al etc vs fig cf approx eq no resp")
_WORD_CHAR = re.compile(r"\w")
_MASK = "\x00"


def _repo_kinds(text: str) -> dict[str, RepoKind]:
    """Repo key -> "official" or "mentioned", from the sentences its occurrences sit in."""
    found = _scan(text)
    if not any(f.parsed.kind == "repo" for f in found):
        return {}
    # Blank out every URL so words inside them ("code-release") are not taken as wording,
    # and their dots are not taken as sentence ends.
    masked = list(text)
    for f in found:
        masked[f.start : f.end] = _MASK * (f.end - f.start)
    plain = "".join(masked)
    lower = plain.lower()
    folding = lower if folds(plain, lower) else None
    # Sentence ends: every candidate, and whether it is an abbreviation's dot asked only of
    # those next to a link (most abstracts have a dozen, and a link or two).
    candidates = list(_BOUNDARY.finditer(plain))
    starts = [m.start() for m in candidates]
    real: dict[int, bool] = {}

    def is_end(index: int) -> bool:
        known = real.get(index)
        if known is None:
            known = real[index] = not _is_abbreviation(plain, candidates[index])
        return known

    sentences: dict[int, _Wording] = {}
    kinds: dict[str, RepoKind] = {}
    for f in found:
        p = f.parsed
        if p.kind != "repo" or not p.owner or not p.name:
            continue
        key = _repo_key(p.host, p.owner, p.name)
        # The last sentence end before the link, and the first at or after its end.
        i = bisect.bisect_left(starts, f.start) - 1
        while i >= 0 and not is_end(i):
            i -= 1
        start = starts[i] + 1 if i >= 0 else 0
        j = bisect.bisect_left(starts, f.end)
        while j < len(starts) and not is_end(j):
            j += 1
        end = starts[j] if j < len(starts) else len(text)
        wording = sentences.get(start)
        if wording is None:
            wording = sentences[start] = _Wording(plain, start, end, folding)
        kind = wording.classify(f.start, f.end)
        if kinds.get(key) != "official":
            kinds[key] = kind
    return kinds


def _is_abbreviation(text: str, match: re.Match[str]) -> bool:
    if match.group() != ".":
        return False
    word = re.search(r"([A-Za-z.]+)$", text[max(0, match.start() - 8) : match.start()])
    return bool(word and word.group(1).lower().strip(".") in _ABBREVIATIONS)


class _Wording:
    """The wording of one sentence (URLs masked), read once for all the links in it.

    Reading the text before and after each link again was quadratic when one long sentence
    holds thousands of links. A URL is masked with a character no pattern matches, so a match
    never crosses one: the matches of the whole sentence that end before a link are exactly
    those of the text before it, and those starting after it are those of the text after it.
    """

    def __init__(self, plain: str, start: int, end: int, lower: str | None = None) -> None:
        """`lower`: `plain` lower-cased, when the case-insensitive patterns find the same there
        (`gate.folds`): they run folded on it, several times faster."""
        # `endpos`, not a longer read: the sentence ends there as a slice would.
        if lower is None:
            found = _OFFICIAL.finditer(plain, start, end)
            mentioned = _MENTIONED.finditer(plain, start, end)
        else:
            found = folded(_OFFICIAL).finditer(lower, start, end)
            mentioned = folded(_MENTIONED).finditer(lower, start, end)
        official = [m.span() for m in found]
        self.official_ends = [e for _, e in official]
        self.official_starts = [s for s, _ in official]
        self.mentioned_ends = [m.end() for m in mentioned]
        word = _WORD_CHAR.search(plain, start, end)
        self.first_word = word.start() if word else end

    def classify(self, link_start: int, link_end: int) -> RepoKind:
        """The wording nearest before the link decides; a link standing alone as its sentence
        (or introduced by no wording at all but followed by "... is our code") is official."""
        last_official = _last_end_before(self.official_ends, link_start)
        last_mentioned = _last_end_before(self.mentioned_ends, link_start)
        if last_official > last_mentioned:
            return "official"
        if last_mentioned >= 0:
            return "mentioned"
        lead_in = self.first_word >= link_start  # only spaces and punctuation before it
        after = bisect.bisect_left(self.official_starts, link_end) < len(self.official_starts)
        return "official" if lead_in or after else "mentioned"


def _last_end_before(ends: list[int], position: int) -> int:
    """The greatest of the sorted `ends` that is at most `position`, or -1."""
    i = bisect.bisect_right(ends, position)
    return ends[i - 1] if i else -1
