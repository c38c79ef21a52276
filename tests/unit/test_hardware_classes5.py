"""The error classes of the fifth blind split (docs/hardware.md, "Sixth round"), each as
hand-written examples with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# --- setups the extractor did not read ---------------------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "scale", "total"),
    [
        # A count with an architecture instead of a device: GPUs of that generation.
        ("Our engine decodes a 70B model at 300 tok/s on 8 NVIDIA Hopper GPUs.", "single-node", 8),
        ("We train the retriever on 64 Ampere GPUs for two days.", "multi-node", 64),
        ("Our kernels run on four Blackwell GPUs in one box.", "single-node", 4),
    ],
)
def test_a_count_with_an_architecture_is_a_setup(catalog, abstract, scale, total):
    s = suggest(catalog, abstract)
    assert s.scale == scale, s.target
    assert s.device_total == total
    assert not s.device_counts  # the architecture is not a device: none is invented


def test_an_architecture_without_a_unit_keeps_no_count(catalog):
    # "two Hopper features" counts features, not GPUs.
    s = suggest(catalog, "We study two Hopper features that our GEMM library relies on.")
    assert s.device_total != 2


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        # Ranks of a distributed job are its devices.
        ("We sweep expert parallelism from 2 to 64 ranks on A100 GPUs.", 64),
        ("Our pipeline-parallel runtime trains on 16 ranks with NCCL communication.", 16),
    ],
)
def test_ranks_of_a_parallel_job_count_devices(catalog, abstract, total):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node", s.target
    assert s.device_total == total


def test_ranks_of_adapters_are_no_count(catalog):
    # LoRA ranks are matrix ranks, not processes: no parallel job, no count.
    s = suggest(catalog, "We fine-tune a 7B model with LoRA at 16 ranks and compare 4 ranks.")
    assert s.device_total != 16
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    "abstract",
    [
        # GPUs of a cluster, and evaluation over cluster configurations, span machines.
        "Our recommender places its embedding tables over the GPUs in a cluster and we report "
        "results on several cluster configurations.",
        "We evaluate the sharding planner on different cluster sizes with up to 40% gains.",
        # Parameter servers are machines of their own: a parameter-server job spans several.
        "We propose a scheduler that places parameter servers next to workers to cut stragglers.",
        "Our system balances CPU use when allocating PSs and reports 30% lower time-to-accuracy.",
    ],
)
def test_cluster_configurations_and_parameter_servers_are_multi_node(catalog, abstract):
    assert suggest(catalog, abstract).scale == "multi-node"


@pytest.mark.parametrize(
    "abstract",
    [
        # A single-GPU phrase stays one GPU when "cluster" is a k-means cluster.
        "We cluster the tokens into groups and run the whole method on a single GPU.",
        # "PS" as a prefix or a product name is no parameter server.
        "We deploy our detector on a single GPU of a PS5-class console simulator.",
    ],
)
def test_cluster_and_ps_look_alikes_keep_their_reading(catalog, abstract):
    assert suggest(catalog, abstract).scale == "single-device"


@pytest.mark.parametrize(
    "abstract",
    [
        # Kernels timed on devices the text does not name.
        "We present a tile language for AI kernels. We conduct experiments on commonly-used "
        "devices, and our kernels match hand-written CUDA libraries.",
        # Operators optimised by a compiler are timed: one GPU per run.
        "We integrate our layout algebra with Triton and optimize individual Triton operators "
        "as well as full kernels.",
    ],
)
def test_kernels_timed_on_unnamed_devices_are_one_gpu(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target


def test_kernel_code_generation_without_a_result_stays_unknown(catalog):
    # Generating kernels and reporting how many compile is no timed run.
    s = suggest(
        catalog, "We generate CUDA kernels with an LLM and report compilation success rates."
    )
    assert s.scale == "unknown", s.target


@pytest.mark.parametrize(
    "abstract",
    [
        # Kernels measured on a handful of GPUs, with nothing split between them: one at a time.
        "We propose fused convolution kernels. Our experiments on three GPUs show 2x speedups.",
        "Our CUDA kernels for sparse attention are 1.8x faster than cuDNN on 4 GPUs.",
    ],
)
def test_kernel_papers_time_a_few_gpus_one_at_a_time(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target


def test_kernels_that_communicate_keep_several_gpus(catalog):
    # Overlapping communication between GPUs needs them together.
    s = suggest(
        catalog,
        "We fuse all-reduce communication into GEMM kernels and measure 1.3x speedups on 4 GPUs.",
    )
    assert s.scale == "single-node", s.target


# --- a memory estimate never shrinks a stated parallel setup -----------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We compress the activations that tensor parallelism exchanges, keeping 99% of a 27B "
        "model's accuracy during inference.",
        "Our expert-parallel serving system cuts all-to-all time for a 30B MoE model.",
    ],
)
def test_stated_parallelism_is_at_least_one_node(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-node", s.target


def test_estimate_still_raises_a_parallel_setup(catalog):
    # A 405B model in bf16 does not fit one node: the estimate may raise the scale.
    s = suggest(catalog, "We serve a 405B model with tensor parallelism and FP16 weights.")
    assert s.scale == "multi-node", s.target


def test_estimate_without_parallelism_stays_one_device(catalog):
    s = suggest(catalog, "We quantize a 13B model to 4 bits and serve it with low latency.")
    assert s.scale == "single-device", s.target


# --- studies that are not reproduction targets -------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "",
            "We present a performance modeling framework for distributed training that predicts "
            "step time on A100 clusters within 8% of measurements.",
        ),
        (
            "Fast Flow-level Network Simulation for Distributed Training",
            "We speed up simulating a 256 GPUs training job from hours to minutes.",
        ),
        (
            "",
            "This paper proposes an edge speech inference accelerator with a systolic array, "
            "running a 1.3B model at 20 tokens/s/mm2.",
        ),
    ],
)
def test_models_simulators_and_accelerator_designs_are_no_setup(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "unknown", s.target
    assert s.target.startswith("not a reproduction target"), s.target


@pytest.mark.parametrize(
    ("title", "abstract", "scale"),
    [
        # A system with a performance model inside it still runs on its GPUs.
        (
            "",
            "Our scheduler uses a performance model to place jobs and cuts latency by 30% on "
            "8 A100 GPUs.",
            "single-node",
        ),
        # A physics simulation code running on a GPU is a setup.
        (
            "Accelerating Molecular Dynamics Simulation on GPUs",
            "We port the force kernels to CUDA and run on a single A100 with 3x speedups.",
            "single-device",
        ),
        # An accelerator-aware method is not an accelerator design.
        (
            "",
            "We propose an accelerator-aware pruning method and evaluate it on one H100.",
            "single-device",
        ),
    ],
)
def test_study_look_alikes_keep_their_setup(catalog, title, abstract, scale):
    assert suggest(catalog, abstract, title).scale == scale


@pytest.mark.parametrize(
    "abstract",
    [
        # The operating system's kernel and storage microbenchmarks are no compute kernels.
        "We study checkpoint writes through kernel-accelerated I/O with liburing and develop "
        "microbenchmarks of buffered and direct I/O that show 3x higher write throughput.",
        "Our Linux kernel module bypasses the page cache; microbenchmarks show 2x throughput.",
    ],
)
def test_os_kernels_and_io_microbenchmarks_are_not_a_kernel_paper(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "unknown", s.target


def test_gpu_kernel_microbenchmarks_still_make_a_kernel_paper(catalog):
    s = suggest(catalog, "We write CUDA kernels and microbenchmarks showing 2x lower latency.")
    assert s.scale == "single-device", s.target
