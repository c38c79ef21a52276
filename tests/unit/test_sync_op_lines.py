"""The one-regex reading of a segment line (sync/op_lines.py) accepts only what the general path
accepts, and gives the same Op; anything else goes to the general path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from digest_tui.errors import OpFormatError, SegmentError
from digest_tui.state import positions
from digest_tui.state.model import Op, PaperRef
from digest_tui.sync.op_lines import decode_line
from digest_tui.sync.segments import MAX_OP_DEPTH, decode_segment, encode_segment

STAMP = "0001765000000000-000003-"


def line_of(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def general(line: str) -> Op | None:
    """What the general path makes of a line: the op, or None when it refuses it."""
    try:
        return Op.from_json(json.loads(line))
    except (OpFormatError, ValueError):
        return None


def body(**changes: Any) -> dict[str, Any]:
    op = {
        "v": 1,
        "op_id": "laptop:7",
        "device": "laptop",
        "counter": 7,
        "hlc": STAMP + "laptop",
        "kind": "bookmark",
        "paper": {"id": "2501.00001", "title_key": None, "arxiv": "2501.00001"},
        "list": None,
        "payload": {"value": True},
        "created_at": "2025-12-06T00:00:00.000+00:00",
    }
    op.update(changes)
    return op


def test_a_line_as_written_is_read_by_the_fast_path_and_equals_the_general_path() -> None:
    for op in (
        body(),
        body(kind="tag_add", payload={"tag": "to-read"}),
        body(kind="tag_remove", payload={"tag": "x", "removes": ["laptop:3", "desk:9"]}),
        body(kind="note_set", payload={"text": "naïve — 🚀 {[", "replaces": []}),
        body(kind="list_create", paper=None, list="l1", payload={"name": "Reading"}),
        body(kind="list_add", list="l1", payload={"position": positions.key_between(None, None)}),
        body(kind="future_kind", payload={"anything": [1, {"deep": None}]}),
        body(paper={"id": None, "title_key": "some title", "arxiv": None}),
        body(created_at=""),
    ):
        line = line_of(op)
        fast = decode_line(line, {}, MAX_OP_DEPTH)
        assert fast is not None, line
        assert fast == general(line), line


@pytest.mark.parametrize(
    "line",
    [
        line_of(body(device="desk")),  # device does not match the op id
        line_of(body(counter=8)),  # counter does not match the op id
        line_of(body(hlc=STAMP + "desk")),  # the stamp names another device
        line_of(body(kind="Bad-Kind")),
        line_of(body(paper={"id": None, "title_key": None, "arxiv": "2501.1"})),
        line_of(body(paper=None)),  # a bookmark needs a paper
        line_of(body(list="l1")),  # a bookmark takes no list
        line_of(body(payload={"value": 1})),  # not a boolean
        line_of(body(kind="tag_add", payload={"tag": "a\x07b"})),
        line_of(body(payload=[])),
        line_of(body(created_at="x" * 65)),
        line_of(body(list="")),
        line_of(body(v=2)),
        line_of(body(kind="note_set", payload={"text": "x", "replaces": ["nope"]})),
    ],
)
def test_a_line_the_general_path_refuses_is_never_accepted(line: str) -> None:
    assert general(line) is None
    assert decode_line(line, {}, MAX_OP_DEPTH) is None


@pytest.mark.parametrize(
    "line",
    [
        json.dumps(body()),  # spaces after separators
        json.dumps(body(), sort_keys=True),
        line_of(body()).replace('"v":1}', '"v":1.0}'),
        line_of(body(created_at='say "hi"')),  # an escape in a string
        line_of(body(paper={"id": "a", "title_key": None, "arxiv": None, "extra": 1})),
        line_of(
            body(
                kind="future_kind",
                payload={"x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
            )
        ),
        line_of(body()) + " ",
        line_of(body())[:-1] + ',"v":1}',  # a duplicate key
    ],
)
def test_other_shapes_take_the_general_path(line: str) -> None:
    assert decode_line(line, {}, MAX_OP_DEPTH) is None


def test_a_payload_text_is_parsed_once_and_shared_but_checked_per_kind() -> None:
    shared: dict[Any, Any] = {}
    first = decode_line(line_of(body()), shared, MAX_OP_DEPTH)
    second = decode_line(line_of(body(op_id="laptop:8", counter=8)), shared, MAX_OP_DEPTH)
    assert first is not None and second is not None
    assert first.payload is second.payload
    # The same text under another kind is checked for that kind: a list op needs a list.
    refused = line_of(body(op_id="laptop:9", counter=9, kind="list_add"))
    assert decode_line(refused, shared, MAX_OP_DEPTH) is None
    assert general(refused) is None


PLAIN = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12)


@settings(max_examples=400, deadline=None)
@given(
    kind=st.sampled_from(
        ["bookmark", "read", "tag_add", "tag_remove", "note_set", "list_add", "list_create", "zz"]
    ),
    paper=st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {
                "id": st.one_of(st.none(), PLAIN),
                "title_key": st.one_of(st.none(), PLAIN),
                "arxiv": st.one_of(st.none(), PLAIN),
            }
        ),
    ),
    list_id=st.one_of(st.none(), PLAIN),
    payload=st.one_of(
        st.fixed_dictionaries({"value": st.one_of(st.booleans(), st.integers(0, 2))}),
        st.fixed_dictionaries({"tag": PLAIN}),
        st.fixed_dictionaries({"text": PLAIN, "replaces": st.lists(PLAIN, max_size=2)}),
        st.fixed_dictionaries({"position": PLAIN, "name": PLAIN}),
        st.dictionaries(PLAIN, st.recursive(st.none(), st.lists, max_leaves=4), max_size=2),
    ),
    created_at=PLAIN,
    counter=st.integers(1, 10**6),
)
def test_any_line_reads_the_same_on_both_paths(
    kind: str,
    paper: dict[str, Any] | None,
    list_id: str | None,
    payload: dict[str, Any],
    created_at: str,
    counter: int,
) -> None:
    op = body(
        op_id=f"laptop:{counter}",
        counter=counter,
        kind=kind,
        paper=paper,
        list=list_id,
        payload=payload,
        created_at=created_at,
    )
    line = line_of(op)
    fast, expected = decode_line(line, {}, MAX_OP_DEPTH), general(line)
    if fast is not None:
        assert fast == expected
    elif expected is not None:
        # A valid line as written is declined only for an escape in a string or many brackets.
        assert "\\" in line or line.count("[") + line.count("{") > MAX_OP_DEPTH, line
    # Any other shape (here: spaces after the separators) is left to the general path.
    assert decode_line(json.dumps(op, sort_keys=True), {}, MAX_OP_DEPTH) is None


def test_a_segment_reads_the_same_through_the_fast_path_as_op_by_op() -> None:
    ref = PaperRef("2501.00001", None, "2501.00001")
    ops = [
        Op(
            f"laptop:{n}",
            "laptop",
            n,
            f"{1765000000000 + n:016d}-000000-laptop",
            kind,
            ref,
            None,
            payload,
            "2025-12-06T00:00:00.000+00:00",
        )
        for n, (kind, payload) in enumerate(
            [("bookmark", {"value": True}), ("tag_add", {"tag": "t"})] * 5
            + [("note_set", {"text": 'quote " and \\ and \n', "replaces": []})],
            start=1,
        )
    ]
    segment = encode_segment("laptop", ops, 1, len(ops))
    assert decode_segment("laptop", segment.name.name, segment.data) == ops


def test_a_bad_line_is_still_worded_by_the_general_path() -> None:
    ops = [
        Op("laptop:1", "laptop", 1, STAMP + "laptop", "bookmark", None, None, {}, "x"),
    ]
    # encode_segment writes what it is given; the reader refuses it with the field named.
    segment = encode_segment("laptop", ops, 1, 1)
    with pytest.raises(SegmentError, match=r"line 2: .*bookmark needs a paper"):
        decode_segment("laptop", segment.name.name, segment.data)
