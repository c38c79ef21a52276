"""One line of `papers --format jsonl`: the JSON contract's paper object as text, spliced.

`paper_view.paper_json` builds the contract's dict from a stored row; `json.dumps` then encodes
it again. For a 100,000-paper dump that is most of the time (cProfile: the encoder ~48 us, the
decoder ~18 us, the dict ~15 us a paper), and almost all of it re-creates text the store
already holds: the JSON columns (hardware, topics, authors, ...) are written by the store with
`json.dumps(value, ensure_ascii=False)`, exactly what the contract's encoder prints for them.

So the line is assembled from the contract's keys, in the contract's order: the row's scalars
encoded one by one (C string encoder), the stored JSON columns spliced as they are, and the
user's state encoded as small values. A column is spliced only when its text is certainly what
re-encoding its value would give:

- a `\\u` escape may come from a writer with `ensure_ascii=True` (the store writes `topics`
  so): such a column is decoded and encoded again;
- `repos`, `links` and `topic_evidence` are reshaped by the contract (defaults filled, empty
  link parts left out, match keys in a fixed order). The current enricher writes them in that
  shape already (tests/unit/test_paper_jsonl.py proves it on every fixture paper), so a row
  whose `enrich_fp` is the current fingerprint is spliced; any other row (enriched by another
  version, or by none) is checked object by object and rebuilt by `paper_json`'s rules when
  its shape differs.

The line equals `dumps_json(paper_view(...).to_json())` byte for byte;
tests/unit/test_paper_jsonl.py checks it on every fixture paper, a synthetic library and
crafted rows (unicode, control characters, missing fields, old shapes, user state).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring  # what JSONEncoder(ensure_ascii=False) uses for str
from typing import TYPE_CHECKING, Any

from digest_tui.textsafe import escape_unsafe_in_json

if TYPE_CHECKING:
    from digest_tui.config import Machine
    from digest_tui.machine_fits import MachineFits
    from digest_tui.store.library import Library

# The columns the line reads: what `paper_json` (the fallback) reads too. The line unpacks a
# row by position, in this order.
_NAMES = (
    "id",
    "title",
    "abstract",
    "published",
    "upvotes",
    "topics",
    "topic_evidence",
    "repos",
    "hardware",
    "arxiv_id",
    "links",
    "authors_count",
    "authors",
    "organization",
    "organization_name",
    "keywords",
    "categories",
    "project_page",
    "withdrawn",
    "source",
    "first_seen",
    "enrich_fp",
)
COLUMNS = "p.rowid AS rowid, " + ", ".join(f"p.{name}" for name in _NAMES)

_encode = json.JSONEncoder(ensure_ascii=False).encode

_REPO_KEYS = (
    "url",
    "host",
    "owner",
    "name",
    "path",
    "kind",
    "source",
    "framework",
    "notes",
    "stars",
)
_MATCH_KEYS = ("phrase", "field", "start", "end")
# The learned reader's evidence carries one key more (models.TopicEvidence.by).
_READER_MATCH_KEYS = (*_MATCH_KEYS, "by")
_LINK_HEAD = ("url", "host", "kind")
_LINK_PARTS = ("owner", "name", "path")


def safe_json_text(text: str) -> str:
    """`text` (JSON from the compact encoder) with unsafe characters as `\\uXXXX` escapes.

    json already escapes C0 controls, so in ASCII text only DEL can be unsafe; `isascii` is a
    flag check that spares most lines the regex scan."""
    if text.isascii() and "\x7f" not in text:
        return text
    return escape_unsafe_in_json(text)


def _value(value: Any) -> str:
    """A nullable scalar of the row as the contract's encoder prints it."""
    if value is None:
        return "null"
    if type(value) is str:
        return encode_basestring(value)
    if type(value) is int:
        return int.__repr__(value)  # what the encoder prints for an int
    return _encode(value)


def _small(values: Sequence[Any]) -> str:
    """A short list (tags, digests, lists) as the encoder prints it; most are empty. A list of
    strings is joined here as the encoder joins it (`", "`), without the encoder's machinery
    (~6 us a paper for the digests every paper has)."""
    if not values:
        return "[]"
    if all(type(v) is str for v in values):
        return "[" + ", ".join(map(encode_basestring, values)) + "]"
    return _encode(list(values))


def _column(text: str | None) -> str:
    """A stored JSON column as the encoder would print its value (see the module's doc)."""
    if text is None:
        return "null"
    if "\\u" in text:
        return _encode(json.loads(text))
    return text


def _is_contract_link(link: Mapping[str, Any]) -> bool:
    keys = tuple(link)
    if keys[:3] != _LINK_HEAD:
        return False
    parts = keys[3:]
    # The optional parts, each at most once, in the contract's order, never null.
    return parts == tuple(k for k in _LINK_PARTS if k in parts) and all(
        link[k] is not None for k in parts
    )


