"""Hardware targets that agree with themselves: each error class of the test split
(docs/hardware.md) as hand-written examples, none copied from the labelled splits."""

from __future__ import annotations

import re

import pytest

from digest_tui.config import Machine
from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.fit import fit_machines
from digest_tui.enrich.hardware.suggest import HardwareSuggestion
from tests.support.judgement import suggest

RTX = Machine(name="rtx", devices=[{"id": "rtx-4090", "count": 1}])  # type: ignore[list-item]
QUAD = Machine(name="quad", devices=[{"id": "rtx-4090", "count": 4}])  # type: ignore[list-item]
NODE = Machine(name="node", devices=[{"id": "h100", "count": 8}])  # type: ignore[list-item]


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
        # Never matched as a name; a kernel paper on the CDNA3 family may still be offered the
        # family's representative device, listed with the source "architecture".
        assert s.device_sources.get(not_device) in (None, "architecture")


# --- a scale where the text states one in words ---------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "scale", "total"),
    [
        ("We measure everything on an eight-GPU testbed.", "single-node", 8),
        ("Latency is reported on a six-GPU server.", "single-node", 6),
        ("Post-training runs on 512 v5p TPUs.", "multi-node", 512),
        ("Jobs are spread over multiple machines.", "multi-node", None),
        # Third blind split: a word between "multiple" and the machines, VMs and instances.
        ("Gradients are computed on multiple worker nodes.", "multi-node", None),
        ("We train with multiple cheap VMs rented by the hour.", "multi-node", None),
        ("Each stage runs on multiple spot instances.", "multi-node", None),
        ("Requests are routed across a server fleet of mixed GPUs.", "multi-node", None),
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


# --- second test split classes (docs/hardware.md): hand-written examples -------------------

# A kernel paper that times its kernels ran them on one device, even when it names none.
KERNEL_TIMED = (
    "Reductions over ragged rows leave most warps idle. We present RagRed, a CUDA kernel that "
    "assigns rows to warps by length and keeps partial sums in shared memory. RagRed is 2.3x "
    "faster than the vendor library on ragged inputs."
)


def test_a_kernel_paper_that_reports_timings_runs_on_one_unnamed_device(catalog):
    s = suggest(catalog, KERNEL_TIMED, "RagRed: Ragged Reductions in One Kernel")
    assert s.scale == "single-device"
    assert s.confidence == "low"
    assert s.devices == [] and s.device_total == 1
    assert "kernel papers measure" in s.target


def test_a_kernel_paper_that_only_generates_code_has_no_setup(catalog):
    s = suggest(
        catalog,
        "We ask a code assistant to write CUDA and HIP kernels for ten stencils and grade the "
        "suggestions by hand for correctness and idiomatic style.",
        "Grading Assistant-Written Stencil Kernels",
    )
    assert s.scale == "unknown"


def test_a_kernel_that_overlaps_communication_is_not_one_device(catalog):
    s = suggest(
        catalog,
        "We fuse the all-reduce of tensor-parallel layers into the GEMM kernel so that "
        "communication hides behind compute, giving a 1.3x speedup.",
        "Folding Collectives into GEMM Kernels",
    )
    assert s.scale != "single-device"


# The count must agree with the evidence quoted: "a V100 cluster" is not one V100.
@pytest.mark.parametrize(
    "abstract",
    [
        "We ran every experiment on a V100 cluster shared with other groups.",
        "Evaluation on an H100 cluster shows near-linear scaling.",
    ],
)
def test_a_cluster_of_a_device_is_multi_node_not_one_device(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node"
    assert s.device_total != 1


def test_tensor_parallel_inference_on_named_devices_is_not_one_device(catalog):
    s = suggest(
        catalog,
        "Serving systems split a model with a fixed tensor-parallel degree. We choose the "
        "degree per layer at run time and report lower latency on L40S and A100 platforms.",
    )
    assert s.scale == "single-node"
    assert s.device_counts.get("l40s") != 1
    assert "1x" not in s.target


# Edge and on-device wording that names one machine of one's own.
@pytest.mark.parametrize(
    "abstract",
    [
        "We make 30B models usable on local PCs by streaming layers from disk.",
        "Our runtime keeps hot experts in VRAM; cold experts are offloaded to host memory and "
        "CPU-GPU transfers are overlapped with decoding.",
    ],
)
def test_local_machines_and_host_offloading_mean_one_gpu(catalog, abstract):
    assert suggest(catalog, abstract).scale == "single-device"


def test_work_split_across_gpus_needs_several(catalog):
    s = suggest(
        catalog,
        "Prior systems replicate hot experts. Unlike existing designs, ShardX evenly partitions "
        "each expert across GPUs. We introduce ShardX and show lower time to first token.",
    )
    assert s.scale == "single-node"


def test_the_papers_own_system_named_in_a_background_looking_sentence_counts(catalog):
    # "existing" would make the sentence motivation; it speaks of the paper's own system.
    s = suggest(
        catalog,
        "Offloading is slow. We present PagePump, a prefetcher for offloaded weights. Unlike "
        "existing prefetchers, PagePump runs on a single RTX 4090 and hides PCIe latency.",
    )
    assert s.scale == "single-device"
    assert s.device_counts == {"rtx-4090": 1}


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "RackSim: A Discrete Event Simulator for Accelerator Rack Failures",
            "We model failures and repairs of racks of 8-GPU servers over a year of operation.",
        ),
        (
            "Over-the-Air Aggregation for Split Inference",
            "We jointly optimise transmit power and model placement across 16 devices. "
            "Extensive simulation results show lower latency than digital all-reduce.",
        ),
        (
            "A Sparse Dot-Product Engine",
            "We design a specialized multiplier unit for 2:4 sparse operands and integrate it "
            "into the SM datapath with 3% area overhead, outperforming an A100 by 1.4x.",
        ),
    ],
)
def test_simulation_studies_and_hardware_designs_are_not_targets(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.target.startswith("not a reproduction target")
    assert s.scale == "unknown" and s.device_total is None


def test_models_given_as_examples_do_not_size_the_target(catalog):
    s = suggest(
        catalog,
        "Reasoning models such as DeepSeek-R1 and Grok-1 rely on long rollouts. We schedule "
        "rollouts of a 7B policy to cut idle time in RL training.",
    )
    assert s.device_total is None or s.device_total <= 8
    assert s.scale != "multi-node"


def _every_labelled_text() -> list[tuple[str, str]]:
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "bench"))
    from evaluation import hardware_eval

    texts = dict(hardware_eval.read_digest_papers((root / "fixtures" / "digests").glob("*.txt")))
    for name in ("hardware_test.yaml", "hardware_test2.yaml"):
        texts.update(hardware_eval.read_split_papers(root / "fixtures" / "eval" / name))
    return sorted(texts.items())


_MANY = ("cluster", "nodes", "supercomputer", "servers", "datacenter", "data center")
_COUNT_WORDS = {
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
    "sixteen", "dozens", "hundreds", "thousands", "several", "multiple",
}  # fmt: skip


def test_a_one_device_target_never_quotes_a_cluster(catalog):
    """The general check behind "1x A100 next to '8,800 A100'": across every labelled paper,
    a target of one device is never explained by a quote that speaks of many machines, and a
    count said to be "as written" is written in its quote."""
    for title, abstract in _every_labelled_text():
        s = suggest(catalog, abstract, title)
        quotes = [str(e["quote"]).lower() for e in s.evidence]
        if s.device_total == 1:
            assert not [q for q in quotes if any(word in q for word in _MANY)], title
        if "as written:" in s.target and s.device_total and s.device_total > 1:
            quote = s.target.split("as written:", 1)[1]
            words = re.findall(r"[a-z]+", quote.lower())
            assert any(ch.isdigit() for ch in quote) or set(words) & _COUNT_WORDS, title
