"""The common segment line read with one regular expression instead of JSON plus field checks.

Every line this program writes is `json.dumps(op.to_json(), sort_keys=True, separators=(",",
":"), ensure_ascii=False)`: its keys always come in one order and its fields have fixed shapes.
A merge reads 100,000 of them, and parsing each one into a dict and checking it field by field
(`Op.from_json`) was a third of the merge's CPU. `decode_line` matches the whole line against
that shape in C; the few fields that could differ between lines that look alike (the payload)
are parsed with `json` and checked once per distinct text.

It is an accelerator, never a second judge: a line it accepts gives exactly the Op that
`Op.from_json(json.loads(line))` gives, and for any other line (other key order, escapes in a
string, spaces, an error of any kind) it returns None and the caller takes the general path,
which accepts or words the problem as before.
"""

from __future__ import annotations

import json
import re
from typing import Any

from digest_tui.errors import OpFormatError
from digest_tui.state.model import Op, PaperRef, check_payload, make_op

# A JSON string with no escapes and no control characters: its text is its value, so a length
# bound in characters is the bound `Op.from_json` applies to the decoded value.
_PLAIN = r'[^"\\\x00-\x1f]'
# Groups: 1 counter, 2 created_at, 3 device, 4 hlc, 5 kind, 6 list, 7 op_id, 8 paper (any),
# 9 arxiv, 10 id, 11 title_key, 12 payload. The backreferences make the op id, the device and
# the stamp's device agree, as `Op.from_json` requires (digits with no leading zero: equal
# text is an equal counter).
_LINE = re.compile(
    r'\{"counter":([1-9][0-9]{0,17}),'
    rf'"created_at":"({_PLAIN}{{0,64}})",'
    r'"device":"([A-Za-z0-9_]{1,64})",'
    r'"hlc":"([0-9]{16}-[0-9]{6}-\3)",'
    r'"kind":"([a-z_]{1,40})",'
    rf'"list":(?:null|"({_PLAIN}{{1,64}})"),'
    r'"op_id":"(\3:\1)",'
    rf'"paper":(?:null|(\{{"arxiv":(?:null|"({_PLAIN}{{1,300}})"),'
    rf'"id":(?:null|"({_PLAIN}{{1,300}})"),'
    rf'"title_key":(?:null|"({_PLAIN}{{1,300}})")\}})),'
    r'"payload":(\{.*\}),"v":1\}'
)
# Payload texts up to this long are parsed and checked once per batch and the dict shared
# ({"value":true}, {"tag":"to-read"}); longer ones (notes, removes lists) rarely repeat.
_SHARED_PAYLOAD = 80
_DECODER = json.JSONDecoder()


def decode_line(line: str, shared: dict[Any, Any], max_depth: int) -> Op | None:
    """The op on `line` if it has the canonical shape and is valid; None: take the general
    path (which also reports any problem). `shared` is the batch's `Op.from_json` dict."""
    match = _LINE.fullmatch(line)
    if match is None:
        return None
    (counter, created_at, device, hlc, kind, list_id, op_id, paper, arxiv, ref_id, key, text) = (
        match.groups()
    )
    ref: PaperRef | None = None
    if paper is not None:
        if ref_id is None and key is None:
            return None  # Op.from_json words it
        # Keyed by its text on the line (one string to hash): equal text, equal parts.
        ref = shared.get(paper)
        if ref is None:
            ref = shared[paper] = PaperRef(ref_id, key, arxiv)
    cache_key = ("payload", kind, ref is None, list_id is None, text)
    payload = shared.get(cache_key) if len(text) <= _SHARED_PAYLOAD else None
    fresh = payload is None
    if fresh:
        # The line nests one level above its payload; a payload with fewer brackets than the
        # limit cannot nest deeper than it (the general path walks the rare others).
        if text.count("[") + text.count("{") + 1 > max_depth:
            return None
        try:
            payload, end = _DECODER.raw_decode(text)
        except (ValueError, RecursionError):
            return None
        if end != len(text) or type(payload) is not dict:
            return None
    device = shared.setdefault(device, device)
    kind = shared.setdefault(kind, kind)
    op = make_op(op_id, device, int(counter), hlc, kind, ref, list_id, payload, created_at)
    if fresh:
        # The payload's checks depend only on what the cache key holds: done once per text.
        try:
            check_payload(op, f"op {op_id!r}")
        except OpFormatError:
            return None
        if len(text) <= _SHARED_PAYLOAD:
            shared[cache_key] = payload
    return op
