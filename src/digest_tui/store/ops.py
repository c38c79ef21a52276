"""User state as an append-only log of operations, and the state derived from it.

Every user action (bookmark, read mark, tag, note, reading list) is stored as an op stamped
with this device's Hybrid Logical Clock; sync exchanges ops between devices and calls
`apply_ops` with the remote ones. The tables `paper_state`, `paper_tags`, `note_versions`,
`lists` and `list_items` are derived: whenever ops arrive, the papers and lists they touch are
recomputed from *all* of their ops. Derived state is therefore a deterministic function of the
set of ops, so applying the same ops in any order, any number of times, converges.

Merge rules (docs/ops.md has the full story):
- bookmark, read, a list's name and its deletion: last-writer-wins registers (greatest stamp);
- tags and list membership: add-wins observed-remove sets (a remove names the adds it saw);
- notes: each edit names the versions it replaces; concurrent edits stay side by side;
- list order: a fractional position per member, last-writer-wins.

An op names its paper by id, title key and arXiv id, because the same paper can carry another
id on another machine; `resolve_ref` finds the local paper. An op whose paper is not in the
library yet is kept with `paper_rowid` NULL and applied when the paper is imported
(`attach_pending`, called by the library).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from digest_tui.errors import ClockError, OpFormatError, OpsError
from digest_tui.ids import normalize_arxiv_id
from digest_tui.store import positions
from digest_tui.store.db import transaction
from digest_tui.sync.clock import HybridClock, Stamp, check_device_id, system_wall_ms
from digest_tui.textsafe import CONTROL_CHARS

OP_FORMAT = 1

PAPER_KINDS = frozenset({"bookmark", "read", "tag_add", "tag_remove", "note_set"})
LIST_KINDS = frozenset({"list_create", "list_rename", "list_delete"})
MEMBER_KINDS = frozenset({"list_add", "list_remove", "list_move"})
KNOWN_KINDS = PAPER_KINDS | LIST_KINDS | MEMBER_KINDS

_OP_ID = re.compile(r"^([A-Za-z0-9_]{1,64}):([1-9][0-9]{0,17})$")
_TAG = re.compile(r"^[\w.+#/:@-]{1,64}$")
_MAX_TEXT = 1_000_000


@dataclass(frozen=True)
class PaperRef:
    """How an op names its paper: enough to find it on a machine that keys it differently."""

    id: str | None
    title_key: str | None
    arxiv: str | None = None

    @classmethod
    def of_row(cls, row: Mapping[str, Any] | sqlite3.Row) -> PaperRef:
        return cls(row["id"], row["title_key"], row["arxiv_id"])

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title_key": self.title_key, "arxiv": self.arxiv}


@dataclass(frozen=True)
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
    def from_json(cls, data: Any) -> Op:
        """Validate an op read from elsewhere; raise OpFormatError naming what is wrong."""
        if not isinstance(data, Mapping):
            raise OpFormatError(f"an op must be a JSON object, got {type(data).__name__}")
        op_id = data.get("op_id")
        where = f"op {op_id!r}"
        if not isinstance(op_id, str) or not (match := _OP_ID.match(op_id)):
            raise OpFormatError(f"{where}: op_id must be '<device>:<counter>'")
        if data.get("v", OP_FORMAT) != OP_FORMAT:
            raise OpFormatError(f"{where}: op format {data.get('v')!r} is not {OP_FORMAT}")
        device, counter = match.group(1), int(match.group(2))
        if data.get("device") != device or data.get("counter") != counter:
            raise OpFormatError(f"{where}: device/counter do not match op_id")
        try:
            stamp = Stamp.decode(data.get("hlc"))  # type: ignore[arg-type]
        except ClockError as exc:
            raise OpFormatError(f"{where}: {exc}") from exc
        if stamp.device != device:
            raise OpFormatError(f"{where}: stamp device {stamp.device!r} is not {device!r}")
        kind = data.get("kind")
        if not isinstance(kind, str) or not re.fullmatch(r"[a-z_]{1,40}", kind):
            raise OpFormatError(f"{where}: bad kind {kind!r}")
        payload = data.get("payload") or {}
        if not isinstance(payload, Mapping):
            raise OpFormatError(f"{where}: payload must be an object")
        created_at = data.get("created_at")
        if not isinstance(created_at, str) or len(created_at) > 64:
            raise OpFormatError(f"{where}: bad created_at")
        paper = _paper_ref_from_json(data.get("paper"), where)
        list_id = data.get("list")
        if list_id is not None and (not isinstance(list_id, str) or not 0 < len(list_id) <= 64):
            raise OpFormatError(f"{where}: bad list id {list_id!r}")
        op = cls(op_id, device, counter, stamp.encode(), kind, paper, list_id, payload, created_at)
        if kind in KNOWN_KINDS:
            _check_payload(op, where)
        return op


def _paper_ref_from_json(raw: Any, where: str) -> PaperRef | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise OpFormatError(f"{where}: paper must be an object")
    values = []
    for key in ("id", "title_key", "arxiv"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not 0 < len(value) <= 300):
            raise OpFormatError(f"{where}: bad paper {key} {value!r}")
        values.append(value)
    if values[0] is None and values[1] is None:
        raise OpFormatError(f"{where}: paper needs an id or a title_key")
    return PaperRef(*values)


def _check_payload(op: Op, where: str) -> None:
    """Known kinds get a strict shape, so deriving state never meets a surprise."""
    kind, p = op.kind, op.payload
    if kind in PAPER_KINDS | MEMBER_KINDS and op.paper is None:
        raise OpFormatError(f"{where}: {kind} needs a paper")
    if kind in LIST_KINDS | MEMBER_KINDS and op.list_id is None:
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


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _iso(wall_ms: int) -> str:
    return dt.datetime.fromtimestamp(wall_ms / 1000, dt.UTC).isoformat(timespec="milliseconds")


# ---- this device ---------------------------------------------------------------------------


def device_id(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
    if row is None:
        raise OpsError("this library has no device id (was migration 002 applied?)")
    return str(row[0])


def _load_clock(conn: sqlite3.Connection, wall: Callable[[], int]) -> tuple[HybridClock, int]:
    device = device_id(conn)
    row = conn.execute(
        "SELECT wall_ms, counter, last_seq FROM clock WHERE device = ?", (device,)
    ).fetchone()
    if row is None:
        conn.execute("INSERT INTO clock (device) VALUES (?)", (device,))
        row = (0, 0, 0)
    # Never reuse a counter, even if the clock row was lost and ops of ours came back.
    top = conn.execute("SELECT max(counter) FROM ops WHERE device = ?", (device,)).fetchone()[0]
    last_seq = max(int(row[2]), int(top or 0))
    return HybridClock(device, wall=wall, last=(int(row[0]), int(row[1]))), last_seq


def _save_clock(conn: sqlite3.Connection, clock: HybridClock, last_seq: int) -> None:
    conn.execute(
        "UPDATE clock SET wall_ms = ?, counter = ?, last_seq = ? WHERE device = ?",
        (clock.wall_ms, clock.counter, last_seq, clock.device),
    )


# ---- writing ops ---------------------------------------------------------------------------


@dataclass
class _Affected:
    papers: set[int] = field(default_factory=set)
    lists: set[str] = field(default_factory=set)

    def add(self, op: Op, paper_rowid: int | None) -> None:
        if op.list_id is not None:
            self.lists.add(op.list_id)
        elif paper_rowid is not None:
            self.papers.add(paper_rowid)


def _insert(
    conn: sqlite3.Connection, op: Op, origin: str, synced: bool, paper_rowid: int | None
) -> None:
    ref = op.paper
    conn.execute(
        "INSERT INTO ops (op_id, device, counter, hlc, kind, paper_id, title_key, arxiv_id, "
        "list_id, payload, created_at, received_at, origin, synced, paper_rowid) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            op.op_id,
            op.device,
            op.counter,
            op.hlc,
            op.kind,
            ref.id if ref else None,
            ref.title_key if ref else None,
            ref.arxiv if ref else None,
            op.list_id,
            canonical_json(dict(op.payload)),
            op.created_at,
            _iso(system_wall_ms()),
            origin,
            int(synced),
            paper_rowid,
        ),
    )


class LocalWriter:
    """Makes this device's ops inside the caller's open transaction.

    `emit` stamps, numbers and stores an op; `finish` recomputes the derived state it touched
    and saves the clock. The caller commits, so one user action is one transaction.
    """

    def __init__(self, conn: sqlite3.Connection, wall: Callable[[], int] = system_wall_ms):
        if not conn.in_transaction:
            raise OpsError("LocalWriter needs an open transaction")
        self.conn = conn
        self.wall = wall
        self.clock, self.last_seq = _load_clock(conn, wall)
        self.affected = _Affected()
        self.ops: list[Op] = []

    def emit(
        self,
        kind: str,
        payload: Mapping[str, Any],
        *,
        paper: Mapping[str, Any] | sqlite3.Row | None = None,
        list_id: str | None = None,
    ) -> Op:
        stamp = self.clock.now()
        self.last_seq += 1
        device = self.clock.device
        op = Op(
            op_id=f"{device}:{self.last_seq}",
            device=device,
            counter=self.last_seq,
            hlc=stamp.encode(),
            kind=kind,
            paper=PaperRef.of_row(paper) if paper is not None else None,
            list_id=list_id,
            payload=dict(payload),
            created_at=_iso(self.wall()),
        )
        _check_payload(op, f"op {op.op_id!r}")
        rowid = int(paper["rowid"]) if paper is not None else None
        _insert(self.conn, op, "local", False, rowid)
        self.affected.add(op, rowid)
        self.ops.append(op)
        return op

    def finish(self) -> list[Op]:
        _recompute(self.conn, self.affected)
        _save_clock(self.conn, self.clock, self.last_seq)
        return self.ops


# ---- applying ops from anywhere ------------------------------------------------------------


@dataclass
class ApplyReport:
    applied: int = 0  # new ops stored
    duplicates: int = 0  # ops already known (same content)
    pending: int = 0  # new ops whose paper is not in this library yet
    papers: set[int] = field(default_factory=set)  # rowids whose state was recomputed
    lists: set[str] = field(default_factory=set)


def apply_ops(
    conn: sqlite3.Connection,
    ops: Iterable[Op | Mapping[str, Any]],
    *,
    wall: Callable[[], int] = system_wall_ms,
) -> ApplyReport:
    """Store ops (from sync, or any source) and update the derived state they touch.

    Idempotent and order-independent: an op already known is skipped; derived state is
    recomputed from all ops of each affected paper and list. Dicts are validated with
    `Op.from_json`. Runs in its own transaction (all or nothing) unless the caller has one
    open. The local clock moves past every stamp seen, so an edit made here afterwards wins
    over everything applied, whatever the machines' wall clocks say. An op with the id of a
    known op but other content raises OpsError: two devices share an id, or data is corrupt.
    """
    with transaction(conn):
        report = _apply(conn, ops, wall)
    return report


def _apply(
    conn: sqlite3.Connection, ops: Iterable[Op | Mapping[str, Any]], wall: Callable[[], int]
) -> ApplyReport:
    report = ApplyReport()
    affected = _Affected()
    clock, last_seq = _load_clock(conn, wall)
    newest: Stamp | None = None
    for item in ops:
        op = item if isinstance(item, Op) else Op.from_json(item)
        existing = conn.execute(
            "SELECT hlc, kind, paper_id, title_key, arxiv_id, list_id, payload "
            "FROM ops WHERE op_id = ?",
            (op.op_id,),
        ).fetchone()
        if existing is not None:
            if tuple(existing) != _identity(op):
                raise OpsError(
                    f"op {op.op_id} arrived with different content than the stored copy "
                    "(two devices with one id, or corrupt data); nothing was applied"
                )
            report.duplicates += 1
            continue
        rowid = resolve_ref(conn, op.paper) if op.paper is not None else None
        own = op.device == clock.device
        if own:
            # Our own op coming back (e.g. this library was restored): never reuse its counter.
            last_seq = max(last_seq, op.counter)
        _insert(conn, op, "local" if own else "remote", True, rowid)
        report.applied += 1
        if op.paper is not None and rowid is None:
            report.pending += 1
        affected.add(op, rowid)
        stamp = Stamp.decode(op.hlc)
        if newest is None or stamp > newest:
            newest = stamp
    if newest is not None:
        clock.receive(newest)
    _recompute(conn, affected)
    _save_clock(conn, clock, last_seq)
    report.papers, report.lists = affected.papers, affected.lists
    return report


def replace_op(
    conn: sqlite3.Connection, op: Op, *, wall: Callable[[], int] = system_wall_ms
) -> ApplyReport:
    """Put `op` in place of the stored op with its id but other content, and recompute.

    Only sync calls this, when the device that owns the op id vouches for `op` as its genuine
    version and the stored one came from another writer claiming that device's counter
    (docs/sync.md, "Two writers for one device"). Runs in the caller's transaction if open.
    """
    report = ApplyReport()
    with transaction(conn):
        affected = _Affected()
        old = conn.execute(
            "SELECT paper_rowid, list_id FROM ops WHERE op_id = ?", (op.op_id,)
        ).fetchone()
        if old is not None:
            if old[1] is not None:
                affected.lists.add(old[1])
            elif old[0] is not None:
                affected.papers.add(int(old[0]))
            conn.execute("DELETE FROM ops WHERE op_id = ?", (op.op_id,))
        clock, last_seq = _load_clock(conn, wall)
        rowid = resolve_ref(conn, op.paper) if op.paper is not None else None
        own = op.device == clock.device
        _insert(conn, op, "local" if own else "remote", True, rowid)
        affected.add(op, rowid)
        clock.receive(Stamp.decode(op.hlc))
        _recompute(conn, affected)
        _save_clock(conn, clock, max(last_seq, op.counter) if own else last_seq)
        report.applied = 1
        report.pending = int(op.paper is not None and rowid is None)
        report.papers, report.lists = affected.papers, affected.lists
    return report


def _identity(op: Op) -> tuple[Any, ...]:
    ref = op.paper or PaperRef(None, None, None)
    return (
        op.hlc,
        op.kind,
        ref.id,
        ref.title_key,
        ref.arxiv,
        op.list_id,
        canonical_json(dict(op.payload)),
    )


def resolve_ref(conn: sqlite3.Connection, ref: PaperRef) -> int | None:
    """The local paper an op names: by id, former id, arXiv id, then title key."""
    if ref.id:
        row = conn.execute("SELECT rowid FROM papers WHERE id = ?", (ref.id,)).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT p.rowid FROM paper_aliases a JOIN papers p ON p.id = a.paper_id "
                "WHERE a.alias = ?",
                (ref.id,),
            ).fetchone()
        if row is not None:
            return int(row[0])
    arxiv = (ref.arxiv and normalize_arxiv_id(ref.arxiv)) or (
        normalize_arxiv_id(ref.id) if ref.id else None
    )
    if arxiv:
        row = conn.execute("SELECT rowid FROM papers WHERE arxiv_id = ?", (arxiv,)).fetchone()
        if row is not None:
            return int(row[0])
    if ref.title_key:
        for candidate in conn.execute(
            "SELECT rowid, arxiv_id FROM papers WHERE title_key = ? ORDER BY rowid",
            (ref.title_key,),
        ):
            # Two different arXiv ids under one title are two papers (as in Library._find).
            if not arxiv or not candidate[1] or candidate[1] == arxiv:
                return int(candidate[0])
    return None


def _any_pending(conn: sqlite3.Connection) -> bool:
    # Two probes, each answered by the first entry of a partial index.
    return any(
        conn.execute(
            f"SELECT 1 FROM ops WHERE paper_rowid IS NULL AND {column} IS NOT NULL LIMIT 1"
        ).fetchone()
        for column in ("paper_id", "title_key")
    )


def attach_pending(conn: sqlite3.Connection, rowid: int) -> int:
    """A paper arrived (or changed id): apply the waiting ops that name it; return how many.

    Runs inside the caller's transaction (the import). Costs one indexed probe when nothing
    is waiting.
    """
    if not _any_pending(conn):
        return 0
    paper = conn.execute(
        "SELECT id, arxiv_id, title_key FROM papers WHERE rowid = ?", (rowid,)
    ).fetchone()
    if paper is None:
        return 0
    names = {paper[0]}
    aliases = conn.execute("SELECT alias FROM paper_aliases WHERE paper_id = ?", (paper[0],))
    names.update(r[0] for r in aliases)
    if paper[1]:
        names.add(paper[1])
    marks = ", ".join("?" for _ in names)
    # Three lookups, each on its partial index of waiting ops (an OR would scan all ops).
    lookups = [(f"paper_id IN ({marks})", tuple(names)), ("title_key = ?", (paper[2],))]
    if paper[1]:
        lookups.append(("arxiv_id = ?", (paper[1],)))
    candidates = {
        row[0]: row
        for where, params in lookups
        for row in conn.execute(
            "SELECT op_id, paper_id, title_key, arxiv_id, list_id FROM ops "
            f"WHERE paper_rowid IS NULL AND {where}",
            params,
        )
    }.values()
    affected = _Affected()
    attached = 0
    for op_id, paper_id, key, arxiv, list_id in candidates:
        if resolve_ref(conn, PaperRef(paper_id, key, arxiv)) != rowid:
            continue
        conn.execute("UPDATE ops SET paper_rowid = ? WHERE op_id = ?", (rowid, op_id))
        attached += 1
        if list_id is not None:
            affected.lists.add(list_id)
        else:
            affected.papers.add(rowid)
    _recompute(conn, affected)
    return attached


# ---- deriving state ------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteVersion:
    version: str  # op_id of the edit
    hlc: str
    device: str
    created_at: str
    text: str  # '' = this version deletes the note


@dataclass
class PaperDerived:
    bookmarked: bool = False
    bookmarked_at: str | None = None
    read: bool = False
    read_at: str | None = None
    tags: dict[str, list[str]] = field(default_factory=dict)  # tag -> live add op ids
    tag_added_at: dict[str, str] = field(default_factory=dict)
    notes: list[NoteVersion] = field(default_factory=list)  # current versions, primary first

    @property
    def note(self) -> NoteVersion | None:
        """The version shown as the note: the newest current version that has text."""
        return next((v for v in self.notes if v.text), None)

    @property
    def empty(self) -> bool:
        return not (self.bookmarked_at or self.read_at or self.tags or self.notes)


@dataclass
class MemberDerived:
    paper_rowid: int
    add_ids: list[str]
    position: str
    position_at: str


@dataclass
class ListDerived:
    list_id: str
    name: str
    deleted: bool
    created_at: str
    changed_at: str
    members: dict[int, MemberDerived] = field(default_factory=dict)

    def ordered(self) -> list[MemberDerived]:
        return sorted(self.members.values(), key=lambda m: (m.position, m.position_at))


_OP_COLUMNS = "op_id, device, hlc, kind, payload, created_at, paper_rowid"


def _rows(conn: sqlite3.Connection, where: str, params: Sequence[Any]) -> list[tuple]:
    return [
        (r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6])
        for r in conn.execute(f"SELECT {_OP_COLUMNS} FROM ops WHERE {where}", params)
    ]


def paper_derived(conn: sqlite3.Connection, rowid: int) -> PaperDerived:
    return derive_paper(_rows(conn, "paper_rowid = ? AND list_id IS NULL", (rowid,)))


def derive_paper(rows: Iterable[tuple]) -> PaperDerived:
    """Bookmark, read, tags and note versions of one paper from all of its ops."""
    result = PaperDerived()
    bookmark: tuple[str, str, bool] | None = None
    read: tuple[str, str, bool] | None = None
    adds: dict[str, tuple[str, str]] = {}
    removed: set[str] = set()
    notes: dict[str, NoteVersion] = {}
    replaced: set[str] = set()
    for op_id, device, hlc, kind, payload, created_at, _rowid in rows:
        if kind == "bookmark":
            candidate = (hlc, op_id, bool(payload["value"]))
            bookmark = max(bookmark, candidate) if bookmark else candidate
        elif kind == "read":
            candidate = (hlc, op_id, bool(payload["value"]))
            read = max(read, candidate) if read else candidate
        elif kind == "tag_add":
            adds[op_id] = (payload["tag"], hlc)
        elif kind == "tag_remove":
            removed.update(payload["removes"])
        elif kind == "note_set":
            notes[op_id] = NoteVersion(op_id, hlc, device, created_at, payload["text"])
            replaced.update(payload["replaces"])
    if bookmark:
        result.bookmarked_at, _, result.bookmarked = bookmark
    if read:
        result.read_at, _, result.read = read
    for add_id, (tag, hlc) in sorted(adds.items(), key=lambda item: (item[1][1], item[0])):
        if add_id in removed:
            continue
        result.tags.setdefault(tag, []).append(add_id)
        result.tag_added_at.setdefault(tag, hlc)
    heads = [v for v in notes.values() if v.version not in replaced]
    heads.sort(key=lambda v: (v.hlc, v.version), reverse=True)
    # A lone deletion leaves no note at all; a deletion concurrent with an edit is a conflict.
    result.notes = [] if len(heads) == 1 and not heads[0].text else heads
    return result


def list_derived(conn: sqlite3.Connection, list_id: str) -> ListDerived | None:
    return derive_list(list_id, _rows(conn, "list_id = ?", (list_id,)))


def derive_list(list_id: str, rows: Iterable[tuple]) -> ListDerived | None:
    """A reading list from all of its ops; None until its create op is known."""
    name: tuple[str, str, str] | None = None
    alive: tuple[str, str, bool] | None = None
    created: str | None = None
    changed: str | None = None
    removed: set[str] = set()
    adds: dict[int, list[str]] = {}
    placed: dict[int, tuple[str, str, str]] = {}
    for op_id, _device, hlc, kind, payload, _created_at, rowid in rows:
        if kind in ("list_create", "list_rename"):
            candidate = (hlc, op_id, payload["name"])
            name = max(name, candidate) if name else candidate
        if kind in ("list_create", "list_delete"):
            candidate_alive = (hlc, op_id, kind == "list_create")
            alive = max(alive, candidate_alive) if alive else candidate_alive
        if kind == "list_create":
            created = min(created, hlc) if created else hlc
        if kind in LIST_KINDS:
            changed = max(changed, hlc) if changed else hlc
        if kind in ("list_remove", "list_delete"):
            removed.update(payload["removes"])
        if rowid is None or kind not in ("list_add", "list_move"):
            continue
        if kind == "list_add":
            adds.setdefault(rowid, []).append(op_id)
        candidate_place = (hlc, op_id, payload["position"])
        known = placed.get(rowid)
        placed[rowid] = max(known, candidate_place) if known else candidate_place
    if name is None or alive is None or created is None or changed is None:
        return None
    result = ListDerived(list_id, name[2], not alive[2], created, changed)
    for rowid, add_ids in adds.items():
        live = sorted(a for a in add_ids if a not in removed)
        if live:
            hlc, _, position = placed[rowid]
            result.members[rowid] = MemberDerived(rowid, live, position, hlc)
    return result


def _recompute(conn: sqlite3.Connection, affected: _Affected) -> None:
    for rowid in sorted(affected.papers):
        _store_paper(conn, rowid, paper_derived(conn, rowid))
    for list_id in sorted(affected.lists):
        _store_list(conn, list_id, list_derived(conn, list_id))


def _store_paper(conn: sqlite3.Connection, rowid: int, state: PaperDerived) -> None:
    conn.execute("DELETE FROM paper_state WHERE paper_rowid = ?", (rowid,))
    conn.execute("DELETE FROM paper_tags WHERE paper_rowid = ?", (rowid,))
    conn.execute("DELETE FROM note_versions WHERE paper_rowid = ?", (rowid,))
    if not state.empty:
        note = state.note
        conn.execute(
            "INSERT INTO paper_state (paper_rowid, bookmarked, bookmarked_at, read, read_at, "
            "note, note_version, note_conflicts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rowid,
                int(state.bookmarked),
                state.bookmarked_at,
                int(state.read),
                state.read_at,
                note.text if note else None,
                note.version if note else None,
                max(len(state.notes) - 1, 0),
            ),
        )
        conn.executemany(
            "INSERT INTO paper_tags (tag, paper_rowid, added_at) VALUES (?, ?, ?)",
            [(tag, rowid, state.tag_added_at[tag]) for tag in state.tags],
        )
        conn.executemany(
            "INSERT INTO note_versions (paper_rowid, version, hlc, device, created_at, text) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(rowid, v.version, v.hlc, v.device, v.created_at, v.text) for v in state.notes],
        )
    # Tags and note text feed the full-text index (through the papers_fts triggers).
    extra = "\n".join([" ".join(sorted(state.tags)), *(v.text for v in state.notes if v.text)])
    extra = extra.strip()
    conn.execute(
        "UPDATE papers SET search_extra = ? WHERE rowid = ? AND search_extra != ?",
        (extra, rowid, extra),
    )


def _store_list(conn: sqlite3.Connection, list_id: str, state: ListDerived | None) -> None:
    conn.execute("DELETE FROM list_items WHERE list_id = ?", (list_id,))
    if state is None:
        conn.execute("DELETE FROM lists WHERE list_id = ?", (list_id,))
        return
    conn.execute(
        "INSERT INTO lists (list_id, name, deleted, created_at, changed_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (list_id) DO UPDATE SET name = excluded.name, "
        "deleted = excluded.deleted, created_at = excluded.created_at, "
        "changed_at = excluded.changed_at",
        (list_id, state.name, int(state.deleted), state.created_at, state.changed_at),
    )
    conn.executemany(
        "INSERT INTO list_items (list_id, paper_rowid, position, position_at) VALUES (?, ?, ?, ?)",
        [(list_id, m.paper_rowid, m.position, m.position_at) for m in state.members.values()],
    )


def rebuild_derived(conn: sqlite3.Connection) -> None:
    """Recompute every derived table from the op log (repair, or after a snapshot import)."""
    with transaction(conn):
        for table in ("list_items", "lists", "note_versions", "paper_tags", "paper_state"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("UPDATE papers SET search_extra = '' WHERE search_extra != ''")
        affected = _Affected(
            papers={
                int(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT paper_rowid FROM ops "
                    "WHERE paper_rowid IS NOT NULL AND list_id IS NULL"
                )
            },
            lists={
                r[0]
                for r in conn.execute("SELECT DISTINCT list_id FROM ops WHERE list_id IS NOT NULL")
            },
        )
        _recompute(conn, affected)


# ---- exchanging ops ------------------------------------------------------------------------


def _op_from_row(row: sqlite3.Row | tuple) -> Op:
    (op_id, device, counter, hlc, kind, paper_id, key, arxiv, list_id, payload, created) = row
    paper = PaperRef(paper_id, key, arxiv) if (paper_id or key) else None
    return Op(op_id, device, counter, hlc, kind, paper, list_id, json.loads(payload), created)


_WIRE_COLUMNS = (
    "op_id, device, counter, hlc, kind, paper_id, title_key, arxiv_id, list_id, payload, created_at"
)


def version_vector(conn: sqlite3.Connection) -> dict[str, int]:
    """Per device, the highest counter N such that ops 1..N of that device are all here."""
    vector: dict[str, int] = {}
    for device, top, count in conn.execute(
        "SELECT device, max(counter), count(*) FROM ops GROUP BY device"
    ):
        if top == count:
            vector[device] = int(top)
            continue
        gap = conn.execute(
            "SELECT min(o.counter) FROM ops o WHERE o.device = ? AND NOT EXISTS "
            "(SELECT 1 FROM ops n WHERE n.device = o.device AND n.counter = o.counter + 1)",
            (device,),
        ).fetchone()[0]
        has_first = conn.execute(
            "SELECT 1 FROM ops WHERE device = ? AND counter = 1", (device,)
        ).fetchone()
        vector[device] = int(gap) if has_first else 0
    return vector


def ops_since(
    conn: sqlite3.Connection, vector: Mapping[str, int], *, device: str | None = None
) -> list[Op]:
    """Ops the holder of `vector` lacks (counter above its entry), by device then counter."""
    params: list[Any] = []
    where = ""
    if device is not None:
        check_device_id(device)
        where = "WHERE device = ?"
        params.append(device)
    found = []
    for row in conn.execute(
        f"SELECT {_WIRE_COLUMNS} FROM ops {where} ORDER BY device, counter", params
    ):
        if row[2] > vector.get(row[1], 0):
            found.append(_op_from_row(tuple(row)))
    return found


def unsynced_ops(conn: sqlite3.Connection) -> list[Op]:
    """This device's ops not yet marked as uploaded, in counter order."""
    return [
        _op_from_row(tuple(row))
        for row in conn.execute(
            f"SELECT {_WIRE_COLUMNS} FROM ops WHERE origin = 'local' AND synced = 0 "
            "ORDER BY counter"
        )
    ]


