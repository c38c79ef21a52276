"""The jsonl dump keys `machine_fit` by the runs of a suggestion's JSON text that hold the fit's
fields (enrich/hardware/fit_slices.py). Held here: the runs lie along the model's field order
and cover every field `fit_inputs` reads; two texts the enricher would write with equal runs
have equal fit inputs; a row that is not the current enricher's is validated as before.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from digest_tui.enrich.hardware.fit import fit_inputs
from digest_tui.enrich.hardware.fit_slices import REGIONS, fit_slices
from digest_tui.enrich.hardware.suggestion import HardwareSuggestion
from digest_tui.machine_fits import MachineFits
from tests.unit.test_fit_keys import CATALOG, MACHINES


class _Reads:
    """Records the attributes `fit_inputs` reads."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.names.append(name)
        return [] if name in ("floor_features", "device_counts") else None


def test_the_regions_cover_every_field_fit_inputs_reads_in_the_models_order():
    order = list(HardwareSuggestion.model_fields)
    reads = _Reads()
    fit_inputs(reads)  # type: ignore[arg-type]
    covered: set[str] = set()
    for first, after in REGIONS:
        start, end = order.index(first), order.index(after)
        assert start < end
        covered.update(order[start:end])
    assert set(reads.names) <= covered
    # Each run starts after the previous one (the search goes on from there).
    starts = [order.index(first) for first, _ in REGIONS]
    assert starts == sorted(starts)


_names = st.sampled_from(["h100", "a100", "rtx-4090", "mi300x", "jetson-agx-orin"])
_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
_suggestion = st.builds(
    HardwareSuggestion,
    target=_text,
    scale=st.sampled_from(["single-device", "single-node", "multi-node", "edge", "unknown"]),
    devices=st.lists(_names, max_size=2),
    memory_gb=st.none() | st.sampled_from([8.0, 24.0, 80.0, 640.0]),
    confidence=st.sampled_from(["high", "medium", "low"]),
    # Values holding the markers' key names, as evidence and quotes could.
    evidence=st.lists(
        st.fixed_dictionaries({"quote": _text | st.just('", "scale": "edge"')}), max_size=2
    ),
    device_counts=st.dictionaries(_names, st.integers(1, 8), max_size=2),
    device_total=st.none() | st.integers(1, 64),
    feature_floor=st.none() | st.just("Hopper"),
    floor_features=st.lists(st.sampled_from(["tma", "wgmma"]), max_size=2),
    floor_architecture=st.none() | st.just("hopper"),
    scaled_down=st.none()
    | st.fixed_dictionaries(
        {"devices": st.dictionaries(_names, st.integers(1, 8), max_size=1)},
        optional={"count": st.integers(1, 8), "scale": st.just("single-node")},
    ),
    memory_arithmetic=st.none() | _text,
    alternatives=st.lists(st.fixed_dictionaries({"why": _text}), max_size=1),
)


def _stored(s: HardwareSuggestion) -> str:
    # As the store writes the enricher's suggestion.
    return json.dumps(s.to_json(), ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(_suggestion, min_size=2, max_size=6))
def test_equal_runs_mean_equal_fit_inputs(suggestions: list[HardwareSuggestion]):
    by_slices: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for s in suggestions:
        slices = fit_slices(_stored(s))
        assert slices is not None
        assert by_slices.setdefault(slices, fit_inputs(s)) == fit_inputs(s)


def test_the_runs_hold_the_fields_themselves():
    a = HardwareSuggestion(target="x", scale="single-node", memory_gb=80.0, device_total=8)
    for changed in (
        {"scale": "multi-node"},
        {"memory_gb": 81.0},
        {"device_total": 9},
        {"device_counts": {"h100": 8}},
        {"feature_floor": "Hopper"},
        {"floor_features": ["tma"]},
        {"floor_architecture": "hopper"},
        {"scaled_down": {"count": 4}},
    ):
        b = a.model_copy(update=changed)
        assert fit_slices(_stored(a)) != fit_slices(_stored(b)), changed
    # Fields the fit does not read do not split the key.
    c = a.model_copy(update={"target": "y", "evidence": [{"quote": "q"}], "mode": "training"})
    assert fit_slices(_stored(a)) == fit_slices(_stored(c))


def test_text_without_the_markers_has_no_runs():
    assert fit_slices('{"target": "x"}') is None
    assert fit_slices("not json") is None


def test_a_row_not_the_current_enrichers_is_validated():
    """Only text the current enricher wrote is keyed by its runs: other text that does not
    validate still answers None (the caller then goes to paper_json), whatever an earlier
    paper with the same runs got."""
    fits = MachineFits(MACHINES, lambda: CATALOG)
    good = HardwareSuggestion(target="x", scale="single-node", memory_gb=80.0, device_total=8)
    text = _stored(good)
    answer = fits.text(text, current=True)
    assert answer is not None
    bad = text.replace('"confidence": "low"', '"confidence": "certain"')
    assert fit_slices(bad) == fit_slices(text)
    assert fits.text(bad, current=False) is None
    # The same answer as judging it afresh.
    assert MachineFits(MACHINES, lambda: CATALOG).text(text) == answer
