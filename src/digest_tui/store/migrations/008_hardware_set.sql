-- `has:hardware` (a hardware suggestion whose scale is known) read the enrichment JSON of every
-- paper: ~95 % of a 100,000-paper library matches, and each `papers` row is ~3.4 KB with the
-- abstract and JSON, so the filter cost ~550 ms a keystroke (docs/performance.md). The set of
-- papers it selects is kept here instead, narrow (a rowid each): the filter becomes
-- `p.rowid IN (SELECT paper_rowid FROM papers_with_hardware)`, which SQLite answers by probing
-- this table's key while it walks a sort index, and which the relevance path (FTS rowids only)
-- can use without touching `papers` at all.
--
-- A side table kept by triggers rather than a column of `papers`: filling a column would have
-- rewritten every wide row (and its overflow pages) in this migration, and every write path
-- (import, bulk import, re-enrichment) would have had to set it; the triggers follow `hardware`
-- whichever path writes it.
CREATE TABLE papers_with_hardware (
    paper_rowid INTEGER PRIMARY KEY   -- papers.rowid; the paper's scale is known
);

-- The condition `has:hardware` always meant (store/query.py before this migration), made safe
-- for text that is not JSON (json_extract would fail the statement; such a paper has none).
INSERT INTO papers_with_hardware (paper_rowid)
    SELECT rowid FROM papers
    WHERE json_valid(hardware) AND json_extract(hardware, '$.scale') != 'unknown';

CREATE TRIGGER papers_hardware_insert AFTER INSERT ON papers
WHEN json_valid(new.hardware) AND json_extract(new.hardware, '$.scale') != 'unknown'
BEGIN
    INSERT OR IGNORE INTO papers_with_hardware (paper_rowid) VALUES (new.rowid);
END;

CREATE TRIGGER papers_hardware_update AFTER UPDATE OF hardware ON papers
WHEN old.hardware IS NOT new.hardware
BEGIN
    DELETE FROM papers_with_hardware WHERE paper_rowid = old.rowid;
    INSERT OR IGNORE INTO papers_with_hardware (paper_rowid)
        SELECT new.rowid
        WHERE json_valid(new.hardware) AND json_extract(new.hardware, '$.scale') != 'unknown';
END;

CREATE TRIGGER papers_hardware_delete AFTER DELETE ON papers BEGIN
    DELETE FROM papers_with_hardware WHERE paper_rowid = old.rowid;
END;
