"""Topic classification: `schema` (the taxonomy file's model), `taxonomy` (loading, merging,
the compiled taxonomy), `matching` (patterns found in a text), `classifier` (classify, explain)."""
