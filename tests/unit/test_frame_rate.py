"""The app's frame rate (tui/__init__.py): Textual paints at most TEXTUAL_FPS frames a second,
read once when Textual is first imported, so the app's package sets it before any of its
modules imports Textual; a reader's own setting is kept. Checked in fresh interpreters, where
the import order is the app's own."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = "import digest_tui.tui.app, textual.constants as c; print(c.MAX_FPS)"


def _fps_in_fresh_process(env_fps: str | None) -> int:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    if env_fps is not None:
        env["TEXTUAL_FPS"] = env_fps
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_the_app_paints_up_to_240_frames_a_second_by_default() -> None:
    assert _fps_in_fresh_process(None) == 240


def test_a_readers_own_textual_fps_is_kept() -> None:
    assert _fps_in_fresh_process("30") == 30
