"""The error classes of the fourth blind split (docs/hardware.md, "Fifth round"), each as
hand-written examples with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# --- multi-node settings written without a count, or with a count the rules missed ---------


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        # A count in thousands written with a K.
        ("Our embedding planner keeps training throughput linear up to 2K GPUs.", 2000),
        ("We scale graph training to 1.5k GPUs with near-linear efficiency.", 1500),
        # Machines counted through their GPUs: "multiple GPU servers" are servers.
        ("We shard the model weights over multiple GPU servers to load them in parallel.", None),
        ("The planner places replicas on 4 GPU machines connected by Ethernet.", None),
    ],
)
def test_counts_of_machines_and_thousands_are_multi_node(catalog, abstract, total):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node", s.target
    if total is not None:
        assert s.device_total == total


@pytest.mark.parametrize(
    "abstract",
    [
        # A quantity glued to the unit with a hyphen is the GPUs in one machine.
        "We benchmark on a four-GPU server with PCIe links.",
        # "4K" is a resolution, not a count, when no unit follows.
        "Our decoder renders 4K video on 2 GPUs in real time.",
    ],
)
def test_look_alikes_of_machine_counts_stay_in_one_node(catalog, abstract):
    assert suggest(catalog, abstract).scale == "single-node"


@pytest.mark.parametrize(
    "abstract",
    [
        "Our system shards each expert's optimizer state across all training nodes.",
        "Gradients are compressed before they travel across the worker machines.",
        "We evaluate the placement at data center scale with production recommendation models.",
        "The scheduler adapts to the network topology of the cluster; we model the cluster "
        "network topology as a tree of switches.",
        "A hierarchical all-to-all follows the data center topology of our fleet.",
    ],
)
def test_work_spread_over_machines_is_multi_node(catalog, abstract):
    assert suggest(catalog, abstract).scale == "multi-node"


def test_a_multi_gpu_activity_is_one_node(catalog):
    s = suggest(catalog, "We propose cooperative multi-GPU image preprocessing for serving.")
    assert s.scale == "single-node", s.target
    # Not an activity: "multi-GPU using" does not describe work on several GPUs by itself.
    assert suggest(catalog, "We compare tools for multi-GPU using a survey.").scale == "unknown"


def test_graph_nodes_are_not_machines(catalog):
    s = suggest(catalog, "Messages propagate across neighbouring vertices of the input graph.")
    assert s.scale == "unknown"


# --- a setup that a simulator stands for is not the paper's machines ---------------------------


def test_a_simulated_cluster_in_brackets_is_not_the_setup(catalog):
    s = suggest(
        catalog,
        "We run our router on a real server (4 H100 GPUs) and in an in-house simulator "
        "(32-64 B200 GPUs); it cuts decode latency by 20%.",
    )
    assert s.device_counts == {"h100": 4}
    assert s.scale == "single-node"
    assert "b200" in s.devices  # still named


def test_simulating_a_cluster_is_not_running_on_it(catalog):
    s = suggest(catalog, "We evaluate our schedule by simulating 2048 H100 GPUs; it saves 9%.")
    assert s.device_total != 2048


def test_a_real_run_of_the_same_size_is_kept(catalog):
    s = suggest(catalog, "We train the model on 2048 H100 GPUs and report 41% MFU.")
    assert s.device_counts == {"h100": 2048}
    assert s.scale == "multi-node"


@pytest.mark.parametrize(
    ("abstract", "kind"),
    [
        (
            "We study job slowdowns in a production training cluster using a year-long trace "
            "and what-if analysis of the slowest workers.",
            "trace study",
        ),
        (
            "We analyse traces collected from our GPU cluster to explain failed training jobs.",
            "trace study",
        ),
        (
            "Our library decomposes collectives; a packet-level simulation toolchain built on it "
            "reproduces collective timings of GPU clusters.",
            "simulation study",
        ),
        (
            "Compared to a baseline processing-near-memory emulation platform, our runtime "
            "halves the decode time of on-device models.",
            "simulation study",
        ),
    ],
)
def test_trace_simulation_and_emulation_studies_are_not_targets(catalog, abstract, kind):
    s = suggest(catalog, abstract)
    assert s.scale == "unknown"
    assert kind in s.target


def test_a_trace_replayed_on_a_real_testbed_with_a_count_keeps_its_setup(catalog):
    s = suggest(catalog, "We replay a week-long trace on 16 A100 GPUs of our testbed.")
    assert s.device_counts == {"a100": 16}


def test_a_cycle_accurate_simulator_is_a_hardware_design(catalog):
    s = suggest(
        catalog,
        "We design a near-bank compute unit for decoding; results from a cycle-accurate "
        "simulator show a 3x speedup over the NVIDIA H100 GPU.",
    )
    assert s.scale == "unknown"
    assert "hardware design" in s.target
    assert "h100" in s.devices


# --- kernel papers: a convolution's filter and tensor-program tuning -------------------------


def test_convolution_filter_kernels_do_not_make_a_kernel_paper(catalog):
    s = suggest(
        catalog,
        "Our transform splits kernels of size 7x7 and stride 2 into small kernels of size 3x3, "
        "giving a 1.9x speedup without loss of accuracy.",
    )
    assert s.scale == "unknown", s.target


def test_a_convolution_paper_with_gpu_kernels_is_still_a_kernel_paper(catalog):
    s = suggest(
        catalog,
        "We write CUDA kernels for convolutions with kernel size 3 and stride 1; they run 1.4x "
        "faster than cuDNN.",
    )
    assert s.scale == "single-device"


def test_tensor_program_tuning_is_timed_on_one_device(catalog):
    s = suggest(
        catalog,
        "Our cost model ranks candidate tensor programs and cuts tuning time by 3x on GPU "
        "workloads compared with the default search.",
        title="Faster Tensor Program Search with Learned Priors",
    )
    assert s.scale == "single-device"


# --- a floor from number formats alone is not a device -------------------------------------


def test_a_numerics_paper_that_only_names_formats_has_no_setup(catalog):
    s = suggest(
        catalog,
        "We study rounding for MXFP4 and NVFP4 block formats in GEMM and tensor cores; our "
        "scaling rule closes the accuracy gap to BF16 on six models.",
    )
    assert s.floor_architecture == "blackwell"
    assert s.scale == "unknown"


def test_a_format_kernel_that_is_timed_still_gets_one_device(catalog):
    s = suggest(catalog, "Our NVFP4 GEMM kernels reach 1.7x speedup over FP8 GEMM kernels.")
    assert s.scale == "single-device"


# --- pre-training compute: parameters x tokens ----------------------------------------------


def test_pre_training_on_trillions_of_tokens_is_multi_node(catalog):
    s = suggest(
        catalog,
        "We pre-train a 7B model in FP8 and match BF16 loss; the model is trained on a corpus "
        "of 4T tokens.",
    )
    assert s.scale == "multi-node", s.target


def test_small_pre_training_runs_stay_small(catalog):
    # 1B x 20B tokens is about 1.2e20 FLOPs: well within a node.
    s = suggest(catalog, "We pre-train a 1B model trained on 20B tokens of code.")
    assert s.scale in ("single-device", "single-node"), s.target


def test_tokens_that_are_not_training_data_do_not_count(catalog):
    s = suggest(
        catalog,
        "We release 3B models and checkpoints sampled during training up to 500B tokens; "
        "participants evaluate them at 2T tokens of training on free cloud GPUs.",
    )
    assert s.scale != "multi-node", s.target


# --- catalog: consumer GTX cards, Grace Blackwell, Apple spelled with a hyphen ---------------


@pytest.mark.parametrize(
    ("text", "device"),
    [
        ("Kernels are timed on a GeForce GTX 1080 Ti.", "gtx-1080-ti"),
        ("Kernels are timed on a GTX 1080.", "gtx-1080"),
        ("Kernels are timed on a GTX 980 GPU.", "gtx-980"),
        ("Kernels are timed on a GTX 980 Ti.", "gtx-980-ti"),
        ("Kernels are timed on a GTX 1650Ti laptop GPU.", "gtx-1650-ti"),
        ("Kernels are timed on a GTX 1650 GPU.", "gtx-1650"),
        ("Kernels are timed on a GTX 1660 Ti.", "gtx-1660-ti"),
        ("Training runs on GB200 racks.", "gb200"),
        ("Training runs on GB300 racks.", "gb300"),
        ("Decoding runs at 40 tokens/s on an M3-Max laptop.", "apple-m-series"),
    ],
)
def test_catalog_names_match_their_own_device(catalog, text, device):
    s = suggest(catalog, text)
    assert s.devices[0] == device
    # neighbours are not read too: GB200 is not a B200, a GTX 1080 is not the Ti
    assert len(s.devices) == 1, s.devices


def test_a_gtx_model_number_is_not_a_count(catalog):
    s = suggest(catalog, "Our kernels are evaluated on a GTX 980 GPU with CUDA 9.")
    assert s.device_total == 1
    assert s.scale == "single-device"


def test_a_latex_times_glued_to_a_device_is_a_count(catalog):
    s = suggest(catalog, r"On identical 4×\timesH100 hardware, throughput rises by 30%.")
    assert s.device_counts == {"h100": 4}
    s = suggest(catalog, r"We run on 8\timesA100 GPUs.")
    assert s.device_counts == {"a100": 8}


def test_across_the_nodes_of_a_graph_is_not_machines(catalog):
    s = suggest(
        catalog, "Our layer passes messages across all nodes and across the nodes of each subgraph."
    )
    assert s.scale == "unknown", s.target


def test_a_trace_replayed_on_a_counted_cluster_is_not_a_trace_study(catalog):
    s = suggest(
        catalog,
        "We evaluate our scheduler with a month-long production trace replayed on 64 GPUs.",
    )
    assert "trace study" not in s.target
    assert s.device_total == 64


def test_a_trace_driving_a_physical_cluster_is_not_a_trace_study(catalog):
    s = suggest(
        catalog,
        "Driven by a two-week trace, our scheduler runs on a physical GPU cluster and cuts "
        "job completion time by 30%.",
    )
    assert "trace study" not in s.target
    assert s.scale == "multi-node"


@pytest.mark.parametrize(
    "abstract",
    [
        "Our runtime hides cross-node communication behind expert computation.",
        "We train with multi-machine data parallelism over commodity Ethernet.",
        "We study geo-distributed training over cheap spot capacity in three regions.",
        "Placement avoids cross-region transfers of model shards.",
    ],
)
def test_words_that_only_exist_across_machines_are_multi_node(catalog, abstract):
    assert suggest(catalog, abstract).scale == "multi-node"


def test_single_board_computers_are_edge(catalog):
    s = suggest(catalog, "We benchmark small LLMs on single-board computers with NPUs.")
    assert s.scale == "edge"
    assert suggest(catalog, "Inference runs on an Orange Pi 5 board.").scale == "edge"
