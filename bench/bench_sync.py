"""Sync at scale: merging many devices' ops, and what a quiet sync costs over WebDAV.

    python bench/bench_sync.py [--devices 10] [--ops 10000] [--papers 5000] [--segment-ops 1000]

1. Merge: D devices each write N ops (bookmarks, read marks, tag adds and removes, notes, with
   clocks hours apart) as segments of `--segment-ops` ops, with their manifests, into a folder
   remote, exactly as SyncEngine uploads them. A fresh machine holding the papers then syncs:
   time, ops/s, peak Python heap (tracemalloc) and RSS. Then one device adds 100 ops and the
   machine syncs again; then a sync with nothing new.
2. The same merge pulled over WebDAV (wsgidav on 127.0.0.1, the server the tests use).
3. Request counts over WebDAV, counted by the server: three devices converged, then a sync with
   nothing new on each; one new op sent and received; `--full`.

Writes bench/out/results/sync.json. The figures go to docs/performance.md ("Sync").
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from _common import ROOT, current_rss_mb, peak_rss_mb, table, write_result

sys.path.insert(0, str(ROOT))  # tests.webdav_server: the loopback WebDAV server of the tests

from digest_tui.ids import paper_id
from digest_tui.models import Digest, Paper, ParsedDigest
from digest_tui.state.clock import HybridClock
from digest_tui.state.model import Op, PaperRef
from digest_tui.store.db import connect
from digest_tui.store.library import Library
from digest_tui.sync.engine import SyncEngine, init_remote
from digest_tui.sync.remote import FolderRemote, Remote
from digest_tui.sync.segments import (
    MARKER,
    MARKER_BYTES,
    Manifest,
    encode_segment,
    manifest_name,
    segment_dir,
)

BASE_MS = 1_765_000_000_000


def papers(n: int) -> list[Paper]:
    return [
        Paper(
            id=paper_id(f"Synthetic systems paper {i}", f"2501.{i:05d}"),
            title=f"Synthetic systems paper {i}",
            arxiv_id=f"2501.{i:05d}",
        )
        for i in range(n)
    ]


def new_library(path: Path, items: list[Paper]) -> Library:
    library = Library(connect(path), None)
    digest = Digest(
        id="bench", source="test", date=__import__("datetime").date(2025, 12, 1), title="bench"
    )
    library.import_parsed(ParsedDigest(digest=digest, papers=items))
    return library


def device_ops(device: str, count: int, refs: list[PaperRef], rng: random.Random) -> list[Op]:
    """A plausible history: toggles, tags added and some removed, notes edited."""
    wall = [BASE_MS + rng.randint(-6, 6) * 3_600_000]

    def tick() -> int:
        wall[0] += rng.randint(1, 60_000)
        return wall[0]

    clock = HybridClock(device, wall=tick)
    ops: list[Op] = []
    live_tags: dict[tuple[int, str], list[str]] = {}
    last_note: dict[int, str] = {}
    while len(ops) < count:
        counter = len(ops) + 1
        index = rng.randrange(len(refs))
        roll = rng.random()
        if roll < 0.30:
            kind, payload = "bookmark", {"value": rng.random() < 0.7}
        elif roll < 0.60:
            kind, payload = "read", {"value": rng.random() < 0.9}
        elif roll < 0.85:
            tag = f"tag{rng.randrange(30)}"
            kind, payload = "tag_add", {"tag": tag}
            live_tags.setdefault((index, tag), []).append(f"{device}:{counter}")
        elif roll < 0.92 and live_tags:
            (index, tag), adds = rng.choice(list(live_tags.items()))
            kind, payload = "tag_remove", {"tag": tag, "removes": list(adds)}
            del live_tags[(index, tag)]
        else:
            replaces = [last_note[index]] if index in last_note else []
            kind, payload = "note_set", {"text": f"note {counter} " * 8, "replaces": replaces}
            last_note[index] = f"{device}:{counter}"
        ops.append(
            Op(
                f"{device}:{counter}",
                device,
                counter,
                clock.now().encode(),
                kind,
                refs[index],
                None,
                payload,
                "2025-12-06T00:00:00.000+00:00",
            )
        )
    return ops


def publish(remote: Remote, device: str, ops: list[Op], per_segment: int) -> int:
    """Write a device's ops as SyncEngine does (segments, then its manifest); return bytes."""
    remote.ensure_dir(segment_dir(device))
    size = 0
    for start in range(0, len(ops), per_segment):
        chunk = ops[start : start + per_segment]
        segment = encode_segment(device, chunk, chunk[0].counter, chunk[-1].counter)
        remote.write(f"{segment_dir(device)}/{segment.name.name}", segment.data)
        size += len(segment.data)
    head = ops[-1].counter
    manifest = Manifest(device, label=device, head=head, updated_at="2025-12-06T00:00:00")
    remote.write(manifest_name(device), manifest.to_bytes())
    return size


