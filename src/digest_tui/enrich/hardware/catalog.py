"""The hardware catalog: devices, architectures, features, named systems and known models.

The catalog is data (src/digest_tui/data/hardware.yaml), validated here by pydantic. A user
extends it with `<config dir>/hardware.yaml` of the same shape: an entry whose `id` already
exists is updated field by field (so `- {id: a100, memory_gb: 40}` is enough to change one
figure), a new `id` is added. Any problem is reported as a `HardwareCatalogError` naming the
file and the field, e.g. `hardware.yaml: devices[3] (id=h100).memory_gb: ...`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from digest_tui.errors import HardwareCatalogError

CATALOG_FILE = "hardware.yaml"
_SECTIONS = ("features", "architectures", "devices", "systems", "models")
_MAPPINGS = ("ladders", "vendor_aliases")

DeviceKind = Literal["gpu", "npu", "tpu", "cpu", "soc", "accelerator"]
Scale = Literal["single-device", "single-node", "multi-node", "edge", "unknown"]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    aliases: list[str] = Field(default_factory=list)
    case_sensitive: bool = False


class Feature(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    name: str
    # The NVIDIA architecture that introduced it: NVIDIA parts of that generation or newer meet
    # it; other vendors' parts meet it only when they list it in their own `features`.
    introduced_by: str | None = None
    patterns: list[str] = Field(default_factory=list)


class Architecture(_Entry):
    name: str
    vendor: str
    order: int
    representative: str | None = None


class Device(_Entry):
    name: str
    vendor: str
    kind: DeviceKind = "gpu"
    architecture: str | None = None
    # Overrides the architecture's order when a part differs (RTX 5090 is sm_120).
    generation: int | None = None
    memory_gb: float | None = Field(default=None, gt=0)
    memory_options: list[float] = Field(default_factory=list)
    bandwidth_tbs: float | None = Field(default=None, gt=0)
    bf16_tflops: float | None = Field(default=None, gt=0)
    fp16_tflops: float | None = Field(default=None, gt=0)
    features: list[str] = Field(default_factory=list)
    interconnect: str | None = None
    # Devices in one typical server; more than this is multi-node.
    node_size: int = Field(default=8, ge=1)
    edge: bool = False
    variant_of: str | None = None
    alternatives: list[str] = Field(default_factory=list)
    notes: str | None = None

    @property
    def family(self) -> str:
        """The id this device is a memory or form-factor variant of (itself otherwise)."""
        return self.variant_of or self.id

    @property
    def is_accelerator(self) -> bool:
        return self.kind != "cpu"


class System(_Entry):
    name: str
    device: str
    count: int | None = Field(default=None, ge=1)
    per_node: int | None = Field(default=None, ge=1)
    scale: Scale = "multi-node"


class KnownModel(_Entry):
    name: str
    total_b: float = Field(gt=0)
    active_b: float | None = Field(default=None, gt=0)


class HardwareCatalog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    features: list[Feature] = Field(default_factory=list)
    architectures: list[Architecture] = Field(default_factory=list)
    devices: list[Device] = Field(default_factory=list)
    systems: list[System] = Field(default_factory=list)
    models: list[KnownModel] = Field(default_factory=list)
    ladders: dict[str, list[str]] = Field(default_factory=dict)
    default_vendor: str = "nvidia"
    vendor_aliases: dict[str, list[str]] = Field(default_factory=dict)

    _index: dict[str, Device] = PrivateAttr(default_factory=dict)
    _fingerprint: str = PrivateAttr(default="")
    # Compiled matchers are attached here by enrich/hardware/text.py (built once per catalog).
    _compiled: Any = PrivateAttr(default=None)

    def model_post_init(self, __context: Any) -> None:
        self._index = {device.id: device for device in self.devices}
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=True)
        self._fingerprint = hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def fingerprint(self) -> str:
        """Stable hash of the merged catalog's content. The store does not check it (stored
        enrichment is checked against `Enricher.fingerprint`, over the data files' bytes)."""
        return self._fingerprint

    def get(self, device_id: str) -> Device | None:
        # `self._index` goes through pydantic's __getattr__ (~2 us; the hardware target asks
        # this ~5 times per paper): private attributes live in `__pydantic_private__`.
        index: dict[str, Device] = self.__pydantic_private__["_index"]  # type: ignore[index]
        return index.get(device_id)

    def architecture(self, arch_id: str | None) -> Architecture | None:
        return next((a for a in self.architectures if a.id == arch_id), None)

    def feature(self, feature_id: str) -> Feature | None:
        return next((f for f in self.features if f.id == feature_id), None)

    def system(self, system_id: str) -> System | None:
        return next((s for s in self.systems if s.id == system_id), None)

    def order_of(self, device: Device) -> int | None:
        """Generation order within the device's vendor (newer is greater)."""
        if device.generation is not None:
            return device.generation
        arch = self.architecture(device.architecture)
        return arch.order if arch is not None else None

    def meets_feature(self, device: Device, feature_id: str) -> bool:
        """Hopper-or-newer semantics for NVIDIA parts; the device's own list otherwise."""
        if feature_id in device.features:
            return True
        feature = self.feature(feature_id)
        if feature is None or feature.introduced_by is None or device.vendor != "nvidia":
            return False
        intro = self.architecture(feature.introduced_by)
        order = self.order_of(device)
        return intro is not None and order is not None and order >= intro.order


