"""What sync writes on the remote: the layout, file names, segments of ops and manifests.

Layout under the remote root (docs/sync.md):

    digest-tui-sync.json                         marker: "this is a digest-tui sync remote"
    device-<device>.json                         that device's manifest (only it rewrites it)
    segments/<device>/ops-<first>-<last>-<sha256>.jsonl.gz    immutable segments of its ops

A segment holds ops of one device whose counters lie in [first, last]: every op of that range
that still matters (compaction may leave out ops that later ops of the same register have
overwritten). Its name carries the SHA-256 of its bytes, so a reader checks a download against
its own name before it believes a single line: a torn, truncated or altered file is rejected
whole. Inside: gzip of JSON lines, a header line and then one op per line (Op.to_json).

Nothing here does I/O; sync/engine.py moves the bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from digest_tui import jsonsafe
from digest_tui.errors import OpFormatError, SegmentError
from digest_tui.state.clock import DEVICE_ID
from digest_tui.state.model import Op
from digest_tui.sync.op_lines import decode_line

FORMAT = 1
MARKER = "digest-tui-sync.json"
SEGMENTS_DIR = "segments"
# Identical bytes on every machine: two machines that init one folder before it has synced
# write the same file, which no sync tool turns into a conflict.
MARKER_BYTES = (
    json.dumps(
        {
            "app": "digest-tui",
            "format": FORMAT,
            "about": "Sync data of digest-tui: each device writes only its own files here. "
            "Do not edit; see docs/sync.md.",
        },
        indent=2,
    )
    + "\n"
).encode()

MAX_SEGMENT_BYTES = 64 * 1024 * 1024  # 10,000 ops gzip to well under 1 MB
MAX_MANIFEST_BYTES = 1024 * 1024
# No op this program writes nests deeper than 4 levels. Anything much deeper is refused before
# it is stored: values that parse near the interpreter's recursion limit could fail later, when
# they are serialised again (storing, compacting) with a deeper stack.
MAX_OP_DEPTH = 32

_SEGMENT = re.compile(r"^ops-(\d{1,18})-(\d{1,18})-([0-9a-f]{64})\.jsonl\.gz$")
_OP_ID = re.compile(r"^[A-Za-z0-9_]{1,64}:[1-9][0-9]{0,17}$")
_DIGEST = re.compile(r"^[0-9a-f]{64}$")
MAX_VOUCHES = 10_000
_MANIFEST = re.compile(r"^device-([A-Za-z0-9_]{1,64})\.json$")
# Files sync tools and operating systems drop into synced folders; never worth a warning.
_SYSTEM_FILES = frozenset(
    {
        ".stfolder",
        ".stignore",
        ".stversions",
        ".DS_Store",
        "Thumbs.db",
        "desktop.ini",
        ".dropbox",
        ".dropbox.attr",
        ".dropbox.cache",
        ".sync",
        ".syncthing",
        "Icon\r",
        ".nextcloudsync.log",
        ".owncloudsync.log",
    }
)
_CONFLICT = re.compile(
    r"\.sync-conflict-|conflicted copy|\(conflict|conflict\)|"  # Syncthing, Dropbox, Nextcloud
    r"_conflict-\d|"  # Nextcloud desktop client ("name_conflict-20240101-120000")
    r" \d+(\.[^.]+)*$|"  # iCloud / macOS: "device-x 2.json"
    r" \(\d+\)(\.[^.]+)*$"  # Google Drive / Windows: "device-x (1).json"
)
_TEMPORARY = re.compile(
    r"^\.|\.tmp$|\.tmp-|\.part$|\.partial$|~$|^~|\.crdownload$|\.syncthing\.|\.~tmp$"
)


# ---- names ---------------------------------------------------------------------------------


def manifest_name(device: str) -> str:
    return f"device-{device}.json"


def manifest_device(name: str) -> str | None:
    match = _MANIFEST.match(name)
    return match.group(1) if match else None


def segment_dir(device: str) -> str:
    return f"{SEGMENTS_DIR}/{device}"


@dataclass(frozen=True, order=True)
class SegmentName:
    first: int
    last: int
    sha256: str

    @property
    def name(self) -> str:
        return f"ops-{self.first:012d}-{self.last:012d}-{self.sha256}.jsonl.gz"

    @classmethod
    def parse(cls, name: str) -> SegmentName | None:
        match = _SEGMENT.match(name)
        if match is None:
            return None
        first, last = int(match.group(1)), int(match.group(2))
        if not 0 < first <= last:
            return None
        return cls(first, last, match.group(3))

    def covers(self, other: SegmentName) -> bool:
        return self.first <= other.first and other.last <= self.last


def classify(name: str) -> tuple[str, str]:
    """Why a file that is neither a manifest nor a segment is skipped: (kind, reason).

    kind is 'system' (ignored silently), 'temporary', 'conflict' or 'unknown'.
    """
    if name in _SYSTEM_FILES or name.startswith("._"):
        return "system", "file of the operating system or the sync tool"
    if _CONFLICT.search(name):
        return "conflict", (
            "conflict copy made by a sync tool; ignored (each device writes only its own "
            "files, so the original is the one that counts)"
        )
    if _TEMPORARY.search(name):
        return "temporary", "temporary or partial file (an upload in progress or left by a crash)"
    return "unknown", "not a file digest-tui writes; ignored"


# ---- segments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    device: str
    name: SegmentName
    data: bytes
    count: int


def encode_segment(device: str, ops: Sequence[Op], first: int, last: int) -> Segment:
    """A segment of `device`'s ops covering counters [first, last]; deterministic bytes."""
    if not DEVICE_ID.match(device):
        raise SegmentError(f"not a device id: {device!r}")
    if not 0 < first <= last:
        raise SegmentError(f"bad segment range {first}..{last}")
    for op in ops:
        if op.device != device or not first <= op.counter <= last:
            raise SegmentError(f"op {op.op_id} does not belong in {device} {first}..{last}")
    header = {
        "segment": FORMAT,
        "device": device,
        "first": first,
        "last": last,
        "count": len(ops),
    }
    lines = [json.dumps(header, sort_keys=True, separators=(",", ":"))]
    lines.extend(
        json.dumps(op.to_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        for op in ops
    )
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    buffer = io.BytesIO()
    # mtime=0 and no file name: the same ops always give the same bytes, hence the same name.
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="", compresslevel=6) as gz:
        gz.write(raw)
    data = buffer.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    return Segment(device, SegmentName(first, last, digest), data, len(ops))


