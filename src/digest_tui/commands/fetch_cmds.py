"""`fetch`: Daily Papers from the Hugging Face API, or arXiv listings (`--arxiv`), into the
library (see docs/fetch.md)."""

from __future__ import annotations

import argparse
import sys

from digest_tui.commands.artifacts_cmds import add_prefetch_argument, prefetch_after_fetch
from digest_tui.errors import CommandError

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from typing import TextIO

    from digest_tui.config import AppContext


_MAX_ERROR_LINES = 10


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fetch",
        help="fetch Daily Papers from the Hugging Face API",
        description="Fetch Daily Papers lists from the Hugging Face API (today's by default) "
        "and import them, one digest per day (hf-api-YYYY-MM-DD). Answers are cached, so "
        "fetching a day again is cheap and a day fetched once can be imported offline.",
        epilog="The API host is $HF_ENDPOINT (default https://huggingface.co). With --arxiv, "
        "new submissions of arXiv categories instead, one digest per category and day "
        "(arxiv-cs.DC-YYYY-MM-DD), from $ARXIV_API_ENDPOINT (default https://export.arxiv.org), "
        "one request every 3 s. Days are UTC days. Exit status 1 when nothing could be fetched.",
    )
    when = p.add_mutually_exclusive_group()
    when.add_argument("--date", metavar="YYYY-MM-DD", help="one day")
    when.add_argument("--week", metavar="YYYY-Www", help="an ISO week, e.g. 2025-W23")
    when.add_argument("--month", metavar="YYYY-MM", help="a month, e.g. 2025-06")
    when.add_argument("--since", metavar="YYYY-MM-DD", help="every day from this one to today")
    p.add_argument(
        "--sort",
        choices=("trending", "publishedAt"),
        help="order of papers within a digest (default: the API's)",
    )
    p.add_argument(
        "--arxiv",
        metavar="CATEGORIES",
        help="fetch arXiv listings of these categories (e.g. cs.DC,cs.AR) instead of Daily "
        "Papers; with --date or --since (default: the last 3 days)",
    )
    p.add_argument(
        "--no-filter",
        action="store_true",
        help="with --arxiv: keep every paper, ignoring arxiv.keep_if_any in config.yaml",
    )
    p.add_argument(
        "--offline", action="store_true", help="use cached answers only; never touch the network"
    )
    p.add_argument(
        "--refresh",
        action="store_true",
        help="ask the server again even for recently cached days (cheap: ETag revalidation)",
    )
    add_prefetch_argument(p)  # --artifacts (commands/artifacts_cmds.py)
    p.set_defaults(func=cmd_fetch)


def cmd_fetch(ctx: AppContext, args: argparse.Namespace) -> int:
    if args.arxiv is not None:
        return _fetch_arxiv(ctx, args)
    if args.no_filter:
        raise CommandError("--no-filter: only with --arxiv")
    from digest_tui.service import open_library, refresh_similar_after_import
    from digest_tui.sources.hf_fetch import FetchSpec, fetch_days

    try:
        spec = FetchSpec.build(
            date=args.date,
            week=args.week,
            month=args.month,
            since=args.since,
            sort=args.sort,
            refresh=args.refresh,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None

    library = open_library(ctx)
    # Fetching into a brand-new library should not also pull in the sample digests later.
    if not library.count():
        library.set_meta("sample_loaded", "1")

    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() and len(spec.periods) > 1 else None
    try:
        report = fetch_days(
            spec,
            library=library,
            cache_dir=ctx.paths.cache_dir,
            progress=bar.update if bar else None,
            offline=args.offline,
        )
    except ValueError as exc:  # a malformed HF_ENDPOINT
        raise CommandError(str(exc)) from None
    finally:
        if bar is not None:
            bar.clear()

    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    # When nothing was fetched the first error becomes the final message; do not print it twice.
    errors = report.errors if report.ok else report.errors[1:]
    for error in errors[:_MAX_ERROR_LINES]:
        print(f"error: {error}", file=sys.stderr)
    if len(errors) > _MAX_ERROR_LINES:
        print(f"error: ... and {len(errors) - _MAX_ERROR_LINES} more", file=sys.stderr)
    if not report.ok:
        hint = "" if args.offline else "; days fetched before can be imported with --offline"
        if report.unreached:
            # The cause leads: "cannot reach https://huggingface.co: …; 3 days not fetched".
            raise CommandError(f"{report.errors[0]}{hint}", exit_status=1)
        first = report.errors[0] if report.errors else "no answer"
        raise CommandError(f"nothing fetched: {first}{hint}", exit_status=1)
    for digest_id in report.digests:
        print(digest_id)
    if report.empty:
        print(f"no papers for: {', '.join(report.empty)}")
    print(report.summary())
    refresh_similar_after_import(library)
    prefetch_after_fetch(ctx, library, report.digests, args)
    return 0


class _ProgressBar:
    """A one-line text progress bar, redrawn in place; only used when stderr is a terminal."""

    def __init__(self, out: TextIO, width: int = 30) -> None:
        self.out = out
        self.width = width
        self.drawn = False

    def update(self, done: int, total: int, label: str) -> None:
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        self.out.write(f"\rfetching [{bar}] {done}/{total} {label}".ljust(72))
        self.out.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.out.write("\r" + " " * 72 + "\r")
            self.out.flush()


def _fetch_arxiv(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.service import open_library, refresh_similar_after_import
    from digest_tui.sources.arxiv_fetch import ArxivSpec, KeywordFilter, fetch_arxiv

    for option in ("week", "month", "sort"):
        if getattr(args, option) is not None:
            raise CommandError(f"--{option}: not with --arxiv (use --date or --since)")
    settings = ctx.settings.arxiv
    keep = None
    if settings.keep_if_any and not args.no_filter:
        keep = KeywordFilter(tuple(settings.keep_if_any), tuple(settings.filter_categories))
    try:
        spec = ArxivSpec.build(
            args.arxiv, date=args.date, since=args.since, refresh=args.refresh, keep=keep
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    library = open_library(ctx)
    if not library.count():
        library.set_meta("sample_loaded", "1")
    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() and len(spec.categories) > 1 else None
    try:
        report = fetch_arxiv(
            spec,
            library=library,
            cache_dir=ctx.paths.cache_dir,
            offline=args.offline,
            progress=bar.update if bar else None,
        )
    except ValueError as exc:  # a malformed ARXIV_API_ENDPOINT or ARXIV_REQUEST_INTERVAL
        raise CommandError(str(exc)) from None
    finally:
        if bar is not None:
            bar.clear()
    refresh_similar_after_import(library)
    library.checkpoint()
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    errors = report.errors if report.ok else report.errors[1:]
    for error in errors[:_MAX_ERROR_LINES]:
        print(f"error: {error}", file=sys.stderr)
    if not report.ok:
        first = report.errors[0] if report.errors else "no answer"
        if args.offline:
            hint = "; fetch once without --offline to fill the cache"
        else:
            hint = "; categories fetched before can be imported with --offline"
        prefix = "" if report.unreached else "nothing fetched: "
        raise CommandError(f"{prefix}{first}{hint}", exit_status=1)
    for digest_id in report.digests:
        print(digest_id)
    if report.empty:
        print(f"no papers for: {', '.join(report.empty)} ({spec.describe()})")
    print(report.summary())
    return 0
