-- Lookups by paper in paper_topics (re-tagging a paper, "papers in no topic") scanned the whole
-- table because its key starts with the topic: quadratic at 50,000 papers (bench_startup).
CREATE INDEX paper_topics_paper ON paper_topics (paper_rowid);

-- The default order of the list (newest first, then most upvoted), so the first screen of a
-- 100,000-paper library comes off an index instead of a sort of every row.
CREATE INDEX papers_list_order ON papers (
    published IS NULL, published DESC, coalesce(upvotes, 0) DESC, rowid DESC
);
