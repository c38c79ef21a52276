-- `fits:MACHINE` called a Python function on every paper's hardware JSON (json-parse, pydantic,
-- the fit against the catalog): ~300 ms at 100,000 papers, with nearly every paper's JSON
-- different. The fit reads a few fields of that JSON only (store/fit_keys.py), so each paper is
-- given the canonical text of those fields, its fit key, and the query judges each distinct key
-- once (a few thousand at 100,000 papers) and looks the papers up by key.
--
-- Side tables, not a column of `papers`, for the reason of migration 008 (filling a column
-- rewrites every wide row). The key needs pydantic, so SQL cannot compute it: triggers only
-- mark a paper whose hardware was written as pending, and store/fit_keys.py (`refresh_fit_keys`,
-- run by this migration's Python step and after each import and re-enrichment) computes the
-- pending keys. Until then the query judges a pending paper from its hardware, as before, so
-- a write by any path (another connection, a test's UPDATE) never gives a wrong answer.

-- Every key seen: small (one row per distinct key); never shrinks (a key no paper has left
-- matches nothing).
CREATE TABLE fit_keys (
    id  INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE
);

-- The paper's key; key_id NULL: the paper's hardware has a shape no key stands for (it is
-- judged from its hardware each time).
CREATE TABLE paper_fit_keys (
    paper_rowid INTEGER PRIMARY KEY,   -- papers.rowid
    key_id      INTEGER REFERENCES fit_keys (id)
);
CREATE INDEX paper_fit_keys_key ON paper_fit_keys (key_id);

-- Papers whose hardware was written since their key was computed.
CREATE TABLE paper_fit_pending (
    paper_rowid INTEGER PRIMARY KEY    -- papers.rowid
);

INSERT INTO paper_fit_pending (paper_rowid) SELECT rowid FROM papers;

CREATE TRIGGER papers_fit_key_insert AFTER INSERT ON papers BEGIN
    -- (a rowid used before, by a row that REPLACE deleted without firing delete triggers)
    DELETE FROM paper_fit_keys WHERE paper_rowid = new.rowid;
    INSERT OR IGNORE INTO paper_fit_pending (paper_rowid) VALUES (new.rowid);
END;

CREATE TRIGGER papers_fit_key_update AFTER UPDATE OF hardware ON papers
WHEN old.hardware IS NOT new.hardware
BEGIN
    DELETE FROM paper_fit_keys WHERE paper_rowid = old.rowid;
    INSERT OR IGNORE INTO paper_fit_pending (paper_rowid) VALUES (new.rowid);
END;

CREATE TRIGGER papers_fit_key_delete AFTER DELETE ON papers BEGIN
    DELETE FROM paper_fit_keys WHERE paper_rowid = old.rowid;
    DELETE FROM paper_fit_pending WHERE paper_rowid = old.rowid;
END;
