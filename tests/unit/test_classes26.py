"""Classes of the twenty-fifth blind split's misses (docs/topics.md, "Twenty-sixth topic
round"; docs/hardware.md, "Twenty-sixth round"), fixed as the general rule each is an instance
of. Every example is hand-written in the field's own wording, none copied from a labelled
split; each class has look-alikes that must keep their reading. The rules are read alone
(`scoring.learned` off): these are the rules' classes, and the look-alikes are short texts the
learned reader does not read anyway."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- kernels: a compiler framework for deep learning ------------------------------------------


def test_a_compiler_framework_for_deep_learning_targeting_hardware_is_kernels(rules):
    found = topics(
        rules,
        "Tessel: One IR for Many Chips",
        "We build Tessel, a compiler framework for deep learning whose typed graph IR lowers to "
        "loops. The same compiler can target several hardware platforms, from CPUs to NPUs.",
    )
    assert "kernels" in found


def test_a_compiler_framework_for_circuits_is_not_kernels(rules):
    found = topics(
        rules,
        "Qubit Routing Made Simple",
        "We present a compiler framework for quantum circuits that routes qubits with fewer "
        "swaps on three superconducting devices.",
    )
    assert "kernels" not in found


# --- serving: inference where the model runs, said otherwise -------------------------------------


def test_inference_moved_to_embedded_devices_is_serving(rules):
    found = topics(
        rules,
        "Smaller Buffers for Small Boards",
        "Neural network inference is being moved to mobile and embedded devices, where RAM is "
        "scarce. A memory planner for on-board inference reuses activation buffers, and "
        "inference at the edge needs 30% less RAM.",
    )
    assert "serving" in found


def test_learning_at_the_edge_is_not_serving(rules):
    found = topics(
        rules,
        "Federated Updates at the Edge",
        "Clients at the edge train a shared model; we cut the bytes each round uploads by half.",
    )
    assert "serving" not in found


def test_mobile_execution_of_llms_is_serving(rules):
    found = topics(
        rules,
        "Pocket Bench: Language Models on Phones",
        "We measure the mobile execution of LLMs with three runtimes, tracing energy and memory "
        "along the way: on-device LLM execution is memory-bound, and LLM inference drains the "
        "battery.",
    )
    assert "serving" in found


def test_a_memory_manager_for_training_is_not_serving(rules):
    found = topics(
        rules,
        "Pooling Buffers",
        "A memory manager for training jobs pools buffers between iterations of the optimizer.",
    )
    assert "serving" not in found


# --- training parallelism: the memory a training run needs ---------------------------------------


def test_cutting_the_memory_of_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Checkpoint Every Few Layers",
        "We reduce the memory consumption of deep network training by storing activations only "
        "at a few layers and recomputing the rest, trading computation for memory: a 200-layer "
        "network trains in a third of the memory for 25% more time.",
    )
    assert "training-parallelism" in found


def test_cutting_the_memory_of_inference_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Lean Decoding",
        "We reduce the memory consumption of inference by sharing buffers among layers, trading "
        "computation for memory when a phone runs the model.",
    )
    assert "training-parallelism" not in found


def test_a_gpu_memory_runtime_for_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Swapper: GPU Memory Management for Training Deep Networks",
        "Swapper is a runtime that schedules tensors between host and device so that network "
        "training runs far beyond the GPU DRAM capacity, with 8% overhead.",
    )
    assert "training-parallelism" in found


def test_a_gpu_memory_runtime_for_rendering_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Texture Streaming",
        "A GPU memory manager streams textures for games beyond the GPU DRAM capacity.",
    )
    assert "training-parallelism" not in found


# --- hardware: a comparison's baseline is not motivation, nor the target --------------------------


def test_gains_over_existing_compilers_on_a_cpu_read_that_cpu(catalog):
    s = suggest(
        catalog,
        "We present a graph compiler. Experimental results show large gains over existing "
        "compilers for whole networks on Intel Xeon Scalable Processors.",
    )
    assert s.scale == "single-device", s.target
    assert s.devices == ["xeon"]


def test_existing_systems_described_by_a_clause_stay_motivation(catalog):
    s = suggest(
        catalog,
        "Checkpoints grow with models. It is faster than existing compressors that ran on 64 "
        "A100 GPUs. It shrinks every checkpoint by 4x.",
    )
    assert s.device_total != 64, s.target


def test_a_card_the_subject_is_compared_to_is_not_the_target(catalog):
    s = suggest(
        catalog,
        "This paper evaluates a custom inference chip. We compare the chip to a server CPU and "
        "an Nvidia K80 GPU of the same datacenter; it is 20x faster.",
    )
    assert "k80" in s.devices
    assert "K80" not in s.target, s.target


def test_a_comparison_run_on_a_named_gpu_targets_that_gpu(catalog):
    s = suggest(
        catalog,
        "We compare our attention kernel with the vendor library on an A100 GPU and find it "
        "1.8x faster.",
    )
    assert s.devices == ["a100"], s.target
    assert s.scale == "single-device"


# --- hardware: edge settings said otherwise; phones by their OS -----------------------------------


def test_inference_at_the_edge_reads_edge(catalog):
    s = suggest(
        catalog,
        "A buffer planner for neural network inference at the edge cuts peak RAM by 11%.",
    )
    assert s.scale == "edge", s.target


def test_mobile_and_embedded_devices_are_phones(catalog):
    s = suggest(catalog, "Models now run on mobile and embedded devices; we shrink their RAM.")
    assert s.scale == "edge", s.target
    assert "mobile-soc" in s.devices


def test_the_edge_of_a_design_space_is_no_edge_device(catalog):
    s = suggest(catalog, "Our search stays at the edge of the design space of schedules.")
    assert s.scale == "unknown", s.target


def test_apps_on_android_and_ios_run_on_phones(catalog):
    s = suggest(catalog, "We benchmark four runtimes on Android and iOS handsets we own.")
    assert "mobile-soc" in s.devices, s.target


def test_android_code_alone_names_no_phone(catalog):
    s = suggest(catalog, "We mine 3,000 Android apps for misuses of a cryptography API.")
    assert "mobile-soc" not in s.devices, s.target


# --- hardware: Kepler cards; models named with their size glued on --------------------------------


@pytest.mark.parametrize(
    ("text", "device"),
    [
        ("SwapNet trains a 1,000-layer network on a 12GB K40c.", "k40"),
        ("Every run used one Tesla K80 on a cloud instance.", "k80"),
        ("We time the solver on a Tesla K20X.", "k20"),
    ],
)
def test_kepler_cards_are_named(catalog, text, device):
    s = suggest(catalog, text)
    assert s.devices == [device], s.target
    assert s.scale == "single-device"


def test_a_model_with_its_size_glued_on_is_sized(catalog):
    s = suggest(
        catalog,
        "We quantize weights to INT8 with no accuracy loss, 3x smaller than FP16; we then "
        "apply it to GPT-NeoX20, which our INT8 model serves as accurately as FP16.",
    )
    assert [round(size["params_b"]) for size in s.model_sizes] == [20], s.model_sizes
    assert s.scale == "single-device", s.target


def test_a_bloom_filter_is_no_model(catalog):
    s = suggest(catalog, "A bloom filter in front of the cache cuts lookups by 40%.")
    assert s.model_sizes == []


def test_a_comparison_stops_at_a_semicolon(catalog):
    s = suggest(
        catalog,
        "Our scheme (1) runs 4x faster than FP16 inference; (2) applies to OPT-66B, which we "
        "serve on one node.",
    )
    assert [size["role"] for size in s.model_sizes] == ["own"], s.model_sizes
    assert s.memory_gb is not None, s.target
