"""The one capped body reader: an answer is streamed and never held beyond its cap.

A 1.5 GB answer once took 9.5 GB of memory when read whole. Here the body is read chunk by
chunk (decoded, so a compressed bomb counts at its real size) and reading stops with
`AnswerTooLarge` as soon as the cap is passed. (Content-Length is not trusted either way: a
connection cut short must stay a dropped connection, which is retried.)
An error page is only quoted, so its body is cut at the cap instead of failing the request.
"""

from __future__ import annotations

import httpx

from digest_tui.errors import AnswerTooLarge
from digest_tui.net.deadline import check_current

ERROR_BODY_BYTES = 64 * 1024  # enough of an error page to quote its start


def describe_size(count: int) -> str:
    if count >= 2**20 and count % 2**20 == 0:
        return f"{count // 2**20} MiB"
    if count >= 1024 and count % 1024 == 0:
        return f"{count // 1024} KiB"
    return f"{count} bytes"


def read_capped(
    response: httpx.Response, limit: int, label: str, *, truncate: bool = False
) -> bytes:
    """The body of `response`, at most `limit` bytes.

    Raises AnswerTooLarge when the body is longer, unless `truncate`, which returns its first
    `limit` bytes. The running request's deadline and cancel are checked between chunks.
    """
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        check_current()
        if size + len(chunk) > limit:
            if truncate:
                chunks.append(chunk[: limit - size])
                break
            raise AnswerTooLarge(f"{label}: answer larger than {describe_size(limit)}")
        size += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)
