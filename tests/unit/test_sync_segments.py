"""Segments and manifests: deterministic bytes, verification before use, file classification."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json

import pytest

from digest_tui.errors import SegmentError
from digest_tui.state.clock import HybridClock
from digest_tui.state.model import Op, PaperRef
from digest_tui.sync.segments import (
    Manifest,
    SegmentName,
    classify,
    decode_segment,
    encode_segment,
    manifest_device,
)


def make_ops(device: str = "dev1", n: int = 5) -> list[Op]:
    clock = HybridClock(device, wall=lambda: 1_765_000_000_000)
    return [
        Op(
            f"{device}:{i}",
            device,
            i,
            clock.now().encode(),
            "bookmark",
            PaperRef("2407.08608", "flashattention 3", "2407.08608"),
            None,
            {"value": i % 2 == 1},
            "2025-12-06T10:00:00.000+00:00",
        )
        for i in range(1, n + 1)
    ]


def test_round_trip_and_the_same_ops_always_give_the_same_file():
    ops = make_ops()
    segment = encode_segment("dev1", ops, 1, 5)
    again = encode_segment("dev1", make_ops(), 1, 5)
    assert segment.data == again.data and segment.name == again.name
    assert segment.name.name.startswith("ops-000000000001-000000000005-")
    assert SegmentName.parse(segment.name.name) == segment.name
    assert hashlib.sha256(segment.data).hexdigest() == segment.name.sha256
    assert decode_segment("dev1", segment.name.name, segment.data) == ops


def test_a_range_may_hold_fewer_ops_than_it_covers_but_no_op_outside_it():
    ops = make_ops()
    segment = encode_segment("dev1", [ops[0], ops[4]], 1, 5)
    assert len(decode_segment("dev1", segment.name.name, segment.data)) == 2
    with pytest.raises(SegmentError, match="does not belong"):
        encode_segment("dev1", ops, 2, 5)
    with pytest.raises(SegmentError, match="does not belong"):
        encode_segment("dev2", ops, 1, 5)


def _renamed(data: bytes, first: int = 1, last: int = 5) -> str:
    return SegmentName(first, last, hashlib.sha256(data).hexdigest()).name


@pytest.mark.parametrize("cut", [0, 1, 10, -1])
def test_torn_or_truncated_files_are_refused(cut):
    segment = encode_segment("dev1", make_ops(), 1, 5)
    with pytest.raises(SegmentError, match="does not match the hash"):
        decode_segment("dev1", segment.name.name, segment.data[:cut])


def test_a_valid_hash_does_not_make_bad_content_acceptable():
    segment = encode_segment("dev1", make_ops(), 1, 5)
    raw = gzip.decompress(segment.data).decode()
    lines = raw.splitlines()
    cases = {
        "not a valid gzip": b"plain text",
        "line 3: not JSON": gzip.compress(
            ("\n".join([*lines[:2], "{oops", *lines[3:]]) + "\n").encode()
        ),
        "header says 5 ops, the file has 4": gzip.compress(("\n".join(lines[:-1]) + "\n").encode()),
        "appears twice": gzip.compress(
            (
                "\n".join([lines[0].replace('"count":5', '"count":6'), *lines[1:], lines[1]]) + "\n"
            ).encode()
        ),
    }
    for expected, data in cases.items():
        with pytest.raises(SegmentError, match=expected):
            decode_segment("dev1", _renamed(data), data)
    # The right content under another device's or range's name.
    with pytest.raises(SegmentError, match="does not match the name"):
        decode_segment("dev2", segment.name.name, segment.data)
    data = segment.data
    with pytest.raises(SegmentError, match="does not match the name"):
        decode_segment("dev1", _renamed(data, 1, 6), data)


def test_one_invalid_op_refuses_the_whole_segment():
    ops = make_ops()
    bad = dataclasses.replace(ops[2], payload={"value": "maybe"})
    segment = encode_segment("dev1", [*ops[:2], bad, *ops[3:]], 1, 5)
    with pytest.raises(SegmentError, match=r"line 4: .*boolean"):
        decode_segment("dev1", segment.name.name, segment.data)
    forged = dataclasses.replace(ops[1], hlc=ops[1].hlc.replace("dev1", "dev9"))
    segment = encode_segment("dev1", [ops[0], forged], 1, 5)
    with pytest.raises(SegmentError, match="stamp device"):
        decode_segment("dev1", segment.name.name, segment.data)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("device-abc.sync-conflict-20251201-101010-ABCDEFG.json", "conflict"),
        ("ops-1-2-x.sync-conflict-20251201-101010-ABCDEFG.jsonl.gz", "conflict"),
        ("device-abc (conflicted copy 2025-12-01).json", "conflict"),
        ("device-abc (Bob's conflicted copy).json", "conflict"),
        ("device-abc 2.json", "conflict"),
        ("device-abc (1).json", "conflict"),
        ("device-abc_conflict-20251201-101010.json", "conflict"),
        (".device-abc.json.tmp-1a2b3c4d", "temporary"),
        ("ops-1-2-abc.jsonl.gz.part", "temporary"),
        ("~syncthing~device-abc.json.tmp", "temporary"),
        (".DS_Store", "system"),
        (".stfolder", "system"),
        ("notes.txt", "unknown"),
        ("ops-1-2-abc.jsonl.gz", "unknown"),
    ],
)
def test_classify(name, kind):
    assert classify(name)[0] == kind


def test_names():
    assert manifest_device("device-3fa9c1d2e4b5a6f7.json") == "3fa9c1d2e4b5a6f7"
    assert manifest_device("device-3fa9.json.tmp") is None
    assert manifest_device("device-a b.json") is None
    assert SegmentName.parse("ops-5-3-" + "0" * 64 + ".jsonl.gz") is None
    assert SegmentName.parse("ops-0-3-" + "0" * 64 + ".jsonl.gz") is None
    assert SegmentName.parse("ops-1-3-" + "0" * 63 + ".jsonl.gz") is None


def test_manifest_round_trip_and_validation():
    manifest = Manifest("dev1", label="laptop", head=12, ack={"dev2": 4}, forgotten=["old"])
    parsed = Manifest.parse(manifest.to_bytes(), "dev1", "device-dev1.json")
    assert parsed.same_content(manifest)
    body = json.loads(manifest.to_bytes())
    for change, message in [
        ({"device": "dev2"}, "names device"),
        ({"format": 2}, "newer digest-tui"),
        ({"head": -1}, "bad head"),
        ({"ack": {"dev2": "4"}}, "bad ack"),
        ({"forgotten": ["a b"]}, "bad forgotten"),
    ]:
        with pytest.raises(SegmentError, match=message):
            Manifest.parse(json.dumps({**body, **change}).encode(), "dev1", "m")
    with pytest.raises(SegmentError, match="not valid JSON"):
        Manifest.parse(manifest.to_bytes()[:20], "dev1", "m")


def _segment_of_lines(device: str, lines: list[str], first: int, last: int) -> tuple[str, bytes]:
    header = json.dumps(
        {"segment": 1, "device": device, "first": first, "last": last, "count": len(lines)},
        sort_keys=True,
        separators=(",", ":"),
    )
    data = gzip.compress(("\n".join([header, *lines]) + "\n").encode())
    return _renamed(data, first, last), data


def test_ops_decoded_together_share_repeated_objects_but_never_mix_values_of_other_types():
    ops = make_ops(n=4)
    # Ops of a kind this version does not know keep any payload: {"value": 1} equals
    # {"value": true} in Python, and must still not be handed the bookmark's payload.
    future = [
        dataclasses.replace(ops[2], kind="future_kind", payload={"value": 1}),
        dataclasses.replace(ops[3], kind="future_kind", payload={"value": "true"}),
    ]
    shared: dict = {}
    first = encode_segment("dev1", ops[:2], 1, 2)
    second = encode_segment("dev1", future, 3, 4)
    decoded = decode_segment("dev1", first.name.name, first.data, shared)
    decoded += decode_segment("dev1", second.name.name, second.data, shared)
    assert [type(op.payload["value"]) for op in decoded] == [bool, bool, int, str]
    assert [op.payload["value"] for op in decoded] == [True, False, 1, "true"]
    # One object per distinct paper, device and payload across both segments.
    assert all(op.paper is decoded[0].paper for op in decoded)
    assert all(op.device is decoded[0].device for op in decoded)
    again = decode_segment("dev1", first.name.name, first.data, shared)
    assert [op.payload for op in again] == [op.payload for op in decoded[:2]]
    assert again[0].payload is decoded[0].payload


def test_a_line_is_read_as_before_padding_allowed_trailing_text_and_deep_nesting_refused():
    ops = make_ops(n=3)
    lines = [json.dumps(op.to_json(), sort_keys=True, separators=(",", ":")) for op in ops[:3]]
    padded = [f"  {lines[0]} ", lines[1], lines[2]]
    name, data = _segment_of_lines("dev1", padded, 1, 3)
    assert decode_segment("dev1", name, data) == ops[:3]

    trailing = [lines[0], lines[1] + " {}", lines[2]]
    name, data = _segment_of_lines("dev1", trailing, 1, 3)
    with pytest.raises(SegmentError, match="line 3: not JSON"):
        decode_segment("dev1", name, data)

    nested = {**ops[2].to_json(), "kind": "future_kind"}
    value: list = [1]
    for _ in range(40):
        value = [value]
    nested["payload"] = {"x": value}
    name, data = _segment_of_lines("dev1", [lines[0], lines[1], json.dumps(nested)], 1, 3)
    with pytest.raises(SegmentError, match="line 4: nested more than 32 levels"):
        decode_segment("dev1", name, data)
