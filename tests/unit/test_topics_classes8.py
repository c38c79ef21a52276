"""Topic misses of the ninth blind split (docs/topics.md, "Tenth topic round (after the ninth
blind split)"), fixed as the general rule each is an instance of. Every example is hand-written
in the field's own wording, none copied from a labelled split; each class has look-alikes that
must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import topics

# --- the covariance kernel of a Gaussian process is not a compute kernel --------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Scalable Gaussian Processes with Sparse Covariance",
            "Exact Gaussian processes need flexible kernel design; we propose compactly "
            "supported kernels for Gaussian processes and distribute the solve over many nodes. "
            "The kernel design keeps the covariance sparse.",
        ),
        (
            "Kriging at Scale",
            "The kernel of our kriging model adapts to the terrain, and we fit it to 10 million "
            "observations with a distributed solver.",
        ),
    ],
)
def test_a_gaussian_process_kernel_is_not_a_kernels_paper(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # compute kernels written for Gaussian-process arithmetic are compute kernels
        (
            "Fast GP Regression on GPUs",
            "We write fused CUDA kernels for Gaussian process regression, 5x faster than "
            "cuBLAS-based baselines.",
        ),
        (
            "Tiled Covariance on Tensor Cores",
            "Our Triton kernels compute the covariance matrix of a Gaussian process on tensor "
            "cores, 3x faster than the vendor library.",
        ),
    ],
)
def test_gpu_kernels_for_gaussian_processes_are_still_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


# --- inference on a phone, an edge device or a robot is a serving system --------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Sparse MoE for Phones: Efficient Mobile Device Inference",
            "We design a mixture of experts whose experts are cached in DRAM, cutting latency "
            "on mobile devices by 2x.",
        ),
        (
            "Profiling Robot Foundation Models on Edge Accelerators for On-Robot Deployment",
            "We characterize latency and power of vision-language-action models across GPUs and "
            "NPUs, and find memory bandwidth limits.",
        ),
    ],
)
def test_inference_on_the_device_itself_is_serving(taxonomy, title, abstract):
    assert "serving" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a small model whose text names the edge in passing
        (
            "A Compact Vision Model for Edge Devices",
            "We propose a small convolutional network that is accurate enough for embedded "
            "deployment in passing, trained on ImageNet.",
        ),
        # robots that learn, nothing is deployed or inferred
        (
            "Robot Learning from Play",
            "We train a policy from unlabelled play data and evaluate it on a real robot arm.",
        ),
    ],
)
def test_models_that_only_mention_the_edge_stay_out_of_serving(taxonomy, title, abstract):
    assert "serving" not in topics(taxonomy, title, abstract)