# --------------------------------------------------------------------------------------------
# Loading and merging


def packaged_catalog_text() -> str:
    return (resources.files("digest_tui") / "data" / CATALOG_FILE).read_text(encoding="utf-8")


def _read_yaml(doc: Any) -> dict[str, Any]:
    """The top-level mapping of a catalog document, its shape checked before pydantic sees
    the merged catalog (merging needs every entry to be a mapping with an `id`)."""
    from digest_tui import yaml_files

    raw = yaml_files.require_mapping(doc, HardwareCatalogError, "a mapping at the top level")
    unknown = set(raw) - {"version", "default_vendor", *_SECTIONS, *_MAPPINGS}
    if unknown:
        first = sorted(map(str, unknown))[0]
        raise _fail(
            doc,
            (first,),
            f"unknown top-level key(s) {', '.join(sorted(map(str, unknown)))}; "
            f"expected some of: version, default_vendor, {', '.join(_SECTIONS + _MAPPINGS)}",
            named=False,
        )
    for section in _SECTIONS:
        entries = raw.get(section)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise _fail(doc, (section,), "expected a list of entries")
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                raise _fail(doc, (section, i), "expected a mapping with a string `id`")
    for mapping in _MAPPINGS:
        if mapping in raw and not isinstance(raw[mapping], dict):
            raise _fail(doc, (mapping,), "expected a mapping")
    return raw


def _fail(doc: Any, loc: tuple[Any, ...], message: str, *, named: bool = True) -> Exception:
    """`FILE:LINE: field: message` for the field at `loc` of `doc`."""
    from digest_tui import yaml_files

    problem = doc.problem(loc, message)
    if not named:
        problem = yaml_files.Problem(problem.path, problem.line, "", message)
    return yaml_files.fail(HardwareCatalogError, problem)


# Where each entry of the merged catalog was last written: "section:id" -> (document, index
# in that document's list), so a problem found after merging names its own file and line.
Origins = dict[str, tuple[Any, int]]


def _merge(base: dict[str, Any], override: dict[str, Any], doc: Any, origins: Origins) -> None:
    """Merge `override` (the data of `doc`) into `base` in place, recording origins."""
    for section in _SECTIONS:
        entries = base.setdefault(section, [])
        by_id = {entry["id"]: entry for entry in entries}
        for index, entry in enumerate(override.get(section) or []):
            origins[f"{section}:{entry['id']}"] = (doc, index)
            if entry["id"] in by_id:
                by_id[entry["id"]].update(entry)  # field by field: the user's figure wins
            else:
                entries.append(dict(entry))
                by_id[entry["id"]] = entries[-1]
    for mapping in _MAPPINGS:
        if override.get(mapping):
            base.setdefault(mapping, {}).update(override[mapping])
            for key in override[mapping]:
                origins[f"{mapping}:{key}"] = (doc, -1)
    for key in ("version", "default_vendor"):
        if key in override:
            base[key] = override[key]


def _entry_fail(
    origins: Origins, section: str, ident: str, rest: tuple[Any, ...], message: str
) -> Exception:
    """A problem in the merged catalog, reported in the file (and line) the entry came from."""
    doc, index = origins[f"{section}:{ident}"]
    loc = (section, *rest) if index < 0 else (section, index, *rest)
    return _fail(doc, loc, message)