# tracemalloc hooks every allocation and roughly doubled the merge's time: the peak heap is
# only traced with --heap (and the times of such a run are not the merge speed).
TRACE_HEAP = False
PROFILE = False
LAST_CPU_S = 0.0  # CPU time of the last timed_sync: steadier than wall time on a busy machine


def timed_sync(engine: SyncEngine, **options) -> tuple[float, float, float, object]:  # type: ignore[no-untyped-def]
    if TRACE_HEAP:
        tracemalloc.start()
    begun, cpu_begun = time.perf_counter(), time.process_time()
    report = engine.sync(**options)
    seconds = time.perf_counter() - begun
    global LAST_CPU_S
    LAST_CPU_S = time.process_time() - cpu_begun
    peak = float("nan")
    if TRACE_HEAP:
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return seconds, peak / 2**20, current_rss_mb(), report


def merge(args, tmp: Path, rng: random.Random, result: dict) -> list[list]:  # type: ignore[no-untyped-def]
    items = papers(args.papers)
    refs = [PaperRef(p.id, None, p.arxiv_id) for p in items]
    logs = {
        f"dev{d:02d}": device_ops(f"dev{d:02d}", args.ops, refs, rng) for d in range(args.devices)
    }
    total = sum(len(v) for v in logs.values())
    rows = []

    folder = tmp / "remote"
    remote = FolderRemote(folder)
    remote.ensure_dir("")
    remote.write(MARKER, MARKER_BYTES)
    begun = time.perf_counter()
    size = sum(publish(remote, device, ops, args.segment_ops) for device, ops in logs.items())
    encode_s = time.perf_counter() - begun
    result["remote"] = {
        "ops": total,
        "bytes": size,
        "bytes_per_op": round(size / total, 1),
        "files": sum(1 for p in folder.rglob("*") if p.is_file()),
        "write_s": round(encode_s, 2),
    }

    library = new_library(tmp / "reader.sqlite3", items)
    init_remote(library, str(folder), remote=remote)
    if not PROFILE:
        # The fresh machine's merge runs in a process of its own, so its peak RSS is the merge's
        # (this process holds the generated ops). The library file is then reopened here.
        library.conn.close()
        child = merge_in_child(tmp / "reader.sqlite3", folder)
        library = Library(connect(tmp / "reader.sqlite3"), None)
        engine = SyncEngine(library, remote)
        seconds, total_applied = child["seconds"], child["applied"]
        assert total_applied == total, child
        result["merge_folder"] = {"devices": args.devices, "ops": total, **child}
        result["merge_folder"]["ops_per_s"] = round(total / seconds)
        result["merge_folder"]["ops_per_cpu_s"] = round(total / child["cpu_s"])
        print(
            f"  merge (folder, own process): {seconds:.2f} s wall, {child['cpu_s']:.2f} s CPU, "
            f"peak RSS {child['peak_rss_mb']:.0f} MB",
            file=sys.stderr,
        )
        rows.append(
            [
                "merge (folder)",
                total,
                f"{seconds:.2f}",
                round(total / seconds),
                f"{child['peak_heap_mb']:.1f}",
                child["requests"],
            ]
        )
        incremental(args, remote, engine, refs, rows, result)
        return (
            rows if args.merge_only else merge_webdav(args, tmp, logs, items, total, rows, result)
        )
    # --profile: the merge in this process, under cProfile.
    import cProfile
    import pstats

    rss_before = current_rss_mb()
    engine = SyncEngine(library, remote)
    # CPU time, not wall: on a loaded machine wall time mostly measures waiting for a core.
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    seconds, heap, rss, report = timed_sync(engine)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stderr)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)
    assert report.applied == total, report  # type: ignore[attr-defined]
    result["merge_folder"] = {
        "devices": args.devices,
        "ops": total,
        "seconds": round(seconds, 2),
        "ops_per_s": round(total / seconds),
        "peak_heap_mb": round(heap, 1),
        "rss_before_mb": rss_before,
        "rss_after_mb": rss,
        "peak_rss_mb": peak_rss_mb(),
        "requests": report.requests,  # type: ignore[attr-defined]
        "cpu_s": round(LAST_CPU_S, 2),
    }
    print(f"  merge (folder): {seconds:.2f} s wall, {LAST_CPU_S:.2f} s CPU", file=sys.stderr)
    rows.append(
        [
            "merge (folder)",
            total,
            f"{seconds:.2f}",
            round(total / seconds),
            f"{heap:.1f}",
            report.requests,
        ]
    )  # type: ignore[attr-defined]

    incremental(args, remote, engine, refs, rows, result)
    return rows if args.merge_only else merge_webdav(args, tmp, logs, items, total, rows, result)


