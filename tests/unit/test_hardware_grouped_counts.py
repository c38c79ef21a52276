"""Counts written with a space as the thousands separator ("16 384 GPUs", the SI style, also
with a thin or no-break space) are one number, not a count of "384" or "000" devices. Found by
the sixth blind split's single reading (docs/hardware.md); the examples here are our own."""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.suggest import suggest_hardware


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        ("We pre-train a 70B model on 10 000 GPUs for three weeks.", 10_000),
        ("Training ran on 16 384 H100 GPUs with 4D parallelism.", 16_384),
        ("Training ran on 16\u2009384 H100 GPUs with 4D parallelism.", 16_384),
        ("Training ran on 2\u202f048 accelerators (NPUs) across the cluster.", 2_048),
        ("Training ran on 1,024 GPUs.", 1_024),  # the comma style still reads
    ],
)
def test_a_space_grouped_count_is_one_number(catalog, abstract, total):
    s = suggest_hardware(catalog, "", abstract)
    assert s.scale == "multi-node", s.target
    assert s.device_total == total


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        # Two separate numbers: the second has more or fewer than three digits.
        ("Across 3 1024-token prompts our kernel runs on 8 GPUs.", 8),
        ("In 2024 we measured it on 8 GPUs.", 8),
    ],
)
def test_separate_numbers_stay_separate(catalog, abstract, total):
    s = suggest_hardware(catalog, "", abstract)
    assert s.device_total == total, s.target
