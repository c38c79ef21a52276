"""The vocabulary of user state: ops, the papers they name, note versions, and the records
`UserState` returns. Pure: no SQL, no I/O, so every layer (and sync) can share it.

An op is one user action (bookmark, read mark, tag, note, reading-list change) stamped with its
device's Hybrid Logical Clock; `Op.from_json` validates one read from anywhere else, so deriving
state never meets a surprise. docs/ops.md describes the kinds, payloads and merge rules.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from digest_tui.errors import ClockError, OpFormatError, OpsError
from digest_tui.state import positions
from digest_tui.state.clock import Stamp
from digest_tui.textsafe import CONTROL_CHARS

OP_FORMAT = 1

PAPER_KINDS = frozenset({"bookmark", "read", "tag_add", "tag_remove", "note_set"})
LIST_KINDS = frozenset({"list_create", "list_rename", "list_delete"})
MEMBER_KINDS = frozenset({"list_add", "list_remove", "list_move"})
KNOWN_KINDS = PAPER_KINDS | LIST_KINDS | MEMBER_KINDS

_OP_ID = re.compile(r"^([A-Za-z0-9_]{1,64}):([1-9][0-9]{0,17})$")
_KIND = re.compile(r"[a-z_]{1,40}")
# A stamp already in its canonical text (ASCII digits, no trailing newline): what every
# device writes. Anything else goes through Stamp.decode/encode, which normalises or refuses.
_CANONICAL_STAMP = re.compile(r"[0-9]{16}-[0-9]{6}-([A-Za-z0-9_]{1,64})")
# Kind sets check_payload tests for every op of a merge, built once instead of per call.
_NEEDS_PAPER = PAPER_KINDS | MEMBER_KINDS
_NEEDS_LIST = LIST_KINDS | MEMBER_KINDS
_TAG = re.compile(r"^[\w.+#/:@-]{1,64}$")
_MAX_TEXT = 1_000_000


class PaperRow(Protocol):
    """A stored paper as a mapping by column name (an sqlite3.Row or a dict)."""

    def __getitem__(self, key: str, /) -> Any: ...


# Slots: a merge holds every downloaded op until it is applied (100,000 in a fresh machine's
# first sync); without a __dict__ each op and its reference take a third of the memory.
@dataclass(frozen=True, slots=True)
class PaperRef:
    """How an op names its paper: enough to find it on a machine that keys it differently."""

    id: str | None
    title_key: str | None
    arxiv: str | None = None

    @classmethod
    def of_row(cls, row: PaperRow) -> PaperRef:
        return cls(row["id"], row["title_key"], row["arxiv_id"])

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title_key": self.title_key, "arxiv": self.arxiv}


@dataclass(frozen=True, slots=True)
class Op:
    op_id: str
    device: str
    counter: int
    hlc: str
    kind: str
    paper: PaperRef | None
    list_id: str | None
    payload: Mapping[str, Any]
    created_at: str

    def to_json(self) -> dict[str, Any]:
        """The wire form that sync writes to segments."""
        return {
            "v": OP_FORMAT,
            "op_id": self.op_id,
            "device": self.device,
            "counter": self.counter,
            "hlc": self.hlc,
            "kind": self.kind,
            "paper": self.paper.to_json() if self.paper else None,
            "list": self.list_id,
            "payload": dict(self.payload),
            "created_at": self.created_at,
        }

    @classmethod
    def from_json(cls, data: Any, shared: dict[Any, Any] | None = None) -> Op:
        """Validate an op read from elsewhere; raise OpFormatError naming what is wrong.

        `shared` (a dict the caller keeps for a batch of ops) makes ops that name the same
        device, kind or paper, or carry the same one-field payload, hold one object for it
        instead of one copy each: a merge holds its downloaded ops until it applies them.
        Payloads are never changed once read, so sharing them is safe.
        """
        # A merge validates every op it reads (100,000 in a fresh machine's first sync): the
        # checks below test `type(x) is dict` before the far slower `isinstance(x, Mapping)`
        # (an ABC check), and read the fields with one bound `get`.
        if type(data) is not dict and not isinstance(data, Mapping):
            raise OpFormatError(f"an op must be a JSON object, got {type(data).__name__}")
        get = data.get
        op_id = get("op_id")
        where = f"op {op_id!r}"
        if not isinstance(op_id, str) or not (match := _OP_ID.match(op_id)):
            raise OpFormatError(f"{where}: op_id must be '<device>:<counter>'")
        if get("v", OP_FORMAT) != OP_FORMAT:
            raise OpFormatError(f"{where}: op format {get('v')!r} is not {OP_FORMAT}")
        device: str = match.group(1)
        counter = int(match.group(2))
        if get("device") != device or get("counter") != counter:
            raise OpFormatError(f"{where}: device/counter do not match op_id")
        raw_hlc = get("hlc")
        canonical = _CANONICAL_STAMP.fullmatch(raw_hlc) if isinstance(raw_hlc, str) else None
        if canonical is not None:
            hlc: str = canonical.group(0)  # the whole text: fullmatch
            stamp_device = canonical.group(1)
        else:
            try:
                stamp = Stamp.decode(raw_hlc)  # type: ignore[arg-type]
            except ClockError as exc:
                raise OpFormatError(f"{where}: {exc}") from exc
            hlc, stamp_device = stamp.encode(), stamp.device
        if stamp_device != device:
            raise OpFormatError(f"{where}: stamp device {stamp_device!r} is not {device!r}")
        kind = get("kind")
        if not isinstance(kind, str) or (kind not in KNOWN_KINDS and not _KIND.fullmatch(kind)):
            raise OpFormatError(f"{where}: bad kind {kind!r}")
        payload = get("payload") or {}
        if type(payload) is not dict and not isinstance(payload, Mapping):
            raise OpFormatError(f"{where}: payload must be an object")
        created_at = get("created_at")
        if not isinstance(created_at, str) or len(created_at) > 64:
            raise OpFormatError(f"{where}: bad created_at")
        paper = _paper_ref_from_json(get("paper"), where, shared)
        list_id = get("list")
        if list_id is not None and (not isinstance(list_id, str) or not 0 < len(list_id) <= 64):
            raise OpFormatError(f"{where}: bad list id {list_id!r}")
        if shared is not None:
            device = shared.setdefault(device, device)
            kind = shared.setdefault(kind, kind)
            if len(payload) == 1 and type(payload) is dict:
                # {"value": true}, {"tag": "to-read"}: most payloads repeat. The value's type is
                # part of the key, so {"value": 1} never stands in for {"value": true}.
                ((name, value),) = payload.items()
                if type(value) is bool or type(value) is str:
                    payload = shared.setdefault((name, value, type(value)), payload)
        op = make_op(op_id, device, counter, hlc, kind, paper, list_id, payload, created_at)
        if kind in KNOWN_KINDS:
            check_payload(op, where)
        return op


def _op_builder() -> Any:
    """`make_op`: builds an Op by setting its slots through their descriptors.

    A frozen dataclass's __init__ sets each field with `object.__setattr__` (to get past its
    own refusing __setattr__): 0.64 µs per Op against 0.38 µs setting the slots directly, ~4 %
    of a 100,000-op merge's CPU (bench_sync --merge-only, 10 paired runs). The result is the
    same frozen Op (equal to it, refusing assignment).
    """
    names = [f.name for f in dataclasses.fields(Op)]
    expected = [
        "op_id", "device", "counter", "hlc", "kind", "paper", "list_id", "payload", "created_at"
    ]  # fmt: skip
    if names != expected:  # a field was added or moved: update the builder below with it
        raise RuntimeError(f"Op fields changed: {names}")
    (s_id, s_dev, s_ctr, s_hlc, s_kind, s_paper, s_list, s_pay, s_created) = (
        getattr(Op, name).__set__ for name in names
    )
    new = object.__new__

    def make_op(
        op_id: str,
        device: str,
        counter: int,
        hlc: str,
        kind: str,
        paper: PaperRef | None,
        list_id: str | None,
        payload: Mapping[str, Any],
        created_at: str,
    ) -> Op:
        op = new(Op)
        s_id(op, op_id)
        s_dev(op, device)
        s_ctr(op, counter)
        s_hlc(op, hlc)
        s_kind(op, kind)
        s_paper(op, paper)
        s_list(op, list_id)
        s_pay(op, payload)
        s_created(op, created_at)
        return op

    return make_op


make_op = _op_builder()


def _ref_part(value: Any) -> bool:
    """Whether `value` may be one part of a paper reference: absent, or 1-300 characters."""
    return value is None or (isinstance(value, str) and 0 < len(value) <= 300)


def _paper_ref_from_json(
    raw: Any, where: str, shared: dict[Any, Any] | None = None
) -> PaperRef | None:
    if raw is None:
        return None
    if type(raw) is dict:  # what JSON gives: one pass with no error to word
        ref_id, key, arxiv = raw.get("id"), raw.get("title_key"), raw.get("arxiv")
        # `_ref_part`'s test written out: this runs for every op of a merge.
        if (
            (ref_id is not None or key is not None)
            and (ref_id is None or (type(ref_id) is str and 0 < len(ref_id) <= 300))
            and (key is None or (type(key) is str and 0 < len(key) <= 300))
            and (arxiv is None or (type(arxiv) is str and 0 < len(arxiv) <= 300))
        ):
            if shared is None:
                return PaperRef(ref_id, key, arxiv)
            # Looked up by a tuple of its (checked) parts: hashing a tuple of strings is C,
            # hashing the dataclass is Python.
            parts = ("paper", ref_id, key, arxiv)
            ref: PaperRef | None = shared.get(parts)
            if ref is None:
                ref = shared[parts] = PaperRef(ref_id, key, arxiv)
            return ref
    if not isinstance(raw, Mapping):
        raise OpFormatError(f"{where}: paper must be an object")
    values = []
    for name in ("id", "title_key", "arxiv"):
        value = raw.get(name)
        if not _ref_part(value):
            raise OpFormatError(f"{where}: bad paper {name} {value!r}")
        values.append(value)
    if values[0] is None and values[1] is None:
        raise OpFormatError(f"{where}: paper needs an id or a title_key")
    return PaperRef(*values)


def check_payload(op: Op, where: str) -> None:
    """Known kinds get a strict shape, so deriving state never meets a surprise."""
    kind, p = op.kind, op.payload
    if kind in _NEEDS_PAPER and op.paper is None:
        raise OpFormatError(f"{where}: {kind} needs a paper")
    if kind in _NEEDS_LIST and op.list_id is None:
        raise OpFormatError(f"{where}: {kind} needs a list")
    if kind in PAPER_KINDS and op.list_id is not None:
        raise OpFormatError(f"{where}: {kind} takes no list")
    if kind in ("bookmark", "read") and not isinstance(p.get("value"), bool):
        raise OpFormatError(f"{where}: {kind} needs a boolean value")
    if kind in ("tag_add", "tag_remove"):
        tag = p.get("tag")
        if not isinstance(tag, str) or not tag or len(tag) > 200 or CONTROL_CHARS.search(tag):
            raise OpFormatError(f"{where}: bad tag {tag!r}")
    if kind in ("tag_remove", "list_remove", "list_delete"):
        _check_op_ids(p.get("removes"), where, "removes")
    if kind == "note_set":
        text = p.get("text")
        if not isinstance(text, str) or len(text) > _MAX_TEXT:
            raise OpFormatError(f"{where}: note text must be a string under 1 MB")
        _check_op_ids(p.get("replaces"), where, "replaces")
    if kind in ("list_create", "list_rename"):
        name = p.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise OpFormatError(f"{where}: bad list name {name!r}")
    if kind in ("list_add", "list_move"):
        position = p.get("position")
        if not isinstance(position, str) or len(position) > 200 or not positions.valid(position):
            raise OpFormatError(f"{where}: bad position {position!r}")


def _check_op_ids(value: Any, where: str, name: str) -> None:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and _OP_ID.match(v) for v in value
    ):
        raise OpFormatError(f"{where}: {name} must be a list of op ids")


def normalize_tag(text: str) -> str:
    """Tags are case-insensitive words: 'To-Read ' becomes 'to-read'; spaces are refused."""
    tag = text.strip().lower()
    if not _TAG.match(tag):
        raise OpsError(
            f"invalid tag {text!r}: use 1-64 letters, digits or - _ . + # / : @ (no spaces)"
        )
    return tag


# One encoder for every call: json.dumps with these options builds a new JSONEncoder each time,
# which was a third of the cost of a small payload's text in a 100,000-op merge.
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    return _CANONICAL.encode(value)


@dataclass(frozen=True)
class NoteVersion:
    version: str  # op_id of the edit
    hlc: str
    device: str
    created_at: str
    text: str  # '' = this version deletes the note


# ---- what UserState returns ----------------------------------------------------------------


@dataclass(frozen=True)
class NoteState:
    text: str | None  # the note shown (None: no note)
    version: str | None  # its version id; pass as `replaces` when saving an edit of it
    versions: list[NoteVersion]  # every current version, the shown one first

    @property
    def conflicts(self) -> list[NoteVersion]:
        """Versions made concurrently with the shown one, waiting for the user to pick."""
        return [v for v in self.versions if v.version != self.version]


@dataclass(frozen=True)
class NoteResult:
    changed: bool
    version: str | None  # the version just written (None when nothing changed)
    conflicts: list[NoteVersion]  # other current versions: concurrent edits not replaced


@dataclass(frozen=True)
class ListInfo:
    list_id: str
    name: str
    count: int


@dataclass(frozen=True)
class ListEntry:
    rowid: int
    id: str
    title: str
    published: str | None
    position: str


@dataclass(frozen=True)
class ListView:
    info: ListInfo
    entries: list[ListEntry]
    pending: int = 0  # members whose paper is not in this library (yet)


@dataclass(frozen=True)
class StateCounts:
    """What the navigation tree shows beside each node."""

    total: int
    bookmarked: int
    unread: int
    notes: int
    new: int
    tags: dict[str, int] = field(default_factory=dict)
    lists: list[ListInfo] = field(default_factory=list)
