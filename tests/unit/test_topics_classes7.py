"""Recurring topic misses of the blind splits (docs/labelling.md, "Recurring blind misses";
docs/topics.md, "Ninth round (generalisation)"), fixed as the general rule each class is an
instance of. Every example is hand-written in the field's own wording, none copied from a
labelled split; each class has look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import topics

TP = "training-parallelism"


# --- kernels said without a strong "kernel" phrase ------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # compute kernels named by where they run, not by what they compute
        (
            "Register-Blocked Stencils",
            "We write stencil kernels for AMD and NVIDIA GPUs that keep the halo in "
            "registers, reaching 80% of peak bandwidth.",
        ),
        # the filter sense of "convolution kernels" is lifted when they run on a GPU
        (
            "Depth-First Convolution on Older GPUs",
            "We present convolution kernels for Pascal GPUs that reuse input tiles from shared "
            "memory, reducing global traffic by half.",
        ),
        # judged against the vendor library: that is a kernel paper's yardstick
        (
            "SwizzleGEMM",
            "Our tall-skinny matrix products reorder thread blocks and outperform cuBLAS by "
            "1.4x on average.",
        ),
        # operators written for the device
        (
            "Custom Triton Operators for State-Space Models",
            "We implement the selective scan as hand-written Triton operators with fused "
            "recomputation and report 3x faster training steps.",
        ),
    ],
)
def test_kernels_said_in_other_words(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a learned filter still reads as a filter
        (
            "Wider Receptive Fields",
            "We enlarge convolution kernels of a vision backbone and gain 1.2 points of "
            "accuracy on ImageNet.",
        ),
        # kernel methods on a GPU are not compute kernels ("for" a model, not a device)
        (
            "Scalable Gaussian Processes",
            "Gaussian kernels for large spatial datasets are approximated with inducing "
            "points; we fit 1M points in minutes.",
        ),
        # a library named as a dependency, not beaten
        (
            "A Vision Transformer for Retinal Scans",
            "Our model is trained with PyTorch and cuDNN on public datasets and improves "
            "diagnosis accuracy.",
        ),
    ],
)
def test_kernel_look_alikes_stay_out(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- serving read from "inference" alone: inference systems said in other words -----------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Fast Generation with Offloaded Weights",
            "Large models do not fit in a desktop GPU. We run inference of a 70B model with "
            "layer weights offloaded to host memory and prefetched ahead of use.",
        ),
        (
            "Running Large Language Models on Consumer GPUs",
            "We show how to run 30B-parameter language models on a consumer GPU by paging "
            "weights between host and device as tokens are generated.",
        ),
    ],
)
def test_inference_with_offloading_is_serving(taxonomy, title, abstract):
    assert "serving" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # an architecture that is cheaper at inference time is a model paper
        (
            "A Lighter Vision Transformer for Efficient Inference",
            "We prune redundant heads from a vision transformer and keep its accuracy with 40% "
            "fewer FLOPs.",
        ),
        # offloading for training memory is training work, not serving
        (
            "Fine-Tuning Beyond GPU Memory",
            "We fine-tune a 13B model with optimizer states offloaded to host memory on one GPU.",
        ),
    ],
)
def test_inference_look_alikes_stay_out_of_serving(taxonomy, title, abstract):
    assert "serving" not in topics(taxonomy, title, abstract)


# --- training context missing: distributed training said without parallelism words ---------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Elastic Recommendation Training on Shared Clusters",
            "We train recommendation models across hundreds of GPUs that come and go, "
            "rebalancing multi-GPU work when machines join or leave, with low "
            "communication overhead.",
        ),
        (
            "Fine-Tuning on a Laptop GPU with Host-Side Updates",
            "We fine-tune 7B language models on one 8 GB GPU by running the optimizer step on "
            "the CPU while the GPU computes the next micro-step's gradients.",
        ),
    ],
)
def test_training_systems_in_other_words(taxonomy, title, abstract):
    assert TP in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # the same spread at inference time
        (
            "Serving Recommendation Models at Scale",
            "We serve recommendation models across hundreds of GPUs and cut tail latency by "
            "placing hot tables near the requests.",
        ),
        # a model paper that says where it was trained
        (
            "A Compact Speech Recognizer",
            "We design a small speech model; it was trained on 8 GPUs and runs in real time "
            "on phones.",
        ),
    ],
)
def test_training_look_alikes_stay_out(taxonomy, title, abstract):
    assert TP not in topics(taxonomy, title, abstract)


# --- parallelism for inference is not training parallelism (the general rule) --------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Sharded Decoding for Long Prompts",
            "We study tensor parallelism for LLM inference and fine-tuning-free prompt "
            "caching; sequence parallelism during decoding halves time to first token.",
        ),
        (
            "Parallel Plans for Deploying Large Models",
            "Choosing pipeline parallelism for serving a fine-tuned 70B model is hard; we "
            "search parallelization plans for deployment across GPUs.",
        ),
    ],
)
def test_parallelism_for_inference_is_not_training(taxonomy, title, abstract):
    assert TP not in topics(taxonomy, title, abstract)


def test_parallelism_for_training_still_is(taxonomy):
    title = "Pipeline Parallelism for Pre-Training with Fewer Bubbles"
    abstract = (
        "We schedule micro-batches of pipeline parallelism for pre-training 100B models and "
        "cut bubbles by 30%; the same schedule also helps inference."
    )
    assert TP in topics(taxonomy, title, abstract)
