"""User state: bookmarks, read marks, tags, notes and reading lists as HLC-stamped ops.

Modules, by job (docs/ops.md tells the whole story):
- `clock`: the Hybrid Logical Clock that stamps ops;
- `model`: ops, paper references, note versions and the records UserState returns (pure);
- `positions`: fractional position keys for list order (pure);
- `derive`: state from a set of ops, the merge rules (pure, no SQL);
- `log`: the op log in SQLite (local ops, applying remote ones, what sync exchanges);
- `refs`: which local paper an op names, and ops waiting for their paper;
- `materialise`: derived state written into the tables the queries read;
- `user_state`: the `UserState` API the CLI and the TUI use.

This package depends on `store.db` and never on `sync/`; sync depends on it.
"""
