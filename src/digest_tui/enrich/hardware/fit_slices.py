"""The parts of a stored hardware suggestion's JSON text that hold the fields fit.py reads.

`papers --format jsonl` with machines configured prints each paper's `machine_fit`, which
depends only on the fields `fit.fit_inputs` lists. Validating every stored suggestion with
pydantic to read them cost ~10 us a paper and building the inputs ~5 us more: ~1.5 s of a
100,000-paper dump. But the JSON text the current enricher stores is `HardwareSuggestion.
to_json()` encoded by `json.dumps` (default separators): its top-level keys in the model's
order, so the fit's fields sit in three runs of that order, between fixed markers. Two such
texts whose three runs are equal have equal fit inputs, so the runs, cut with `str.find`
(~2 us), key a cache of verdicts; the 100,000 synthetic papers have ~6,400 distinct keys.

Only for text the current enricher wrote (the row's `enrich_fp` is current, the trust
paper_jsonl already gives such rows' other columns): any other text is validated as before.
tests/unit/test_fit_slices.py holds `REGIONS` to the model's field order and to the fields
`fit_inputs` reads.
"""

from __future__ import annotations

# (first, after): each run of fields, from the key `first` up to the key `after` (not
# included), in `HardwareSuggestion`'s field order. Together they hold every field
# `fit_inputs` reads: scale, memory_gb | device_counts, device_total | feature_floor,
# floor_features, floor_architecture, scaled_down. `devices` comes along with the first run.
REGIONS = (
    ("scale", "confidence"),
    ("device_counts", "device_sources"),
    ("feature_floor", "alternatives"),
)
_MARKERS = tuple((f', "{first}": ', f', "{after}": ') for first, after in REGIONS)


def fit_slices(text: str) -> tuple[str, ...] | None:
    """The runs of `text` that hold the fit's fields; None when a marker is missing.

    Each run starts at the first `, "<first>": ` after the previous run's start and ends at
    the last `, "<after>": ` of the text: were a nested dict to carry a key of the same name
    (the enricher writes none), the run would take in more text, never leave a field out."""
    parts = []
    at = 0
    for start_marker, end_marker in _MARKERS:
        start = text.find(start_marker, at)
        end = text.rfind(end_marker)
        if start < 0 or end <= start:
            return None
        parts.append(text[start:end])
        at = start
    return tuple(parts)