def merge_in_child(library_path: Path, folder: Path) -> dict:  # type: ignore[type-arg]
    """Sync the library at `library_path` with the folder remote in a new process; its
    figures (wall, CPU and peak RSS of that process, which did nothing but the merge)."""
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, __file__, "--merge-child", str(library_path), str(folder)]
        + (["--heap"] if TRACE_HEAP else []),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def merge_child(library_path: str, folder: str) -> int:
    import json

    library = Library(connect(library_path), None)
    engine = SyncEngine(library, FolderRemote(Path(folder)))
    rss_before = current_rss_mb()
    seconds, heap, rss, report = timed_sync(engine)
    figures = {
        "seconds": round(seconds, 2),
        "cpu_s": round(LAST_CPU_S, 2),
        "peak_heap_mb": round(heap, 1),
        "applied": report.applied,  # type: ignore[attr-defined]
        "requests": report.requests,  # type: ignore[attr-defined]
        "rss_before_mb": rss_before,
        "rss_after_mb": rss,
        "peak_rss_mb": peak_rss_mb(),
    }
    library.conn.close()
    print(json.dumps(figures))
    return 0


def incremental(args, remote, engine, refs, rows, result) -> None:  # type: ignore[no-untyped-def]
    """One device adds 100 ops and the machine syncs; then a sync with nothing new."""
    extra = device_ops("dev00", args.ops + 100, refs, random.Random(1))[args.ops :]
    publish(remote, "dev00", extra, args.segment_ops)
    seconds, heap, _rss, report = timed_sync(engine)
    result["incremental_100_folder"] = {
        "seconds": round(seconds, 3),
        "applied": report.applied,  # type: ignore[attr-defined]
        "requests": report.requests,
    }  # type: ignore[attr-defined]
    rows.append(
        [
            "then 100 new ops (folder)",
            report.applied,
            f"{seconds:.3f}",
            "",  # type: ignore[attr-defined]
            f"{heap:.1f}",
            report.requests,
        ]
    )  # type: ignore[attr-defined]
    seconds, heap, _rss, report = timed_sync(engine)
    result["nothing_new_folder"] = {"seconds": round(seconds, 4), "requests": report.requests}  # type: ignore[attr-defined]
    rows.append(
        ["then nothing new (folder)", 0, f"{seconds:.4f}", "", f"{heap:.1f}", report.requests]
    )  # type: ignore[attr-defined]
    engine.library.conn.close()


def merge_webdav(args, tmp: Path, logs, items, total, rows, result):  # type: ignore[no-untyped-def]
    """The same merge pulled over WebDAV (wsgidav on 127.0.0.1)."""

    from tests.support.webdav_server import PASSWORD, USER, serve_webdav

    from digest_tui.sync.credentials import Credentials
    from digest_tui.sync.webdav import WebDavRemote

    with serve_webdav(tmp / "dav") as dav:
        url = dav.url + "bench/"
        creds = Credentials(USER, PASSWORD, "bench")
        writer = WebDavRemote(url, credentials=creds)
        writer.ensure_dir("")
        writer.write(MARKER, MARKER_BYTES)
        writer.ensure_dir("segments")
        for device, ops in logs.items():
            publish(writer, device, ops, args.segment_ops)
        library = new_library(tmp / "reader-dav.sqlite3", items)
        reader = WebDavRemote(url, credentials=creds)
        init_remote(library, url, remote=reader)
        dav.flaky.reset()
        engine = SyncEngine(library, reader)
        seconds, heap, _rss, report = timed_sync(engine)
        assert report.applied == total  # type: ignore[attr-defined]
        result["merge_webdav"] = {
            "ops": total,
            "seconds": round(seconds, 2),
            "ops_per_s": round(total / seconds),
            "requests": report.requests,  # type: ignore[attr-defined]
            "server_counts": dict(dav.flaky.counts),
        }
        rows.append(
            [
                "merge (WebDAV, loopback)",
                total,
                f"{seconds:.2f}",
                round(total / seconds),
                f"{heap:.1f}",
                report.requests,
            ]
        )  # type: ignore[attr-defined]
        library.conn.close()
    return rows


