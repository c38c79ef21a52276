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
    # Compiled matchers are attached here by enrich/hardware.py (built once per catalog).
    _compiled: Any = PrivateAttr(default=None)

    def model_post_init(self, __context: Any) -> None:
        self._index = {device.id: device for device in self.devices}
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=True)
        self._fingerprint = hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def fingerprint(self) -> str:
        """Stable hash of the merged catalog: a change means papers must be enriched again."""
        return self._fingerprint

    def get(self, device_id: str) -> Device | None:
        return self._index.get(device_id)

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


def _read_yaml(text: str, origin: str) -> dict[str, Any]:
    import yaml  # deferred: only needed when a catalog is loaded

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise HardwareCatalogError(f"{origin}: not valid YAML: {exc}") from exc
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise HardwareCatalogError(f"{origin}: expected a mapping at the top level")
    unknown = set(raw) - {"version", "default_vendor", *_SECTIONS, *_MAPPINGS}
    if unknown:
        raise HardwareCatalogError(
            f"{origin}: unknown top-level key(s) {', '.join(sorted(map(str, unknown)))}; "
            f"expected some of: version, default_vendor, {', '.join(_SECTIONS + _MAPPINGS)}"
        )
    for section in _SECTIONS:
        entries = raw.get(section)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise HardwareCatalogError(f"{origin}: {section}: expected a list of entries")
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                raise HardwareCatalogError(
                    f"{origin}: {section}[{i}]: expected a mapping with a string `id`"
                )
    for mapping in _MAPPINGS:
        if mapping in raw and not isinstance(raw[mapping], dict):
            raise HardwareCatalogError(f"{origin}: {mapping}: expected a mapping")
    return raw


def _merge(base: dict[str, Any], override: dict[str, Any], origin: str) -> dict[str, str]:
    """Merge `override` into `base` in place; return which file each overridden id came from."""
    origins: dict[str, str] = {}
    for section in _SECTIONS:
        entries = base.setdefault(section, [])
        by_id = {entry["id"]: entry for entry in entries}
        for entry in override.get(section) or []:
            origins[f"{section}:{entry['id']}"] = origin
            if entry["id"] in by_id:
                by_id[entry["id"]].update(entry)  # field by field: the user's figure wins
            else:
                entries.append(dict(entry))
                by_id[entry["id"]] = entries[-1]
    for mapping in _MAPPINGS:
        if override.get(mapping):
            base.setdefault(mapping, {}).update(override[mapping])
    for key in ("version", "default_vendor"):
        if key in override:
            base[key] = override[key]
    return origins


def _describe(loc: tuple[Any, ...], raw: dict[str, Any]) -> str:
    """("devices", 3, "memory_gb") -> "devices[3] (id=h100).memory_gb"."""
    parts: list[str] = []
    for i, part in enumerate(loc):
        if isinstance(part, int) and i > 0:
            parts[-1] += f"[{part}]"
            entries = raw.get(str(loc[0])) if i == 1 else None
            if isinstance(entries, list) and part < len(entries):
                ident = entries[part].get("id") if isinstance(entries[part], dict) else None
                if ident:
                    parts[-1] += f" (id={ident})"
        else:
            parts.append(str(part))
    return ".".join(parts)


def _entry_origin(section: str, ident: str, origins: dict[str, str], default: str) -> str:
    return origins.get(f"{section}:{ident}", default)


