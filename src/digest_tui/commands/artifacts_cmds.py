"""`artifacts`: Hugging Face Hub models, datasets and Spaces citing a paper (docs/artifacts.md)."""

from __future__ import annotations

import argparse
import sys

from digest_tui.commands.common import add_format
from digest_tui.errors import CommandError

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from digest_tui.config import AppContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "artifacts",
        help="Hub models, datasets and Spaces citing a paper",
        description="List the Hugging Face Hub repos (models, datasets, Spaces) that cite a "
        "paper's arXiv id, most liked first. Answers are cached for a day; with --offline "
        "only cached answers are used.",
        epilog="The Hub host is $HF_ENDPOINT (default https://huggingface.co). Exit status 2 "
        "when the paper has no arXiv id, 1 when the Hub can be reached neither online nor "
        "from the cache.",
    )
    p.add_argument("id", help="paper id, arXiv id, former id, or a unique id prefix")
    add_format(p, ("json", "table"), "json")
    p.add_argument(
        "--offline", action="store_true", help="use cached answers only; never touch the network"
    )
    p.add_argument(
        "--refresh", action="store_true", help="ask the Hub again even for a fresh cached answer"
    )
    p.set_defaults(func=cmd_artifacts)


def cmd_artifacts(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.commands.common import open_for_command, resolve_or_fail, write_json
    from digest_tui.errors import FetchError
    from digest_tui.ids import normalize_arxiv_id
    from digest_tui.sources.hf_artifacts import fetch_artifacts
    from digest_tui.textsafe import printable

    library = open_for_command(ctx, enrich="none")  # reads the paper's arXiv id only
    row = resolve_or_fail(library, args.id)
    arxiv_id = normalize_arxiv_id(row["arxiv_id"] or "")
    if arxiv_id is None:
        raise CommandError(
            f"{printable(row['id'])}: no arXiv id is known for this paper, and the Hub links "
            "repos to papers by arXiv id"
        )
    try:
        found = fetch_artifacts(
            arxiv_id, cache_dir=ctx.paths.cache_dir, offline=args.offline, refresh=args.refresh
        )
    except ValueError as exc:  # a malformed HF_ENDPOINT
        raise CommandError(str(exc)) from None
    except FetchError as exc:
        hint = "" if args.offline else "; answers fetched before are used with --offline"
        raise CommandError(f"{exc}{hint}", exit_status=1) from None
    for note in found.notes:
        print(f"warning: {note}", file=sys.stderr)
    if args.format == "json":
        write_json(found.to_json())
        return 0
    _print_table(found)
    return 0


def _print_table(found) -> None:  # type: ignore[no-untyped-def]
    from digest_tui.commands.common import write_table

    def number(value: int | None) -> str:
        return "" if value is None else f"{value:,}"

    rows = [
        [kind.rstrip("s"), number(a.likes), number(a.downloads), a.url]
        for kind in ("models", "datasets", "spaces")
        for a in getattr(found, kind)
    ]
    if not rows:
        print(f"no Hub models, datasets or Spaces cite arXiv {found.arxiv_id}")
        return
    write_table(rows, ["KIND", "LIKES", "DOWNLOADS", "URL"])


# ---- `fetch --artifacts`: the Hub listings of the fetched papers, in bulk, bounded -----------


def add_prefetch_argument(p: argparse.ArgumentParser) -> None:
    """`fetch --artifacts [N]`: registered by commands/fetch_cmds.py."""
    p.add_argument(
        "--artifacts",
        nargs="?",
        type=int,
        const=50,
        default=0,
        metavar="N",
        help="then ask the Hub which models, datasets and Spaces cite the fetched papers not "
        "asked about yet (at most N, default 50; with --offline, from the cache only), for "
        "has:weights and --sort reproducible",
    )


def prefetch_after_fetch(ctx: AppContext, library, digests: list[str], args) -> None:  # type: ignore[no-untyped-def]
    """Run after a fetch that imported `digests`, when `--artifacts` asked for it."""
    limit = getattr(args, "artifacts", 0) or 0
    if limit <= 0 or not digests:
        return
    from digest_tui.sources.hf_artifacts import cached_artifacts, prefetch_artifacts

    marks = ",".join("?" * len(digests))
    ids = [
        r[0]
        for r in library.conn.execute(
            "SELECT DISTINCT p.arxiv_id FROM papers p JOIN digest_papers dp "
            "ON dp.paper_rowid = p.rowid WHERE p.arxiv_id IS NOT NULL "
            f"AND dp.digest_id IN ({marks}) ORDER BY p.arxiv_id DESC",
            digests,
        )
    ]
    if args.offline:  # the cache only: the index learns what earlier runs fetched
        known = sum(cached_artifacts(a, ctx.paths.cache_dir) is not None for a in ids[:limit])
        print(
            f"Hub artifacts: {known} of {len(ids[:limit])} papers known from the cache",
            file=sys.stderr,
        )
        return
    asked = prefetch_artifacts(ids, ctx.paths.cache_dir, limit=limit)
    print(f"Hub artifacts: asked about {asked} papers", file=sys.stderr)
