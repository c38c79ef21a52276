"""Classes of the ninth blind split's disagreements (docs/hardware.md, "Eleventh round (after the
ninth blind split)"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# --- a count glued to the whole setup: "a 32-card cluster", "an 8-GPU testbed" --------------------


@pytest.mark.parametrize(
    ("abstract", "total", "scale"),
    [
        (
            "We measure recovery time on a 32-card cluster running pre-training jobs.",
            32,
            "multi-node",
        ),
        ("Experiments on a 16-accelerator testbed show 1.4x higher goodput.", 16, "multi-node"),
        (
            "On an 8-GPU cluster with 640 GB of HBM in total, decoding is 2x faster.",
            8,
            "single-node",
        ),
        ("A 4-NPU testbed runs every experiment.", 4, "single-node"),
    ],
)
def test_a_count_glued_to_a_cluster_counts_its_devices(catalog, abstract, total, scale):
    s = suggest(catalog, abstract)
    assert (s.device_total, s.scale) == (total, scale), s.target


@pytest.mark.parametrize(
    ("abstract", "total", "scale"),
    [
        # per machine, as before: three machines of eight
        ("We run on three 8-GPU servers connected by 100 Gb Ethernet.", None, "multi-node"),
        ("The 128-GPU scale experiments take two days.", 128, "multi-node"),
        # the noun alone still reads a multi-node cluster
        ("We deploy the scheduler on a production GPU cluster.", None, "multi-node"),
    ],
)
def test_counts_per_machine_and_bare_clusters_keep_their_reading(catalog, abstract, total, scale):
    s = suggest(catalog, abstract)
    assert s.scale == scale, s.target
    if total is not None:
        assert s.device_total == total, s.target


# --- a count of nodes before the count per node: "16 8xA100 nodes" -------------------------------


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        ("Pre-training runs on 16 8xA100 nodes connected by InfiniBand.", 128),
        ("We use just under 12 8x H200 GPU nodes for the largest run.", 96),
        ("Scaling experiments use 4 8x H100 nodes.", 32),
    ],
)
def test_nodes_counted_before_the_devices_per_node_multiply_them(catalog, abstract, total):
    s = suggest(catalog, abstract)
    assert s.device_total == total and s.scale == "multi-node", s.target
    assert "nodes" in s.target


@pytest.mark.parametrize(
    "abstract",
    [
        "Each 8xA100 node holds one replica.",
        "We fine-tune on one 8x H100 GPU node.",
    ],
)
def test_one_node_of_eight_stays_one_node(catalog, abstract):
    s = suggest(catalog, abstract)
    assert (s.device_total, s.scale) == (8, "single-node"), s.target


# --- "Frontier" as a metaphor is not the OLCF machine ----------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        ("Moving the Pareto Frontier of Sparse Decoding", "We trade quality for speed better."),
        ("Scaling Laws at the Efficient Frontier", "We study the efficient frontier of data."),
        ("Expanding the Frontier of Long-Context Retrieval", "A new retrieval method."),
        ("", "Frontiers of quantization: we survey nothing and propose a rounding rule."),
    ],
)
def test_a_frontier_that_is_a_metaphor_names_no_machine(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert "mi250x" not in s.device_counts and "Frontier" not in s.target, s.target
    assert s.scale != "multi-node", s.target


@pytest.mark.parametrize(
    "abstract",
    [
        "We train a climate model on Frontier using 9,000 nodes.",
        "Runs on the Frontier supercomputer reach 1.2 EFLOPS.",
    ],
)
def test_the_frontier_machine_is_still_read(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node" and "MI250X" in s.target, s.target


# --- the sizes of many models compared are not a setup ------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We evaluate 38 open-weight models (0.5B-236B parameters) as graders of essays.",
        "Testing 25 models ranging from 1B to 405B parameters, we find data matters more.",
        "Across 12 LLMs from 7B to 70B, accuracy tracks pre-training data, not size.",
    ],
)
def test_sizes_at_the_ends_of_a_range_of_many_models_size_nothing(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.memory_gb is None and s.scale == "unknown", s.target


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # one model of the paper's own, with many others compared beside it
        (
            "We fine-tune a 70B model with LoRA on our data and compare it with 12 smaller models.",
            "single-node",
        ),
        # a range of the paper's own model family is its own setup
        ("We pre-train our models from 1B to 7B parameters on one GPU each.", "single-device"),
    ],
)
def test_a_papers_own_model_still_sizes_its_target(catalog, abstract, scale):
    s = suggest(catalog, abstract)
    assert s.scale == scale, s.target


# --- a hardware-software co-design with a part of its own is a hardware design -----------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "NICFlow: Hardware Support for Fine-Grained Collectives",
            "We propose NICFlow, a hardware-software co-design that adds a small engine to the "
            "network interface to schedule collectives, 1.3x faster than NCCL.",
        ),
        (
            "",
            "We present a HW/SW co-design in which a lightweight unit in the switch sums "
            "gradients, on multi-GPU systems, for 1.5x faster all-reduce.",
        ),
    ],
)
def test_a_co_design_with_new_hardware_is_not_a_reproduction_target(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.target.startswith("not a reproduction target: a hardware design"), s.target


@pytest.mark.parametrize(
    "abstract",
    [
        # co-design of software for hardware on sale, with its setup written down
        "A hardware-software co-design of attention for H100 GPUs: on 8 H100 GPUs it is 2x "
        "faster, with a dedicated unit of work per warp.",
        # a co-design of algorithm and system, no hardware part
        "We co-design the algorithm and the serving system; on one A100 latency drops 30%.",
    ],
)
def test_software_for_hardware_on_sale_keeps_its_setup(catalog, abstract):
    s = suggest(catalog, abstract)
    assert not s.target.startswith("not a reproduction target"), s.target
    assert s.scale in ("single-node", "single-device"), s.target


# --- weights offloaded to host memory make "constrained devices" one GPU ------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Fast Decoding with Host Offloading on Resource-Limited Devices",
            "GPU memory is small, so we offload model weights to CPU memory and overlap the "
            "transfers with compute, doubling throughput.",
        ),
        (
            "Prefetching Experts on Memory-Constrained Devices",
            "Prior systems offload experts to host memory; we predict which to fetch, 1.7x faster.",
        ),
    ],
)
def test_offloading_to_the_host_on_constrained_devices_is_one_gpu(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "LLMs on Resource-Constrained Devices",
            "We run a 1B model on a smartphone, with weights offloaded to flash storage.",
        ),
        (
            "TinyServe: Inference on Resource-Constrained Devices",
            "We compress the model to run on microcontrollers and edge boards.",
        ),
    ],
)
def test_constrained_devices_that_are_edge_devices_stay_edge(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "edge", s.target


# --- a kernel paper whose kernels "achieve high performance" timed one device --------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We introduce EpiFuse, a GPU kernel abstraction for GEMM epilogues; EpiFuse kernels "
        "achieve high performance across Transformer workloads.",
        "Our Triton kernels for sparse attention reach near-peak performance.",
    ],
)
def test_kernels_said_to_perform_well_were_timed_on_one_device(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target


def test_a_kernel_generator_without_a_result_stays_unknown(catalog):
    s = suggest(catalog, "We describe a GPU kernel DSL and its type system.")
    assert s.scale == "unknown", s.target


# --- HPC platforms are many machines -------------------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Piston plans MoE training for target HPC platforms with pipeline parallelism.",
        "We deploy the checkpoint service on two leadership HPC systems.",
    ],
)
def test_hpc_platforms_are_multi_node(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node", s.target


def test_hpc_as_a_field_is_no_setting(catalog):
    s = suggest(catalog, "We port three HPC applications to a new programming model.")
    assert s.scale != "multi-node", s.target
