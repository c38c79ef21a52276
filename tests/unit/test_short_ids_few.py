"""A page of a listing asks short ids for ~20 papers: only the names that can share 7 or more
leading characters with them are read (store/short_ids.names_for), not every id and alias of
the library. The short ids must be those computed from every name."""

from __future__ import annotations

import sqlite3

from digest_tui.store.short_ids import names_for, shortest_prefixes

IDS = [
    "flashattention-3-fast-and-accurate-1a2b3c4d",
    "flashattention-3-fast-and-furious-9f8e7d6c",
    "flashattention-2-faster-attention-11111111",
    "flashinfer-efficient-attention-22222222",
    "Flashy-upper-case-33333333",
    "megatron-lm-training-multi-44444444",
    "megatron-core-55555555",
    "tiny",
    "2407.08608",
    "strasse-routing-66666666",
]
ALIASES = [
    ("flashattention-3-fast-and-accurate-old", "2407.08608"),
    ("FLASHATTENTION-3-fast-and-acc-zzz", "megatron-core-55555555"),
    ("Straße-routing-alias", "megatron-lm-training-multi-44444444"),
    ("megatron-lm-training-multi-44444444-v1", "megatron-lm-training-multi-44444444"),
]


def library() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE papers (id TEXT PRIMARY KEY)")
    conn.execute("CREATE TABLE paper_aliases (alias TEXT PRIMARY KEY, paper_id TEXT)")
    conn.executemany("INSERT INTO papers VALUES (?)", [(i,) for i in IDS])
    conn.executemany("INSERT INTO paper_aliases VALUES (?, ?)", ALIASES)
    for n in range(300):  # names that cannot matter
        conn.execute("INSERT INTO papers VALUES (?)", (f"zz-other-paper-{n:04d}",))
    return conn


def every_name(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT id, id FROM papers UNION ALL SELECT alias, paper_id FROM paper_aliases"
    ).fetchall()


def test_few_ids_shorten_as_with_every_name():
    conn = library()
    for wanted in ([i] for i in IDS):
        assert shortest_prefixes(names_for(conn, wanted), wanted) == shortest_prefixes(
            every_name(conn), wanted
        )
    assert shortest_prefixes(names_for(conn, IDS), IDS) == shortest_prefixes(every_name(conn), IDS)
    assert len(names_for(conn, IDS[:1])) < 20  # and it did not read the whole library
