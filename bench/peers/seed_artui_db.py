#!/usr/bin/env python3
"""Seed an artui user dir (SQLite DB + config.yaml) with the same synthetic
papers gen_arxiv_digest.py writes, so artui can be started with no network.

artui has no "open this file" mode: its list is whatever is in its SQLite DB
(<user-dir>/arxiv_articles.db), filled by fetching the arXiv API.  It shows the
"Unread" feed on start.  At start-up it also deletes unsaved articles older
than feed_retention_days (30) and unsaved articles whose categories are not
in config.yaml, so the seeded papers get published dates within the last 7
days and config.yaml lists every category the generator uses.

The FIRST marker paper is made the newest (artui sorts by published date,
newest first), so it is the first row at first paint.

Run with the artui venv's python (it imports artui.database to create the
exact schema):

    PEERS/artui/bin/python seed_artui_db.py N USER_DIR [--seed S]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_arxiv_digest import CATEGORIES, generate_papers, meta  # noqa: E402

CONFIG_YAML = """feed_retention_days: 30
categories:
{cats}
filters: {{}}
"""

CAT_NAMES = {
    "cs.LG": "Machine Learning", "cs.DC": "Distributed Computing", "cs.CL": "Computation and Language",
    "cs.AI": "Artificial Intelligence", "cs.PF": "Performance", "cs.AR": "Hardware Architecture",
    "cs.OS": "Operating Systems", "cs.CV": "Computer Vision", "stat.ML": "Statistical ML",
    "cs.NE": "Neural and Evolutionary", "cs.DB": "Databases", "cs.SE": "Software Engineering",
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("user_dir")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    user_dir = Path(a.user_dir)
    user_dir.mkdir(parents=True, exist_ok=True)
    cats = "\n".join(f'  "{CAT_NAMES[c]}": "{c}"' for c in CATEGORIES)
    (user_dir / "config.yaml").write_text(CONFIG_YAML.format(cats=cats))

    from artui.database import ArticleDatabase  # creates the schema exactly as artui does

    db_path = user_dir / "arxiv_articles.db"
    if db_path.exists():
        db_path.unlink()
    ArticleDatabase(str(db_path), str(user_dir))

    papers = generate_papers(a.n, a.seed)
    now = dt.datetime.now().replace(microsecond=0)
    rows, status = [], []
    for i, p in enumerate(papers):
        if p["marker"] == "first":
            published = now - dt.timedelta(minutes=1)  # newest -> first row
        else:
            published = now - dt.timedelta(minutes=2) - dt.timedelta(seconds=(i * 6 * 86400) // a.n)
        vid = p["arxiv_id"] + "v1"
        stamp = now.isoformat()
        rows.append((vid, f"http://arxiv.org/abs/{vid}", p["title"], json.dumps(p["authors"]), p["abstract"],
                     json.dumps(p["categories"]), published.isoformat(), f"http://arxiv.org/pdf/{vid}", 0,
                     stamp, stamp))
        status.append((vid,))
    con = sqlite3.connect(db_path)
    with con:
        con.executemany(
            "INSERT INTO articles (id, entry_id, title, authors, summary, categories, published_date, pdf_url,"
            " citation_count, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
        con.executemany("INSERT INTO article_status (article_id, is_saved, is_viewed) VALUES (?, 0, 0)", status)
    con.close()
    info = meta(papers, a.n, a.seed)
    info["db"] = str(db_path)
    info["first_wait_text"] = "Aardvark: Tiered KV-Cache"  # artui truncates titles to 57 chars
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
