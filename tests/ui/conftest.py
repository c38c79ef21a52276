"""Helpers for driving the app with Textual's Pilot."""

from __future__ import annotations

from textual.pilot import Pilot


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Let workers (which start other workers) and the messages they post run to the end."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
