"""`Op.from_json` keeps a stamp already in canonical text as it is (the fast path of a merge)
and still normalises or refuses any other spelling, as `Stamp.decode` does."""

from __future__ import annotations

import pytest

from digest_tui.errors import OpFormatError
from digest_tui.state.model import Op


def _op(hlc: object, kind: object = "bookmark") -> dict[str, object]:
    return {
        "v": 1,
        "op_id": "dev1:3",
        "device": "dev1",
        "counter": 3,
        "hlc": hlc,
        "kind": kind,
        "paper": {"id": "2501.00001", "title_key": None, "arxiv": None},
        "list": None,
        "payload": {"value": True},
        "created_at": "2025-01-01T00:00:00Z",
    }


CANONICAL = "0001735689600000-000002-dev1"


def test_a_canonical_stamp_is_kept():
    assert Op.from_json(_op(CANONICAL)).hlc == CANONICAL


def test_other_spellings_are_normalised_as_before():
    # `$` in the stamp pattern accepts a trailing newline; the stored text never has it
    assert Op.from_json(_op(CANONICAL + "\n")).hlc == CANONICAL
    wall, counter, device = CANONICAL.split("-")
    arabic = "".join(chr(0x0660 + int(c)) for c in wall)  # Unicode digits: \d matches them
    assert Op.from_json(_op(f"{arabic}-{counter}-{device}")).hlc == CANONICAL


@pytest.mark.parametrize(
    "hlc", ["", "1-2-dev1", CANONICAL.replace("dev1", "dev2"), 17, None, CANONICAL + " "]
)
def test_bad_stamps_are_refused(hlc):
    with pytest.raises(OpFormatError, match="op 'dev1:3'"):
        Op.from_json(_op(hlc))


@pytest.mark.parametrize("kind", ["Bookmark", "", "x" * 41, "tag-add", 3])
def test_bad_kinds_are_refused(kind):
    with pytest.raises(OpFormatError, match="bad kind"):
        Op.from_json(_op(CANONICAL, kind))


def test_an_unknown_kind_of_a_newer_version_is_kept():
    assert Op.from_json(_op(CANONICAL, "pin_paper")).kind == "pin_paper"
