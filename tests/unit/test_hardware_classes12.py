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
