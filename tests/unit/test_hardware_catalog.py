"""The hardware catalog: packaged data, user extension, errors that name file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from digest_tui.enrich.hardware.catalog import load_hardware_catalog
from digest_tui.enrich.hardware.suggest import suggest_hardware
from digest_tui.errors import HardwareCatalogError

REQUIRED_IDS = {
    "h100", "h100-pcie", "h200", "h800", "gh200", "b200", "a100", "a800", "v100", "p100",
    "l40s", "a6000", "t4", "rtx-4090", "rtx-3090", "rtx-5090", "jetson-agx-orin", "mi300x",
    "mi250x", "tpu-v4", "tpu-v5e", "tpu-v5p", "gaudi2", "gaudi3", "ascend-910b", "ascend-910c",
    "metax-c550", "apple-m-series", "mobile-soc",
}  # fmt: skip


def test_packaged_catalog_has_the_devices_and_facts() -> None:
    catalog = load_hardware_catalog()
    assert {d.id for d in catalog.devices} >= REQUIRED_IDS
    h100 = catalog.get("h100")
    assert h100 is not None
    assert (h100.memory_gb, h100.bandwidth_tbs, h100.bf16_tflops) == (80, 3.35, 989)
    assert {"fp8", "tma", "wgmma"} <= set(h100.features)
    a100 = catalog.get("a100")
    assert a100 is not None and a100.memory_options == [40, 80]
    assert catalog.get("a100-40gb").family == "a100"  # type: ignore[union-attr]
    assert catalog.get("nope") is None
    frontier = catalog.system("frontier")
    assert frontier is not None and frontier.device == "mi250x"


def test_feature_semantics() -> None:
    catalog = load_hardware_catalog()
    get = catalog.get
    assert catalog.meets_feature(get("b200"), "tma")  # type: ignore[arg-type]
    assert catalog.meets_feature(get("b200"), "wgmma")  # type: ignore[arg-type]  # Hopper or newer
    assert not catalog.meets_feature(get("rtx-4090"), "tma")  # type: ignore[arg-type]  # Ada: no TMA
    assert catalog.meets_feature(get("rtx-4090"), "fp8")  # type: ignore[arg-type]
    assert not catalog.meets_feature(get("a100"), "fp8")  # type: ignore[arg-type]
    assert catalog.meets_feature(get("mi300x"), "fp8")  # type: ignore[arg-type]  # its own list
    assert not catalog.meets_feature(get("mi250x"), "fp8")  # type: ignore[arg-type]


def test_fingerprint_is_stable_and_changes_with_the_data(tmp_path: Path) -> None:
    assert load_hardware_catalog().fingerprint == load_hardware_catalog().fingerprint
    (tmp_path / "hardware.yaml").write_text("devices:\n  - {id: a100, memory_gb: 40}\n")
    assert load_hardware_catalog(tmp_path).fingerprint != load_hardware_catalog().fingerprint


def test_user_catalog_adds_and_overrides(tmp_path: Path) -> None:
    (tmp_path / "hardware.yaml").write_text(
        """
devices:
  - id: rtx-4080
    name: GeForce RTX 4080
    vendor: nvidia
    architecture: ada
    memory_gb: 16
    features: [bf16, fp8]
    aliases: ['RTX ?4080']
  - id: a100
    memory_gb: 40
systems:
  - id: our-cluster
    name: Our lab cluster
    device: rtx-4080
    count: 32
    aliases: ['LabCluster']
"""
    )
    catalog = load_hardware_catalog(tmp_path)
    added = catalog.get("rtx-4080")
    assert added is not None and added.memory_gb == 16
    a100 = catalog.get("a100")
    assert a100 is not None and a100.memory_gb == 40 and a100.name == "A100 80GB"
    s = suggest_hardware(catalog, "X", "We run it on an RTX 4080 and then on LabCluster.")
    assert s.devices == ["rtx-4080"]
    assert "Our lab cluster" in s.systems
    # The packaged catalog itself is untouched.
    assert load_hardware_catalog().get("rtx-4080") is None


def test_missing_user_file_is_fine(tmp_path: Path) -> None:
    assert load_hardware_catalog(tmp_path).get("h100") is not None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("devices: [\n", "not valid YAML"),
        ("- a list\n", "expected a mapping at the top level"),
        ("gpus: []\n", "unknown top-level key(s) gpus"),
        ("devices:\n  - name: no id\n", "devices[0]: expected a mapping with a string `id`"),
        (
            "devices:\n  - {id: h100, memory_gb: lots}\n",
            "devices[",
        ),
        (
            "devices:\n  - {id: x1, name: X1, vendor: nvidia, architecture: pascalish}\n",
            "hardware.yaml:2: devices[0] (id 'x1').architecture: unknown architecture 'pascalish'",
        ),
        (
            "devices:\n  - {id: x1, name: X1, vendor: nvidia, aliases: ['(unclosed']}\n",
            "hardware.yaml:2: devices[0] (id 'x1').aliases[0]: bad regular expression",
        ),
        (
            "systems:\n  - {id: s1, name: S1, device: nope}\n",
            "hardware.yaml:2: systems[0] (id 's1').device: unknown device 'nope'",
        ),
        ("devices:\n  - {id: x1, name: X1, vendor: nvidia, colour: red}\n", "colour"),
    ],
)
def test_bad_user_catalog_names_file_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "hardware.yaml"
    path.write_text(text)
    with pytest.raises(HardwareCatalogError) as info:
        load_hardware_catalog(tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert expected in message


def test_type_error_names_entry_and_field(tmp_path: Path) -> None:
    (tmp_path / "hardware.yaml").write_text("devices:\n  - {id: h100, memory_gb: lots}\n")
    with pytest.raises(
        HardwareCatalogError, match=r"hardware.yaml:2: devices\[0\] \(id 'h100'\)\.memory_gb"
    ):
        load_hardware_catalog(tmp_path)
