"""UserState as the CLI and TUI use it: filters in queries, counts, visits, positions."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from digest_tui.config import DeviceCount, Machine
from digest_tui.enrich.pipeline import Enricher
from digest_tui.errors import PositionError
from digest_tui.paper_view import paper_view
from digest_tui.search_syntax import parse_search
from digest_tui.state import positions
from digest_tui.store.fits import fits_problems, install_fits
from digest_tui.store.query import PaperQuery
from tests.support.state import PAPERS, import_papers, make_paper, replica

IDS = [p.id for p in PAPERS]


def ids(r, **query) -> list[str]:
    return [row["id"] for row in r.library.rows(PaperQuery(**query))]


@pytest.fixture
def r():
    r = replica()
    s = r.state
    s.bookmark(IDS[0])
    s.bookmark(IDS[1])
    s.set_read(IDS[1])
    s.add_tags(IDS[0], ["Kernels", "todo"])
    s.add_tags(IDS[2], ["todo"])
    s.set_note(IDS[3], "Compare with PagedAttention & paging")
    s.create_list("Thesis")
    s.add_to_list("thesis", [IDS[4], IDS[0]])
    return r


def test_search_filters(r):
    assert set(ids(r, search="tag:todo")) == {IDS[0], IDS[2]}
    assert set(ids(r, search="tag:KERNELS")) == {IDS[0]}
    assert set(ids(r, search="tag:todo -tag:kernels")) == {IDS[2]}
    assert set(ids(r, search="is:bookmarked")) == {IDS[0], IDS[1]}
    assert set(ids(r, search="is:unbookmarked")) == set(IDS[2:])
    assert set(ids(r, search="is:read")) == {IDS[1]}
    assert set(ids(r, search="is:unread")) == set(IDS) - {IDS[1]}
    assert set(ids(r, search="is:!read is:bookmarked")) == {IDS[0]}
    assert set(ids(r, search="-is:bookmarked")) == set(IDS[2:])
    assert set(ids(r, search="has:notes")) == {IDS[3]}
    assert set(ids(r, search="has:tags")) == {IDS[0], IDS[2]}
    assert set(ids(r, search="-has:tags")) == {IDS[1], IDS[3], IDS[4]}
    assert set(ids(r, search="-list:thesis")) == {IDS[1], IDS[2], IDS[3]}
    assert ids(r, search="list:nope") == []


def test_list_filter_keeps_the_list_order(r):
    assert ids(r, search="list:thesis") == [IDS[4], IDS[0]]
    r.state.move_in_list("thesis", IDS[0], index=1)
    assert ids(r, search="list:Thesis") == [IDS[0], IDS[4]]
    assert ids(r, search="list:thesis", sort="title") == sorted(
        [IDS[0], IDS[4]], key=lambda i: r.library.resolve(i)["title"].lower()
    )


def test_query_fields_from_cli_flags(r):
    assert set(ids(r, tag="todo")) == {IDS[0], IDS[2]}
    assert set(ids(r, bookmarked=True)) == {IDS[0], IDS[1]}
    assert set(ids(r, read=False, bookmarked=True)) == {IDS[0]}


def test_full_text_search_finds_tags_and_notes(r):
    assert ids(r, search="pagedattention") == [IDS[3]]
    assert set(ids(r, search="todo")) == {IDS[0], IDS[2]}
    r.state.set_note(IDS[3], "")
    r.state.remove_tags(IDS[2], ["todo"])
    assert ids(r, search="pagedattention") == []
    assert ids(r, search="todo") == [IDS[0]]


def test_is_new_means_added_since_the_last_visit(r):
    assert set(ids(r, search="is:new")) == set(IDS)  # never visited: everything is new
    r.library.conn.execute("UPDATE papers SET added_at = '2000-01-01T00:00:00+00:00'")
    previous = r.state.begin_visit()
    assert previous is None
    assert ids(r, search="is:new") == []
    newer = make_paper("Mixture of Experts Serving at Scale")
    import_papers(r.library, [newer], day="2025-12-12")
    r.library.conn.execute(
        "UPDATE papers SET added_at = '2999-01-01T00:00:00+00:00' WHERE id = ?", (newer.id,)
    )
    assert ids(r, search="is:new") == [newer.id]
    assert set(ids(r, search="-is:new")) == set(IDS)
    # The TUI keeps the visit it started with: what was new when it opened stays new.
    session = r.state.begin_visit()
    assert session is not None
    assert ids(r, search="is:new", new_since=session) == [newer.id]
    assert r.state.counts().new == 1


def test_counts_and_tags(r):
    counts = r.state.counts()
    assert (counts.total, counts.bookmarked, counts.unread, counts.notes) == (5, 2, 4, 1)
    assert counts.tags == {"kernels": 1, "todo": 2}
    assert [(i.name, i.count) for i in counts.lists] == [("Thesis", 2)]
    assert r.state.all_tags() == ["kernels", "todo"]


def test_paper_json_carries_the_state(r):
    row = r.library.resolve(IDS[0])
    obj = paper_view(r.library, row).to_json()
    assert obj["bookmarked"] is True and obj["read"] is False
    assert obj["tags"] == ["kernels", "todo"] and obj["lists"] == ["Thesis"]
    assert obj["note"] is None and obj["note_conflicts"] == []
    json.dumps(obj)


def test_sort_by_stars(r):
    conn = r.library.conn
    for stars, pid in ((5, IDS[3]), (500, IDS[1]), (50, IDS[2])):
        conn.execute("UPDATE papers SET max_stars = ? WHERE id = ?", (stars, pid))
    assert ids(r, search="sort:stars")[:3] == [IDS[1], IDS[2], IDS[3]]


def test_fits_filter_uses_the_configured_machines(r):
    conn = r.library.conn
    single = {
        "target": "1x H100",
        "scale": "single-device",
        "devices": ["h100"],
        "memory_gb": 40.0,
        "confidence": "medium",
        "evidence": [],
    }
    cluster = dict(single, scale="multi-node", memory_gb=4000.0)
    conn.execute("UPDATE papers SET hardware = ? WHERE id = ?", (json.dumps(single), IDS[0]))
    conn.execute("UPDATE papers SET hardware = ? WHERE id = ?", (json.dumps(cluster), IDS[1]))

    machines = [
        Machine(name="workstation", devices=[DeviceCount(id="h100", count=2)]),
        Machine(name="laptop", devices=[DeviceCount(id="rtx-4090")]),
    ]
    install_fits(conn, machines, lambda: Enricher().hardware_catalog)
    assert ids(r, search="fits:workstation") == [IDS[0]]
    assert ids(r, search="fits:laptop") == []
    assert ids(r, search="fits:nowhere") == []
    assert fits_problems(parse_search("fits:nowhere"), machines) == [
        "fits:nowhere: no machine of that name (configured: laptop, workstation)"
    ]
    assert fits_problems(parse_search("moe"), lambda: 1 / 0) == []  # config untouched


def test_query_plans_use_the_state_indexes(r):
    from digest_tui.store.query import build_select

    for search in ("is:bookmarked", "is:read", "has:notes", "tag:todo", "list:thesis"):
        sql, params = build_select(PaperQuery(search=search), "p.rowid")
        plan = [row[3] for row in r.library.conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
        for step in plan:
            # The state tables are only ever read through an index (a partial one for flags).
            if any(t in step for t in ("paper_state", "paper_tags", "list_items", " lists")):
                assert "INDEX" in step or "PRIMARY KEY" in step, (search, plan)


@given(st.lists(st.sampled_from(["start", "end", "middle"]), min_size=1, max_size=200))
def test_position_keys_always_fit_between(inserts):
    keys: list[str] = []
    for where in inserts:
        if where == "start":
            keys.insert(0, positions.key_between(None, keys[0] if keys else None))
        elif where == "end":
            keys.append(positions.key_between(keys[-1] if keys else None, None))
        else:
            i = len(keys) // 2
            low = keys[i - 1] if i > 0 else None
            high = keys[i] if i < len(keys) else None
            keys.insert(i, positions.key_between(low, high))
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert all(positions.valid(k) for k in keys)


def test_spread_and_append_keys_stay_short():
    keys = positions.spread(1000)
    assert keys == sorted(keys) and len(set(keys)) == 1000 and max(map(len, keys)) <= 2
    last = None
    for _ in range(1000):
        last = positions.key_between(last, None)
    assert len(last) <= 20
    with pytest.raises(PositionError):
        positions.key_between("b", "a")
