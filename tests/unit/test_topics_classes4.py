"""Topic error classes of the fourth blind split (docs/topics.md, "Fifth round"), as
hand-written abstracts with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from digest_tui.enrich.topics.classifier import classify
from tests.support.judgement import topics

TP = "training-parallelism"


# --- training-memory systems: sharding embeddings, recomputation, offloading ---------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "TierShard: Placing Recommendation Embeddings Across Memory Tiers",
            "Click-through-rate models keep most of their parameters in embedding tables. We "
            "present a cost model that decides the embedding table sharding across GPUs and "
            "host memory from access frequencies, and raise the training throughput of "
            "production recommendation models by 2.3x.",
        ),
        (
            "Row-Level Replication for Sequence Recommenders",
            "Sequence recommenders move large embeddings between accelerators at every step. "
            "Our planner replicates hot rows and chooses an embedding partitioning per table; "
            "it cuts the all-to-all training communication volume by 70% on a production model.",
        ),
        (
            "Fitting Full Fine-Tuning of a 13B Model on One Workstation GPU",
            "We combine activation recomputation, weight and activation offloading to host "
            "memory, and an ILP that picks which tensors to keep, so that full fine-tuning "
            "runs on a 24 GB GPU with a 30% time overhead.",
        ),
        (
            "Chunk-Wise Expert Execution for Memory-Stable MoE Training",
            "Token routing in mixture-of-experts layers makes memory use unpredictable. We "
            "split expert computation into chunks and apply chunked recomputation, which "
            "lowers peak activation memory by 40% and keeps MoE training stable on "
            "memory-limited GPUs.",
        ),
        (
            "Squeezing Fine-Tuning onto Small GPUs",
            "We enable fine-tuning of billion-parameter models on a single consumer GPU by "
            "re-materialization and offloading, keeping results bit-identical.",
        ),
    ],
)
def test_training_memory_systems_are_training_parallelism(taxonomy, title, abstract):
    assert TP in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # Embedding sharding for serving: no training context.
        (
            "Low-Latency Recommendation Inference with Sharded Embeddings",
            "Online ranking must answer within 10 ms. We choose an embedding table sharding "
            "across inference servers that balances lookups and lowers tail latency by 35%.",
        ),
        # Recomputation of the KV cache at inference time.
        (
            "Recompute or Reload? Prefix Reuse for Chat Serving",
            "When a conversation returns, a serving engine can reload its KV cache from host "
            "memory or recompute it. We pick per request and cut time-to-first-token by 25%.",
        ),
        # Weight offloading for inference on one GPU.
        (
            "Running a 70B Chat Model on a Laptop GPU",
            "We stream weights from SSD and use weight offloading to decode with a 70B model "
            "on a 16 GB GPU at 3 tokens per second.",
        ),
    ],
)
def test_memory_techniques_at_inference_time_are_not_training(taxonomy, title, abstract):
    assert TP not in topics(taxonomy, title, abstract)


# --- training named as the other side of a comparison --------------------------------------


def test_an_inference_energy_study_is_not_training_parallelism(taxonomy):
    title = "Joules per Token: Measuring the Energy of LLM Inference Across GPU Generations"
    abstract = (
        "Inference now draws more power in deployment than the one-off costs of training LLMs, "
        "yet it is measured less. We measure energy per token of several model sizes on two "
        "GPU generations, including multi-node runs where the model is split by sharding "
        "across multi-GPU servers, and relate energy to batch size and output length."
    )
    assert TP not in topics(taxonomy, title, abstract)


def test_a_training_paper_that_compares_with_another_training_system_stays(taxonomy):
    title = "Overlapping Gradients with Compute in Data-Parallel Training"
    abstract = (
        "We overlap gradient all-reduce with the backward pass in data-parallel training of "
        "LLMs on 256 GPUs and reach 1.3x higher throughput than DeepSpeed training."
    )
    assert TP in topics(taxonomy, title, abstract)


# --- low-bit arithmetic by table lookup is kernel work ---------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "LUT-Based Low-Bit Matrix Multiplication for Phone CPUs",
            "Ternary and 2-bit weights need mixed-precision matrix multiplication that CPUs do "
            "not support. We replace multiplications by table lookups and vectorize them with "
            "NEON; decoding is 3x faster than dequantization-based inference.",
        ),
        (
            "Batched Table Lookup for 1-Bit Language Models",
            "Lookup tables shared across tokens keep memory bandwidth busy when prefilling "
            "1-bit models on ARM and x86 CPUs; our layout gives a 2.8x speedup in llama.cpp.",
        ),
    ],
)
def test_lookup_table_low_bit_arithmetic_is_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


def test_a_lookup_table_without_low_bit_arithmetic_is_not_kernels(taxonomy):
    title = "Learned Colour Lookup Tables for Photo Enhancement"
    abstract = (
        "We predict 3D colour lookup tables from a small image encoder. The tables enhance "
        "4K photos in real time and beat previous enhancement models on two benchmarks."
    )
    assert "kernels" not in topics(taxonomy, title, abstract)


def test_a_baseline_named_in_a_comparison_keeps_its_evidence(taxonomy):
    result = classify(
        taxonomy,
        "Memory-Lean Optimizer Sharding",
        "Our optimizer partitioning trains a 13B model 1.4x faster than ZeRO-3 training.",
    )
    assert any(e.phrase.startswith("ZeRO") for e in result.evidence.get(TP, []))
