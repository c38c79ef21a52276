"""`import`, `papers` and `show`: getting digests in and papers out."""

from __future__ import annotations

import argparse
import sys

from digest_tui.commands.common import (
    add_format,
    fresh_paper,
    open_for_command,
    path_arg,
    plural,
    positive_int,
    write_json,
    write_table,
)
from digest_tui.errors import CommandError
from digest_tui.textsafe import one_line, printable

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    import sqlite3
    from collections.abc import Iterable, Iterator, Sequence
    from pathlib import Path
    from typing import Any

    from digest_tui.config import AppContext, Machine
    from digest_tui.store.library import Library
    from digest_tui.store.query import PaperQuery


if TYPE_CHECKING:
    from digest_tui.commands.health_view import HealthView
    from digest_tui.commands.repro_view import ReproView


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="import Daily Papers page text files",
        description="Import digest files (the text of a Daily Papers page). Re-importing a "
        "file never duplicates a paper; a newer copy updates its fields.",
    )
    p.add_argument("paths", nargs="+", type=path_arg, metavar="FILE")
    p.add_argument(
        "--year",
        type=int,
        help="year of the page date (default: inferred from the years the page prints)",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="let this copy of a digest replace the stored one even when it is shorter "
        "(drops papers it lacks, takes shorter abstracts); by default a shorter copy, "
        "e.g. a truncated page, only adds and warns",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("papers", help="list papers", description="List papers as a table or JSON.")
    add_query_arguments(p)
    add_format(p, ("table", "json", "jsonl"), "table")
    p.set_defaults(func=cmd_papers)

    p = sub.add_parser("show", help="show one paper", description="Show one paper by id.")
    p.add_argument("id", help="paper id, arXiv id, former id, or a unique id prefix")
    add_format(p, ("text", "json"), "text")
    p.add_argument(
        "--offline",
        action="store_true",
        help="show the GitHub health cached for the paper's repos; ask GitHub nothing",
    )
    p.set_defaults(func=cmd_show)


def add_query_arguments(p: argparse.ArgumentParser) -> None:
    """The filters shared by `papers` and `export`."""
    p.add_argument("--topic", help="kernels | moe | serving | training-parallelism | other")
    p.add_argument("--tag", help="only papers with this tag")
    p.add_argument("--bookmarked", action="store_true", help="only bookmarked papers")
    p.add_argument("--unread", action="store_true", help="only unread papers")
    p.add_argument("--search", default="", metavar="Q", help="search text and filters, as after /")
    p.add_argument("--digest", help="only papers of this digest (id or date YYYY-MM-DD)")
    p.add_argument("--has-code", action="store_true", help="only papers with linked code")
    p.add_argument(
        "--sort",
        choices=("date", "upvotes", "stars", "title", "relevance", "reproducible", "readiness"),
        help="order; reproducible: code + Hub weights + a machine that fits first; readiness: "
        "the best-prepared repo first (docs/readiness.md)",
    )
    p.add_argument("--limit", type=positive_int, metavar="N", help="at most N papers")


def query_from_args(args: argparse.Namespace) -> PaperQuery:
    from digest_tui.store.query import PaperQuery

    return PaperQuery(
        topic=args.topic,
        tag=args.tag,
        bookmarked=True if args.bookmarked else None,
        read=False if args.unread else None,
        search=args.search or "",
        digest=args.digest,
        has_code=True if args.has_code else None,
        sort=args.sort,
        limit=args.limit,
    )


def cmd_import(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.service import import_files, open_library

    library = open_library(ctx)
    # Importing into a brand-new library should not also pull in the sample digests later.
    if not library.count():
        library.set_meta("sample_loaded", "1")

    def on_file(path: Path, report) -> None:  # type: ignore[no-untyped-def]
        if path.as_posix() in report.failed or str(path) in report.failed:
            return
        print(
            f"{path}: {report.digest_id}: {report.new} new, {report.updated} updated, "
            f"{report.unchanged} unchanged"
        )

    report = import_files(
        library, args.paths, year=args.year, on_file=on_file, replace=args.replace
    )
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"imported {len(args.paths) - len(report.failed)} of {plural(len(args.paths), 'file')}: "
        f"{report.new} new, {report.updated} updated, {report.unchanged} unchanged "
        f"{'paper' if report.new + report.updated + report.unchanged == 1 else 'papers'}"
    )
    if report.failed:
        raise CommandError(
            f"{plural(len(report.failed), 'file')} could not be imported", exit_status=1
        )
    return 0


def say_search_problems(ctx: AppContext, library: Library, query: PaperQuery) -> None:
    """On stderr (stdout stays the data): what is wrong with the search (an unknown topic,
    list, machine…) and the short-word note (search_syntax.short_word_hint)."""
    from digest_tui.search_syntax import short_word_hint
    from digest_tui.store.search_problems import search_problems

    machines = lambda: ctx.machines  # noqa: E731 - read config only for fits:
    for problem in search_problems(library, query.parsed, machines):
        print(f"warning: search: {problem}", file=sys.stderr)
    if (hint := short_word_hint(query.parsed)) is not None:
        print(f"note: search: {hint}", file=sys.stderr)


def cmd_papers(ctx: AppContext, args: argparse.Namespace) -> int:
    library = open_for_command(ctx)
    query = query_from_args(args)
    say_search_problems(ctx, library, query)
    if args.format == "table":
        import json

        rows = library.rows_in_order(query, _TABLE_COLUMNS)
        # Ids as their shortest unique prefix (JSON keeps them whole): `show` takes them back.
        short = library.short_ids([r["id"] for r in rows])
        table = [
            [
                short[r["id"]],
                r["published"] or "",
                str(r["upvotes"] if r["upvotes"] is not None else ""),
                "code" if r["has_code"] else "",
                ",".join(json.loads(r["topics"])) or "other",
                r["title"],
            ]
            for r in rows
        ]
        # At 80 columns the topics give way (cut with "…") before the title does.
        headers = ["ID", "PUBLISHED", "UP", "CODE", "TOPICS", "TITLE"]
        write_table(table, headers, shrink={4: 9}, last_min=28)
    elif args.format == "json":
        write_json(list(paper_objects(library, query, ctx.machines)))
    else:
        write_lines(paper_lines(library, query, ctx.machines))
    return 0


# What `write_lines` gathers into one write, in characters: small enough that the joined
# text stays below the allocator's mmap threshold (128 KiB). Joining 500 lines (~2 MB) at a
# time mapped and unmapped memory for each batch: twice the system time of writing per line.
_CHARS_PER_WRITE = 64 * 1024


def write_lines(lines: Iterable[str]) -> None:
    """Each line and a newline on stdout, ~64 KiB a write: two writes a line were 200,000
    system calls for a 100,000-paper dump when stdout is unbuffered (python -u,
    PYTHONUNBUFFERED=1); the output still streams."""
    batch: list[str] = []
    size = 0
    write = sys.stdout.write
    for line in lines:
        batch.append(line)
        size += len(line) + 1
        if size >= _CHARS_PER_WRITE:
            batch.append("")
            write("\n".join(batch))
            batch.clear()
            size = 0
    if batch:
        batch.append("")
        write("\n".join(batch))


def paper_objects(
    library: Library, query: PaperQuery, machines: Sequence[Machine] = ()
) -> Iterator[dict]:
    """The JSON contract's paper object of every paper the query matches, in its order."""
    from digest_tui.paper_view import paper_json

    for row, state, digests in _papers_with_state(library, query):
        # The contract's dict straight from the row (paper_view.paper_json): the same
        # object as PaperView.to_json without building and thawing a frozen view.
        yield paper_json(library, row, machines, state=state, digests=digests)


def paper_lines(
    library: Library, query: PaperQuery, machines: Sequence[Machine] = ()
) -> Iterator[str]:
    """`papers --format jsonl`: each paper object as its line of JSON text (no newline),
    spliced from the row's stored JSON instead of decoded and encoded again (paper_jsonl)."""
    from digest_tui.machine_fits import MachineFits
    from digest_tui.paper_jsonl import paper_jsonl_line

    fits = None
    enricher = library.enricher
    if machines and enricher is not None:
        fits = MachineFits(machines, lambda: enricher.hardware_catalog, library.fit_texts)
    for row, state, digests in _papers_with_state(library, query):
        yield paper_jsonl_line(library, row, machines, state=state, digests=digests, fits=fits)


def _papers_with_state(
    library: Library, query: PaperQuery
) -> Iterator[tuple[sqlite3.Row, dict[str, Any], list[str]]]:
    """Each matching row with its user state and digests, in the query's order.

    Rows are read from the cursor a chunk at a time and each chunk's user state and digests
    in a handful of queries (store/paper_batch.py), not four or more queries per paper: a
    100,000-paper jsonl dump starts printing at once and never holds every row in memory.
    Only the columns the contract prints are read (paper_jsonl.COLUMNS), not the whole row."""
    from digest_tui.paper_jsonl import COLUMNS
    from digest_tui.store import paper_batch
    from digest_tui.store.query import build_select

    if query.limit is not None and query.limit <= _ORDER_FIRST_LIMIT:
        found: Iterable[sqlite3.Row] = library.rows_in_order(query, COLUMNS)
    else:
        sql, params = build_select(query, COLUMNS)
        found = library.conn.execute(sql, params)
    for chunk in paper_batch.chunked(found):
        rowids = [int(row["rowid"]) for row in chunk]
        states = paper_batch.user_states(library.conn, rowids)
        digests = paper_batch.digests_of(library.conn, rowids)
        for row, rowid in zip(chunk, rowids, strict=True):
            yield row, states[rowid], digests[rowid]


# The table's columns; `rowid` first, for `Library.rows_in_order`.
_TABLE_COLUMNS = "p.rowid AS rowid, p.id, p.published, p.upvotes, p.has_code, p.topics, p.title"
# A limited listing up to this many papers orders rowids first (`Library.rows_in_order`); a
# longer one, the whole library as jsonl, streams rows from one sorted SELECT instead.
_ORDER_FIRST_LIMIT = 10_000


def cmd_show(ctx: AppContext, args: argparse.Namespace) -> int:
    import dataclasses

    from digest_tui.commands.repro_view import repro_view
    from digest_tui.paper_view import paper_view

    library = open_for_command(ctx, enrich="none")
    view = paper_view(library, fresh_paper(library, args.id), ctx.machines)
    # `repo_health: false` in config.yaml: never ask GitHub, as in the app.
    offline = args.offline or not ctx.repo_health
    repro = repro_view(ctx, view, offline=offline)
    paper = dataclasses.replace(view, repro=repro.details).to_json()
    if args.format == "json":
        write_json(paper)
        return 0
    from digest_tui.commands.health_view import repo_health_view

    print(render_text(paper, repo_health_view(ctx, paper, offline=offline), repro))
    return 0


def render_text(
    paper: dict, health: HealthView | None = None, repro: ReproView | None = None
) -> str:
    """A plain-text view of one paper, every untrusted string made printable."""
    p = printable
    lines = [p(paper["title"]), ""]
    lines.append(f"id:        {p(paper['id'])}")
    lines.append(f"published: {paper['published'] or 'unknown'}")
    if paper["upvotes"] is not None:
        lines.append(f"upvotes:   {paper['upvotes']}")
    if paper.get("organization_name"):
        lines.append(f"org:       {p(paper['organization_name'])}")
    if paper.get("authors"):
        lines.append(f"authors:   {one_line(', '.join(paper['authors']), 200)}")
    elif paper.get("authors_count"):
        lines.append(f"authors:   {plural(paper['authors_count'], 'author')}")
    lines.append(f"topics:    {', '.join(paper['topics']) or 'other'}")
    # Loaded already: `paper` was made from its records (and --help must not import it).
    from digest_tui.paper_view import READER_MARK, decided_by_reader

    for topic, evidence in paper["topic_evidence"].items():
        phrases = ", ".join(sorted({p(e["phrase"]) for e in evidence}))
        mark = f"  {READER_MARK}" if decided_by_reader([e.get("by") for e in evidence]) else ""
        lines.append(f"  {topic}: {phrases}{mark}")
    if paper["repos"]:
        lines.append("code:")
        for repo in paper["repos"]:
            lines.append(f"  [{repo['kind']}/{repo['source']}] {p(repo['url'])}")
            if health is not None and repo["url"] in health.lines:
                lines.append(f"    {p(health.lines[repo['url']])}")
        if health is not None and health.notice:
            lines.append(f"  {health.notice}")
    other_links = [link for link in paper.get("links", []) if link["kind"] != "repo"]
    if other_links:
        lines.append("links:")
        for link in other_links:
            lines.append(f"  [{link['kind']}] {p(link['url'])}")
    hardware = paper.get("hardware")
    if hardware:
        lines.append(
            f"hardware:  {p(hardware.get('target'))} ({hardware.get('scale')}, "
            f"{hardware.get('confidence')} confidence)"
        )
        if hardware.get("memory_arithmetic"):
            lines.append(f"  memory:  {p(hardware['memory_arithmetic'])}")
        for fit in paper.get("machine_fit", []):
            mark = {True: "fits", False: "does not fit", None: "unknown"}[fit["fits"]]
            lines.append(f"  {p(fit['name'])}: {mark}: {p(fit['reason'])}")
    if repro is not None:
        lines += _repro_text(repro)
    state = [name for name in ("bookmarked", "read") if paper.get(name)]
    if paper["tags"]:
        state.append("tags: " + ", ".join(p(t) for t in paper["tags"]))
    if state:
        lines.append("state:     " + "; ".join(state))
    if paper.get("lists"):
        lines.append("lists:     " + ", ".join(p(name) for name in paper["lists"]))
    if paper.get("note"):
        lines.append("note:      " + p(paper["note"]).replace("\n", "\n           "))
    if paper.get("note_conflicts"):
        lines.append(
            f"           ({plural(len(paper['note_conflicts']), 'conflicting version')}: "
            f"digest-tui note {p(paper['id'])} --show)"
        )
    lines.append(f"digests:   {', '.join(paper['digests'])}")
    lines += ["", p(paper["abstract"]) or "(no abstract)"]
    return "\n".join(lines)


def _repro_text(repro: ReproView) -> list[str]:
    """Readiness per GitHub repo, then the Hub's weights and data (docs/readiness.md)."""
    lines = []
    if repro.lines:
        lines.append("readiness:")
        lines += [f"  {printable(line)}" for line in repro.lines]
    if repro.artifact_lines:
        lines.append("weights & data:")
        lines += [f"  {printable(line)}" for line in repro.artifact_lines]
    lines += [f"  {notice}" for notice in repro.notices]
    return lines
