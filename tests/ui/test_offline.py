"""Quiet offline: with GitHub unreachable the panel says so once (not once per repo), and a
fetch that cannot reach Hugging Face leads its notice with the cause. The home fixture points
every endpoint at a loopback port that refuses connections."""

from __future__ import annotations

import datetime as dt

from digest_tui.config import AppContext
from digest_tui.repohealth.format import health_lines
from digest_tui.repohealth.model import RepoHealth
from digest_tui.tui.app import DigestApp
from digest_tui.tui.notices import cause_first
from digest_tui.tui.widgets.paper_list import PaperList
from digest_tui.tui.widgets.paper_panel import PaperBody, PaperPanel
from tests.support.pilot import notices
from tests.ui.settle import settle

UNREACHABLE = "not checked: cannot reach http://127.0.0.1:9: connection refused (ConnectError)"


def test_health_lines_say_the_cause_once() -> None:
    when = dt.datetime(2025, 6, 3, tzinfo=dt.UTC)
    results = {
        "https://github.com/a/one": RepoHealth(
            owner="a", name="one", status="stale", stars=5, fetched_at=when, message=UNREACHABLE
        ),
        "https://github.com/a/two": RepoHealth(
            owner="a", name="two", status="unknown", message=UNREACHABLE
        ),
    }
    lines = health_lines(results)
    assert lines.notice == "GitHub unreachable — showing health cached on 2025-06-03"
    assert list(lines) == ["https://github.com/a/one"]  # nothing to show for the other
    assert (
        "cannot reach" not in " ".join(lines.values())
        and "★ 5" in lines["https://github.com/a/one"]
    )
    nothing = health_lines({"u": RepoHealth(owner="a", name="b", message=UNREACHABLE)})
    assert nothing.notice == "GitHub unreachable — no cached health" and nothing
    fine = health_lines({"u": RepoHealth(owner="a", name="b", status="ok", stars=1)})
    assert fine.notice is None and fine["u"].startswith("★ 1")


def test_cause_first() -> None:
    assert cause_first("fetched 0/3 days", ["cannot reach X; 3 days not fetched"]) == (
        "cannot reach X; 3 days not fetched\nfetched 0/3 days"
    )
    many = cause_first("stats", [f"e{i}" for i in range(5)])
    assert many.splitlines() == ["e0", "e1", "e2", "… and 2 more", "stats"]


def _body_text(app: DigestApp) -> str:
    body = app.query_one(PaperBody)
    return "\n".join(strip.text for strip in body.render_lines(body.region.reset_offset))


async def test_panel_says_github_unreachable_once(home) -> None:
    app = DigestApp(AppContext())  # repo health on (the default): it tries the closed port
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"flashmoe", "enter")
        await settle(pilot)
        panel = app.query_one(PaperPanel)
        assert panel.paper is not None and panel.paper.repos
        await settle(pilot)  # the health worker tried GitHub and reported back
        shown = _body_text(app)
        assert shown.count("GitHub unreachable") == 1, shown
        assert "cannot reach" not in shown and "ConnectError" not in shown


async def test_fetch_notice_leads_with_the_cause(home) -> None:
    app = DigestApp(AppContext())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.query_one(PaperList).rows
        await pilot.press("R")
        await settle(pilot)
        [fetch] = [text for text in notices(app) if "fetched" in text]
        first = fetch.splitlines()[0]
        assert first.startswith("cannot reach"), fetch
        assert fetch.splitlines()[-1].startswith("fetched 0/")
