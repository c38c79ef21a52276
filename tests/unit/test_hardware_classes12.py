"""Classes of the twelfth blind split's disagreements (docs/hardware.md, "Thirteenth round (after
the twelfth blind split)"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# --- NVLink-C2C and MIG are inside one superchip / one GPU ---------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "NVLink-C2C Offloading for Fine-Tuning",
            "We page optimizer states over NVLink-C2C into the CPU memory of GH200 and GB200 "
            "superchips and fine-tune models 1.7x faster than ZeRO-Offload.",
        ),
        (
            "Serving Many Models on One Superchip",
            "MIG slices have little HBM, so we keep weights in Grace memory and stream them to "
            "the slices over the NVLink C2C link of GH200; cold starts drop by 6x.",
        ),
    ],
)
def test_nvlink_c2c_is_inside_one_superchip(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # NVLink between GPUs still needs several GPUs in one server
        (
            "Tensor-parallel decoding on H100 GPUs over NVLink keeps all-reduce off the "
            "critical path; we overlap it with attention and cut latency by 22%.",
            "single-node",
        ),
        # C2C named beside a GPU count: the count is the setup
        (
            "On 32 GH200 superchips across 8 nodes, NVLink-C2C lets us offload activations "
            "while training a 70B model.",
            "multi-node",
        ),
    ],
)
def test_nvlink_between_gpus_keeps_its_scale(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- an on-device cache or memory is the accelerator's, not a phone's ----------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We compile the decode loop of a 1.3B state-space model with XLA so its recurrent "
        "state lives in an on-device cache with no host round trip; on TPU v6e it reaches "
        "40% of peak bandwidth.",
        "Keeping the sampled batch in on-device memory removes the host copy from every "
        "step; a 7B model trains 12% faster on TPU.",
    ],
)
def test_on_device_memory_of_an_accelerator_is_not_edge(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale != "edge", s.target


@pytest.mark.parametrize(
    "abstract",
    [
        "On-device LLM inference must fit a phone's memory; we quantize to 3 bits.",
        "We run speech recognition on-device and keep audio private.",
    ],
)
def test_on_device_inference_is_still_edge(catalog, abstract):
    assert suggest(catalog, abstract).scale == "edge"


# --- a system measured "on GPU" (no count, no article) ran on one ------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Our recommendation inference framework overlaps embedding lookups with MLP layers "
        "through CUDA streams and runs 3.1x faster than TorchRec on GPU.",
        "We schedule the operators of graph neural network inference on GPU with a cost "
        "model, reaching 2.4x over DGL.",
    ],
)
def test_a_system_measured_on_gpu_ran_on_one(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # GPU as an adjective or a pool is not one device
        (
            "We study job placement on GPU clusters shared by hundreds of users.",
            "multi-node",
        ),
        (
            "The dataset holds 2,000 programs; each is annotated with whether it fits on GPU "
            "memory of various sizes, and we train a classifier to predict it.",
            "unknown",
        ),
    ],
)
def test_gpu_as_a_modifier_is_not_one_device(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- (fourteenth round, after the thirteenth blind split) -----------------------------------------

# A paper's own artifact named like a known system is the artifact, not the machine.


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Frontier: Fast What-If Analysis of Training Jobs",
            "Frontier predicts the step time of a training job from its graph; across 40 jobs "
            "Frontier is within 6% of measured step times.",
        ),
        (
            "Predicting Serving Latency",
            "We introduce Frontier, a predictor of serving latency for disaggregated "
            "deployments. Frontier needs no GPUs to run.",
        ),
    ],
)
def test_an_artifact_named_like_a_supercomputer_is_not_the_machine(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale != "multi-node", s.target
    assert not {"v100", "mi250x"} & set(s.devices), s.devices


def test_the_supercomputer_itself_is_still_the_machine(catalog):
    s = suggest(
        catalog,
        "We scale training of a 70B model to 1,024 GCDs on Frontier and study its I/O.",
        "Training on Frontier: Lessons Learned",
    )
    assert s.scale == "multi-node"
    assert "mi250x" in s.devices


# A count followed by the list of the different devices counted: each one in turn.


@pytest.mark.parametrize(
    "abstract",
    [
        "We benchmark our GEMM kernels on three GPUs: A100, H100 and RTX 4090, and reach "
        "85% of peak on each.",
        "Our attention kernel is evaluated on four NVIDIA GPUs spanning three generations "
        "(V100, A100, L40S and H100) against FlashAttention.",
    ],
)
def test_a_count_of_listed_device_kinds_is_one_at_a_time(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # a count of the same device is a setup
        ("We train on four GPUs (A100 80GB) with tensor parallelism.", "single-node"),
        # counts inside the list are a setup of mixed devices
        ("Our cluster has 16 GPUs: 8 A100 and 8 H100 in two servers.", "multi-node"),
    ],
)
def test_a_count_of_one_device_kind_stays_a_setup(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# "Without real hardware" is not a run on real hardware.


def test_a_simulator_that_needs_no_real_hardware_is_not_a_setup(catalog):
    s = suggest(
        catalog,
        "Our planner combines queueing theory with discrete-event simulation and a GPU "
        "performance model of A100 and H100, all without requiring access to real hardware.",
        "fleet-planner: Capacity Planning for Inference Fleets",
    )
    assert s.scale == "unknown", s.target


def test_a_simulator_also_run_on_real_hardware_keeps_its_setup(catalog):
    s = suggest(
        catalog,
        "We validate our discrete-event simulation against real hardware: on 8 H100 GPUs "
        "its error is below 5%.",
    )
    assert s.scale == "single-node", s.target


# A cost model validated on a real device: the device is the setup.


@pytest.mark.parametrize(
    "abstract",
    [
        "An analytical cost model chooses how to split the model between the CPU and GPU of "
        "a phone SoC; it is validated on a smartphone with a Snapdragon 8 Gen 3 and predicts "
        "a 1.5x speedup.",
        "An analytical latency model picks the partition of each layer; validated on an "
        "edge device with an Arm CPU and a Mali GPU, it reaches 1.6x.",
    ],
)
def test_a_cost_model_validated_on_a_device_is_run_there(catalog, abstract):
    assert suggest(catalog, abstract).scale == "edge"


# A count grouped by commas and glued to its unit: "a 4,000-GPU cluster" is 4,000 GPUs.


@pytest.mark.parametrize(
    ("abstract", "count"),
    [
        ("Deployed on a 4,000-GPU cluster for a year, it located every hang.", 4000),
        ("We ran the job on a 1,024-GPU cluster.", 1024),
    ],
)
def test_a_comma_grouped_count_glued_to_its_unit(catalog, abstract, count):
    s = suggest(catalog, abstract)
    assert s.scale == "multi-node", s.target
    assert f"{count:,}" in s.target


# (sixteenth round) "Geographically distributed" spans machines; a compiler's on-device layouts
# are the accelerator's.


def test_a_geographically_distributed_cluster_is_multi_node(catalog):
    s = suggest(
        catalog,
        "We pre-train a 1B model on a geographically distributed cluster linked by the "
        "public internet, with 95% of the throughput of one site.",
    )
    assert s.scale == "multi-node", s.target


def test_on_device_layouts_of_a_compiler_are_not_edge(catalog):
    s = suggest(
        catalog,
        "Our layout abstraction unifies sharding across device meshes and on-device layouts "
        "down to threads, and generates kernels close to hand-tuned ones.",
    )
    assert s.scale != "edge", s.target