def decode_segment(
    device: str, name: str, data: bytes, shared: dict[Any, Any] | None = None
) -> list[Op]:
    """Every op of a downloaded segment, or SegmentError: the whole file or nothing.

    `shared`: the `Op.from_json` dict of objects the ops of one batch share (a fresh one for
    this segment when not given).
    """
    where = f"{segment_dir(device)}/{name}"
    parsed = SegmentName.parse(name)
    if parsed is None:
        raise SegmentError(f"{where}: not a segment name")
    if len(data) > MAX_SEGMENT_BYTES:
        raise SegmentError(f"{where}: {len(data)} bytes is larger than any segment")
    if hashlib.sha256(data).hexdigest() != parsed.sha256:
        raise SegmentError(
            f"{where}: content does not match the hash in its name ({len(data)} bytes: "
            "torn, truncated or altered)"
        )
    try:
        raw = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise SegmentError(f"{where}: not a valid gzip file: {exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SegmentError(f"{where}: not UTF-8 (byte {exc.start})") from exc
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise SegmentError(f"{where}: empty")
    header = _json_line(lines[0], where, 1)
    expected = {"segment": FORMAT, "device": device, "first": parsed.first, "last": parsed.last}
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in expected.items()):
        raise SegmentError(f"{where}: header {str(header)[:200]!r} does not match the name")
    if header.get("count") != len(lines) - 1:
        raise SegmentError(
            f"{where}: header says {header.get('count')!r} ops, the file has {len(lines) - 1}"
        )
    ops: list[Op] = []
    seen: set[str] = set()
    if shared is None:
        shared = {}
    for number, line in enumerate(lines[1:], start=2):
        # A line as this program writes it is matched and checked whole (op_lines.py); any
        # other is parsed and checked field by field, which also words its problem.
        op = decode_line(line, shared, MAX_OP_DEPTH)
        if op is None:
            op = _general_line(line, where, number, shared)
        if op.device != device or not parsed.first <= op.counter <= parsed.last:
            raise SegmentError(
                f"{where}: line {number}: op {op.op_id} does not belong in this segment"
            )
        if op.op_id in seen:
            raise SegmentError(f"{where}: line {number}: op {op.op_id} appears twice")
        seen.add(op.op_id)
        ops.append(op)
    return ops


def _general_line(line: str, where: str, number: int, shared: dict[Any, Any]) -> Op:
    """The op on a line of any shape, or SegmentError naming the line and the problem."""
    item = _json_line(line, where, number)
    try:
        return Op.from_json(item, shared)
    except OpFormatError as exc:
        raise SegmentError(f"{where}: line {number}: {exc}") from exc


