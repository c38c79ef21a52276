"""Classes of the eighth blind split's disagreements (docs/hardware.md, "Tenth round (after the
eighth blind split)"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.suggest import HardwareSuggestion, suggest_hardware
from digest_tui.enrich.topics.taxonomy import Taxonomy
from tests.support.judgement import suggest, topics


def suggest_with_topics(
    catalog: HardwareCatalog, taxonomy: Taxonomy, title: str, abstract: str
) -> HardwareSuggestion:
    """The reading the pipeline gives: the topic classifier's topics reach the suggester."""
    return suggest_hardware(catalog, title, abstract, topics=topics(taxonomy, title, abstract))


# --- a number in a device's model name is never a count ------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Huawei Ascend 910 NPUs run our attention kernel 1.5x faster than the vendor library.",
        "We fine-tune the model on RTX 3060 GPUs with 12 GB of memory each.",
        "Our operators reach 70% of peak on Gaudi 2 accelerators.",
        "We profile decoding on Radeon 7900 cards and report latency per token.",
    ],
)
def test_a_model_number_is_not_a_device_count(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale != "multi-node", (s.scale, s.target)
    assert s.device_total in (None, 1), s.target


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        # the count written before the family keeps its reading
        ("We pre-train the model on 512 Ascend 910B NPUs for two weeks.", 512),
        ("We train on 8 RTX 4090 GPUs in one workstation.", 8),
        ("The job runs on 64 NPUs in a training cluster.", 64),
    ],
)
def test_a_count_before_the_family_still_counts(catalog, abstract, total):
    s = suggest(catalog, abstract)
    assert s.device_total == total, s.target


# --- multi-node settings without a count (H2), in more of the field's words ----------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We evaluate BarRT on heterogeneous clusters and show 2x higher throughput than Megatron.",
        "Operator placement for distributed training on real datacenter networks cuts step "
        "time by 30%.",
        "Our router spreads each request across GPU instances and lowers cost by 25%.",
        # a named device in the plural, served at scale: several machines of it
        "We build ServeX for serving video generation at scale. On A100 GPUs, ServeX cuts "
        "latency by 30%.",
    ],
)
def test_multi_node_settings_without_a_count(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node", (s.scale, s.target)


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # a cluster in a clustering method is not a machine room
        ("We group tokens into heterogeneous clusters and prune 40% of them.", "unknown"),
        # one GPU instance is one machine's GPU
        ("Inference on an A100 GPU is 2x faster with our cache.", "single-device"),
    ],
)
def test_cluster_look_alikes_keep_their_reading(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- one device implied: a kernel or compiler paper comparing its performance --------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Polyhedral Scheduling for NPU Operators",
            "We build a deep learning compiler for NPUs that schedules loops with polyhedral "
            "tiling. On single operators and whole networks it shows superior performance to "
            "hand-written schedules.",
        ),
        (
            "Tensor Cores for Sparse Products",
            "Our method reuses tensor cores for sparse-dense products; it improves the "
            "performance of SpMM over cuSPARSE by 1.8x.",
        ),
    ],
)
def test_kernel_paper_comparing_performance_is_one_device(catalog, taxonomy, title, abstract):
    s = suggest_with_topics(catalog, taxonomy, title, abstract)
    assert s.scale == "single-device", (s.scale, s.target)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # no kernels: a better score is no timed run
        ("Sparse Retrieval Revisited", "Our retrieval model shows superior performance to BM25."),
        ("Code LLM Tuning", "We improve the performance of code LLMs on HumanEval by 5 points."),
    ],
)
def test_performance_words_without_kernels_stay_unknown(catalog, taxonomy, title, abstract):
    assert suggest_with_topics(catalog, taxonomy, title, abstract).scale == "unknown"


# --- accelerator and FPGA designs: the compared GPUs are baselines, not a setup ------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We develop an inference accelerator on an FPGA board; it uses 5x less energy per "
        "token than an RTX 4090 GPU.",
        "We introduce ChipX, a heterogeneous accelerator with separate prefill and decode "
        "dies; it is 3x faster than an H100.",
        "Our FPGA design streams weights from HBM and decodes 2x faster than an A100 GPU.",
    ],
)
def test_accelerator_designs_are_not_targets(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.target.startswith("not a reproduction target: a hardware design"), s.target
    assert s.scale == "unknown"


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        ("We build a training framework for accelerator clusters and train on 64 H100 GPUs.",
         "multi-node"),
        ("We develop an accelerator-aware scheduler; on an H100 it is 2x faster.",
         "single-device"),
    ],
)  # fmt: skip
def test_accelerator_look_alikes_keep_their_setup(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- a laptop with a discrete GPU: the GPU is the device ----------------------------------------


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        ("On a laptop equipped with an RTX 3060 GPU of 6GB memory, our offloading runs "
         "Llama-7B 3x faster.", "single-device"),
        ("Tested on a laptop with a dedicated NVIDIA GPU, decoding is 2x faster.", "single-device"),
        # look-alikes: a laptop alone, or with an integrated GPU, stays an edge device
        ("Our model runs on a laptop at 20 tokens per second.", "edge"),
        ("We run the 3B model on a laptop with an integrated GPU.", "edge"),
    ],
)  # fmt: skip
def test_a_laptop_with_a_discrete_gpu_is_one_device(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale
