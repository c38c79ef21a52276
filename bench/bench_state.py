"""User state at scale: applying ops, single actions, and the state filters at 100,000 papers.

    python bench/bench_state.py --papers 100000 [--repeat 20]

On a copy of the synthetic library it
1. applies a remote device's op log in batches with `apply_ops` (what sync does): bookmarks on
   5% of papers, read marks on 30%, 1-3 tags on 10% (20 tag names), notes on 2%, and a reading
   list of 300 papers; reports ops/s;
2. times single user actions through `UserState` (each one transaction, committed);
3. times the filters of the paper list (`is:unread`, `tag:X`, `list:X`, ...) and `counts()`;
4. times importing a page of new papers while 1,000 ops wait for papers not in the library.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from _common import summary_ms, table, write_result
from digest_tui.state import positions
from digest_tui.state.clock import HybridClock
from digest_tui.state.log import apply_ops
from digest_tui.state.model import Op, PaperRef
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.store.query import PaperQuery
from synthetic import DEFAULT_SEED, build_library, database_path

QUERIES = [
    ("all papers", ""),
    ("is:unread", "is:unread"),
    ("is:bookmarked", "is:bookmarked"),
    ("is:bookmarked is:unread", "is:bookmarked is:unread"),
    ("tag:tag3", "tag:tag3"),
    ("-tag:tag3", "-tag:tag3"),
    ("has:notes", "has:notes"),
    ("has:tags", "has:tags"),
    ("list:bench (list order)", "list:bench"),
    ("is:new", "is:new"),
    ("topic:moe is:unread", "topic:moe is:unread"),
    ("word + tag", "attention tag:tag1"),
]


class OpMaker:
    def __init__(self, device: str) -> None:
        self.clock = HybridClock(device, wall=lambda: 1_765_000_000_000)
        self.counter = 0

    def make(self, kind, payload, paper=None, list_id=None) -> Op:  # type: ignore[no-untyped-def]
        self.counter += 1
        return Op(
            op_id=f"{self.clock.device}:{self.counter}",
            device=self.clock.device,
            counter=self.counter,
            hlc=self.clock.now().encode(),
            kind=kind,
            paper=paper,
            list_id=list_id,
            payload=payload,
            created_at="2025-12-06T00:00:00.000+00:00",
        )


def remote_log(papers: list[tuple], rng: random.Random) -> list[Op]:
    maker = OpMaker("benchremote")
    ops: list[Op] = []
    for pid, key, arxiv in papers:
        ref = PaperRef(pid, key, arxiv)
        roll = rng.random()
        if roll < 0.05:
            ops.append(maker.make("bookmark", {"value": True}, ref))
        if rng.random() < 0.30:
            ops.append(maker.make("read", {"value": True}, ref))
        if rng.random() < 0.10:
            for tag in rng.sample([f"tag{i}" for i in range(20)], rng.randint(1, 3)):
                ops.append(maker.make("tag_add", {"tag": tag}, ref))
        if rng.random() < 0.02:
            ops.append(maker.make("note_set", {"text": f"note about {pid}", "replaces": []}, ref))
    ops.append(maker.make("list_create", {"name": "bench"}, list_id="Lbench"))
    last = None
    for pid, key, arxiv in rng.sample(papers, 300):
        last = positions.key_between(last, None)
        ops.append(maker.make("list_add", {"position": last}, PaperRef(pid, key, arxiv), "Lbench"))
    return ops


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    result: dict[str, object] = {"papers": args.papers}

    with tempfile.TemporaryDirectory(prefix="bench-state-") as tmp:
        home = build_library(Path(tmp), args.papers, args.seed)
        started = time.perf_counter()
        conn = connect(database_path(home))  # migrates the copy to the current schema
        result["migrate_s"] = round(time.perf_counter() - started, 2)
        library = Library(conn)
        papers = [tuple(r) for r in conn.execute("SELECT id, title_key, arxiv_id FROM papers")]

        ops = remote_log(papers, rng)
        started = time.perf_counter()
        for start in range(0, len(ops), 5000):
            apply_ops(conn, ops[start : start + 5000])
        elapsed = time.perf_counter() - started
        result["apply"] = {
            "ops": len(ops),
            "seconds": round(elapsed, 2),
            "ops_per_s": round(len(ops) / elapsed),
        }
        started = time.perf_counter()
        apply_ops(conn, ops[:5000])
        result["reapply_5000_duplicates_s"] = round(time.perf_counter() - started, 3)

        state = library.state
        sample = [p[0] for p in rng.sample(papers, args.repeat)]
        actions = {
            "bookmark": lambda pid: state.bookmark(pid, True),
            "add_tags (2 tags)": lambda pid: state.add_tags(pid, ["bench-a", "bench-b"]),
            "set_note": lambda pid: state.set_note(pid, "a note " * 20),
            "add_to_list (300 long)": lambda pid: state.add_to_list("bench", [pid]),
            "user_state read": lambda pid: state.user_state(library.resolve(pid)["rowid"]),
        }
        action_rows = []
        result["actions"] = {}
        for label, action in actions.items():
            times = []
            for pid in sample:
                begun = time.perf_counter()
                action(pid)
                times.append(time.perf_counter() - begun)
            stats = summary_ms(times)
            result["actions"][label] = stats  # type: ignore[index]
            action_rows.append([label, stats["p50_ms"], stats["p95_ms"], stats["max_ms"]])

        state.begin_visit()
        query_rows = []
        result["queries"] = {}
        for label, search in QUERIES:
            query = PaperQuery(search=search)
            count = len(library.list_rows(query))
            times = []
            for _ in range(args.repeat):
                begun = time.perf_counter()
                library.list_rows(query)
                times.append(time.perf_counter() - begun)
            stats = summary_ms(times)
            result["queries"][label] = {"rows": count, **stats}  # type: ignore[index]
            query_rows.append([label, count, stats["p50_ms"], stats["p95_ms"]])
        times = []
        for _ in range(args.repeat):
            begun = time.perf_counter()
            state.counts()
            times.append(time.perf_counter() - begun)
        result["counts"] = summary_ms(times)

        # Ops waiting for papers that are not here: does importing get slower?
        from synthetic import generate, to_parsed

        pages = generate(400, args.seed + 1)
        baseline = to_parsed(next(pages))
        begun = time.perf_counter()
        library.import_parsed(baseline)
        result["import_page_ms"] = {
            "papers": len(baseline.papers),
            "ms": round((time.perf_counter() - begun) * 1000, 1),
        }
        maker = OpMaker("benchpending")
        waiting = [
            maker.make("bookmark", {"value": True}, PaperRef(f"missing-{i}", f"{i:016x}", None))
            for i in range(1000)
        ]
        apply_ops(conn, waiting)
        parsed = to_parsed(next(pages))
        begun = time.perf_counter()
        library.import_parsed(parsed)
        result["import_page_with_1000_pending_ms"] = {
            "papers": len(parsed.papers),
            "ms": round((time.perf_counter() - begun) * 1000, 1),
        }
        conn.close()

    print(f"\n{args.papers} papers; applied {result['apply']}\n")  # type: ignore[index]
    print(table(action_rows, ["action", "p50 ms", "p95 ms", "max ms"]))
    print()
    print(table(query_rows, ["query (list_rows)", "rows", "p50 ms", "p95 ms"]))
    print(f"\ncounts(): {result['counts']}")
    print(f"import of a page: {result['import_page_ms']}")
    print(f"import of a page with 1000 ops pending: {result['import_page_with_1000_pending_ms']}")
    print(f"re-applying 5000 known ops: {result['reapply_5000_duplicates_s']} s")
    print(f"written: {write_result('state', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
