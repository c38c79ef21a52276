-- User state (bookmarks, read marks, tags, notes, reading lists) recorded as operations.
-- `ops` is the append-only source of truth, exchanged between devices by sync; every other
-- table here is derived from it (state/materialise.py recomputes the rows an op touches) and can be
-- rebuilt from `ops` at any time. See docs/ops.md for the merge rules.

-- This machine's device id: random, generated once when this file is first migrated.
INSERT OR IGNORE INTO meta (key, value) VALUES ('device_id', lower(hex(randomblob(8))));

CREATE TABLE ops (
    seq         INTEGER PRIMARY KEY,            -- local arrival order; never leaves the machine
    op_id       TEXT NOT NULL UNIQUE,           -- '<device>:<counter>'
    device      TEXT NOT NULL,                  -- device that made the op
    counter     INTEGER NOT NULL CHECK (counter > 0),  -- per-device sequence: 1, 2, 3, ...
    hlc         TEXT NOT NULL,                  -- Hybrid Logical Clock stamp (sortable text)
    kind        TEXT NOT NULL,                  -- bookmark, read, tag_add, note_set, list_add...
    paper_id    TEXT,                           -- the paper as the origin device knew it ...
    title_key   TEXT,                           -- ... and its title key (ids.title_key) ...
    arxiv_id    TEXT,                           -- ... and its arXiv id, when known
    list_id     TEXT,                           -- reading-list ops
    payload     TEXT NOT NULL DEFAULT '{}',     -- JSON, per kind
    created_at  TEXT NOT NULL,                  -- wall time on the origin device (display only)
    received_at TEXT NOT NULL,                  -- when this machine stored it
    origin      TEXT NOT NULL CHECK (origin IN ('local', 'remote')),
    synced      INTEGER NOT NULL DEFAULT 0,     -- local ops: 1 once uploaded; remote ops: 1
    -- The local paper the op applies to, resolved by id, alias, arXiv id or title key.
    -- NULL while the paper is not in this library: the op waits and applies on its arrival.
    paper_rowid INTEGER REFERENCES papers (rowid) ON DELETE SET NULL,
    UNIQUE (device, counter)
);
CREATE INDEX ops_paper ON ops (paper_rowid) WHERE paper_rowid IS NOT NULL;
CREATE INDEX ops_list ON ops (list_id) WHERE list_id IS NOT NULL;
CREATE INDEX ops_pending_id ON ops (paper_id) WHERE paper_rowid IS NULL AND paper_id IS NOT NULL;
CREATE INDEX ops_pending_title ON ops (title_key)
    WHERE paper_rowid IS NULL AND title_key IS NOT NULL;
CREATE INDEX ops_pending_arxiv ON ops (arxiv_id)
    WHERE paper_rowid IS NULL AND arxiv_id IS NOT NULL;
CREATE INDEX ops_unsynced ON ops (counter) WHERE origin = 'local' AND synced = 0;

-- This device's Hybrid Logical Clock and the last op counter it used (one row).
CREATE TABLE clock (
    device   TEXT PRIMARY KEY,
    wall_ms  INTEGER NOT NULL DEFAULT 0,
    counter  INTEGER NOT NULL DEFAULT 0,
    last_seq INTEGER NOT NULL DEFAULT 0
);
INSERT INTO clock (device) SELECT value FROM meta WHERE key = 'device_id';

-- Derived: per-paper registers. Bookmark and read are last-writer-wins; `note` is the newest
-- current version, `note_conflicts` how many other concurrent versions stand beside it.
CREATE TABLE paper_state (
    paper_rowid    INTEGER PRIMARY KEY REFERENCES papers (rowid) ON DELETE CASCADE,
    bookmarked     INTEGER NOT NULL DEFAULT 0,
    bookmarked_at  TEXT,                        -- stamp of the winning bookmark op
    read           INTEGER NOT NULL DEFAULT 0,
    read_at        TEXT,
    note           TEXT,
    note_version   TEXT,
    note_conflicts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX paper_state_bookmarked ON paper_state (paper_rowid) WHERE bookmarked = 1;
CREATE INDEX paper_state_read ON paper_state (paper_rowid) WHERE read = 1;
CREATE INDEX paper_state_note ON paper_state (paper_rowid) WHERE note IS NOT NULL;

-- Derived: the current versions of each note (one normally; several after concurrent edits).
CREATE TABLE note_versions (
    paper_rowid INTEGER NOT NULL REFERENCES papers (rowid) ON DELETE CASCADE,
    version     TEXT NOT NULL,                  -- op_id of the note_set op
    hlc         TEXT NOT NULL,
    device      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    text        TEXT NOT NULL,                  -- '' = the note was deleted in this version
    PRIMARY KEY (paper_rowid, version)
) WITHOUT ROWID;

-- Derived: live tags (add-wins observed-remove set per paper).
CREATE TABLE paper_tags (
    tag         TEXT NOT NULL,
    paper_rowid INTEGER NOT NULL REFERENCES papers (rowid) ON DELETE CASCADE,
    added_at    TEXT NOT NULL,                  -- stamp of the earliest live add
    PRIMARY KEY (tag, paper_rowid)
) WITHOUT ROWID;
CREATE INDEX paper_tags_paper ON paper_tags (paper_rowid);

-- Derived: reading lists (name and deletion are last-writer-wins) and their members
-- (add-wins observed-remove set; order by a fractional position, last-writer-wins).
CREATE TABLE lists (
    list_id    TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,                   -- stamp of the first create
    changed_at TEXT NOT NULL                    -- stamp of the winning create/rename/delete
);
CREATE INDEX lists_name ON lists (name COLLATE NOCASE) WHERE deleted = 0;

CREATE TABLE list_items (
    list_id     TEXT NOT NULL REFERENCES lists (list_id) ON DELETE CASCADE,
    paper_rowid INTEGER NOT NULL REFERENCES papers (rowid) ON DELETE CASCADE,
    position    TEXT NOT NULL,                  -- fractional index (state/positions.py)
    position_at TEXT NOT NULL,                  -- stamp of the winning add/move: breaks ties
    PRIMARY KEY (list_id, paper_rowid)
) WITHOUT ROWID;
CREATE INDEX list_items_paper ON list_items (paper_rowid);
CREATE INDEX list_items_order ON list_items (list_id, position, position_at);

-- "New since the last visit" compares with this.
CREATE INDEX papers_added_at ON papers (added_at);