def _reshaped_columns(
    evidence_text: str, repos_text: str, links_text: str, current: bool
) -> tuple[str, str, str]:
    """`topic_evidence`, `repos` and `links` as the contract prints them; `current`: the row's
    `enrich_fp` is the current enricher's."""
    if current:
        return _column(evidence_text), _column(repos_text), _column(links_text)
    if evidence_text == "{}" and repos_text == "[]" and links_text == "[]":
        return evidence_text, repos_text, links_text
    evidence, repos, links = json.loads(f"[{evidence_text},{repos_text},{links_text}]")
    from digest_tui.paper_view import evidence_json, link_json, repo_json

    if not all(
        tuple(m) == _MATCH_KEYS or (tuple(m) == _READER_MATCH_KEYS and m["by"] == "reader")
        for ms in evidence.values()
        for m in ms
    ):
        evidence_text = _encode(evidence_json(evidence))
    else:
        evidence_text = _column(evidence_text)
    if not all(tuple(r) == _REPO_KEYS for r in repos):
        repos_text = _encode([repo_json(r) for r in repos])
    else:
        repos_text = _column(repos_text)
    if not all(_is_contract_link(link) for link in links):
        links_text = _encode([link_json(link) for link in links])
    else:
        links_text = _column(links_text)
    return evidence_text, repos_text, links_text


def paper_jsonl_line(
    library: Library,
    row: sqlite3.Row,
    machines: Sequence[Machine] = (),
    *,
    state: Mapping[str, Any],
    digests: Sequence[str],
    fits: MachineFits | None = None,
) -> str:
    """`dumps_json(paper_json(library, row, machines, state=..., digests=...))`, spliced.

    With machines configured, a paper with hardware also gets `machine_fit`: from `fits`
    (one `MachineFits` for the whole dump), or through `paper_json` when there is none or the
    stored suggestion does not validate."""
    enricher = library.enricher
    # By position (COLUMNS' order): sqlite3.Row looks each name up by comparing it with every
    # column's, and a dict of the row costs ~2.5 us a paper to build.
    (
        _rowid,
        paper_id,
        title,
        abstract,
        published,
        upvotes,
        topics,
        topic_evidence,
        repos,
        hardware,
        arxiv_id,
        links,
        authors_count,
        authors,
        organization,
        organization_name,
        keywords,
        categories,
        project_page,
        withdrawn,
        source,
        _first_seen,
        enrich_fp,
    ) = row
    current_fp = enricher.fingerprint if enricher is not None else None
    current = current_fp is not None and enrich_fp == current_fp
    machine_fit = ""
    # Empty hardware text is null, as paper_json reads it: no fit either way.
    if machines and hardware and enricher is not None:
        fit_text = fits.text(hardware, current=current) if fits is not None else None
        if fit_text is None:
            from digest_tui.paper_view import paper_json

            paper = paper_json(library, row, machines, state=state, digests=digests)
            return safe_json_text(_encode(paper))
        machine_fit = ', "machine_fit": ' + fit_text
    evidence, repos, links = _reshaped_columns(topic_evidence, repos, links, current)
    v = _value
    conflicts = state.get("note_conflicts")
    line = "".join(
        (
            '{"id": ',
            encode_basestring(paper_id),
            ', "title": ',
            encode_basestring(title),
            ', "abstract": ',
            encode_basestring(abstract),
            ', "published": ',
            v(published),
            ', "upvotes": ',
            v(upvotes),
            ', "topics": ',
            _column(topics),
            ', "topic_evidence": ',
            evidence,
            ', "repos": ',
            repos,
            ', "hardware": ',
            _column(hardware or None),  # as paper_json: empty text is null
            ', "bookmarked": ',
            "true" if state["bookmarked"] else "false",
            ', "tags": ',
            _small(state["tags"]),
            ', "read": ',
            "true" if state["read"] else "false",
            ', "arxiv_id": ',
            v(arxiv_id),
            ', "links": ',
            links,
            ', "authors_count": ',
            v(authors_count),
            ', "authors": ',
            _column(authors),
            ', "organization": ',
            v(organization),
            ', "organization_name": ',
            v(organization_name),
            ', "keywords": ',
            _column(keywords),
            ', "categories": ',
            _column(categories),
            ', "project_page": ',
            v(project_page),
            ', "withdrawn": ',
            "true" if withdrawn else "false",
            ', "digests": ',
            _small(digests),
            ', "source": ',
            encode_basestring(source),
            ', "note": ',
            v(state.get("note")),
            ', "note_conflicts": ',
            _encode([_conflict(c) for c in conflicts]) if conflicts else "[]",
            ', "lists": ',
            _small(state.get("lists", ())),
            machine_fit,
            "}",
        )
    )
    return safe_json_text(line)


def _conflict(c: Mapping[str, Any]) -> dict[str, Any]:
    """`NoteConflict.to_json`'s keys in its order."""
    return {
        "version": c["version"],
        "device": c["device"],
        "created_at": c["created_at"],
        "text": c["text"],
    }
