"""Recurring hardware misses of the blind splits (docs/labelling.md, "Recurring blind misses";
docs/hardware.md, "Ninth round (generalisation)"), fixed as the general rule each class is an
instance of. Every example is hand-written in the field's own wording, none copied from a
labelled split; each class has look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.suggest import suggest_hardware
from tests.support.judgement import suggest

_OPENING = "Accelerators for large models are expensive to design. "

# --- results from modelled hardware, said in other words ----------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Near-Memory Reduction Units for Training Collectives",
            _OPENING + "We add reduction units next to HBM stacks. A cycle-accurate "
            "simulation of Llama-70B training shows 1.7x faster all-reduce.",
        ),
        (
            "What Wafer-Scale Buys for Decoding",
            _OPENING + "Using an analytical performance model calibrated against datasheets, "
            "we project 4x lower decode latency for a 405B model.",
        ),
        (
            "Photonic Links for Expert Parallelism",
            _OPENING + "We estimate with an event-driven simulator that optical links cut "
            "all-to-all time of DeepSeek-V3 by 45%; simulated speedups hold across batch sizes.",
        ),
    ],
)
def test_modelled_hardware_in_other_words_is_not_a_target(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.target.startswith("not a reproduction target"), s.target
    assert s.scale == "unknown"


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # measured on machines the paper writes down, then extended by a model: still a target
        (
            "We measure Llama-70B decoding on 8 H100 GPUs and extend the trend with an "
            "analytical performance model.",
            "single-node",
        ),
        # a cost model inside a tuner (the tuner still runs on a real GPU) is not modelled
        # hardware: no "simulation" and no projected results
        (
            "Our autotuner uses a learned cost model to rank tile sizes and is 1.3x faster "
            "than the vendor library on a single GPU.",
            "single-device",
        ),
    ],
)
def test_a_model_beside_a_real_setup_stays_a_target(catalog, abstract, scale):
    s = suggest(catalog, abstract)
    assert not s.target.startswith("not a reproduction target"), s.target
    assert s.scale == scale, s.target


# --- edge without a device ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We compress a speech model so it runs on IoT devices with 512 KB of SRAM.",
        "Our keyword spotter runs on wearable devices for a full day on one charge.",
        "We schedule a 3B model's layers on AI PCs whose NPUs share memory with the CPU.",
    ],
)
def test_edge_devices_in_other_words(catalog, abstract):
    assert suggest(catalog, abstract).scale == "edge"


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # a data-centre paper that mentions IoT as a field of application
        ("We train a 7B model on 64 H100 GPUs for IoT analytics.", "multi-node"),
        # "wearable" as data, not hardware
        ("We collect a wearable sensor dataset and release it.", "unknown"),
    ],
)
def test_edge_look_alikes_keep_their_reading(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- no device named, one device implied: kernel papers said in other words -----------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "SwizzleGEMM: Tall-Skinny Products at Full Bandwidth",
            "We reorder thread blocks for tall-skinny matrix products and outperform cuBLAS "
            "by 1.4x on average.",
        ),
        (
            "Selective Scan in Triton",
            "We implement the selective scan of state-space models as Triton operators with "
            "fused recomputation; they are 3x faster than the reference implementation.",
        ),
    ],
)
def test_kernel_papers_in_other_words_time_one_device(catalog, title, abstract):
    # as the pipeline calls it: with the topics the classifier gave
    from digest_tui.enrich.topics.classifier import classify
    from digest_tui.enrich.topics.taxonomy import load_taxonomy

    found = classify(load_taxonomy(), title, abstract).topics
    s = suggest_hardware(catalog, title, abstract, topics=found)
    assert s.scale == "single-device", (found, s.target)


def test_a_library_user_is_not_a_kernel_paper(catalog):
    title = "A Retinal Scan Classifier"
    abstract = "Our model is trained with PyTorch and cuDNN and improves accuracy by 3 points."
    from digest_tui.enrich.topics.classifier import classify
    from digest_tui.enrich.topics.taxonomy import load_taxonomy

    found = classify(load_taxonomy(), title, abstract).topics
    assert suggest_hardware(catalog, title, abstract, topics=found).scale == "unknown"


def test_an_analytical_model_beside_measurements_stays_a_target(catalog):
    # profiling of real runs, explained by analytical models: the runs are the setup
    abstract = (
        "We profile tensor- and pipeline-parallel inference across GPU workers and build "
        "analytical models of its inter-GPU traffic; experiments confirm the models."
    )
    s = suggest(catalog, abstract)
    assert not s.target.startswith("not a reproduction target"), s.target
