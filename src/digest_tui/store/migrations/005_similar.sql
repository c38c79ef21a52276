-- Similar papers and recommendations (similar/index.py, docs/similar.md): one short TF-IDF
-- vector per paper and an inverted index over it, kept up to date incrementally.

-- Document frequencies come from the full-text index itself (how many papers hold a term).
CREATE VIRTUAL TABLE similar_vocab USING fts5vocab (papers_fts, 'row');

-- Each paper's vector: its strongest terms with unit-length weights, and a fingerprint of the
-- text it was built from. No foreign key: a deleted paper is noticed through similar_dirty,
-- which also removes its postings.
CREATE TABLE similar_docs (
    paper_rowid INTEGER PRIMARY KEY,
    fp          TEXT NOT NULL,
    terms       TEXT NOT NULL     -- JSON [[term_id, weight], ...], strongest first
);

-- Every term with its document frequency as of the last full pass: vectors built since then
-- use these, so all stored weights share one idf (reading df from similar_vocab costs a scan of
-- the term's whole doclist, ~1 ms for a common word at 100,000 papers).
CREATE TABLE similar_terms (
    term_id INTEGER PRIMARY KEY,
    term    TEXT NOT NULL UNIQUE,
    df      INTEGER NOT NULL DEFAULT 0
);

-- The inverted index: which papers carry a term, and how strongly.
CREATE TABLE similar_postings (
    term_id     INTEGER NOT NULL,
    paper_rowid INTEGER NOT NULL,
    weight      REAL NOT NULL,
    PRIMARY KEY (term_id, paper_rowid)
) WITHOUT ROWID;

-- Papers whose vector must be (re)built or dropped: marked by triggers as papers come, change
-- or go, consumed by the next `similar` or `recommend`.
CREATE TABLE similar_dirty (
    paper_rowid INTEGER PRIMARY KEY
);
CREATE TRIGGER similar_dirty_insert AFTER INSERT ON papers BEGIN
    INSERT OR IGNORE INTO similar_dirty (paper_rowid) VALUES (new.rowid);
END;
CREATE TRIGGER similar_dirty_update AFTER UPDATE OF title, abstract, keywords ON papers BEGIN
    INSERT OR IGNORE INTO similar_dirty (paper_rowid) VALUES (new.rowid);
END;
CREATE TRIGGER similar_dirty_delete AFTER DELETE ON papers BEGIN
    INSERT OR IGNORE INTO similar_dirty (paper_rowid) VALUES (old.rowid);
END;
INSERT INTO similar_dirty (paper_rowid) SELECT rowid FROM papers;
