"""What a sync tells its caller: the report of one sync, the local status, the set-up result.

Plain data with human summaries; no I/O. The CLI prints `SyncReport.lines()`, the app shows
them, `--format json` writes `to_json()`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Skipped:
    path: str
    # conflict, temporary, unknown, corrupt, manifest, missing, refused, oversized, future,
    # impersonation
    kind: str
    reason: str


@dataclass
class SyncReport:
    remote: str
    device: str
    sent_ops: int = 0
    sent_segments: int = 0
    received_segments: int = 0
    received_ops: int = 0  # ops in the segments downloaded
    applied: int = 0  # of those, new here
    duplicates: int = 0
    pending: int = 0  # of the new ones, waiting for a paper this library does not have yet
    papers_changed: int = 0
    lists_changed: int = 0
    devices: list[str] = field(default_factory=list)  # other devices on the remote
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # things worth saying that are not problems
    merged_segments: int = 0  # own segments merged by compaction
    deleted_segments: int = 0  # superseded own segments deleted
    manifest_written: bool = False
    requests: int = 0  # operations on the remote (HTTP requests for WebDAV)
    seconds: float = 0.0

    @property
    def warnings(self) -> list[Skipped]:
        return [s for s in self.skipped if s.kind != "temporary"]

    @property
    def changed(self) -> bool:
        """Whether the local state changed (the UI should refresh)."""
        return self.applied > 0

    def lines(self) -> list[str]:
        """A short human summary, one fact per line."""
        out = [
            f"sent {self.sent_ops} op{plural(self.sent_ops)}"
            + (
                f" in {self.sent_segments} segment{plural(self.sent_segments)}"
                if self.sent_ops
                else ""
            )
            + f"; received {self.received_ops}, applied {self.applied} new"
            + (f" ({self.duplicates} already here)" if self.duplicates else ""),
        ]
        if self.pending:
            out.append(
                f"{self.pending} op{plural(self.pending)} wait for papers not in this library "
                "yet (they apply when those papers are imported)"
            )
        if self.merged_segments or self.deleted_segments:
            out.append(
                f"compaction: merged {self.merged_segments} segments, deleted "
                f"{self.deleted_segments} that every device has"
            )
        out.extend(self.notes)
        devices = len(self.devices)
        out.append(
            f"{devices} other device{plural(devices)} on {self.remote}; "
            f"{self.requests} request{plural(self.requests)}, {self.seconds:.2f} s"
        )
        return out

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = [asdict(s) for s in self.skipped]
        return data


@dataclass(frozen=True)
class PeerStatus:
    device: str
    label: str
    updated_at: str  # when it last wrote its manifest (its clock)
    seen_at: str  # when this machine last read a new manifest of it
    head: int  # ops it has uploaded
    have: int  # ops 1..have of it are here
    acked_ours: int  # ops 1..N of this device it has applied
    forgotten: bool
    problem: str | None


@dataclass(frozen=True)
class SyncStatus:
    remote: str | None
    device: str
    label: str
    pending_local: int  # this device's ops not yet uploaded
    pending_papers: int  # ops from elsewhere waiting for a paper not in this library
    uploaded_head: int
    own_segments: int
    last_sync: dict[str, Any] | None
    peers: list[PeerStatus]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["peers"] = [asdict(p) for p in self.peers]
        return data


@dataclass
class InitReport:
    remote: str
    created_root: bool  # the folder or collection was created
    created_marker: bool  # this is a new sync remote
    devices: list[str]  # other devices already there
    switched: bool  # a different remote was configured before: this device re-uploads all
    dropped_credentials: bool  # the URL had credentials, which were not stored


def plural(n: int) -> str:
    return "" if n == 1 else "s"


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def age_of(iso: str | None) -> float:
    """Seconds since an ISO time written by now_iso (infinite if unreadable)."""
    try:
        then = dt.datetime.fromisoformat(iso or "")
    except ValueError:
        return float("inf")
    return (dt.datetime.now(dt.UTC) - then).total_seconds()