def _json_line(line: str, where: str, number: int) -> Any:
    try:
        value = jsonsafe.loads(line)
    except jsonsafe.MalformedJSON as exc:
        detail = str(exc).removeprefix("not valid JSON: ")
        raise SegmentError(f"{where}: line {number}: not JSON ({detail})") from None
    # Nesting cannot exceed the number of opening brackets (counted in C): only a line with
    # more of them than the limit needs the walk over the parsed value.
    if line.count("[") + line.count("{") > MAX_OP_DEPTH and _depth(value) > MAX_OP_DEPTH:
        raise SegmentError(f"{where}: line {number}: nested more than {MAX_OP_DEPTH} levels deep")
    return value


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (iteratively: no recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_OP_DEPTH:
            break
        stack.extend((child, level + 1) for child in children)
    return deepest


def op_digest(op: Op) -> str:
    """The SHA-256 of what an op says (the fields `apply_ops` compares): two copies of one op id
    with different digests are two different ops claiming one counter."""
    ref = op.paper.to_json() if op.paper else None
    body = [op.op_id, op.hlc, op.kind, ref, op.list_id, dict(op.payload)]
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---- manifests -----------------------------------------------------------------------------


@dataclass
class Manifest:
    """A device's own small file: what it has uploaded, and what it has applied (its acks)."""

    device: str
    label: str = ""
    head: int = 0  # highest counter of its ops in its segments
    ack: dict[str, int] = field(default_factory=dict)  # device -> ops 1..N applied from it
    forgotten: list[str] = field(default_factory=list)  # devices the user retired
    updated_at: str = ""
    app: str = ""
    # Random per write: another machine writing as this device (a copied library) can never
    # produce the bytes this one wrote, even with the same content in the same second.
    nonce: str = ""
    # op id -> op_digest of the genuine version, for ops of this device that another writer
    # also claimed with other content (docs/sync.md, "Two writers for one device").
    vouch: dict[str, str] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        body = {
            "format": FORMAT,
            "device": self.device,
            "label": self.label,
            "head": self.head,
            "ack": dict(sorted(self.ack.items())),
            "forgotten": sorted(set(self.forgotten)),
            "updated_at": self.updated_at,
            "app": self.app,
            "nonce": self.nonce,
        }
        if self.vouch:
            body["vouch"] = dict(sorted(self.vouch.items()))
        return (json.dumps(body, ensure_ascii=False, indent=1) + "\n").encode("utf-8")

    def same_content(self, other: Manifest | None) -> bool:
        """Equal but for the time it was written (no need to rewrite it)."""
        if other is None:
            return False
        return (self.label, self.head, self.ack, sorted(self.forgotten), self.vouch) == (
            other.label,
            other.head,
            other.ack,
            sorted(other.forgotten),
            other.vouch,
        )

    @classmethod
    def parse(cls, data: bytes, expected_device: str, where: str) -> Manifest:
        if len(data) > MAX_MANIFEST_BYTES:
            raise SegmentError(f"{where}: {len(data)} bytes is too large for a manifest")
        try:
            body = jsonsafe.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise SegmentError(f"{where}: not UTF-8 (torn or altered?): {exc}") from None
        except jsonsafe.MalformedJSON as exc:
            raise SegmentError(f"{where}: {exc} (torn or altered?)") from None
        if not isinstance(body, Mapping):
            raise SegmentError(f"{where}: not a JSON object")
        if body.get("format") != FORMAT:
            raise SegmentError(
                f"{where}: manifest format {body.get('format')!r} is not {FORMAT} "
                "(written by a newer digest-tui?)"
            )
        if body.get("device") != expected_device:
            raise SegmentError(f"{where}: names device {body.get('device')!r}")
        head = body.get("head")
        ack = body.get("ack")
        forgotten = body.get("forgotten", [])
        if not isinstance(head, int) or head < 0:
            raise SegmentError(f"{where}: bad head {head!r}")
        if not isinstance(ack, Mapping) or not all(
            isinstance(k, str) and DEVICE_ID.match(k) and isinstance(v, int) and v >= 0
            for k, v in ack.items()
        ):
            raise SegmentError(f"{where}: bad ack")
        if not isinstance(forgotten, list) or not all(
            isinstance(d, str) and DEVICE_ID.match(d) for d in forgotten
        ):
            raise SegmentError(f"{where}: bad forgotten list")
        vouch = body.get("vouch", {})
        if (
            not isinstance(vouch, Mapping)
            or len(vouch) > MAX_VOUCHES
            or not all(
                isinstance(k, str)
                and _OP_ID.match(k)
                and k.rsplit(":", 1)[0] == expected_device
                and isinstance(v, str)
                and _DIGEST.match(v)
                for k, v in vouch.items()
            )
        ):
            raise SegmentError(f"{where}: bad vouch list")
        label = body.get("label", "")
        return cls(
            device=expected_device,
            label=label[:100] if isinstance(label, str) else "",
            head=head,
            ack=dict(ack),
            forgotten=list(forgotten),
            updated_at=str(body.get("updated_at", ""))[:64],
            app=str(body.get("app", ""))[:64],
            nonce=str(body.get("nonce", ""))[:64],
            vouch=dict(vouch),
        )