def _check_references(catalog: HardwareCatalog, origins: dict[str, str], default: str) -> None:
    """Cross-references and regexes, each error naming the file the entry came from."""
    device_ids = {d.id for d in catalog.devices}
    arch_ids = {a.id for a in catalog.architectures}
    feature_ids = {f.id for f in catalog.features}

    def fail(section: str, index: int, ident: str, field: str, message: str) -> None:
        where = _entry_origin(section, ident, origins, default)
        raise HardwareCatalogError(f"{where}: {section}[{index}] (id={ident}).{field}: {message}")

    def check_patterns(section: str, index: int, ident: str, field: str, pats: list[str]) -> None:
        for j, pattern in enumerate(pats):
            try:
                re.compile(pattern)
            except re.error as exc:
                fail(section, index, ident, f"{field}[{j}]", f"bad regular expression: {exc}")

    for section in _SECTIONS:
        seen: set[str] = set()
        for i, entry in enumerate(getattr(catalog, section)):
            if entry.id in seen:
                fail(section, i, entry.id, "id", "duplicate id")
            seen.add(entry.id)
    for i, f in enumerate(catalog.features):
        if f.introduced_by and f.introduced_by not in arch_ids:
            fail("features", i, f.id, "introduced_by", f"unknown architecture {f.introduced_by!r}")
        check_patterns("features", i, f.id, "patterns", f.patterns)
    for i, a in enumerate(catalog.architectures):
        if a.representative and a.representative not in device_ids:
            fail("architectures", i, a.id, "representative", f"unknown device {a.representative!r}")
        check_patterns("architectures", i, a.id, "aliases", a.aliases)
    for i, d in enumerate(catalog.devices):
        if d.architecture and d.architecture not in arch_ids:
            fail("devices", i, d.id, "architecture", f"unknown architecture {d.architecture!r}")
        if d.variant_of and d.variant_of not in device_ids:
            fail("devices", i, d.id, "variant_of", f"unknown device {d.variant_of!r}")
        for alt in d.alternatives:
            if alt not in device_ids:
                fail("devices", i, d.id, "alternatives", f"unknown device {alt!r}")
        for feat in d.features:
            if feat not in feature_ids and feat not in {"fp16"}:
                fail("devices", i, d.id, "features", f"unknown feature {feat!r}")
        check_patterns("devices", i, d.id, "aliases", d.aliases)
    for i, s in enumerate(catalog.systems):
        if s.device not in device_ids:
            fail("systems", i, s.id, "device", f"unknown device {s.device!r}")
        check_patterns("systems", i, s.id, "aliases", s.aliases)
    for i, m in enumerate(catalog.models):
        check_patterns("models", i, m.id, "aliases", m.aliases)
    for vendor, ladder in catalog.ladders.items():
        for dev in ladder:
            if dev not in device_ids:
                raise HardwareCatalogError(f"{default}: ladders.{vendor}: unknown device {dev!r}")
    for vendor, patterns in catalog.vendor_aliases.items():
        for j, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise HardwareCatalogError(
                    f"{default}: vendor_aliases.{vendor}[{j}]: bad regular expression: {exc}"
                ) from exc


def _validate(raw: dict[str, Any], origins: dict[str, str], default: str) -> HardwareCatalog:
    """Validate the merged mapping; each problem names the file its entry came from."""
    try:
        return HardwareCatalog.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        where = default
        if len(loc) >= 2 and loc[0] in _SECTIONS and isinstance(loc[1], int):
            entry = raw[loc[0]][loc[1]]
            where = _entry_origin(str(loc[0]), str(entry.get("id")), origins, default)
        more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        raise HardwareCatalogError(f"{where}: {_describe(loc, raw)}: {err['msg']}{more}") from exc


def load_hardware_catalog(config_dir: Path | None = None) -> HardwareCatalog:
    """The packaged catalog, merged with `<config_dir>/hardware.yaml` when that file exists."""
    packaged_origin = f"<packaged>/{CATALOG_FILE}"
    raw = _read_yaml(packaged_catalog_text(), packaged_origin)
    origins: dict[str, str] = {}
    origin = packaged_origin
    user_file = config_dir / CATALOG_FILE if config_dir is not None else None
    if user_file is not None and user_file.is_file():
        origin = str(user_file)
        try:
            text = user_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise HardwareCatalogError(f"{user_file}: cannot read: {exc}") from exc
        origins = _merge(raw, _read_yaml(text, origin), origin)
    catalog = _validate(raw, origins, packaged_origin)
    _check_references(catalog, origins, packaged_origin)
    return catalog
