"""Topic misses of the twelfth blind split (docs/topics.md, "Twelfth topic round (after the
twelfth blind split)"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import topics

# --- kernels as the unit a runtime schedules are not a kernels contribution ----------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "SlackPipe: Tolerating Slow Links in Pipeline-Parallel Training",
            "Pipeline-parallel training of large models stalls when one link is slow, because "
            "GPU kernel scheduling serialises communication before computation. SlackPipe "
            "reorders micro-batches and moves delayed transfers off the critical path, so "
            "compute kernels are scheduled as soon as their inputs arrive; training throughput "
            "improves 1.4x on a 64-GPU cluster.",
        ),
        (
            "Preemptible Inference for Multi-Tenant GPUs",
            "A latency-critical request waits behind long-running batch work because the driver "
            "schedules kernels in arrival order. We add priority queues to the inference "
            "server and cut tail latency by 3x for mixed serving workloads.",
        ),
    ],
)
def test_kernels_a_runtime_schedules_are_not_kernels_evidence(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a paper that writes kernels and also schedules them keeps its kernels reading
        (
            "Persistent Fused Attention Kernels with Tile Scheduling",
            "We write fused attention kernels in Triton whose persistent thread blocks schedule "
            "tiles across SMs, beating FlashAttention-2 by 1.3x on H100.",
        ),
        # kernel scheduling as the kernel's own mapping of work onto the chip
        (
            "Chiplet-Aware Attention",
            "On multi-die GPUs, GPU kernel scheduling strategies that assume uniform memory "
            "access lose cache locality. We map attention heads to dies so each die reuses its "
            "own L2 cache, 1.4x faster on MI300X.",
        ),
        (
            "Faster GEMM Kernels for Small Batches",
            "Our CUDA kernels for skinny matrices use split-K and stream-K decomposition; the "
            "kernel scheduling of work tiles across SMs balances load, 2x over cuBLAS.",
        ),
    ],
)
def test_kernel_papers_that_schedule_keep_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


# --- a latency study of a model on edge hardware is an inference (serving) paper ----------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Where Do Robot Policies Spend Their Time? A Study on Embedded Boards",
            "Robot foundation models must be deployed locally to react in real time. We profile "
            "the latency of three policy models on embedded platforms and find that the "
            "decoder-free vision encoder dominates end-to-end latency; memory bandwidth, not "
            "compute, bounds the rest.",
        ),
        (
            "Speech Recognition Latency on Phones",
            "We measure the latency and energy of four speech recognition models on two "
            "generations of mobile devices and report where each model's time goes.",
        ),
    ],
)
def test_latency_characterisation_on_edge_hardware_is_serving(taxonomy, title, abstract):
    assert "serving" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # accuracy on edge devices in passing: a model paper
        (
            "TinyDet: A Compact Object Detector",
            "We design a compact detector whose accuracy on COCO exceeds larger models and that "
            "suits edge devices.",
        ),
        # a hardware design measured by simulation, not a model's latency on a board
        (
            "A Systolic Array for Sparse Convolutions",
            "We present a systolic array microarchitecture for sparse convolution with 30% less "
            "area in a 7nm process, evaluated in RTL simulation.",
        ),
    ],
)
def test_edge_words_in_passing_are_not_serving(taxonomy, title, abstract):
    assert "serving" not in topics(taxonomy, title, abstract)


# --- (thirteenth topic round, after the thirteenth blind split) ----------------------------------
# A paper's own artifact named Frontier is not the supercomputer.


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Frontier: Predicting the Latency of Disaggregated Serving",
            "Frontier models prefill and decode pools as queues under any parallelism. "
            "Frontier predicts tail latency within 5%, for serving and for post-training "
            "rollouts, on one laptop.",
        ),
        (
            "Frontier: Faithful Simulation of Disaggregated LLM Serving",
            "Serving stacks now mix disaggregation and complex parallelism. We present "
            "Frontier, a discrete-event simulator; Frontier predicts SLO attainment within 3% "
            "and also sizes the fleets of RL post-training.",
        ),
    ],
)
def test_an_artifact_named_frontier_is_not_a_training_system(taxonomy, title, abstract):
    assert "training-parallelism" not in topics(taxonomy, title, abstract)


def test_training_on_the_frontier_supercomputer_still_counts(taxonomy):
    assert "training-parallelism" in topics(
        taxonomy,
        "Training a Trillion-Parameter Model on Frontier",
        "We train a 1T model with 3D parallelism (tensor, pipeline and data parallel) on "
        "Frontier across 3,072 GCDs, reaching 31% of peak.",
    )


# --- (after the fourteenth blind split) ----------------------------------------------------------
# Compute shaders are GPU kernels; a fused operator named with a word between; measured against
# hand-optimized libraries.


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Sparse Attention for Phones",
            "We write Vulkan compute shaders that skip masked blocks and run 3x faster than the "
            "dense path on a mobile GPU.",
        ),
        (
            "Quantized KV Attention on Laptops",
            "Our fused int4_attn kernel reads the packed cache directly; decoding at 32K "
            "context is 6x faster than dequantizing first.",
        ),
        (
            "AutoAttn: Portable Attention Implementations",
            "AutoAttn searches tile sizes per device and matches manually-optimized libraries "
            "on four accelerators with a tenth of the code.",
        ),
    ],
)
def test_shaders_fused_operators_and_hand_tuned_yardsticks_are_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # graphics shading, not compute
        (
            "Neural Materials in Real Time",
            "Our fragment shaders evaluate a tiny MLP per pixel for photorealistic rendering.",
        ),
        # a library a model paper uses, not a yardstick
        (
            "A Data Loader for Speech",
            "Our loader wraps hand-written audio libraries and speeds up training input by 2x.",
        ),
    ],
)
def test_graphics_shaders_and_used_libraries_are_not_kernels(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- (after the fifteenth blind split) -----------------------------------------------------------
# A math primitive on GPUs as the subject; an operator compiler; hand-optimized baselines.


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Faster SpMV on Modern GPUs",
            "We reorder rows so that warps read the sparse matrix with coalesced memory access, "
            "and beat cuSPARSE on 2,000 matrices.",
        ),
        (
            "Blocked Sparse-Dense Matrix Multiplication on GPUs",
            "Our blocking scheme keeps dense tiles in registers and balances irregular rows.",
        ),
        (
            "Weaver: Compiling Multi-Device Operators",
            "Weaver is an operator compiler for sharded attention and GEMM; it reproduces "
            "hand-optimized baselines and finds better schedules for some shapes.",
        ),
    ],
)
def test_gpu_primitives_and_operator_compilers_are_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a model trained on GPUs, the primitive only named
        (
            "Sparse Recommenders at Scale",
            "We train a recommender whose embeddings use sparse matrix multiplication, on a "
            "cluster, and improve click-through accuracy by 2%.",
        ),
        # a language compiler, not an operator compiler
        (
            "A Verified C Compiler for Smart Contracts",
            "We verify the compiler's passes against hand-written baselines of the semantics.",
        ),
    ],
)
def test_primitives_named_in_passing_are_not_kernels(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)
