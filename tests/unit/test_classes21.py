"""Classes of the twenty-first blind split's misses (docs/topics.md, "Twenty-second topic
round"; docs/hardware.md, "Twenty-second round"), fixed as the general rule each is an
instance of. Every example is hand-written in the field's own wording, none copied from a
labelled split; each class has look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- training-parallelism: communication compressed between workers ---------------------------


def test_compressed_communication_in_training_is_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "Sign-Compressed LAMB",
        "On clusters with slow Ethernet, communication compression cuts training time. We "
        "make LAMB work with 1-bit compression and keep its convergence when pre-training "
        "BERT on 128 GPUs.",
    )
    assert "training-parallelism" in found


def test_compressed_communication_at_inference_is_not_training(taxonomy):
    found = topics(
        taxonomy,
        "Quantized All-Reduce for Tensor-Parallel Decoding",
        "Our serving engine applies communication compression to the all-reduce of "
        "tensor-parallel decoding, cutting time per output token by 20%.",
    )
    assert "training-parallelism" not in found


# --- training-parallelism: beyond one machine's GPU and CPU memory ------------------------------


def test_training_beyond_gpu_and_cpu_memory_is_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "Disk-Backed Embedding Tables",
        "Other systems distribute training across multiple machines. We stream embedding "
        "partitions from SSD so training scales to tables beyond a single machine's GPU and "
        "CPU memory capacity on one server.",
    )
    assert "training-parallelism" in found


def test_a_dataset_beyond_memory_at_inference_is_not_training(taxonomy):
    found = topics(
        taxonomy,
        "Vector Search from Flash",
        "Our index answers queries over corpora beyond the host memory capacity by reading "
        "clusters from flash at inference time.",
    )
    assert "training-parallelism" not in found


# --- training-parallelism: trained on a cluster of accelerators ---------------------------------


def test_a_model_trained_on_a_cluster_of_processors_is_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "A 500B Chinese Language Model",
        "We build a system that trained a 500B-parameter language model on a cluster of "
        "Ascend processors and raise training throughput 4x by separating expert storage.",
    )
    assert "training-parallelism" in found


def test_a_clustering_of_data_is_not_a_cluster_of_machines(taxonomy):
    found = topics(
        taxonomy,
        "Curriculum by Clusters",
        "We train a 1B model on a cluster of similar documents at a time and improve perplexity.",
    )
    assert "training-parallelism" not in found


# --- moe: a dense model extended into a sparse one ----------------------------------------------


def test_a_dense_model_extended_into_routed_experts_is_moe(taxonomy):
    found = topics(
        taxonomy,
        "From Dense to Sparse at a Trillion Parameters",
        "We extend a dense Transformer to a sparse one with randomly routed experts, reusing "
        "the dense weights for every expert.",
    )
    assert "moe" in found


def test_dense_to_sparse_pruning_is_not_moe(taxonomy):
    found = topics(
        taxonomy,
        "Pruning Without Retraining",
        "We turn a dense model into a sparse one by magnitude pruning and recover accuracy "
        "with a short calibration.",
    )
    assert "moe" not in found


# --- kernels: a CUDA implementation with GPU optimization techniques -----------------------------


def test_an_inference_library_of_gpu_optimizations_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "FastSeq: An Inference Library for Seq2Seq Models",
        "Our library applies GPU optimization techniques to each layer and runs 1.3x faster "
        "than FasterTransformer, a CUDA implementation of the same models.",
    )
    assert "kernels" in found


def test_gpu_optimizations_named_once_are_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Cheaper Retrieval Augmentation",
        "We cache retrieved passages and apply standard GPU optimization techniques, cutting "
        "the cost of answering by half.",
    )
    assert "kernels" not in found


# --- hardware: edge AI devices, and a count with each device's memory ---------------------------


def test_edge_ai_devices_are_edge(catalog):
    s = suggest(
        catalog,
        "Our middleware swaps DNN blocks in and out of memory so several models share the "
        "GPU of edge AI devices, cutting their memory by 40%.",
    )
    assert s.scale == "edge", s.target


def test_a_count_with_each_devices_memory_is_a_count(catalog):
    s = suggest(catalog, "We pretrain the model in a day using only 8 low-range 12GB GPUs.")
    assert s.scale == "single-node", s.target
    assert s.device_total == 8, s.target


@pytest.mark.parametrize(
    "abstract",
    ["We train on 80GB A100 GPUs.", "We fine-tune on 24 GB RTX 4090 cards."],
)
def test_a_memory_size_before_a_device_is_no_count(catalog, abstract):
    # the digits of "80GB" are not split into a count of 8 and a size of "0GB"
    s = suggest(catalog, abstract)
    assert s.device_total == 1, s.target


def test_a_count_before_a_sized_device_still_counts(catalog):
    s = suggest(catalog, "We train on two 80GB A100 GPUs.")
    assert s.device_counts == {"a100": 2}, s.target
