-- Sync bookkeeping (sync/engine.py, docs/sync.md). Local to this machine, never synced itself.
-- The remote, this device's label and the last manifest written live in `meta` (sync_*).

-- Segments this machine knows on the remote: for other devices, the ones it has applied (their
-- union says which ops of that device it holds: its ack); for this device, the ones it uploaded
-- and has not deleted (compaction reads them).
CREATE TABLE sync_segments (
    device TEXT NOT NULL,
    name   TEXT NOT NULL,                 -- ops-<first>-<last>-<sha256>.jsonl.gz
    first  INTEGER NOT NULL,
    last   INTEGER NOT NULL,
    ops    INTEGER NOT NULL,              -- how many ops it holds
    bytes  INTEGER NOT NULL,
    at     TEXT NOT NULL,                 -- when it was applied or uploaded (UTC)
    PRIMARY KEY (device, name)
) WITHOUT ROWID;

-- Other devices seen on the remote, with their manifest as last read.
CREATE TABLE sync_peers (
    device      TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL DEFAULT '', -- of the manifest file (ETag, or size and mtime)
    manifest    TEXT,                     -- JSON as last read successfully
    problem     TEXT,                     -- why the last read failed, if it did
    seen_at     TEXT NOT NULL             -- when this machine last read a changed manifest
) WITHOUT ROWID;
