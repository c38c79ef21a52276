"""The op log in SQLite: this device's ops, ops from elsewhere, and what sync exchanges.

Every user action is stored as an op stamped with this device's Hybrid Logical Clock
(`LocalWriter`, inside the caller's transaction); sync stores the ops of other devices with
`apply_ops` (or `replace_op`, for a version the owning device vouches for) and reads what to
upload with `unsynced_ops` / `ops_since`. Whenever ops are stored, the derived state of the
papers and lists they touch is recomputed from all of their ops (materialise.py), so applying
the same ops in any order, any number of times, converges. The clock's state and the last
counter are read and written in the same transaction as the ops, so two processes never issue
the same stamp or counter.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from digest_tui.errors import OpsError
from digest_tui.state.clock import HybridClock, Stamp, check_device_id, system_wall_ms
from digest_tui.state.derive import OpRow
from digest_tui.state.materialise import Affected, Arrived, recompute
from digest_tui.state.model import Op, PaperRef, PaperRow, canonical_json, check_payload
from digest_tui.state.refs import resolve_ref
from digest_tui.store.db import transaction


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


_INSERT = (
    "INSERT INTO ops (op_id, device, counter, hlc, kind, paper_id, title_key, arxiv_id, "
    "list_id, payload, created_at, received_at, origin, synced, paper_rowid) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _insert_row(op: Op, origin: str, synced: bool, paper_rowid: int | None) -> tuple[Any, ...]:
    """The values of `_INSERT` for `op` (apply_ops builds the same tuple inline)."""
    hlc, kind, paper_id, key, arxiv, list_id, payload = _identity(op)
    return (
        op.op_id,
        op.device,
        op.counter,
        hlc,
        kind,
        paper_id,
        key,
        arxiv,
        list_id,
        payload,
        op.created_at,
        _iso(system_wall_ms()),
        origin,
        int(synced),
        paper_rowid,
    )


def _insert(
    conn: sqlite3.Connection, op: Op, origin: str, synced: bool, paper_rowid: int | None
) -> None:
    conn.execute(_INSERT, _insert_row(op, origin, synced, paper_rowid))


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
        self.affected = Affected()
        self.ops: list[Op] = []

    def emit(
        self,
        kind: str,
        payload: Mapping[str, Any],
        *,
        paper: PaperRow | None = None,
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
        check_payload(op, f"op {op.op_id!r}")
        rowid = int(paper["rowid"]) if paper is not None else None
        _insert(self.conn, op, "local", False, rowid)
        self.affected.add(op, rowid)
        self.ops.append(op)
        return op

    def finish(self) -> list[Op]:
        recompute(self.conn, self.affected)
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
    # Merge speed (sync of 100,000 ops): the ops already known are looked up a chunk at a
    # time, each paper reference is resolved once per call, and the new ops are inserted with
    # one executemany, instead of two to five queries per op.
    report = ApplyReport()
    affected = Affected()
    clock, last_seq = _load_clock(conn, wall)
    batch = [item if isinstance(item, Op) else Op.from_json(item) for item in ops]
    op_ids = [op.op_id for op in batch]
    unique = list(dict.fromkeys(op_ids))
    known = _stored_identities(conn, unique)
    # Copies of one op id can only meet when some are stored or the batch repeats an id; a
    # fresh machine's merge has neither, and skips the per-op bookkeeping of copies.
    compare = bool(known) or len(unique) != len(op_ids)
    del op_ids, unique
    received_at = _iso(system_wall_ms())  # one arrival time for the ops stored together
    rowids: dict[PaperRef, int | None] = {}
    # The new paper ops as derive reads them, so recompute does not read them back (Arrived).
    fresh: dict[int, list[OpRow]] = {}
    # Canonical payload text by payload object: ops decoded together share their repeated
    # payloads (Op.from_json's `shared`), so {"value":true} is encoded once, not 30,000 times.
    # Keyed by id(): every payload stays alive in `batch` while this dict is used.
    texts: dict[int, str] = {}
    ref_rowids: dict[int, Any] = {}  # id(PaperRef) -> its rowid; each ref alive in `batch`
    # Copies of one op id met in this batch: the op itself, its identity built only if a
    # second copy turns up.
    first_copies: dict[str, Op] = {}
    newest = ""
    pending = 0
    device = clock.device

    def rows() -> Iterator[tuple[Any, ...]]:
        """The columns of _INSERT for each new op, made as SQLite takes them: the 100,000
        rows of a merge are never all held at once."""
        nonlocal newest, pending, last_seq
        no_ref = _NO_PAPER
        for op in batch:
            payload = op.payload
            text = texts.get(id(payload))
            if text is None:
                text = texts[id(payload)] = canonical_json(dict(payload))
            op_id = op.op_id
            if compare:
                existing = known.get(op_id)
                if existing is None and op_id in first_copies:
                    existing = _identity(first_copies[op_id])
                if existing is not None:
                    if existing != _identity(op, text):
                        raise OpsError(
                            f"op {op_id} arrived with different content than the stored copy "
                            "(two devices with one id, or corrupt data); nothing was applied"
                        )
                    report.duplicates += 1
                    continue
                first_copies[op_id] = op  # a second copy later in this batch is a duplicate
            rowid = None
            ref = op.paper
            if ref is not None:
                # By object first: ops decoded together share one PaperRef per paper, and
                # hashing a dataclass runs Python code; an equal reference in another object
                # still resolves once through `rowids`.
                rowid = ref_rowids.get(id(ref), _UNRESOLVED)
                if rowid is _UNRESOLVED:
                    if ref not in rowids:
                        rowids[ref] = resolve_ref(conn, ref)
                    rowid = ref_rowids[id(ref)] = rowids[ref]
                if rowid is None:
                    pending += 1
            else:
                ref = no_ref
            own = op.device == device
            if own:
                # Our own op coming back (e.g. this library was restored): never reuse its
                # counter.
                last_seq = max(last_seq, op.counter)
            list_id = op.list_id
            if list_id is not None:
                affected.lists.add(list_id)
            elif rowid is not None:
                fresh.setdefault(rowid, []).append(
                    (op_id, op.device, op.hlc, op.kind, payload, op.created_at, rowid)
                )
            # Stamps are fixed-width text that sorts as the stamps do (state/clock.py): the
            # newest is found by comparing text, and decoded once.
            if op.hlc > newest:
                newest = op.hlc
            yield (
                op_id,
                op.device,
                op.counter,
                op.hlc,
                op.kind,
                ref.id,
                ref.title_key,
                ref.arxiv,
                list_id,
                text,
                op.created_at,
                received_at,
                "local" if own else "remote",
                1,  # synced: it came from the remote (or is ours coming back)
                rowid,
            )

    stored_upto = conn.execute("SELECT coalesce(max(seq), 0) FROM ops").fetchone()[0]
    # A refusal met half-way through the rows undoes the rows already inserted, also when
    # the caller's transaction goes on ("nothing was applied").
    conn.execute("SAVEPOINT apply_ops")
    try:
        inserted = conn.executemany(_INSERT, rows()).rowcount
    except BaseException:
        # A failure that already ended the transaction (some disk errors) left no savepoint:
        # the error that got here is the one to report.
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK TO apply_ops")
            conn.execute("RELEASE apply_ops")
        raise
    conn.execute("RELEASE apply_ops")
    report.applied = inserted if inserted > 0 else 0
    report.pending = pending
    affected.papers.update(fresh)
    if newest:
        clock.receive(Stamp.decode(newest))
    recompute(conn, affected, Arrived(fresh, int(stored_upto)))
    _save_clock(conn, clock, last_seq)
    report.papers, report.lists = affected.papers, affected.lists
    return report


def _stored_identities(conn: sqlite3.Connection, op_ids: list[str]) -> dict[str, tuple[Any, ...]]:
    """op_id -> `_identity` columns of the stored copy, for those of `op_ids` stored."""
    found: dict[str, tuple[Any, ...]] = {}
    unique = list(dict.fromkeys(op_ids))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        for row in conn.execute(
            "SELECT op_id, hlc, kind, paper_id, title_key, arxiv_id, list_id, payload "
            f"FROM ops WHERE op_id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            found[row[0]] = tuple(row[1:])
    return found


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
        affected = Affected()
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
        recompute(conn, affected)
        _save_clock(conn, clock, max(last_seq, op.counter) if own else last_seq)
        report.applied = 1
        report.pending = int(op.paper is not None and rowid is None)
        report.papers, report.lists = affected.papers, affected.lists
    return report


def _identity(op: Op, payload_text: str | None = None) -> tuple[Any, ...]:
    """What must match between two copies of one op; `payload_text` when already encoded."""
    ref = op.paper or _NO_PAPER
    return (
        op.hlc,
        op.kind,
        ref.id,
        ref.title_key,
        ref.arxiv,
        op.list_id,
        canonical_json(dict(op.payload)) if payload_text is None else payload_text,
    )


_NO_PAPER = PaperRef(None, None, None)
_UNRESOLVED = object()


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
