"""The user's state of each paper (bookmark, read mark, tags, note) and their reading lists.

This is the API the CLI and the TUI use. Every change is recorded as one or more ops
(state/log.py) in a single transaction that is committed before the method returns, so an
action either survives a crash whole or not at all; failures raise StateError with a message
that names the paper or list. Reads come from the derived tables, which are indexed for the
paper list's filters.

Why this module is long: it is the whole user-facing API of the state (per-paper marks, notes
with their versions, reading lists with their order, visits), each method a validation, one op
and a transaction; the op log, merging and derived tables are in state/log.py,
state/materialise.py and state/derive.py.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from digest_tui.errors import OpsError, StateError
from digest_tui.state import positions
from digest_tui.state.clock import system_wall_ms
from digest_tui.state.log import LocalWriter
from digest_tui.state.materialise import list_derived, paper_derived
from digest_tui.state.model import (
    ListEntry,
    ListInfo,
    ListView,
    NoteResult,
    NoteState,
    StateCounts,
    normalize_tag,
)
from digest_tui.store.db import transaction
from digest_tui.textsafe import CONTROL_CHARS

if TYPE_CHECKING:
    from digest_tui.store.library import Library

_MAX_LIST_NAME = 100
_LAST_VISIT = "last_visit"


def _check_list_name(name: str) -> str:
    clean = " ".join(name.split())
    if not clean:
        raise StateError("a reading list needs a name")
    if len(clean) > _MAX_LIST_NAME:
        raise StateError(f"list name {clean[:40]!r}... is longer than {_MAX_LIST_NAME} chars")
    if CONTROL_CHARS.search(clean):
        raise StateError(f"list name {clean!r} contains control characters")
    return clean


class UserState:
    """Bookmarks, read marks, tags, notes and reading lists of one library."""

    def __init__(self, library: Library, *, wall: Callable[[], int] = system_wall_ms) -> None:
        self.library = library
        self.conn: sqlite3.Connection = library.conn
        self.wall = wall
        # One connection is shared by the TUI's workers: serialise our transactions on it.
        self._lock = threading.RLock()

    # ---- plumbing -------------------------------------------------------------------------

    @contextmanager
    def _change(self) -> Iterator[LocalWriter]:
        with self._lock, transaction(self.conn):
            writer = LocalWriter(self.conn, self.wall)
            yield writer
            writer.finish()

    def _paper(self, ident: str) -> sqlite3.Row:
        row = self.library.resolve(ident)
        if row is None:
            raise StateError(f"no paper with id {ident!r}")
        return row

    # ---- per-paper state ------------------------------------------------------------------

    def bookmark(self, ident: str, on: bool = True) -> bool:
        """Bookmark (or un-bookmark) a paper; False when it already was (no op is written)."""
        return self._set_flag("bookmark", ident, on)

    def set_read(self, ident: str, on: bool = True) -> bool:
        """Mark a paper read (or unread); False when it already was."""
        return self._set_flag("read", ident, on)

    def set_read_many(self, idents: Sequence[str], on: bool = True) -> list[str]:
        """Mark papers read (or unread) in one transaction: one op per paper that changes, so
        each syncs as a single `r` would. Returns the ids that changed (what an undo reverts)."""
        changed: list[str] = []
        with self._change() as writer:
            for ident in dict.fromkeys(idents):
                row = self._paper(ident)
                if paper_derived(self.conn, row["rowid"]).read != on:
                    writer.emit("read", {"value": on}, paper=row)
                    changed.append(ident)
        return changed

    def _set_flag(self, kind: str, ident: str, on: bool) -> bool:
        with self._change() as writer:
            row = self._paper(ident)
            current = paper_derived(self.conn, row["rowid"])
            value = current.bookmarked if kind == "bookmark" else current.read
            if value == on:
                return False
            writer.emit(kind, {"value": on}, paper=row)
        return True

    def add_tags(self, ident: str, tags: Iterable[str]) -> list[str]:
        """Tag a paper; return the tags newly added (normalised: lower case, no spaces)."""
        wanted = self._tags(tags)
        with self._change() as writer:
            row = self._paper(ident)
            current = paper_derived(self.conn, row["rowid"])
            added = [tag for tag in wanted if tag not in current.tags]
            for tag in added:
                writer.emit("tag_add", {"tag": tag}, paper=row)
        return added

    def remove_tags(self, ident: str, tags: Iterable[str]) -> list[str]:
        """Untag a paper; return the tags it had and no longer has."""
        wanted = self._tags(tags)
        with self._change() as writer:
            row = self._paper(ident)
            current = paper_derived(self.conn, row["rowid"])
            removed = [tag for tag in wanted if tag in current.tags]
            for tag in removed:
                # Observed-remove: this names the adds seen here; a concurrent add survives.
                writer.emit("tag_remove", {"tag": tag, "removes": current.tags[tag]}, paper=row)
        return removed

    @staticmethod
    def _tags(tags: Iterable[str]) -> list[str]:
        try:
            normalized = [normalize_tag(tag) for tag in tags]
        except OpsError as exc:
            raise StateError(str(exc)) from exc
        if not normalized:
            raise StateError("no tags given")
        return list(dict.fromkeys(normalized))

    def note(self, ident: str) -> NoteState:
        row = self._paper(ident)
        return self._note_state(row["rowid"])

    def _note_state(self, rowid: int) -> NoteState:
        versions = paper_derived(self.conn, rowid).notes
        shown = next((v for v in versions if v.text), None)
        return NoteState(shown.text if shown else None, shown.version if shown else None, versions)

    def set_note(
        self, ident: str, text: str, *, replaces: Sequence[str] | None = None
    ) -> NoteResult:
        """Save a note; '' deletes it.

        `replaces` names the versions the user saw while editing (NoteState.versions, or just
        NoteState.version). None means every current version. A version the user did not see,
        such as an edit that arrived by sync meanwhile, is kept beside the new one and
        returned in `conflicts` for the user to resolve.
        """
        text = text.rstrip()
        with self._change() as writer:
            row = self._paper(ident)
            heads = paper_derived(self.conn, row["rowid"]).notes
            seen = [v.version for v in heads] if replaces is None else list(replaces)
            only = heads[0] if len(heads) == 1 else None
            unchanged = (only is not None and only.text == text and seen == [only.version]) or (
                not heads and not text
            )
            if unchanged:
                return NoteResult(False, None, [])
            op = writer.emit("note_set", {"text": text, "replaces": sorted(set(seen))}, paper=row)
        after = paper_derived(self.conn, row["rowid"]).notes
        return NoteResult(True, op.op_id, [v for v in after if v.version != op.op_id])

    def resolve_note_conflict(
        self, ident: str, *, keep: str | None = None, text: str | None = None
    ) -> NoteResult:
        """End a conflict: keep one version (by version id) or save merged `text`.

        Either way the result replaces every current version, itself an op that syncs.
        """
        if (keep is None) == (text is None):
            raise StateError("resolve a note conflict with either a version to keep or a text")
        row = self._paper(ident)
        heads = paper_derived(self.conn, row["rowid"]).notes
        if keep is not None:
            chosen = [v for v in heads if v.version == keep]
            if not chosen:
                known = ", ".join(v.version for v in heads) or "none"
                raise StateError(
                    f"paper {row['id']}: note has no version {keep!r} (current: {known})"
                )
            text = chosen[0].text
        assert text is not None
        return self.set_note(ident, text, replaces=[v.version for v in heads])

    # ---- reading lists --------------------------------------------------------------------

    def _list(self, name: str) -> sqlite3.Row:
        rows = self.conn.execute(
            "SELECT list_id, name FROM lists WHERE deleted = 0 AND name = ? COLLATE NOCASE "
            "ORDER BY created_at, list_id",
            (" ".join(name.split()),),
        ).fetchall()
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            ids = ", ".join(r["list_id"] for r in rows)
            raise StateError(f"{len(rows)} reading lists are named {name!r} ({ids}): use an id")
        row = self.conn.execute(
            "SELECT list_id, name FROM lists WHERE deleted = 0 AND list_id = ?", (name,)
        ).fetchone()
        if row is None:
            raise StateError(f"no reading list named {name!r}")
        return row

    def find_list(self, name: str) -> ListInfo:
        """A live list by name (case-insensitive) or id; StateError when there is none."""
        row = self._list(name)
        return ListInfo(row["list_id"], row["name"], self._count(row["list_id"]))

    def _name_taken(self, name: str, except_id: str | None = None) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM lists WHERE deleted = 0 AND name = ? COLLATE NOCASE "
            "AND list_id IS NOT ?",
            (name, except_id),
        ).fetchone()
        return row is not None

    def create_list(self, name: str) -> ListInfo:
        name = _check_list_name(name)
        with self._change() as writer:
            if self._name_taken(name):
                raise StateError(f"a reading list named {name!r} already exists")
            # The id derives from the name, so the same list created on two machines before
            # they sync is one list; a name whose id is held by a renamed list gets a random id.
            list_id = "L" + hashlib.sha256(name.casefold().encode()).hexdigest()[:12]
            holder = self.conn.execute(
                "SELECT deleted FROM lists WHERE list_id = ?", (list_id,)
            ).fetchone()
            if holder is not None and not holder[0]:
                list_id = "L" + secrets.token_hex(6)
            writer.emit("list_create", {"name": name}, list_id=list_id)
        return ListInfo(list_id, name, self._count(list_id))

    def rename_list(self, name: str, new_name: str) -> ListInfo:
        new_name = _check_list_name(new_name)
        with self._change() as writer:
            row = self._list(name)
            if self._name_taken(new_name, except_id=row["list_id"]):
                raise StateError(f"a reading list named {new_name!r} already exists")
            if row["name"] != new_name:
                writer.emit("list_rename", {"name": new_name}, list_id=row["list_id"])
        return ListInfo(row["list_id"], new_name, self._count(row["list_id"]))

    def delete_list(self, name: str) -> ListInfo:
        with self._change() as writer:
            row = self._list(name)
            state = list_derived(self.conn, row["list_id"])
            members = state.members if state else {}
            # Observed-remove of every member seen here: a re-created list starts empty.
            removes = sorted(a for m in members.values() for a in m.add_ids)
            writer.emit("list_delete", {"removes": removes}, list_id=row["list_id"])
        return ListInfo(row["list_id"], row["name"], len(members))

    def add_to_list(self, name: str, idents: Sequence[str]) -> list[str]:
        """Append papers to a list; return the ids added (papers already in it are skipped)."""
        with self._change() as writer:
            row = self._list(name)
            papers = [self._paper(ident) for ident in idents]
            state = list_derived(self.conn, row["list_id"])
            members = state.ordered() if state else []
            last = members[-1].position if members else None
            present = {m.paper_rowid for m in members}
            added = []
            for paper in papers:
                if paper["rowid"] in present:
                    continue
                present.add(paper["rowid"])
                last = positions.key_between(last, None)
                writer.emit("list_add", {"position": last}, paper=paper, list_id=row["list_id"])
                added.append(paper["id"])
        return added

    def remove_from_list(self, name: str, idents: Sequence[str]) -> list[str]:
        """Remove papers from a list; return the ids removed (papers not in it are skipped)."""
        with self._change() as writer:
            row = self._list(name)
            papers = [self._paper(ident) for ident in idents]
            state = list_derived(self.conn, row["list_id"])
            members = state.members if state else {}
            removed = []
            for paper in papers:
                member = members.get(paper["rowid"])
                if member is None or paper["id"] in removed:
                    continue
                writer.emit(
                    "list_remove",
                    {"removes": member.add_ids},
                    paper=paper,
                    list_id=row["list_id"],
                )
                removed.append(paper["id"])
        return removed

    def move_in_list(
        self,
        name: str,
        ident: str,
        *,
        index: int | None = None,
        before: str | None = None,
        after: str | None = None,
    ) -> int:
        """Move a paper within a list: to a 1-based `index`, or before/after another paper.

        Returns its new 1-based index. One op normally; if concurrent edits left two members
        on the same position, the list is renumbered (one op per member that moves).
        """
        if sum(x is not None for x in (index, before, after)) != 1:
            raise StateError("move needs exactly one of: an index, --before ID, --after ID")
        with self._change() as writer:
            row = self._list(name)
            paper = self._paper(ident)
            state = list_derived(self.conn, row["list_id"])
            members = state.ordered() if state else []
            moving = next((m for m in members if m.paper_rowid == paper["rowid"]), None)
            if moving is None:
                raise StateError(f"paper {paper['id']} is not in list {row['name']!r}")
            others = [m for m in members if m is not moving]
            if index is not None:
                slot = min(max(index, 1), len(others) + 1) - 1
            else:
                anchor = self._paper(before if before is not None else after)  # type: ignore[arg-type]
                where = next(
                    (i for i, m in enumerate(others) if m.paper_rowid == anchor["rowid"]), None
                )
                if where is None:
                    raise StateError(
                        f"paper {anchor['id']} is not in list {row['name']!r} "
                        "(or is the paper being moved)"
                    )
                slot = where if before is not None else where + 1
            if members.index(moving) == slot:
                return slot + 1
            low = others[slot - 1].position if slot > 0 else None
            high = others[slot].position if slot < len(others) else None
            if low is None or high is None or low < high:
                position = positions.key_between(low, high)
                writer.emit(
                    "list_move", {"position": position}, paper=paper, list_id=row["list_id"]
                )
                return slot + 1
            # Equal neighbours (concurrent inserts at one spot): renumber the whole list.
            order = [*others[:slot], moving, *others[slot:]]
            rowids = [m.paper_rowid for m in order]
            papers = {
                r["rowid"]: r
                for r in self.conn.execute(
                    f"SELECT * FROM papers WHERE rowid IN ({', '.join('?' for _ in rowids)})",
                    rowids,
                )
            }
            for member, key in zip(order, positions.spread(len(order)), strict=True):
                if member.position != key:
                    writer.emit(
                        "list_move",
                        {"position": key},
                        paper=papers[member.paper_rowid],
                        list_id=row["list_id"],
                    )
            return slot + 1

    def _count(self, list_id: str) -> int:
        return int(
            self.conn.execute(
                "SELECT count(*) FROM list_items WHERE list_id = ?", (list_id,)
            ).fetchone()[0]
        )

    def lists(self) -> list[ListInfo]:
        rows = self.conn.execute(
            "SELECT l.list_id, l.name, count(li.paper_rowid) FROM lists l "
            "LEFT JOIN list_items li ON li.list_id = l.list_id WHERE l.deleted = 0 "
            "GROUP BY l.list_id ORDER BY l.name COLLATE NOCASE, l.list_id"
        )
        return [ListInfo(r[0], r[1], r[2]) for r in rows]

    def show_list(self, name: str) -> ListView:
        row = self._list(name)
        entries = [
            ListEntry(r[0], r[1], r[2], r[3], r[4])
            for r in self.conn.execute(
                "SELECT p.rowid, p.id, p.title, p.published, li.position FROM list_items li "
                "JOIN papers p ON p.rowid = li.paper_rowid WHERE li.list_id = ? "
                "ORDER BY li.position, li.position_at",
                (row["list_id"],),
            )
        ]
        info = ListInfo(row["list_id"], row["name"], len(entries))
        return ListView(info, entries, self._pending_members(row["list_id"]))

    def _pending_members(self, list_id: str) -> int:
        removed: set[str] = set()
        waiting: dict[tuple[str | None, str | None], list[str]] = {}
        for op_id, kind, payload, paper_id, key, rowid in self.conn.execute(
            "SELECT op_id, kind, payload, paper_id, title_key, paper_rowid FROM ops "
            "WHERE list_id = ? AND kind IN ('list_add', 'list_remove', 'list_delete')",
            (list_id,),
        ):
            if kind != "list_add":
                removed.update(json.loads(payload)["removes"])
            elif rowid is None:
                waiting.setdefault((paper_id, key), []).append(op_id)
        return sum(1 for adds in waiting.values() if any(a not in removed for a in adds))

    # ---- reading --------------------------------------------------------------------------

    def user_state(self, rowid: int) -> dict[str, Any]:
        """The user's state of one paper, as the JSON contract and the detail view show it."""
        conn = self.conn
        row = conn.execute(
            "SELECT bookmarked, read, note, note_version, note_conflicts FROM paper_state "
            "WHERE paper_rowid = ?",
            (rowid,),
        ).fetchone()
        tags = [
            r[0]
            for r in conn.execute(
                "SELECT tag FROM paper_tags WHERE paper_rowid = ? ORDER BY tag", (rowid,)
            )
        ]
        lists = [
            r[0]
            for r in conn.execute(
                "SELECT l.name FROM list_items li JOIN lists l ON l.list_id = li.list_id "
                "WHERE li.paper_rowid = ? AND l.deleted = 0 ORDER BY l.name COLLATE NOCASE",
                (rowid,),
            )
        ]
        conflicts: list[dict[str, Any]] = []
        if row is not None and row["note_conflicts"]:
            conflicts = [
                {"version": r[0], "device": r[1], "created_at": r[2], "text": r[3]}
                for r in conn.execute(
                    "SELECT version, device, created_at, text FROM note_versions "
                    "WHERE paper_rowid = ? AND version IS NOT ? ORDER BY hlc DESC",
                    (rowid, row["note_version"]),
                )
            ]
        return {
            "bookmarked": bool(row["bookmarked"]) if row else False,
            "tags": tags,
            "read": bool(row["read"]) if row else False,
            "note": row["note"] if row else None,
            "note_conflicts": conflicts,
            "lists": lists,
        }

    def tag_counts(self) -> dict[str, int]:
        return {
            r[0]: r[1]
            for r in self.conn.execute(
                "SELECT tag, count(*) FROM paper_tags GROUP BY tag ORDER BY tag"
            )
        }

    def all_tags(self) -> list[str]:
        """Every tag in use, sorted: for completion in the tag prompt and the search box."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT tag FROM paper_tags ORDER BY tag")]

    def counts(self, new_since: str | None = None) -> StateCounts:
        """Counts for the tree; `new` counts papers added since `new_since` (default: the
        last visit; the TUI passes the visit before its own, see begin_visit)."""
        conn = self.conn
        total = self.library.count()
        read = conn.execute("SELECT count(*) FROM paper_state WHERE read = 1").fetchone()[0]
        since = (self.last_visit() if new_since is None else new_since) or ""
        return StateCounts(
            total=total,
            bookmarked=conn.execute(
                "SELECT count(*) FROM paper_state WHERE bookmarked = 1"
            ).fetchone()[0],
            unread=total - read,
            notes=conn.execute(
                "SELECT count(*) FROM paper_state WHERE note IS NOT NULL"
            ).fetchone()[0],
            new=conn.execute(
                "SELECT count(*) FROM papers WHERE added_at >= ?", (since,)
            ).fetchone()[0],
            tags=self.tag_counts(),
            lists=self.lists(),
        )

    # ---- visits (local only, never synced) ------------------------------------------------

    def last_visit(self) -> str | None:
        """When the TUI was last opened on this machine; `is:new` shows papers added since."""
        return self.library.get_meta(_LAST_VISIT)

    def begin_visit(self) -> str | None:
        """Start a visit (the TUI calls this on start): record now, return the previous visit.

        The TUI keeps the returned value for its session (PaperQuery.new_since), so what was
        new when it opened stays new until it closes.
        """
        previous = self.last_visit()
        # The real clock, as for papers.added_at which this is compared with (not the HLC).
        # In microseconds: papers.added_at has whole seconds, so a paper added in the second
        # this visit began (the sample a first launch loads) stamps "…:20+00:00", which sorts
        # before this visit's "…:20.5…+00:00": it is not new on the next launch. With whole
        # seconds here it compared equal and every such paper was "new" again.
        now = dt.datetime.now(dt.UTC)
        with self._lock:
            self.library.set_meta(_LAST_VISIT, now.isoformat(timespec="microseconds"))
        return previous