def _check_references(catalog: HardwareCatalog, origins: Origins) -> None:
    """Cross-references and regexes, each error naming the file the entry came from."""
    device_ids = {d.id for d in catalog.devices}
    arch_ids = {a.id for a in catalog.architectures}
    feature_ids = {f.id for f in catalog.features}

    def fail(section: str, ident: str, field: str | tuple[Any, ...], message: str) -> None:
        rest = field if isinstance(field, tuple) else (field,)
        raise _entry_fail(origins, section, ident, rest, message)

    def check_patterns(section: str, ident: str, field: str, pats: list[str]) -> None:
        for j, pattern in enumerate(pats):
            try:
                re.compile(pattern)
            except re.error as exc:
                fail(section, ident, (field, j), f"bad regular expression: {exc}")

    for section in _SECTIONS:
        seen: set[str] = set()
        for entry in getattr(catalog, section):
            if entry.id in seen:
                fail(section, entry.id, "id", "duplicate id")
            seen.add(entry.id)
    for f in catalog.features:
        if f.introduced_by and f.introduced_by not in arch_ids:
            fail("features", f.id, "introduced_by", f"unknown architecture {f.introduced_by!r}")
        check_patterns("features", f.id, "patterns", f.patterns)
    for a in catalog.architectures:
        if a.representative and a.representative not in device_ids:
            fail("architectures", a.id, "representative", f"unknown device {a.representative!r}")
        check_patterns("architectures", a.id, "aliases", a.aliases)
    for d in catalog.devices:
        if d.architecture and d.architecture not in arch_ids:
            fail("devices", d.id, "architecture", f"unknown architecture {d.architecture!r}")
        if d.variant_of and d.variant_of not in device_ids:
            fail("devices", d.id, "variant_of", f"unknown device {d.variant_of!r}")
        for alt in d.alternatives:
            if alt not in device_ids:
                fail("devices", d.id, "alternatives", f"unknown device {alt!r}")
        for feat in d.features:
            if feat not in feature_ids and feat not in {"fp16"}:
                fail("devices", d.id, "features", f"unknown feature {feat!r}")
        check_patterns("devices", d.id, "aliases", d.aliases)
    for s in catalog.systems:
        if s.device not in device_ids:
            fail("systems", s.id, "device", f"unknown device {s.device!r}")
        check_patterns("systems", s.id, "aliases", s.aliases)
    for m in catalog.models:
        check_patterns("models", m.id, "aliases", m.aliases)
    for vendor, ladder in catalog.ladders.items():
        for dev in ladder:
            if dev not in device_ids:
                fail("ladders", vendor, (vendor,), f"unknown device {dev!r}")
    for vendor, patterns in catalog.vendor_aliases.items():
        for j, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                fail("vendor_aliases", vendor, (vendor, j), f"bad regular expression: {exc}")


def _validate(raw: dict[str, Any], origins: Origins, packaged: Any) -> HardwareCatalog:
    """Validate the merged mapping; each problem names the file (and line) of its entry."""
    from digest_tui import yaml_files

    try:
        return HardwareCatalog.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
        loc = tuple(errors[0]["loc"])
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        message = f"{errors[0]['msg']}{more}"
        if len(loc) >= 2 and loc[0] in _SECTIONS and isinstance(loc[1], int):
            ident = str(raw[loc[0]][loc[1]].get("id"))
            raise _entry_fail(origins, str(loc[0]), ident, loc[2:], message) from None
        if len(loc) >= 2 and f"{loc[0]}:{loc[1]}" in origins:
            raise _entry_fail(origins, str(loc[0]), str(loc[1]), loc[1:], message) from None
        problem = yaml_files.Problem(packaged.path, None, yaml_files.field_name(loc, raw), message)
        raise yaml_files.fail(HardwareCatalogError, problem) from None


def load_hardware_catalog(config_dir: Path | None = None) -> HardwareCatalog:
    """The packaged catalog, merged with `<config_dir>/hardware.yaml` when that file exists.

    Any problem is a HardwareCatalogError: `FILE:LINE: field: problem`.
    """
    from digest_tui import yaml_files

    packaged = yaml_files.parse(
        packaged_catalog_text(), f"<packaged>/{CATALOG_FILE}", HardwareCatalogError
    )
    raw: dict[str, Any] = {}
    origins: Origins = {}
    _merge(raw, _read_yaml(packaged), packaged, origins)
    user_file = config_dir / CATALOG_FILE if config_dir is not None else None
    if user_file is not None and user_file.is_file():
        user = yaml_files.load_file(user_file, HardwareCatalogError)
        _merge(raw, _read_yaml(user), user, origins)
    catalog = _validate(raw, origins, packaged)
    _check_references(catalog, origins)
    return catalog


def meets_floor(
    catalog: HardwareCatalog, device: Device, floor_arch: str | None, floor_features: Sequence[str]
) -> bool:
    """Same vendor: that architecture or newer; another vendor: the floor's features."""
    arch = catalog.architecture(floor_arch)
    if arch is None:
        return True
    if device.vendor == arch.vendor:
        order = catalog.order_of(device)
        return order is not None and order >= arch.order
    return bool(floor_features) and all(catalog.meets_feature(device, f) for f in floor_features)