def request_counts(tmp: Path, result: dict) -> list[list]:  # type: ignore[no-untyped-def]
    from tests.support.webdav_server import PASSWORD, USER, serve_webdav

    from digest_tui.sync.credentials import Credentials
    from digest_tui.sync.webdav import WebDavRemote

    rows = []
    items = papers(50)
    with serve_webdav(tmp / "dav2") as dav:
        url = dav.url + "digest-tui/"
        creds = Credentials(USER, PASSWORD, "bench")
        engines = []
        for name in ("laptop", "desk", "cluster"):
            library = new_library(tmp / f"{name}.sqlite3", items)
            init_remote(library, url, remote=WebDavRemote(url, credentials=creds), label=name)
            engines.append(SyncEngine(library, WebDavRemote(url, credentials=creds)))
            library.state.bookmark(items[len(engines)].id)
            library.state.add_tags(items[len(engines)].id, [name])
        for _ in range(3):
            for engine in engines:
                engine.sync()

        def measure(label: str, engine: SyncEngine, **options) -> None:  # type: ignore[no-untyped-def]
            dav.flaky.reset()
            report = engine.sync(**options)
            counts = dict(sorted(dav.flaky.counts.items()))
            result.setdefault("webdav_requests", {})[label] = {
                "client": report.requests,
                "server": counts,
            }
            rows.append([label, report.requests, ", ".join(f"{k} {v}" for k, v in counts.items())])

        for engine, name in zip(engines, ("laptop", "desk", "cluster"), strict=True):
            measure(f"nothing new ({name}, 2 other devices)", engine)
        engines[0].library.state.bookmark(items[10].id)
        measure("send 1 new op", engines[0])
        measure("receive 1 new op", engines[1])
        measure("receive 1 new op and 1 changed ack", engines[2])
        measure("see 2 changed acks", engines[0])
        measure("see 1 changed ack", engines[1])
        measure("nothing new again", engines[2])
        measure("nothing new, --full", engines[2], full=True)
        for engine in engines:
            engine.library.conn.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=10)
    parser.add_argument("--ops", type=int, default=10_000, help="ops per device")
    parser.add_argument("--papers", type=int, default=5_000)
    parser.add_argument("--segment-ops", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=20251231)
    parser.add_argument(
        "--heap", action="store_true", help="trace the peak Python heap (slows every sync ~2x)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the folder merge (stderr; slower)"
    )
    parser.add_argument(
        "--merge-only", action="store_true", help="only the folder merge, no WebDAV or requests"
    )
    parser.add_argument("--merge-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    global TRACE_HEAP, PROFILE
    TRACE_HEAP = args.heap
    PROFILE = args.profile
    if args.merge_child:
        return merge_child(*args.merge_child)
    rng = random.Random(args.seed)
    result: dict = {
        "devices": args.devices,
        "ops_per_device": args.ops,
        "papers": args.papers,
        "segment_ops": args.segment_ops,
        "heap_traced": args.heap,
    }
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as tmp:
        merge_rows = merge(args, Path(tmp), rng, result)
        request_rows = [] if args.merge_only else request_counts(Path(tmp), result)
    print(
        f"\n{args.devices} devices x {args.ops} ops on {args.papers} papers, "
        f"{args.segment_ops} ops per segment; remote: {result['remote']}\n"
    )
    print(table(merge_rows, ["sync", "ops", "seconds", "ops/s", "peak heap MB", "requests"]))
    print()
    print(table(request_rows, ["WebDAV sync", "requests", "by method (server)"]))
    print(f"\nwritten: {write_result('sync', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
