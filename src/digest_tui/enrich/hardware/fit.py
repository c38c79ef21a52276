"""Whether the user's machines (config `machines:`) can reproduce a paper's hardware target.

`fits:` judges papers by their fit key (store/fit_keys.py): the suggestion fields `_fit_one`
reads, and nothing else, so papers whose suggestions differ only in evidence or wording are
judged once. Reading another field here means adding it to the key (and a migration that marks
every paper pending); tests/unit/test_fit_keys.py compares the two judgements. `fit_inputs`
lists the fields for the reasons as well (the jsonl dump's `machine_fit`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from digest_tui.enrich.hardware.catalog import Device, HardwareCatalog, meets_floor
from digest_tui.enrich.hardware.memory import format_gb
from digest_tui.enrich.hardware.suggestion import HardwareSuggestion


class MachineFit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    fits: bool | None
    reason: str


def fit_machines(
    suggestion: HardwareSuggestion, machines: Sequence[Any], catalog: HardwareCatalog
) -> list[MachineFit]:
    """Whether each of the user's machines (config `machines:`) can reproduce the paper.

    A machine fits when its devices meet the feature floor, hold the memory estimate together,
    and are as many as the target needs, or as the scaled-down setup needs (the reason says
    which). `None` when the paper or the machine does not say enough to tell.
    """
    return [_fit_one(suggestion, machine, catalog) for machine in machines]


def fit_inputs(s: HardwareSuggestion) -> tuple[Any, ...]:
    """Every field of the suggestion `_fit_one` reads, verdicts and reasons alike: two
    suggestions equal here fit any machines alike (`paper_jsonl.MachineFits` judges each
    once). A field `_fit_one` starts reading belongs here too, and in store/fit_keys.py's
    key when the verdict depends on it."""
    return (
        s.scale,
        s.memory_gb,
        s.device_total,
        s.floor_architecture,
        tuple(s.floor_features),
        s.feature_floor,
        None if s.scaled_down is None else json.dumps(s.scaled_down),
        tuple(s.device_counts),
    )


def _fit_one(s: HardwareSuggestion, machine: Any, catalog: HardwareCatalog) -> MachineFit:
    def result(fits: bool | None, reason: str) -> MachineFit:
        return MachineFit(name=machine.name, fits=fits, reason=reason)

    parts: list[tuple[Device, int]] = []
    for entry in machine.devices:
        device = catalog.get(entry.id)
        if device is None:
            return result(None, f"unknown device id {entry.id!r}: add it to hardware.yaml")
        parts.append((device, entry.count))
    accel = [(d, n) for d, n in parts if d.is_accelerator]
    if not accel:
        return result(None, "no accelerator declared for this machine")
    have = " + ".join(f"{n}x {d.name}" for d, n in accel)
    needed = s.device_total
    if s.scale == "unknown" and s.memory_gb is None and not s.floor_architecture and not needed:
        return result(None, "the paper gives no device count, memory estimate or floor")

    # Only devices that meet the floor count towards memory and number.
    usable = accel
    floor_note = ""
    if s.floor_architecture:
        usable = [
            (d, n)
            for d, n in accel
            if meets_floor(catalog, d, s.floor_architecture, s.floor_features)
        ]
        if not usable:
            return result(False, f"{have} does not meet the {s.feature_floor} floor")
        floor_note = f"; meets the {s.feature_floor} floor"
    count = sum(n for _, n in usable)
    known = [(d, n) for d, n in usable if d.memory_gb]
    memory = sum((d.memory_gb or 0) * n for d, n in known)
    mem_text = " + ".join(f"{n}x {d.name} {d.memory_gb:g} GB" for d, n in known)
    if len(known) > 1 or (known and known[0][1] > 1):
        mem_text += f" = {memory:g} GB"

    if s.scale == "edge" and not any(d.edge for d, _ in usable):
        if s.memory_gb is not None and known and memory >= s.memory_gb:
            return result(
                True,
                f"{mem_text} >= {format_gb(s.memory_gb)} GB: runs the model, but the "
                "paper measures on edge devices (phone / Jetson class)",
            )
        return result(None, "edge target (phone / Jetson class); this machine has none")

    if s.memory_gb is not None:
        if len(known) < len(usable):
            return result(
                None, f"memory of {have} unknown; the estimate is {format_gb(s.memory_gb)} GB"
            )
        if memory < s.memory_gb:
            return result(False, f"{mem_text} < {format_gb(s.memory_gb)} GB needed{floor_note}")
    mem_ok = f"{mem_text} >= {format_gb(s.memory_gb)} GB" if s.memory_gb is not None else have
    # No estimate: the paper's own device is the only measure of the memory it needs. A smaller
    # device may or may not do; never say yes for it ("1x A100 80GB" on a 24 GB card), and with
    # no device named there is no measure at all. Too few devices is still a plain no.
    unknown = _memory_unknown(s, usable, catalog) if s.memory_gb is None else None

    def fits_if_known(reason: str) -> MachineFit:
        return result(None, unknown + floor_note) if unknown else result(True, reason)

    down = s.scaled_down or {}
    down_count = down.get("count") or 0
    if (needed and count < needed) or (s.scale == "multi-node" and not needed and down_count):
        # More devices than one lab has: the scaled-down setup is the realistic target.
        as_written = f"the paper's {needed} devices" if needed else "the paper's cluster"
        if down_count and count >= down_count:
            return fits_if_known(
                f"fits the scaled-down setup of {down_count} devices ({_describe(down, catalog)}),"
                f" not {as_written}: {mem_ok}{floor_note}",
            )
        if needed:
            return result(False, f"needs {needed} devices as written; {have} is {count}")
        return result(False, f"needs at least the scaled-down {down_count} devices; has {count}")
    if needed:
        return fits_if_known(f"{mem_ok}; {count} >= {needed} devices{floor_note}")
    if s.memory_gb is not None:
        return result(True, f"{mem_ok}{floor_note}")
    if s.scale == "single-device":
        return fits_if_known(f"{have}: one device is enough{floor_note}")
    return result(None, f"{have}{floor_note}; the paper gives no device count or model size")


def _describe(setup: dict[str, Any], catalog: HardwareCatalog) -> str:
    devices = setup.get("devices") or {}
    if not devices:
        return f"{setup.get('count')} GPUs"
    names = []
    for dev_id, n in devices.items():
        device = catalog.get(dev_id)
        names.append(f"{n}x {device.name if device is not None else dev_id}")
    return ", ".join(names)


def _memory_unknown(
    s: HardwareSuggestion, usable: Sequence[tuple[Device, int]], catalog: HardwareCatalog
) -> str | None:
    """Why the fit cannot be told when the paper gives no memory estimate, or None when the
    machine's devices are at least as large as the paper's (or a feature floor decides)."""
    theirs = [d for dev_id in s.device_counts if (d := catalog.get(dev_id)) is not None]
    per_device = max((d.memory_gb or 0.0 for d in theirs), default=0.0)
    if per_device:
        small = [(d, n) for d, n in usable if (d.memory_gb or 0.0) < per_device]
        if not small:
            return None
        paper = max(theirs, key=lambda d: d.memory_gb or 0.0)
        d = small[0][0]
        mine = f"{d.memory_gb:g} GB" if d.memory_gb else "unknown memory"
        return (
            f"the paper's {paper.name} has {per_device:g} GB per device, {d.name} {mine}; "
            "the paper gives no model size to tell whether that is enough"
        )
    if s.floor_architecture:
        return None  # the feature floor is the paper's stated need, and it was met above
    return "the paper names no device and no model size: its memory needs are unknown"