def mark_synced(conn: sqlite3.Connection, op_ids: Iterable[str]) -> int:
    """Record that these local ops are safely on the remote; return how many changed."""
    changed = 0
    with transaction(conn):
        for op_id in op_ids:
            changed += conn.execute(
                "UPDATE ops SET synced = 1 WHERE op_id = ? AND synced = 0", (op_id,)
            ).rowcount
    return changed


def derived_snapshot(conn: sqlite3.Connection) -> dict[str, Any]:
    """All derived state keyed by paper id, not rowid: equal across converged replicas.

    For tests and sync diagnostics: two libraries that applied the same set of ops (and hold
    the same papers) return equal snapshots.
    """
    ids = {int(r[0]): r[1] for r in conn.execute("SELECT rowid, id FROM papers")}
    return {
        "paper_state": sorted(
            (ids[r[0]], *r[1:]) for r in conn.execute("SELECT * FROM paper_state")
        ),
        "paper_tags": sorted(
            (ids[r[1]], r[0], r[2])
            for r in conn.execute("SELECT tag, paper_rowid, added_at FROM paper_tags")
        ),
        "note_versions": sorted(
            (ids[r[0]], *r[1:]) for r in conn.execute("SELECT * FROM note_versions")
        ),
        "lists": sorted(tuple(r) for r in conn.execute("SELECT * FROM lists")),
        "list_items": sorted(
            (r[0], ids[r[1]], r[2], r[3]) for r in conn.execute("SELECT * FROM list_items")
        ),
        "search_extra": sorted(
            (r[0], r[1])
            for r in conn.execute("SELECT id, search_extra FROM papers WHERE search_extra != ''")
        ),
    }
