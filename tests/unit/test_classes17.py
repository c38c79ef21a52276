"""Classes of the seventeenth blind split's disagreements (docs/topics.md and docs/hardware.md,
"Seventeenth round"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- hardware: a phone named by its maker's line is a phone ---------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We profile eight quantized LLMs on a Samsung Galaxy S24 and report tokens per joule "
        "for each precision.",
        "Decoding runs entirely on a OnePlus 12 and on a Xiaomi 14 with a 4-bit model; "
        "latency stays under 40 ms per token.",
        "Our runtime schedules attention on the NPU of Android phones and keeps the KV cache "
        "in shared memory.",
    ],
)
def test_a_phone_named_by_its_line_is_edge(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "edge", s.target
    assert "mobile-soc" in s.devices


@pytest.mark.parametrize(
    "abstract",
    [
        # a galaxy survey is astronomy, not a phone
        "We train a 7B model on 64 A100 GPUs to classify galaxy morphologies in survey images.",
        # an Android app study names no device to run on
        "We study permission prompts in Android apps with a static analyser on one H100 GPU.",
    ],
)
def test_galaxies_and_android_apps_are_not_phones(catalog, abstract):
    assert "mobile-soc" not in suggest(catalog, abstract).devices


def test_a_measurement_study_on_a_named_phone_has_a_setup(catalog):
    s = suggest(
        catalog,
        "This study measures the energy and latency of on-device LLMs, 1B to 8B parameters, "
        "on a Samsung Galaxy S23 Ultra without root access.",
        "Watts per Token: Energy Trade-offs of On-Device LLMs",
    )
    assert s.scale == "edge", s.target
    assert "not a reproduction target" not in s.target


# --- hardware: supercomputers named for training runs ---------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "device"),
    [
        (
            "We pre-train a 30B model with 3D parallelism on the JUWELS Booster and report MFU "
            "at up to 1,024 GPUs.",
            "a100-40gb",
        ),
        (
            "Our collectives reach 90% of peak bandwidth on Alps when training across 2,000 "
            "Grace Hopper superchips.",
            "gh200",
        ),
        ("Training a 13B model on LUMI shows that RCCL tuning matters at scale.", "mi250x"),
    ],
)
def test_a_named_supercomputer_counts_as_its_device(catalog, abstract, device):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node", s.target
    assert device in s.devices


@pytest.mark.parametrize(
    "abstract",
    [
        # the mountains, and an acronym written in capitals
        "We hike the Swiss Alps dataset of trail photos with a 1B vision model on one RTX 4090.",
        "ALPS, our pruning method, removes 70% of weights of a 7B model on a single A100.",
        # a word that merely contains the letters
        "Illumination-aware rendering on one RTX 4090 GPU runs at 90 frames per second.",
    ],
)
def test_look_alikes_of_system_names_are_not_systems(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target
    assert not {"gh200", "mi250x"} & set(s.devices)


# --- hardware: kernels timed on CPUs of a named instruction set -----------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Our ternary matmul kernels run 3.1x faster than llama.cpp on x86 CPUs and 2.4x "
        "faster on ARM CPUs.",
        "A lookup-table GEMV for 2-bit weights reaches 40 tokens/s on commodity CPUs.",
    ],
)
def test_kernels_timed_on_cpus_are_one_device(catalog, abstract):
    assert suggest(catalog, abstract).scale == "single-device"


def test_cpus_beside_a_gpu_cluster_keep_the_cluster(catalog):
    s = suggest(
        catalog,
        "Data loading on x86 CPUs starves 512 H100 GPUs across 64 nodes; we move decoding to "
        "the GPUs and raise training throughput by 18%.",
    )
    assert s.scale == "multi-node", s.target


# --- topics: a deep-learning training cluster is training -----------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Building a 4,096-GPU Cluster for Deep Learning",
            "For deep learning training we built a cluster of 4,096 GPUs with a two-tier "
            "network; our allreduce library and checkpoint store keep jobs scaling at 90% "
            "efficiency across thousands of GPUs.",
        ),
        (
            "Lessons from Operating an AI Supercomputer",
            "We report three years of DL training on a supercomputer with 10,000 accelerators: "
            "interconnect congestion, failures and the parallelism our jobs settled on.",
        ),
    ],
)
def test_a_deep_learning_training_cluster_is_training_parallelism(taxonomy, title, abstract):
    assert "training-parallelism" in topics(taxonomy, title, abstract)


def test_an_inference_cluster_is_still_not_training(taxonomy):
    found = topics(
        taxonomy,
        "Serving at Scale on 4,096 GPUs",
        "Our inference cluster of 4,096 GPUs routes requests over a two-tier network with "
        "tensor parallelism inside each node; deep learning inference cost drops 30%.",
    )
    assert "training-parallelism" not in found


# --- topics: kernels the paper develops to run a workload -----------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Ternary LLMs at Home",
            "We develop a set of kernels to support lossless inference of ternary language "
            "models on laptops, 4x faster than the baseline runtime.",
        ),
        (
            "Sparse Decoding Without GPUs",
            "This work implements kernels that accelerate sparse attention for long-context "
            "decoding on server processors.",
        ),
    ],
)
def test_kernels_developed_to_run_a_workload_are_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Graph Kernels for Molecules",
            "We design a family of graph kernels that compare molecules by their substructures "
            "and improve property prediction with support vector machines.",
        ),
        (
            "Scalable Gaussian Processes",
            "We develop kernels that capture periodic structure and fit them with inducing "
            "points on large datasets.",
        ),
    ],
)
def test_kernel_methods_that_are_developed_stay_out(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)
