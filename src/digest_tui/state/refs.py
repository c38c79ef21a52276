"""Which local paper an op names, and ops that wait for their paper.

The same paper can carry another id on another machine (title-derived there, its arXiv id
here), so an op names it by id, title key and arXiv id; `resolve_ref` finds it. An op whose
paper is not in the library yet is kept with `paper_rowid` NULL (pending); when the library
stores the paper, `attach_pending` attaches the ops waiting for it and derives its state.
"""

from __future__ import annotations

import sqlite3

from digest_tui.ids import normalize_arxiv_id
from digest_tui.state.materialise import Affected, recompute
from digest_tui.state.model import PaperRef


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


def any_pending(conn: sqlite3.Connection) -> bool:
    """Whether any op waits for its paper (the import asks once per batch, not per paper)."""
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
    if not any_pending(conn):
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
    affected = Affected()
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
    recompute(conn, affected)
    return attached
