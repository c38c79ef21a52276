"""`similar` and `recommend`: papers like a paper, and papers like the ones you keep.

See docs/similar.md. The work is in digest_tui.similar; imported inside the commands so
`digest-tui --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from digest_tui.commands.common import add_format, positive_int

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from digest_tui.config import AppContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "similar",
        help="papers most like a paper",
        description="List the papers most like one paper (title, abstract and keywords, "
        "TF-IDF cosine), most similar first, each with a score and the terms they share.",
    )
    p.add_argument("id", help="paper id, arXiv id, former id, or a unique id prefix")
    p.add_argument("--limit", type=positive_int, default=10, help="at most N papers (default 10)")
    add_format(p, ("table", "json", "jsonl"), "table")
    p.set_defaults(func=cmd_similar)

    p = sub.add_parser(
        "recommend",
        help="papers like the ones you bookmarked (or tagged)",
        description="Rank papers by how much they resemble your bookmarked papers (or those "
        "with --tag T): the centroid of their TF-IDF vectors against every other paper. "
        "Bookmarked/tagged and read papers are left out; each result names the papers it "
        "is most like.",
    )
    p.add_argument("--tag", help="learn from the papers with this tag instead of bookmarks")
    p.add_argument("--limit", type=positive_int, default=10, help="at most N papers (default 10)")
    add_format(p, ("table", "json", "jsonl"), "table")
    p.set_defaults(func=cmd_recommend)


def _say_if_building(library) -> None:  # type: ignore[no-untyped-def]
    """The first call on a library builds every vector (a minute at 100,000 papers): say so
    on stderr instead of sitting silent (stdout stays the result alone)."""
    from digest_tui.similar.index import SimilarIndex

    if SimilarIndex(library.conn).needs_full_build():
        print("building the similarity index (once; later calls are incremental)…", file=sys.stderr)


def cmd_similar(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.commands.common import open_for_command, resolve_or_fail
    from digest_tui.similar.find import similar_to
    from digest_tui.textsafe import printable

    library = open_for_command(ctx)
    row = resolve_or_fail(library, args.id)
    _say_if_building(library)
    found = similar_to(library.conn, int(row["rowid"]), args.limit)
    if not found and args.format == "table":
        print(
            f"{printable(row['id'])}: no similar papers (it has no words to compare, or no "
            "other paper shares one)",
            file=sys.stderr,
        )
        return 0
    _print_ranked(ctx, library, [(f.rowid, f.score, f.reason) for f in found], args.format)
    return 0


def cmd_recommend(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.commands.common import open_for_command
    from digest_tui.errors import CommandError
    from digest_tui.similar.recommend import recommend
    from digest_tui.store.query import PaperQuery
    from digest_tui.textsafe import one_line

    library = open_for_command(ctx)
    if args.tag:
        positives = [r.rowid for r in library.list_rows(PaperQuery(tag=args.tag))]
        what = f"you tagged {args.tag.strip().lower()}"
        if not positives:
            raise CommandError(f"no papers are tagged {args.tag!r}: nothing to learn from")
    else:
        positives = [r.rowid for r in library.list_rows(PaperQuery(bookmarked=True))]
        what = "you bookmarked"
        if not positives:
            raise CommandError(
                "no bookmarked papers to learn from: bookmark some (digest-tui bookmark ID) "
                "or use --tag T"
            )
    read = [r.rowid for r in library.list_rows(PaperQuery(read=True))]
    _say_if_building(library)
    found = recommend(library.conn, positives, limit=args.limit, exclude=read)
    liked = sorted({rowid for f in found for rowid in f.like})
    titles = {
        r[0]: r[1]
        for r in library.conn.execute(
            f"SELECT rowid, title FROM papers WHERE rowid IN ({','.join('?' * len(liked))})",
            liked,
        )
    }

    def reason(like: tuple[int, ...]) -> str:
        names = [one_line(titles[r], 60) for r in like if r in titles]
        if not names:
            return f"near the papers {what}"
        quoted = " and ".join(f"'{name}'" for name in names)
        return f"like {quoted} {what}"

    if not found and args.format == "table":
        print("nothing to recommend: no other paper shares a word with them", file=sys.stderr)
        return 0
    _print_ranked(ctx, library, [(f.rowid, f.score, reason(f.like)) for f in found], args.format)
    return 0


def _print_ranked(ctx: AppContext, library, ranked: list[tuple[int, float, str]], fmt: str) -> None:  # type: ignore[no-untyped-def]
    """Paper objects (as `papers --format json`) plus score and reason, or a table."""
    from digest_tui.commands.common import write_json, write_jsonl, write_table
    from digest_tui.paper_view import paper_view
    from digest_tui.textsafe import one_line

    rows = (
        {
            r["rowid"]: r
            for r in library.conn.execute(
                f"SELECT * FROM papers WHERE rowid IN ({','.join('?' * len(ranked))})",
                [rowid for rowid, _, _ in ranked],
            )
        }
        if ranked
        else {}
    )
    present = [(rowid, score, reason) for rowid, score, reason in ranked if rowid in rows]
    if fmt == "table":
        # Ids as their shortest unique prefix, as in `papers` (JSON keeps them whole).
        short = library.short_ids([rows[rowid]["id"] for rowid, _, _ in present])
        write_table(
            [
                [
                    short[rows[rowid]["id"]],
                    f"{score:.3f}",
                    one_line(reason, 48),
                    rows[rowid]["title"],
                ]
                for rowid, score, reason in present
            ],
            ["ID", "SCORE", "WHY", "TITLE"],
        )
        return
    objects = []
    for rowid, score, reason in present:
        paper = paper_view(library, rows[rowid], ctx.machines).to_json()
        paper["score"] = score
        paper["reason"] = reason
        objects.append(paper)
    if fmt == "json":
        write_json(objects)
    else:
        write_jsonl(objects)
