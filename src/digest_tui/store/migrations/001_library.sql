-- The library: papers, digests and which papers each digest lists, plus derived enrichment
-- (topics, links, repos, hardware) that is recomputed whenever the enrichment data changes.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE papers (
    rowid                   INTEGER PRIMARY KEY,   -- stable integer key, also the FTS rowid
    id                      TEXT NOT NULL UNIQUE,  -- arXiv id, or a title-derived id
    title_key               TEXT NOT NULL,
    title                   TEXT NOT NULL,
    abstract                TEXT NOT NULL DEFAULT '',
    published               TEXT,                  -- ISO date
    published_year_inferred INTEGER NOT NULL DEFAULT 0,
    upvotes                 INTEGER,
    authors_count           INTEGER,
    authors                 TEXT NOT NULL DEFAULT '[]',
    organization            TEXT,
    organization_name       TEXT,
    arxiv_id                TEXT,
    keywords                TEXT NOT NULL DEFAULT '[]',
    project_page            TEXT,
    github_repo             TEXT,
    github_stars            INTEGER,
    withdrawn               INTEGER NOT NULL DEFAULT 0,
    source                  TEXT NOT NULL,
    source_ref              TEXT NOT NULL DEFAULT '',
    first_seen              TEXT,                  -- date of the earliest digest listing it
    last_seen               TEXT,                  -- date of the latest digest listing it
    added_at                TEXT NOT NULL,         -- when this machine first stored it
    search_extra            TEXT NOT NULL DEFAULT '',  -- tags and notes, for full-text search
    topics                  TEXT NOT NULL DEFAULT '[]',
    topic_evidence          TEXT NOT NULL DEFAULT '{}',
    links                   TEXT NOT NULL DEFAULT '[]',
    repos                   TEXT NOT NULL DEFAULT '[]',
    hardware                TEXT,
    has_code                INTEGER NOT NULL DEFAULT 0,
    max_stars               INTEGER,
    enrich_fp               TEXT
);
CREATE INDEX papers_title_key ON papers (title_key);
CREATE INDEX papers_arxiv_id ON papers (arxiv_id) WHERE arxiv_id IS NOT NULL;
CREATE INDEX papers_published ON papers (published);

-- Ids a paper was known by before it was re-keyed (a title-derived id replaced by its arXiv id).
CREATE TABLE paper_aliases (
    alias    TEXT PRIMARY KEY,
    paper_id TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE paper_topics (
    topic      TEXT NOT NULL,
    paper_rowid INTEGER NOT NULL REFERENCES papers (rowid) ON DELETE CASCADE,
    PRIMARY KEY (topic, paper_rowid)
) WITHOUT ROWID;

CREATE TABLE digests (
    id           TEXT PRIMARY KEY,
    source       TEXT NOT NULL,
    date         TEXT NOT NULL,
    title        TEXT NOT NULL,
    origin       TEXT NOT NULL DEFAULT '',
    imported_at  TEXT NOT NULL,
    content_hash TEXT NOT NULL DEFAULT ''
);
CREATE INDEX digests_date ON digests (date);

CREATE TABLE digest_papers (
    digest_id   TEXT NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
    paper_rowid INTEGER NOT NULL REFERENCES papers (rowid) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    upvotes     INTEGER,
    PRIMARY KEY (digest_id, paper_rowid)
) WITHOUT ROWID;
CREATE INDEX digest_papers_paper ON digest_papers (paper_rowid);

-- Full-text index over title, abstract and the user's tags and notes. External content: the
-- text lives once, in `papers`; triggers keep the index in step.
CREATE VIRTUAL TABLE papers_fts USING fts5 (
    title, abstract, search_extra,
    content = 'papers', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
CREATE TRIGGER papers_fts_insert AFTER INSERT ON papers BEGIN
    INSERT INTO papers_fts (rowid, title, abstract, search_extra)
    VALUES (new.rowid, new.title, new.abstract, new.search_extra);
END;
CREATE TRIGGER papers_fts_delete AFTER DELETE ON papers BEGIN
    INSERT INTO papers_fts (papers_fts, rowid, title, abstract, search_extra)
    VALUES ('delete', old.rowid, old.title, old.abstract, old.search_extra);
END;
CREATE TRIGGER papers_fts_update AFTER UPDATE OF title, abstract, search_extra ON papers BEGIN
    INSERT INTO papers_fts (papers_fts, rowid, title, abstract, search_extra)
    VALUES ('delete', old.rowid, old.title, old.abstract, old.search_extra);
    INSERT INTO papers_fts (rowid, title, abstract, search_extra)
    VALUES (new.rowid, new.title, new.abstract, new.search_extra);
END;

-- Repos attached to a paper by a source other than its text: a Papers-with-Code import or the
-- user. (Curated repos come from repro_links/ at enrichment time; abstract links from the text.)
CREATE TABLE extra_repos (
    paper_rowid INTEGER NOT NULL REFERENCES papers (rowid) ON DELETE CASCADE,
    url         TEXT NOT NULL,
    repo        TEXT NOT NULL,   -- models.Repo as JSON
    source      TEXT NOT NULL,
    PRIMARY KEY (paper_rowid, url)
) WITHOUT ROWID;
