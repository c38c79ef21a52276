"""Classes of the eleventh blind split's disagreements (docs/hardware.md, "Twelfth round (after
the eleventh blind split)"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# --- clusters in a text with no machine or computing word are a clustering's ---------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We bound the error of estimating a mixture whose components form one cluster or "
        "several well separated clusters, and show the rate changes with the gap.",
        "Cells fall into clusters by expression profile; a new cluster appears after "
        "treatment, and we test its stability by resampling.",
    ],
)
def test_clusters_of_points_are_not_machines(catalog, abstract):
    assert suggest(catalog, abstract).scale == "unknown"


@pytest.mark.parametrize(
    "abstract",
    [
        # the same two words with training or machines around them: a cluster of machines
        "Low-communication training lets each cluster synchronise rarely; we train across "
        "clusters connected over the internet.",
        "Jobs wait in the queue of a shared cluster; our scheduler packs them across clusters.",
    ],
)
def test_clusters_beside_computing_words_are_still_machines(catalog, abstract):
    assert suggest(catalog, abstract).scale == "multi-node"


# --- the kernel of a kernel method is not a compute kernel ---------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We learn the neural tangent kernel directly by minimising a kernel alignment "
        "risk; the learned kernels beat the network on small data, in simulations and on "
        "real data.",
        "Kernel ridge regression with a Gaussian kernel scales poorly; our random features "
        "approximate the kernel matrix and outperform Nystrom on six datasets.",
    ],
)
def test_a_kernel_method_is_not_timed_on_one_gpu(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "unknown", s.target
    assert "kernel papers" not in s.target


@pytest.mark.parametrize(
    "abstract",
    [
        # compute kernels for kernel-method arithmetic are compute kernels
        "We write fused CUDA kernels for kernel ridge regression and report 4x speedups over "
        "the cuBLAS baseline.",
        # a kernel paper that also names a Gaussian kernel in passing
        "Our Triton GEMM kernels are 1.3x faster than cuBLAS; they also speed up a Gaussian "
        "kernel smoother as an example.",
    ],
)
def test_compute_kernels_beside_kernel_methods_still_read_one_device(catalog, abstract):
    assert suggest(catalog, abstract).scale == "single-device"


# --- a chip's architecture named by its kind is a hardware design --------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We present Loom, a multi-chiplet, near-memory architecture for decode attention; it "
        "replaces compute dies with HBM stacks and is 9x faster than an NVIDIA A100.",
        "This paper proposes a PIM architecture for KV-cache lookups and evaluates it against "
        "the H100 in cycle counts.",
    ],
)
def test_a_chip_architecture_is_not_a_reproduction_target(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "unknown"
    assert s.target.startswith("not a reproduction target: a hardware design"), s.target


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # a model's architecture, not a chip's
        (
            "We present Lark, a memory-efficient architecture for long-context language "
            "models, trained on a single A100 GPU.",
            "single-device",
        ),
        # a serving system's architecture on rented GPUs
        (
            "We present a disaggregated serving architecture and evaluate it on 4 H100 GPUs.",
            "single-node",
        ),
    ],
)
def test_other_architectures_keep_their_setup(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- clusters named by their device are machines -------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We evaluate the MoE training runtime with DeepSeek-style models on Ascend A3 "
        "clusters and cut dispatch latency by 1.5x.",
        "Experiments on H800 clusters show 20% higher MFU.",
        "Trained using TPU v5p clusters.",
    ],
)
def test_clusters_named_by_their_device_are_multi_node(catalog, abstract):
    assert suggest(catalog, abstract).scale == "multi-node"


@pytest.mark.parametrize(
    "abstract",
    [
        # clustering, with a digit in the words around it
        "We split the embeddings into 2 clusters and report k-means on the clusters found.",
    ],
)
def test_clusters_of_a_clustering_stay_unknown(catalog, abstract):
    assert suggest(catalog, abstract).scale == "unknown"
