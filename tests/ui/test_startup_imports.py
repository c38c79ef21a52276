"""What the app imports before its first frame: not the screens opened later by a key (help,
the tag/note/list editors with Textual's TextArea, the full-screen paper)."""

from __future__ import annotations

import json
import subprocess
import sys

DEFERRED = (
    "digest_tui.tui.screens.editors",
    "digest_tui.tui.screens.help",
    "digest_tui.tui.screens.paper_screen",
    "digest_tui.tui.screens.lists_screen",
    "textual.widgets._text_area",
)


def test_importing_the_app_loads_no_screen_opened_later() -> None:
    code = "import json, sys\nimport digest_tui.tui.app\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    loaded = set(json.loads(out))
    assert "digest_tui.tui.app" in loaded
    assert not loaded & set(DEFERRED), sorted(loaded & set(DEFERRED))
