"""Hardware targets that agree with themselves: each error class of the test split
(docs/hardware.md) as hand-written examples, none copied from the labelled splits."""

from __future__ import annotations

import pytest

from digest_tui.config import Machine
from digest_tui.enrich.hardware.catalog import HardwareCatalog, load_hardware_catalog
from digest_tui.enrich.hardware.fit import fit_machines
from digest_tui.enrich.hardware.suggest import HardwareSuggestion, suggest_hardware

RTX = Machine(name="rtx", devices=[{"id": "rtx-4090", "count": 1}])  # type: ignore[list-item]
QUAD = Machine(name="quad", devices=[{"id": "rtx-4090", "count": 4}])  # type: ignore[list-item]
NODE = Machine(name="node", devices=[{"id": "h100", "count": 8}])  # type: ignore[list-item]


@pytest.fixture(scope="module")
def catalog() -> HardwareCatalog:
    return load_hardware_catalog()


def suggest(catalog: HardwareCatalog, abstract: str, title: str = "") -> HardwareSuggestion:
    return suggest_hardware(catalog, title, abstract)


def fit(catalog: HardwareCatalog, s: HardwareSuggestion, machine: Machine) -> bool | None:
    [result] = fit_machines(s, [machine], catalog)
    return result.fits


# --- the machine fit: per-device memory, not the device count alone ------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We fine-tune our detector on a single A100 80GB GPU.",
        "All measurements use one H100 GPU.",
        "Training takes six hours on one MI300X.",
    ],
)
def test_a_big_device_without_a_model_size_never_fits_a_smaller_card(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.memory_gb is None and s.device_total == 1
    for machine in (RTX, QUAD):
        [result] = fit_machines(s, [machine], catalog)
        assert result.fits is None, result.reason
        assert "GB per device" in result.reason
    assert fit(catalog, s, NODE) in (True, None)


def test_the_same_device_or_a_larger_one_still_fits(catalog):
    s = suggest(catalog, "We fine-tune on a single A100 80GB GPU.")
    assert fit(catalog, s, NODE) is True


def test_an_unnamed_gpu_without_a_model_size_is_unknown_not_yes(catalog):
    s = suggest(catalog, "Every experiment runs on a single GPU.")
    [result] = fit_machines(s, [RTX], catalog)
    assert result.fits is None and "unknown" in result.reason


def test_too_few_devices_is_still_a_plain_no(catalog):
    s = suggest(catalog, "We train on 8 A100 GPUs.")
    assert fit(catalog, s, RTX) is False


def test_a_known_estimate_decides_for_the_smaller_card(catalog):
    s = suggest(catalog, "We serve a 7B model on one A100 80GB GPU.")
    assert s.memory_gb is not None and s.memory_gb < 24
    assert fit(catalog, s, RTX) is True


# --- the estimate belongs to the target ----------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We run a 7B model on one A100 80GB GPU and compare against Llama-3-405B.",
        "Compared with GPT-3 175B, our 1.3B model runs on a single A100 80GB GPU.",
        "Our 3B model, unlike 70B models, runs on a single H100 GPU.",
    ],
)
def test_the_estimate_never_comes_from_a_model_only_compared_against(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.device_total == 1
    assert s.memory_gb is not None and s.memory_gb <= 80, s.memory_arithmetic


def test_the_estimate_fits_the_stated_target_when_one_of_the_papers_sizes_does(catalog):
    s = suggest(catalog, "We evaluate Llama-3-70B and Llama-3-8B on one A100 80GB GPU.")
    assert s.memory_gb is not None and s.memory_gb <= 80


# --- variant names are their own device, or the family's architecture ----------------------


@pytest.mark.parametrize(
    ("abstract", "device", "not_device"),
    [
        ("We benchmark on four AMD MI250 accelerators.", "mi250", "mi250x"),
        ("We benchmark on four AMD MI250X accelerators.", "mi250x", "mi250"),
        ("The MI300A APU shares HBM between CPU and GPU cores.", None, "mi300x"),
        ("Our kernels target the MI300 series.", None, "mi300x"),
        ("We run on 8 MI300X GPUs.", "mi300x", None),
        ("Results on an MI350X accelerator.", None, "mi355x"),
    ],
)
def test_variant_names_do_not_match_a_different_device(catalog, abstract, device, not_device):
    s = suggest(catalog, abstract)
    if device is not None:
        assert device in s.devices
    if not_device is not None:
        assert not_device not in s.devices


# --- a scale where the text states one in words ---------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "scale", "total"),
    [
        ("We measure everything on an eight-GPU testbed.", "single-node", 8),
        ("Latency is reported on a six-GPU server.", "single-node", 6),
        ("Post-training runs on 512 v5p TPUs.", "multi-node", 512),
        ("Jobs are spread over multiple machines.", "multi-node", None),
        ("The assistant runs on a laptop without a discrete GPU.", "edge", None),
        ("Our model runs on a single consumer GPU.", "single-device", 1),
        ("We scale training to thousands of GPUs.", "multi-node", 1000),
    ],
)
def test_scale_words_give_a_scale(catalog, abstract, scale, total):
    s = suggest(catalog, abstract)
    assert s.scale == scale, s.target
    assert s.device_total == total


def test_a_tpu_generation_without_tpu_before_it_is_that_tpu(catalog):
    assert "tpu-v5p" in suggest(catalog, "Post-training runs on 512 v5p TPUs.").devices


def test_a_passing_mention_of_laptops_is_no_scale(catalog):
    assert suggest(catalog, "Most laptops lack the memory for such models.").scale == "unknown"


# --- papers with no setup to reproduce say so -----------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract", "kind"),
    [
        (
            "Efficient Inference for Large Models: A Survey",
            "We organise 300 papers on serving, from single A100 GPUs to clusters of 1,024 H100.",
            "a survey",
        ),
        (
            "What Training Really Costs",
            "We estimate the carbon footprint of frontier models: a single run occupies 10,000 "
            "A100 GPUs for months.",
            "a footprint study",
        ),
        (
            "Position: Benchmarks Should Report Energy",
            "We argue that every paper should state the energy its 8 H100 GPUs used.",
            "a position paper",
        ),
    ],
)
def test_surveys_footprint_studies_and_position_papers_are_not_targets(
    catalog, title, abstract, kind
):
    s = suggest(catalog, abstract, title)
    assert s.target.startswith(f"not a reproduction target: {kind}")
    assert s.scale == "unknown" and s.device_total is None and s.device_counts == {}
    assert s.memory_gb is None and s.devices  # the devices it names are still listed
    [result] = fit_machines(s, [NODE], catalog)
    assert result.fits is None


def test_a_method_paper_that_reduces_its_footprint_is_still_a_target(catalog):
    s = suggest(catalog, "Our scheduler cuts the carbon footprint of serving on 8 H100 GPUs.")
    assert s.device_total == 8


def test_a_baselines_setup_written_with_number_words_is_not_the_target(catalog):
    s = suggest(catalog, "Against a two-node-four-GPU Dist-DGL baseline we are 3x faster.")
    assert s.scale != "multi-node"
