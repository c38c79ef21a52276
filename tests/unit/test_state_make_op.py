"""`make_op` (the merge's fast way to build an Op) gives the very Op the dataclass gives."""

from __future__ import annotations

import dataclasses

import pytest

from digest_tui.state.model import Op, PaperRef, make_op

ARGS = (
    "laptop:7",
    "laptop",
    7,
    "0001765000000000-000003-laptop",
    "tag_add",
    PaperRef("2501.00001", None, "2501.00001"),
    None,
    {"tag": "moe"},
    "2025-12-06T00:00:00.000+00:00",
)


def test_make_op_equals_the_dataclass_and_stays_frozen() -> None:
    built, plain = make_op(*ARGS), Op(*ARGS)
    assert type(built) is Op
    assert built == plain
    assert dataclasses.astuple(built) == dataclasses.astuple(plain)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.kind = "bookmark"  # type: ignore[misc]
    assert dataclasses.replace(built, kind="tag_remove").kind == "tag_remove"


def test_every_field_is_set_in_its_place() -> None:
    built = make_op(*ARGS)
    assert [getattr(built, f.name) for f in dataclasses.fields(Op)] == list(ARGS)
