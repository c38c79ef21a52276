"""`links check`, `links import-pwc`, `links health`, `links readiness` and `open`: code
beside papers."""

from __future__ import annotations

import argparse
import sys

from digest_tui.commands.common import (
    fresh_paper,
    open_for_command,
    path_arg,
    plural,
    positive_int,
    resolve_or_fail,
    write_json,
)
from digest_tui.errors import CommandError

TYPE_CHECKING = False  # not typing's: --help imports this module (common.py says why)
if TYPE_CHECKING:  # annotations only: `digest-tui --help` must not load pydantic or sqlite3
    from pathlib import Path

    from digest_tui.config import AppContext
    from digest_tui.enrich.repro_check_cache import CheckResult


def register(sub: argparse._SubParsersAction) -> None:
    links = sub.add_parser("links", help="the curated repro links and repo health")
    links_sub = links.add_subparsers(dest="links_command", metavar="SUBCOMMAND", required=True)

    p = links_sub.add_parser(
        "check",
        help="validate the repro_links catalog (packaged and the user's)",
        description="Check every repro_links YAML file: schema, unknown fields, duplicate "
        "papers and repos, URL shape, arXiv ids. Exit 1 when a problem is found.",
    )
    p.add_argument("dirs", nargs="*", type=path_arg, help="directories to check instead")
    p.set_defaults(func=cmd_links_check)

    p = links_sub.add_parser(
        "import-pwc",
        help="add repos from a Papers-with-Code links dump",
        description="Stream a links-between-papers-and-code.json[.gz] dump and attach the "
        "official and community repos of the papers in the library.",
    )
    p.add_argument("path", type=path_arg, metavar="FILE")
    p.set_defaults(func=cmd_import_pwc)

    p = links_sub.add_parser(
        "health",
        help="fetch GitHub health (stars, licence, last push) for a paper's repos",
        description="Stars, licence, last push and archived state of the GitHub repos of a "
        "paper (or of every paper with code), cached for 24 h. Exit status 1, with one line, "
        "when the GitHub API cannot be reached.",
    )
    p.add_argument("id", nargs="?", help="paper id (default: every paper with code)")
    p.add_argument("--refresh", action="store_true", help="ignore the cache's time to live")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_health)

    p = links_sub.add_parser(
        "readiness",
        help="check how ready to run the GitHub repos of the newest papers are",
        description="Root files and README sections of the GitHub repos of the newest papers "
        "with code (docs/readiness.md), so `has:runnable` and `--sort readiness` know more "
        "than the papers already shown. Cached for 24 h (ETag revalidation after). A rate "
        "limit stops the batch with one line; exit status 1 when GitHub cannot be reached or "
        "the rate limit left repos unchecked.",
    )
    p.add_argument(
        "--limit",
        type=positive_int,
        default=50,
        metavar="N",
        help="the N newest papers with code (default 50)",
    )
    p.add_argument("--offline", action="store_true", help="read the cache only")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_readiness)

    p = sub.add_parser(
        "open",
        help="open a paper's repo or page in the browser",
        description="Open the paper's first (official) repo, or with --paper its own page. "
        "Only http(s) URLs are opened; without a browser the URL is copied and printed.",
    )
    p.add_argument("id")
    p.add_argument("--paper", action="store_true", help="open the paper's page, not its code")
    p.add_argument("--repo", type=int, default=1, metavar="N", help="open the N-th repo")
    p.add_argument("--print", action="store_true", help="only print the URL")
    p.set_defaults(func=cmd_open)


