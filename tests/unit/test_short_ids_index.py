"""Short ids from index ranges (store/short_ids.names_for) equal those from every name, on a
varied library: capitals anywhere (old-style arXiv ids, aliases), non-ASCII characters that
case-fold to ASCII (Kelvin sign, long s, ligatures, sharp s), a non-ASCII first character,
names shorter than the minimum prefix, and ids sharing long heads. And the ranges really are
index lookups: the statements touch far fewer rows than the library holds."""

from __future__ import annotations

import random
import sqlite3

from digest_tui.store.short_ids import names_for, shortest_prefixes

ODD_CHARS = ["\u212a", "\u017f", "\ufb01", "\ufb02", "\u00df", "\u0130", "\u00e9", "\u2028"]


def _name(rng: random.Random) -> str:
    heads = ["flashat", "flashattention", "megatro", "mega", "kernel", "ks", "st", "fi"]
    base = rng.choice(heads) + "".join(rng.choice("abcdefk-st") for _ in range(rng.randint(0, 9)))
    chars = list(base)
    for _ in range(rng.randint(0, 2)):
        at = rng.randrange(len(chars))
        roll = rng.random()
        if roll < 0.4:
            chars[at] = chars[at].upper()
        elif roll < 0.8:
            chars[at] = rng.choice(ODD_CHARS)
    name = "".join(chars)
    if rng.random() < 0.05:
        name = rng.choice(ODD_CHARS) + name
    return name + rng.choice(["", f"-{rng.randrange(16**4):04x}"])


def varied_library(seed: int, papers: int = 600, aliases: int = 200) -> sqlite3.Connection:
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE papers (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)")
    conn.execute(
        "CREATE TABLE paper_aliases (alias TEXT PRIMARY KEY, paper_id TEXT NOT NULL) WITHOUT ROWID"
    )
    ids: set[str] = {"math.AG/0601001", "hep-th/9901001", "2407.08608", "x"}
    while len(ids) < papers:
        ids.add(_name(rng))
    ordered = sorted(ids)
    conn.executemany("INSERT INTO papers (id) VALUES (?)", [(i,) for i in ordered])
    names = set(ids)
    while len(names) < papers + aliases:
        alias = _name(rng)
        if alias not in names:
            names.add(alias)
            conn.execute("INSERT INTO paper_aliases VALUES (?, ?)", (alias, rng.choice(ordered)))
    return conn


def every_name(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT id, id FROM papers UNION ALL SELECT alias, paper_id FROM paper_aliases"
    ).fetchall()


def test_index_ranges_shorten_exactly_as_every_name() -> None:
    for seed in range(12):
        conn = varied_library(seed)
        every = every_name(conn)
        ids = [r[0] for r in conn.execute("SELECT id FROM papers")]
        ascii_ids = [i for i in ids if i.isascii()]
        rng = random.Random(seed)
        for wanted in [[i] for i in ascii_ids[:150]] + [rng.sample(ascii_ids, 20)]:
            assert shortest_prefixes(names_for(conn, wanted), wanted) == shortest_prefixes(
                every, wanted
            ), wanted


def test_a_page_of_ids_reads_by_index_not_by_scan() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE papers (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)")
    conn.execute(
        "CREATE TABLE paper_aliases (alias TEXT PRIMARY KEY, paper_id TEXT NOT NULL) WITHOUT ROWID"
    )
    conn.executemany(
        "INSERT INTO papers (id) VALUES (?)", [(f"paper-{n:06d}-abcdef",) for n in range(50_000)]
    )
    wanted = [f"paper-{n:06d}-abcdef" for n in range(0, 50_000, 2_500)]
    # Every id shares the head "paper-0": all of them matter, and all are read.
    names = names_for(conn, wanted)
    assert len(names) == 50_000
    assert shortest_prefixes(names, wanted) == shortest_prefixes(every_name(conn), wanted)
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    few = [f"paper-{n:06d}-abcdef".replace("paper", "qaper") for n in range(3)]
    conn.executemany("INSERT INTO papers (id) VALUES (?)", [(i,) for i in few])
    conn.set_progress_handler(count, 100)  # called every 100 virtual-machine instructions
    found = names_for(conn, few)
    conn.set_progress_handler(None, 0)
    assert sorted(found) == sorted((i, i) for i in few)
    assert steps[0] < 20, steps[0]  # a scan of 50,003 ids would be > 2,000 calls
