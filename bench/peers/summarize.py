#!/usr/bin/env python3
"""Summarize results.jsonl from bench_peers.sh into Markdown tables.

    summarize.py RESULTS_JSONL

For each app and N: min / median / max of each timing (ms) over the runs
that produced it, the number of runs that timed out or crashed at each point,
and the median peak RSS of the process tree (MB, 1 MB = 1024 KB).
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import OrderedDict, defaultdict

# What each step means, per app (the steps differ because the apps differ).
LABELS = {
    "empty": {"first_paint_ms": "first paint ('READY')"},
    "asv": {
        "first_paint_ms": "first paint (first title)",
        "step1_ms": "'/' -> search box open",
        "step2_ms": "type word -> echo",
        "step3_ms": "type word -> results",
    },
    "artui": {
        "first_paint_ms": "first paint (first title)",
        "ready_ms": "first paint -> search box takes keys",
        "step1_ms": "type word -> echo",
        "step2_ms": "Enter -> results",
    },
    "artui-offline": {"first_paint_ms": "first paint (first title)"},
}


def family(app: str) -> str:
    if app.startswith("empty"):
        return "empty"
    if app.startswith("asv"):
        return "asv"
    return app


def fmt(vals: list[int]) -> str:
    if not vals:
        return "-"
    return f"{min(vals)} / {int(statistics.median(vals))} / {max(vals)}"


def main(path: str) -> int:
    rows: "OrderedDict[tuple[str, int], list[dict]]" = OrderedDict()
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        rows.setdefault((r["app"], int(r["n"])), []).append(r)

    by_family: "OrderedDict[str, list[tuple[str, int]]]" = OrderedDict()
    for key in rows:
        by_family.setdefault(family(key[0]), []).append(key)

    for fam, keys in by_family.items():
        labels = LABELS.get(fam, {"first_paint_ms": "first paint"})
        metrics = list(labels)
        print(f"\n### {fam}\n")
        head = ["app", "N", "runs"] + [f"{labels[m]} ms (min / med / max)" for m in metrics] + \
               ["peak RSS MB (med)", "failures"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for key in keys:
            runs = rows[key]
            vals: dict[str, list[int]] = defaultdict(list)
            over: dict[str, list[str]] = defaultdict(list)
            fails: list[str] = []
            for r in runs:
                for m in metrics:
                    v = r.get(m)
                    if isinstance(v, int):
                        vals[m].append(v)
                    elif isinstance(v, str) and v.startswith(">"):
                        over[m].append(v)
                if r.get("status") != "ok":
                    fails.append(r.get("status", "?"))
            rss = [r["peak_rss_kb"] for r in runs if isinstance(r.get("peak_rss_kb"), int) and r["peak_rss_kb"] > 0]
            rss_s = f"{statistics.median(rss) / 1024:.0f}" if rss else "-"
            fail_s = ", ".join(f"{s} x{fails.count(s)}" for s in dict.fromkeys(fails)) or "none"
            n_s = f"{key[1]:,}" if key[1] else "-"
            def cell(m: str) -> str:
                c = fmt(vals[m])
                if over[m]:
                    lim = min(int(v[1:]) for v in over[m])
                    t = f"> {lim // 1000} s timeout x{len(over[m])}"
                    c = t if c == "-" else f"{c}; {t}"
                return c

            cells = [key[0], n_s, str(len(runs))] + [cell(m) for m in metrics] + [rss_s, fail_s]
            print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "bench/out/peers/results/results.jsonl"))