def cmd_links_check(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.data_files import repro_dirs
    from digest_tui.enrich.repro_check_cache import kept_or_checked

    dirs = list(args.dirs) or repro_dirs(ctx.paths.config_dir)
    for directory in dirs:
        if not directory.is_dir():
            raise CommandError(f"{directory}: not a directory")
    # Kept across runs while the files and the checking code stay the same (pydantic and
    # YAML are then not even imported): enrich/repro_check_cache.py.
    result = kept_or_checked(dirs, ctx.paths.cache_dir, lambda: _check_catalog(dirs))
    problems = result.problems
    for problem in problems:
        print(problem, file=sys.stderr)
    where = ", ".join(str(d) for d in dirs)
    if problems:
        raise CommandError(f"{plural(len(problems), 'problem')} in {where}")
    print(f"ok: {plural(result.papers, 'paper')}, {plural(result.repos, 'repo')} in {where}")
    return 0


def _check_catalog(dirs: list[Path]) -> CheckResult:
    from digest_tui.enrich.repro_catalog import load_catalog_dirs
    from digest_tui.enrich.repro_check_cache import CheckResult

    catalog = load_catalog_dirs(dirs)  # once: its problems are what a check reports
    repos = sum(len(entry.repos) for entry in catalog.entries)
    problems = tuple(str(problem) for problem in catalog.problems)
    return CheckResult(len(catalog.entries), repos, problems)


def cmd_import_pwc(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.errors import PwcFormatError
    from digest_tui.sources.pwc_links import collect_pwc_repos

    if not args.path.exists():
        raise CommandError(f"{args.path}: no such file")
    library = open_for_command(ctx)
    papers = library.conn.execute("SELECT rowid, arxiv_id, title FROM papers").fetchall()
    try:
        found = collect_pwc_repos(
            args.path,
            arxiv_ids=[p["arxiv_id"] for p in papers if p["arxiv_id"]],
            titles=[p["title"] for p in papers],
        )
    except (PwcFormatError, OSError) as exc:
        raise CommandError(str(exc)) from exc
    for problem in found.problems[:20]:
        print(f"warning: {problem}", file=sys.stderr)
    if len(found.problems) > 20:
        print(f"warning: … and {plural(len(found.problems) - 20, 'more problem')}", file=sys.stderr)
    added = touched = 0
    for paper in papers:
        repos = found.repos_for(paper["arxiv_id"], paper["title"])
        if repos:
            count = library.add_extra_repos(int(paper["rowid"]), repos)
            added += count
            touched += bool(count)
    print(
        f"read {plural(found.records, 'link')} from {args.path}: {plural(added, 'repo')} "
        f"added to {plural(touched, 'paper')}"
    )
    return 0


def _client(ctx: AppContext):  # type: ignore[no-untyped-def]
    from digest_tui.repohealth import GitHubHealthClient, HealthCache

    return GitHubHealthClient(HealthCache(ctx.paths.cache_dir / "repo_health.sqlite3"))


def cmd_health(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.paper_view import paper_view

    library = open_for_command(ctx)
    if args.id:
        papers = [paper_view(library, resolve_or_fail(library, args.id)).to_json()]
    else:
        from digest_tui.store.query import PaperQuery

        papers = [paper_view(library, r).to_json() for r in library.rows(PaperQuery(has_code=True))]
    from digest_tui.repohealth.format import github_repos, health_line

    wanted = sorted({repo for paper in papers for repo in github_repos(paper).values()})
    client = _client(ctx)
    try:
        if args.refresh:
            results = client.refresh_many(wanted, force=True)
        else:
            results = client.refresh_many(wanted)
    finally:
        client.close()
        client.cache.close()
    if client.unreachable:
        # Offline: one line with the cause, not one identical line per repo.
        cause = client.unreachable
        unchecked = sum(1 for h in results if h.message and cause in h.message)
        raise CommandError(f"{cause}; {plural(unchecked, 'repo')} not checked", exit_status=1)
    if args.format == "json":
        write_json([h.to_json() for h in results])
        return 0
    for health in results:
        print(f"{health.owner}/{health.name}: {health_line(health)}")
    return 0


def cmd_readiness(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.paper_view import paper_view
    from digest_tui.repohealth import GitHubHealthClient, HealthCache
    from digest_tui.repohealth.readiness import ReadinessClient
    from digest_tui.repohealth.readiness_bulk import check_many
    from digest_tui.store.query import PaperQuery

    library = open_for_command(ctx)
    # Newest first (the list's date order); only as many papers as asked for.
    rows = library.rows(PaperQuery(has_code=True, sort="date", limit=args.limit))
    repos = [pair for row in rows for pair in paper_view(library, row).github_repos.values()]
    offline = args.offline or not ctx.repo_health
    cache = HealthCache(ctx.paths.cache_dir / "repo_health.sqlite3")
    health = GitHubHealthClient(cache)
    try:
        bulk = check_many(ReadinessClient(health), repos, offline=offline)
    finally:
        health.close()
        cache.close()
    if args.format == "json":
        write_json([r.to_json() for r in bulk.results])
    else:
        for r in bulk.shown:
            print(f"{r.owner}/{r.name}: {r.line()}")
    print(f"{plural(len(rows), 'paper')}: {bulk.summary()}", file=sys.stderr)
    if bulk.unreachable:
        raise CommandError(
            f"{bulk.unreachable}; {plural(bulk.not_checked, 'repo')} not checked", exit_status=1
        )
    if bulk.rate_limited:
        raise CommandError(
            f"{bulk.rate_limited}; {plural(bulk.not_checked, 'repo')} not checked", exit_status=1
        )
    return 0


def cmd_open(ctx: AppContext, args: argparse.Namespace) -> int:
    from digest_tui.paper_urls import paper_page_url
    from digest_tui.paper_view import paper_view
    from digest_tui.urls import open_url

    library = open_for_command(ctx, enrich="none")
    paper = paper_view(library, fresh_paper(library, args.id)).to_json()
    if args.paper:
        url = paper_page_url(paper)
    else:
        repos = paper["repos"]
        if not repos:
            raise CommandError(f"{paper['id']} has no linked code (use --paper for its page)")
        if not 1 <= args.repo <= len(repos):
            raise CommandError(
                f"{paper['id']} has {plural(len(repos), 'repo')}; --repo {args.repo}"
            )
        url = repos[args.repo - 1]["url"]
    result = open_url(url, print_only=args.print)
    if result.action == "refused":
        raise CommandError(result.message)
    if result.action in ("printed",):
        print(result.url)
    else:
        print(result.message)
    return 0
