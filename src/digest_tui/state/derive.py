"""Deriving user state from ops: pure functions of a set of ops, with no SQL.

Each function reads every op of one paper or one list and returns its state; the result does
not depend on the order of the ops, so replicas that hold the same ops agree. The merge rules
(docs/ops.md): bookmark, read, a list's name and its deletion are last-writer-wins registers
(greatest (stamp, op id)); tags and list membership are add-wins observed-remove sets (a remove
names the adds it saw); a note is a multi-value register whose concurrent versions stay side by
side; a list member's position is last-writer-wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from digest_tui.state.model import LIST_KINDS, NoteVersion

# One op as the derivations read it (materialise.py loads these from the log):
# (op_id, device, hlc, kind, payload, created_at, paper_rowid or None while pending).
OpRow = tuple[str, str, str, str, Mapping[str, Any], str, int | None]


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


def derive_paper(rows: Iterable[OpRow]) -> PaperDerived:
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


def derive_list(list_id: str, rows: Iterable[OpRow]) -> ListDerived | None:
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
