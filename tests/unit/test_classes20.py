"""Classes of the twentieth blind split's disagreements (docs/topics.md and docs/hardware.md,
"Twenty-first round"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- topics: kernels named by the instruction set they target ----------------------------------


def test_kernels_for_an_instruction_set_are_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Int8 Depthwise Convolutions for Phones",
        "We contribute depthwise convolution kernels for ARM and x86 that a mobile library "
        "now ships, doubling MobileNet throughput.",
    )
    assert "kernels" in found


def test_an_operating_system_kernel_for_arm_is_not(taxonomy):
    found = topics(
        taxonomy,
        "Booting Faster on Boards",
        "We port the Linux kernel for ARM boards and cut boot time by half.",
    )
    assert "kernels" not in found


# --- topics: a code generator whose output runs on GPUs -----------------------------------------


def test_a_code_generator_for_sparse_operations_on_gpus_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Specializing Pruned Networks",
        "We build a code generator that specializes each pruned layer's sparse operations "
        "for inference on GPUs, with speedups of 2.7x over the equivalent dense computation.",
    )
    assert "kernels" in found


def test_a_code_generator_of_python_is_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Reviewing Generated Scripts",
        "We study a code generator that writes Python scripts for data analysis; the models "
        "behind it run on GPUs in the cloud.",
    )
    assert "kernels" not in found


# --- topics: parallelism at inference time is serving -------------------------------------------


def test_parallelism_for_diffusion_inference_is_serving(taxonomy):
    found = topics(
        taxonomy,
        "Tensor Parallelism for Video Diffusion Inference",
        "We split each denoising step's attention over GPUs and overlap the exchange of "
        "activations, cutting the latency of generating a clip by 3x.",
    )
    assert "serving" in found
    assert "training-parallelism" not in found


def test_parallelism_for_training_is_not_serving(taxonomy):
    found = topics(
        taxonomy,
        "Pipeline Parallelism for Diffusion Training",
        "We schedule micro-batches of diffusion-model training across pipeline stages on "
        "64 GPUs and raise training throughput by 1.4x.",
    )
    assert "serving" not in found


# --- topics: one MoE model in a list of evaluated models -----------------------------------------


def test_an_moe_model_among_evaluated_models_is_not_moe(taxonomy):
    found = topics(
        taxonomy,
        "Drafting with Hidden States",
        "Our speculative decoding drafts from the target's hidden states. We evaluate on "
        "Llama-2 7B and 70B, the MoE model Qwen1.5-MoE-A2.7B, and Mistral 7B, with 2.9x "
        "lower latency.",
    )
    assert "moe" not in found
    assert "serving" in found


def test_an_moe_model_that_is_the_subject_stays_moe(taxonomy):
    found = topics(
        taxonomy,
        "Routing Tokens to Fewer Experts",
        "We present an MoE model with 64 experts whose router sends each token to one expert, "
        "matching a dense model at a third of the compute.",
    )
    assert "moe" in found


# --- hardware: a device name glued to the word before it -----------------------------------------


def test_a_device_after_a_lost_space_is_still_named(catalog):
    s = suggest(
        catalog,
        "We ship sparse kernels for ARM. OnSnapdragon 835 our networks run 2x faster than "
        "dense ones.",
    )
    assert "mobile-soc" in s.devices, s.devices
    assert s.scale == "edge", s.target


def test_a_device_inside_a_longer_name_is_not(catalog):
    s = suggest(catalog, "We train on 4 GH200 superchips.")
    assert "h200" not in s.devices, s.devices
