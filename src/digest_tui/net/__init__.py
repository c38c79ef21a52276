"""The one HTTP layer under every network client (Hugging Face, GitHub, WebDAV).

- `urls.py`: which URLs a client may talk to (http(s) with a host; plain http only to this
  machine when secrets or user data travel).
- `retry.py`: the retry policy: what is retried, the bounded back-off, `Retry-After`.
- `deadline.py`: a total deadline and a cancel switch for each request, enforced inside the
  socket reads and writes, so a server trickling bytes or a Ctrl-C ends a request at once.
- `body.py`: the capped body reader.
- `session.py`: the client factory (User-Agent, timeouts, transport) and the request loop.

Nothing is imported here: `httpx` costs ~100 ms and only commands that use the network pay it.
"""
