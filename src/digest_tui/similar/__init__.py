"""Papers like a paper, and papers like the ones a reader keeps (see docs/similar.md).

`terms` turns a paper's text into weighted terms, `index` keeps one short TF-IDF vector per
paper in SQLite (built incrementally) and finds neighbours through an inverted index, and
`recommend` ranks papers against the reader's bookmarks or a tag.
"""
