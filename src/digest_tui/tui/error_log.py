"""Worker failures: one line for the screen, the whole traceback for a log file.

A failure the app foresaw (a DigestError: bad taxonomy.yaml, unreachable remote) is reported
by its own message, which names the file or server. Anything else is a bug: the user sees its
type and message, and the traceback goes to `errors.log` under the state dir for a report.
"""

from __future__ import annotations

import datetime as dt
import traceback
from pathlib import Path

from digest_tui.errors import DigestError
from digest_tui.textsafe import printable


def one_line_reason(error: BaseException) -> str:
    """The error's message on one printable line (the type too, when it is a bug)."""
    message = " ".join(printable(str(error)).split())
    if isinstance(error, DigestError):
        return message or type(error).__name__
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def append_traceback(log_file: Path, what: str, error: BaseException) -> Path | None:
    """Append `error`'s traceback to `log_file`; None when the log cannot be written (a full
    or read-only disk must not turn one failure into a second one)."""
    stamp = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(error))
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with log_file.open("a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(f"--- {stamp} {what}\n{text}\n")
    except OSError:
        return None
    return log_file
