"""Classes of the sixteenth blind split's disagreements (docs/topics.md and docs/hardware.md,
"Eighteenth round"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- topics: an attention implementation is a kernel said without the word -------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # measured against the attention kernels of record
        (
            "FastLane: Attention for Long Video Generation",
            "Long clips make attention the bottleneck of diffusion transformers. By tiling "
            "sparse blocks through shared memory, FastLane outperforms FlashAttention-3 and "
            "xFormers by 1.9x in throughput at equal quality.",
        ),
        (
            "Quartet Attention: Accurate 4-Bit Attention for Inference",
            "We quantize queries and keys per block; our method runs 2.4x faster than "
            "FlashInfer on long prompts with no accuracy loss.",
        ),
        # an implementation built around the hardware
        (
            "Shared-Context Decoding at Scale",
            "We propose a memory-aware exact implementation of attention for batches that "
            "share a long context, replacing many matrix-vector products with one "
            "matrix-matrix product per head.",
        ),
        # kernels named by the units they use
        (
            "Pruned KV Caches that Pay Off",
            "We add decode kernels that exploit sparse tensor cores of recent GPUs, turning "
            "2:4 sparsity of the cache into a 1.6x attention speedup.",
        ),
    ],
)
def test_attention_implementations_are_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a model that uses FlashAttention, not one that beats it
        (
            "A Long-Context Vision Encoder",
            "We train a ViT on 1M-token images with FlashAttention-2 as the attention "
            "implementation and report accuracy gains over SigLIP.",
        ),
        # attention maps at low precision are an interpretability subject
        (
            "What 8-Bit Attention Maps Reveal",
            "We compress attention maps to 8 bits and study which heads keep their "
            "patterns; accuracy compared with the full model is unchanged.",
        ),
        # a kernel method that uses structure, not a device
        (
            "Graph Kernels that Exploit Sparse Structure",
            "We propose graph kernels that exploit sparse adjacency to compare molecules "
            "faster than Weisfeiler-Lehman baselines.",
        ),
    ],
)
def test_uses_and_look_alikes_of_attention_are_not_kernels(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- topics: a large model fitted into small hardware for training ---------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Updating While Backpropagating",
            "We reorder the backward pass so each layer's update is applied as soon as its "
            "gradient exists and its memory freed. With activation checkpointing this enables "
            "full fine-tuning of a 30B model on a single workstation with four 24 GB GPUs.",
        ),
        (
            "Pre-Training on the Desk",
            "Our runtime streams optimizer state between tiers so that pre-training a 13B "
            "language model on two consumer GPUs reaches 40% of the throughput of a server.",
        ),
    ],
)
def test_training_a_large_model_on_small_hardware_is_training_parallelism(
    taxonomy, title, abstract
):
    assert "training-parallelism" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # inference of a large model on one GPU is serving
        (
            "Decoding a 70B Model at Home",
            "We run a 70B model on a single consumer GPU by streaming layers from disk and "
            "report tokens per second.",
        ),
        # a small model trained on one GPU is a model paper's setup
        (
            "A Compact Speech Recognizer",
            "We train a 300M-parameter model on a single GPU for three days and match larger "
            "recognizers on LibriSpeech.",
        ),
    ],
)
def test_inference_or_a_small_models_setup_is_not_training_parallelism(taxonomy, title, abstract):
    assert "training-parallelism" not in topics(taxonomy, title, abstract)


# --- topics: where a served adapter came from is not training the paper does -----------------


def test_adapter_serving_with_tensor_parallelism_is_not_training(taxonomy):
    found = topics(
        taxonomy,
        "AdapterHub Serve: Many Adapters, One Base Model",
        "LoRA, a parameter-efficient fine-tuning method, yields one adapter per customer. We "
        "present a serving system that batches inference requests for hundreds of adapters at "
        "once, with a tensor parallelism strategy that shards adapter weights like the base "
        "model. This opens the way to cheap fine-tuning services.",
    )
    assert "serving" in found
    assert "training-parallelism" not in found


def test_a_system_that_fine_tunes_many_adapters_stays_training(taxonomy):
    found = topics(
        taxonomy,
        "Fine-Tuning Hundreds of Adapters Together",
        "LoRA, a parameter-efficient fine-tuning method, is cheap per task. We batch the "
        "fine-tuning jobs of many adapters on shared GPUs with tensor parallelism over the "
        "base model, raising training throughput 3x.",
    )
    assert "training-parallelism" in found


# --- hardware: offloading said by the direction of the transfer ------------------------------


def test_weights_moved_from_host_to_gpu_are_one_device(catalog):
    s = suggest(
        catalog,
        "Our MoE server keeps cold experts in host memory and achieves fast transfers of "
        "experts from host memory to GPU memory by prefetching them per request.",
    )
    assert s.scale == "single-device", s.target


def test_kv_prefetch_from_the_host_is_no_setup(catalog):
    # a cache tier that a serving system of any size may have
    s = suggest(
        catalog,
        "Our agent runtime prefetches KV tensors from CPU to GPU memory ahead of each step.",
    )
    assert s.scale == "unknown", s.target


def test_host_to_gpu_transfers_beside_a_cluster_keep_the_cluster(catalog):
    s = suggest(
        catalog,
        "Experts are moved from host memory to GPU memory on each of 64 nodes with 8 H100 "
        "GPUs each.",
    )
    assert s.scale == "multi-node", s.target


# --- hardware: "devices with limited memory" are small devices --------------------------------


def test_devices_with_limited_memory_are_edge(catalog):
    s = suggest(
        catalog,
        "Models exceed the RAM of devices with limited DRAM. We page weights from flash and "
        "enable inference on devices with limited memory at interactive speed.",
    )
    assert s.scale == "edge", s.target


def test_gpus_with_limited_memory_stay_gpus(catalog):
    s = suggest(
        catalog,
        "We fine-tune on one RTX 4090, a GPU with limited memory, by recomputing activations.",
    )
    assert s.scale == "single-device", s.target


# --- hardware: a simulation framework in the title is a simulator ------------------------------


def test_a_simulation_framework_is_not_sized_from_what_it_simulates(catalog):
    s = suggest(
        catalog,
        "We model the latency of serving LLaMA-2-70B under many parallel configurations and "
        "find the cheapest one in an hour on a laptop CPU.",
        title="Kestrel: A Simulation Framework for Distributed LLM Serving",
    )
    assert s.scale == "unknown", s.target
    assert s.target.startswith("not a reproduction target"), s.target


def test_a_system_evaluated_against_simulation_keeps_its_setup(catalog):
    s = suggest(
        catalog,
        "We serve LLaMA-2-70B on 8 H100 GPUs and compare measured latency with a simulation.",
        title="Measured Serving at Scale",
    )
    assert s.scale == "single-node", s.target


# --- hardware: a supercomputer named by its own name ------------------------------------------


def test_piz_daint_counts_as_its_p100s(catalog):
    s = suggest(catalog, "We train on 512 nodes of Piz Daint with pipeline parallelism.")
    assert s.scale == "multi-node", s.target
    assert "p100" in s.devices
