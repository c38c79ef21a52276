"""Classes of the twenty-sixth and twenty-seventh blind splits' misses (docs/topics.md,
"Twenty-seventh topic round"; docs/hardware.md, "Twenty-seventh round"), fixed as the general
rule each is an instance of. Every example is hand-written in the field's own wording, none
copied from a labelled split; each class has look-alikes that must keep their reading. The rules
are read alone (`scoring.learned` off): these are the rules' classes, and the look-alikes are
short texts the learned reader does not read anyway."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- training parallelism: work spread over GPUs said otherwise; training said otherwise -------


def test_large_scale_moe_training_with_multi_dimensional_parallelism(rules):
    found = topics(
        rules,
        "Trillion-Parameter Experts",
        "Supporting large scale MoE training raises system challenges. Our system combines "
        "multi-dimensional parallelism with expert pruning and reaches trillions of parameters.",
    )
    assert "training-parallelism" in found


def test_multi_dimensional_parallelism_at_inference_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Serving Giant Models",
        "Our engine serves requests with multi-dimensional parallelism and an expert cache, "
        "cutting the latency of each decoding step by 30%.",
    )
    assert "training-parallelism" not in found


def test_parallel_synchronous_sgd_across_gpus_is_training_parallelism(rules):
    found = topics(
        rules,
        "Small Batches, Many Replicas",
        "Frameworks train with parallel synchronous SGD, so the batch grows with the GPUs. We "
        "keep many parallel model replicas per GPU and keep the batch small while scaling to "
        "multiple GPUs of one server, raising training throughput 2x.",
    )
    assert "training-parallelism" in found


def test_scaling_inference_to_multiple_gpus_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Wider Decoding",
        "We scale speculative decoding to multiple GPUs and halve the latency of chat requests.",
    )
    assert "training-parallelism" not in found


@pytest.mark.parametrize(
    ("title", "training_said"),
    [
        ("Fast Expert Dispatch", "These operators accelerate training of sparse layers."),
        ("Expert Dispatch: Heterogeneous-aware Training for Mixture-of-Experts", ""),
        ("Fast Expert Dispatch", "We report our MLPerf v1.1 training benchmark submission."),
    ],
)
def test_training_said_otherwise_gives_the_training_context(rules, title, training_said):
    found = topics(
        rules,
        title,
        "Expert parallelism over distributed devices suffers from communication overhead; we "
        "overlap computation and communication. " + training_said,
    )
    assert "training-parallelism" in found


def test_the_same_systems_words_without_training_stay_out(rules):
    found = topics(
        rules,
        "Fast Expert Dispatch",
        "Expert parallelism over distributed devices suffers from communication overhead; we "
        "overlap computation and communication.",
    )
    assert "training-parallelism" not in found


# --- serving: inference placed where the data is; models run on the device ----------------


def test_a_network_over_cloud_edge_and_end_devices_is_serving(rules):
    found = topics(
        rules,
        "Split Networks for Sensors",
        "We map a network over the cloud, the edge and end devices: shallow layers give fast "
        "localized inference on the sensors, cutting inference latency 5x; only hard inputs go "
        "up to the cloud.",
    )
    assert "serving" in found


def test_data_placed_over_cloud_edge_and_end_devices_is_not_serving(rules):
    found = topics(
        rules,
        "Placing Files Near Users",
        "We place files over the cloud, the edge and end devices to cut retrieval time by half.",
    )
    assert "serving" not in found


def test_on_device_deep_learning_for_mobile_apps_is_serving(rules):
    found = topics(
        rules,
        "Sharing the Phone",
        "Several vision models are served at once on a phone. We enable on-device deep "
        "learning that picks each model's accuracy-resource trade-off at runtime, raising the "
        "frame rate 2x.",
    )
    assert "serving" in found


def test_on_device_deep_learning_training_is_not_serving(rules):
    found = topics(
        rules,
        "Learning on the Phone",
        "We enable on-device deep learning training of small vision models with a sparse "
        "update rule that fits into 256 KB of memory.",
    )
    assert "serving" not in found


# --- kernels: a GEMM said as an implementation; a kernel's memory behaviour --------------------


def test_a_sparse_matrix_multiplication_implementation_is_kernels(rules):
    found = topics(
        rules,
        "Pruned and Fast",
        "We prune convolutions freely: an efficient sparse-with-dense matrix multiplication "
        "implementation gives 3-6x convolution speedups over dense convolution on three CPUs.",
    )
    assert "kernels" in found


def test_a_proved_matrix_multiplication_implementation_is_not_kernels(rules):
    found = topics(
        rules,
        "Verified Algebra",
        "We prove a matrix multiplication implementation correct in a proof assistant.",
    )
    assert "kernels" not in found


def test_data_layouts_and_memory_access_of_cnn_layers_on_gpus_are_kernels(rules):
    found = topics(
        rules,
        "Memory Matters for Convolutions",
        "GPU-based CNN libraries tune arithmetic but not memory. We study how data layouts and "
        "memory access patterns of each layer set its speed, and speed layers up to 20x.",
    )
    assert "kernels" in found


def test_data_layouts_of_a_database_are_not_kernels(rules):
    found = topics(
        rules,
        "Columns or Rows",
        "We compare data layouts and memory access patterns of four storage engines on "
        "analytical queries.",
    )
    assert "kernels" not in found


# --- hardware: edge said otherwise ----------------------------------------------------------


def test_tinyml_systems_read_edge(catalog):
    s = suggest(catalog, "We benchmark keyword spotting on ultra-low-power TinyML systems.")
    assert s.scale == "edge", s.target


def test_tiny_models_are_not_tinyml(catalog):
    s = suggest(catalog, "We distil tiny models for search ranking and cut the cost by 3x.")
    assert s.scale == "unknown", s.target


def test_inference_on_mobile_names_the_phone_class(catalog):
    s = suggest(catalog, "Sustaining CNN inference on mobile is hard; we propose a scheduler.")
    assert "mobile-soc" in s.devices, s.target


def test_mobile_robots_are_no_phones(catalog):
    s = suggest(catalog, "We plan paths on mobile robots in crowded rooms.")
    assert "mobile-soc" not in s.devices, s.target


def test_device_cloud_computation_reads_edge(catalog):
    s = suggest(
        catalog,
        "We propose a scheduler for synergistic device-cloud computation that splits a CNN at "
        "run time and serves more requests under latency bounds.",
    )
    assert s.scale == "edge", s.target


# --- hardware: TPU names with a hyphen; clusters of a named node; clusters by their network ---


def test_a_hyphenated_tpu_pod_names_the_tpu(catalog):
    s = suggest(catalog, "We scale ResNet-50 training to 1024 chips of Google TPU-v3 Pods.")
    assert "tpu-v3" in s.devices, s.target


def test_clusters_of_a_named_node_are_many_nodes(catalog):
    s = suggest(catalog, "We train a 100B model on DGX-A100 clusters with 90% scaling efficiency.")
    assert s.scale == "multi-node", s.target
    assert s.devices == ["a100"]


def test_one_named_node_stays_one_node(catalog):
    s = suggest(catalog, "We fine-tune a 7B model on one DGX A100 in a day.")
    assert s.scale == "single-node", s.target


def test_clusters_named_by_their_network_are_many_nodes(catalog):
    s = suggest(
        catalog,
        "Our scheduler improves training throughput by 40% on clusters with realistic network "
        "bandwidth.",
    )
    assert s.scale == "multi-node", s.target


def test_clusters_with_a_density_are_clustering(catalog):
    s = suggest(catalog, "We find clusters with high density in the embedding space.")
    assert s.scale == "unknown", s.target


# --- hardware: a limit stated as such; what a speed-up is measured over ---------------------


def test_a_model_that_cannot_fit_a_gpu_server_is_motivation(catalog):
    s = suggest(
        catalog,
        "Models keep growing. Limited memory makes it impossible to fit large models into a "
        "single GPU or even a GPU server. Tessellated parallelism cuts the traffic per layer.",
    )
    assert s.scale != "single-node", s.target
    assert s.scale != "single-device", s.target


def test_a_model_fitted_into_one_gpu_is_the_setup(catalog):
    s = suggest(catalog, "We fit a 13B model into a single GPU with 4-bit weights.")
    assert s.scale == "single-device", s.target


def test_speedups_over_gpu_clusters_are_no_cluster_setup(catalog):
    s = suggest(
        catalog,
        "Our wafer-scale engine runs decoding in one wafer. It achieves 10-20x speedups over "
        "A100 GPU clusters running vLLM.",
    )
    assert s.scale != "multi-node", s.target


def test_speedups_on_gpu_clusters_are_the_setup(catalog):
    s = suggest(catalog, "It achieves 2x speedups on A100 GPU clusters running our scheduler.")
    assert s.scale == "multi-node", s.target


def test_a_speedup_over_a_system_run_on_named_gpus_keeps_the_gpus(catalog):
    s = suggest(catalog, "Our engine achieves a 2x speedup over vLLM on 8 A100 GPUs.")
    assert s.device_total == 8, s.target
    assert s.devices == ["a100"]


def test_a_cluster_both_ran_on_is_the_setup(catalog):
    s = suggest(catalog, "It runs 3x faster than vLLM on GPU clusters of our data centre.")
    assert s.scale == "multi-node", s.target
