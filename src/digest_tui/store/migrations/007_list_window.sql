-- The paper list reads ordered rowids and then only the rows on screen (store/query.py
-- build_rowid_select). Each sort gets an index on exactly its ORDER BY expressions, followed by
-- the raw columns those expressions and the common filters read, so SQLite answers from the
-- index alone ("USING COVERING INDEX") instead of visiting every paper's wide row (abstract and
-- enrichment JSON, ~3.4 KB each).

-- 004's order index sorted by `published`; the list sorts by coalesce(published, first_seen)
-- since undated papers take the date of the digest that listed them, so it no longer matched.
DROP INDEX IF EXISTS papers_list_order;

CREATE INDEX papers_order_date ON papers (
    coalesce(published, first_seen) IS NULL, coalesce(published, first_seen) DESC,
    coalesce(upvotes, 0) DESC, rowid DESC,
    published, first_seen, upvotes, has_code, withdrawn
);

CREATE INDEX papers_order_upvotes ON papers (
    coalesce(upvotes, 0) DESC, coalesce(published, first_seen) DESC, rowid DESC,
    published, first_seen, upvotes, has_code, withdrawn
);

CREATE INDEX papers_order_stars ON papers (
    coalesce(max_stars, -1) DESC, coalesce(upvotes, 0) DESC, rowid DESC,
    max_stars, upvotes, published, has_code, withdrawn
);

CREATE INDEX papers_order_title ON papers (
    title COLLATE NOCASE, rowid, published, has_code, withdrawn
);
