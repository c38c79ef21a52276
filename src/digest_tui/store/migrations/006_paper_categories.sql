-- arXiv categories of a paper (JSON list, the primary one first), from arXiv listings
-- (sources/arxiv_fetch.py). Papers from other sources keep the empty list.
ALTER TABLE papers ADD COLUMN categories TEXT NOT NULL DEFAULT '[]';
