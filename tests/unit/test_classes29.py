"""Classes of the thirty-second to thirty-fifth blind splits' misses (docs/topics.md,
"Twenty-ninth topic round"; docs/hardware.md, "Twenty-ninth round"), fixed as the general rule
each is an instance of. Every example is hand-written in the field's own wording, none copied
from a labelled split; each class has look-alikes that must keep their reading. The rules are
read alone (`scoring.learned` off)."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- kernels: CPU kernels said by their algorithm and vector unit -------------------------------


def test_convolutional_algorithms_shaped_to_the_vector_unit_are_kernels(rules):
    found = topics(
        rules,
        "Volumes on Servers",
        "We extend the FFT family of convolutional algorithms to 3D kernels and pad every "
        "tile to a multiple of the AVX-512 vector width, tripling throughput on Xeon servers.",
    )
    assert "kernels" in found


def test_a_network_of_convolutional_layers_on_a_phone_is_not_kernels(rules):
    found = topics(
        rules,
        "Small Vision",
        "We design convolutional layers with fewer channels and reach 75% top-1 accuracy on "
        "ImageNet with a 4 MB model.",
    )
    assert "kernels" not in found


def test_a_vector_database_is_not_kernels(rules):
    found = topics(
        rules,
        "Nearest Neighbours at Scale",
        "Our vector database answers queries over a billion embeddings in 3 ms with graph "
        "indexes and product quantization.",
    )
    assert "kernels" not in found


# --- kernels: math routines, assembly, GEMMs by name ----------------------------------------------


def test_faster_matrix_multiplication_routines_in_cuda_are_kernels(rules):
    found = topics(
        rules,
        "Bits and Pieces",
        "Our CUDA library packs binary weights into words, which speeds up the "
        "matrix-multiplication routines of every layer 12x.",
    )
    assert "kernels" in found


def test_routines_of_a_daily_workflow_are_not_kernels(rules):
    found = topics(
        rules,
        "Lab Habits",
        "We survey the daily routines of 40 machine learning engineers and how they debug.",
    )
    assert "kernels" not in found


def test_an_sgemm_written_in_assembly_code_is_kernels(rules):
    found = topics(
        rules,
        "Close to the Metal",
        "Our SGEMM is written in assembly code for the Maxwell generation and reaches 94% of "
        "peak in CUDA programs.",
    )
    assert "kernels" in found


def test_an_assembly_of_experts_is_not_kernels(rules):
    found = topics(
        rules,
        "Committees",
        "An assembly of small language models votes on each answer and beats a single large "
        "model on reasoning benchmarks.",
    )
    assert "kernels" not in found


def test_attention_split_into_gemm_operations_with_less_memory_traffic_is_kernels(rules):
    found = topics(
        rules,
        "Shared Prefix Decoding",
        "We split attention over a shared prompt into two separate GEMM operations. Attention "
        "then reads the shared context with reduced memory IO, cutting decoding latency 3x.",
    )
    assert "kernels" in found


# --- kernels: convolutions implemented; code generated for hardware; kernel code ---------------


def test_implementations_of_grouped_convolutions_in_a_compiler_are_kernels(rules):
    found = topics(
        rules,
        "Groups, Faster",
        "Existing implementations of grouped convolutions in TVM and PyTorch are slow. We add "
        "a new implementation of grouped convolutions to TVM that is 3x faster on edge "
        "devices than existing implementations of grouped convolutions.",
    )
    assert "kernels" in found


def test_a_network_that_uses_depthwise_convolutions_is_not_kernels(rules):
    found = topics(
        rules,
        "Light Backbones",
        "Our backbone stacks depthwise convolutions and squeeze-excitation blocks and tops "
        "the COCO leaderboard for small detectors.",
    )
    assert "kernels" not in found


def test_a_compiler_generating_efficient_code_for_hardware_platforms_is_kernels(rules):
    found = topics(
        rules,
        "Integers Everywhere",
        "Our extension lets the TVM compiler generate efficient code for 4-bit models on "
        "several hardware platforms, 2x faster than float execution.",
    )
    assert "kernels" in found


def test_an_llm_that_generates_code_for_web_apps_is_not_kernels(rules):
    found = topics(
        rules,
        "Apps from Prompts",
        "Our agent can generate efficient code for web applications from a sketch and passes "
        "80% of the user tests.",
    )
    assert "kernels" not in found


def test_convolution_kernel_code_tuned_by_a_cost_model_is_kernels(rules):
    found = topics(
        rules,
        "Learning to Tune",
        "We encode convolution kernel code as graphs and learn a cost model that predicts its "
        "fastest tiling, so the autotuner of a deep learning compiler searches 5x less.",
    )
    assert "kernels" in found


def test_convolution_kernels_of_a_network_are_not_kernels(rules):
    found = topics(
        rules,
        "Bigger Receptive Fields",
        "Large convolution kernels (31x31) widen the receptive field of our segmentation model.",
    )
    assert "kernels" not in found


# --- training parallelism: a system for training said the other way; elasticity ---------------


def test_a_deep_learning_system_designed_for_pre_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Bigger on Less",
        "We present a deep learning system designed for pre-training giant transformers: it "
        "pages parameters between GPU, host memory and SSD and raises training throughput "
        "on hundreds of GPUs by 60%.",
    )
    assert "training-parallelism" in found


def test_a_framework_for_training_a_policy_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Better Rewards",
        "We propose a learning framework for training agents with shaped rewards that solves "
        "20% more tasks with the same data parallelism as the baseline.",
    )
    assert "training-parallelism" not in found


def test_resource_elasticity_during_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Changing Shape",
        "Jobs use data and pipeline parallelism on GPU clusters. With resource elasticity "
        "during training, workers come and go; we repartition state so the job keeps running.",
    )
    assert "training-parallelism" in found


def test_elasticity_of_a_serving_fleet_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Bursty Traffic",
        "Our inference service uses tensor parallelism and resource elasticity during peaks "
        "to hold latency under 100 ms.",
    )
    assert "training-parallelism" not in found


# --- hardware: a count of machines with a plain adjective between --------------------------------


def test_a_count_of_concurrent_nodes_is_multi_node(catalog):
    s = suggest(
        catalog,
        "The 7B model was trained with up to 12 concurrent nodes spread over two continents; "
        "inside a node, workers share one process group.",
    )
    assert s.scale == "multi-node", s.target


def test_identical_servers_multiply_their_gpus(catalog):
    s = suggest(catalog, "We run 4 identical servers, each with 8 A100 GPUs.")
    assert s.scale == "multi-node", s.target
    assert s.device_total == 32, s.target


def test_independent_heads_on_one_gpu_are_not_a_count_of_machines(catalog):
    s = suggest(catalog, "The model keeps 2 independent heads and runs on one GPU.")
    assert s.scale == "single-device", s.target
