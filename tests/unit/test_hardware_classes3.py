"""The error classes of the third blind split (docs/hardware.md, "Third blind split"), each as
hand-written examples with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# --- kernel papers: generating or verifying code is not timing it on a device -------------


@pytest.mark.parametrize(
    "abstract",
    [
        # Code written for an architecture, scored by correctness only.
        "We fine-tune a code model to write kernels for Hopper GPUs. Of the generated kernels, "
        "88% compile and 71% reach functional correctness on our suite.",
        # Verification; "runtime testing" is what the paper replaces, not a timing.
        "Runtime testing misses data races in LLM-written CUDA kernels. Our checker proves "
        "memory safety for 80% of the CUDA kernels in a public suite.",
        # Translation scored by pass@k.
        "An agent translates CUDA kernels into SYCL code; 64% of kernels pass@5 unit tests.",
    ],
)
def test_a_kernel_paper_that_only_generates_or_verifies_code_has_no_setup(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "unknown", s.target
    assert s.device_total is None


@pytest.mark.parametrize(
    "abstract",
    [
        # Generated kernels that are timed: one device, as kernel papers measure.
        "We fine-tune a code model to write kernels for Hopper GPUs. The generated kernels run "
        "1.8x faster than cuBLAS.",
        # Own kernels, named once: "fused kernels" is the contribution.
        "We design fused kernels for block-sparse attention that deliver a 3.1x speedup over "
        "dense attention.",
        # A sparse matrix-vector product tuned for GPUs is kernel work.
        "Our GPU-optimized SpMV format achieves up to 2.5x speedup over vendor sparse libraries "
        "on pruned transformer weights.",
        # Generated kernels whose execution performance is compared: timed.
        "Our agent generates NPU kernels; 40% of the generated kernels match the execution "
        "performance of the vendor library.",
    ],
)
def test_a_kernel_paper_that_times_its_kernels_runs_on_one_device(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target
    assert s.device_total == 1


def test_fused_words_without_kernels_are_no_kernel_paper(catalog):
    s = suggest(catalog, "Our fused attention architecture outperforms baselines in accuracy.")
    assert s.scale == "unknown", s.target


# --- simulation-only studies and "supercomputers" as a destination -----------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We propose a placement policy for GPU clusters and evaluate it in trace-driven "
        "simulation over month-long job traces; it cuts job completion time by 40%.",
        "To study schedulers cheaply we build a cluster simulation platform, and with it show "
        "that our policy lowers queueing delay for training jobs on GPU clusters.",
    ],
)
def test_a_simulated_cluster_is_not_a_setup(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "unknown", s.target
    assert s.target.startswith("not a reproduction target: a simulation study")


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # The paper also runs on machines: the simulation is not the whole story.
        (
            "We evaluate the policy in trace-driven simulation and on a physical GPU cluster, "
            "where it cuts job completion time by 30%.",
            "multi-node",
        ),
        # A stated count next to a device beats any simulation wording.
        (
            "We evaluate the policy on 64 A100 GPUs and in trace-driven simulation.",
            "multi-node",
        ),
    ],
)
def test_simulation_next_to_real_machines_keeps_the_machines(catalog, abstract, scale):
    s = suggest(catalog, abstract)
    assert s.scale == scale, s.target
    assert "simulation study" not in s.target


def test_supercomputers_as_a_portability_target_are_not_a_setup(catalog):
    s = suggest(
        catalog,
        "Our agents port legacy Fortran solvers to C++ so that they run efficiently on diverse "
        "supercomputers.",
    )
    assert s.scale == "unknown", s.target


def test_a_supercomputer_the_paper_runs_on_is_still_multi_node(catalog):
    s = suggest(catalog, "All experiments run on a supercomputer at our national lab.")
    assert s.scale == "multi-node", s.target


# --- a small model does not shrink a stated distributed setting ----------------------------


def test_a_small_model_in_pipeline_stages_across_instances_stays_multi_node(catalog):
    s = suggest(
        catalog,
        "Training on volunteer hardware, e.g. multiple cloud instances, is cheap but "
        "unreliable. We split a 1.3B model into pipeline stages on such machines and rebuild a "
        "failed stage from its neighbours.",
    )
    assert s.scale == "multi-node", s.target
    assert s.device_total is None


def test_a_small_model_without_a_distributed_setting_is_one_device(catalog):
    s = suggest(catalog, "We fine-tune a 1.3B model with our optimizer and halve its memory.")
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    "abstract",
    [
        "Expert weights exceed the memory capacity of a single GPU, so our runtime places "
        "experts on remote workers.",
        "Such models no longer fit in a single GPU; our planner decides where each layer goes.",
    ],
)
def test_more_than_one_device_is_not_a_one_device_cue(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale != "single-device", s.target


def test_a_single_gpu_setup_is_still_one_device(catalog):
    s = suggest(catalog, "We serve the model on a single GPU with a paged KV cache.")
    assert s.scale == "single-device", s.target


# --- catalog variants match only their own device ----------------------------------------


@pytest.mark.parametrize(
    ("abstract", "device", "not_device"),
    [
        ("We measure on an NVIDIA A10 and a T4.", "t4", "a10g"),
        ("We rent A10G instances on AWS.", "a10g", None),
        ("Latency is reported on a Jetson Orin Nano board.", None, "jetson-agx-orin"),
        ("We also run on an Orin NX module (Jetson Orin NX).", None, "jetson-agx-orin"),
        ("Latency is reported on a Jetson AGX Orin board.", "jetson-agx-orin", None),
        ("The demo runs on a Jetson Orin.", "jetson-agx-orin", None),
    ],
)
def test_catalog_variants_match_only_their_own_device(catalog, abstract, device, not_device):
    s = suggest(catalog, abstract)
    if device is not None:
        assert device in s.devices
    if not_device is not None:
        assert not_device not in s.devices


def test_an_unmatched_jetson_variant_is_still_an_edge_setup(catalog):
    s = suggest(catalog, "Our kernels run on a Jetson Orin Nano at 20 tokens per second.")
    assert s.scale == "edge", s.target


# --- edge clusters and consumer systems ---------------------------------------------------


def test_multiple_devices_of_a_raspberry_pi_cluster_are_edge(catalog):
    s = suggest(
        catalog,
        "Our runtime spreads one LLM over multiple devices of a home network; on a Raspberry "
        "Pi cluster it answers 2x faster than the best baseline.",
    )
    assert s.scale == "edge", s.target


def test_multiple_devices_in_a_server_are_not_edge(catalog):
    s = suggest(catalog, "Our runtime spreads one LLM over multiple devices in one server.")
    assert s.scale != "edge", s.target


def test_consumer_grade_systems_are_one_device(catalog):
    s = suggest(
        catalog,
        "We cache hot experts on the GPU so that MoE inference runs on consumer-grade systems.",
    )
    assert s.scale == "single-device", s.target
