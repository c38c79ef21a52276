"""Paraphrase robustness (issue 11, docs/labelling.md "Recurring blind misses"): the claims of
kinds of labelled papers, restated in my own words with different vocabulary and the same
meaning, must keep their labels. Each case names the kind of labelled paper it paraphrases (not
its text: nothing here is copied from a split). A rule that only knows a split's phrases fails
these; one that knows the field's wording passes them."""

from __future__ import annotations

import pytest

from digest_tui.enrich.hardware.suggest import suggest_hardware
from digest_tui.enrich.topics.classifier import classify

TP = "training-parallelism"

# (what kind of labelled paper, title, abstract, expected topics, expected scale or None)
CASES: list[tuple[str, str, str, set[str], str | None]] = [
    (
        "a fused attention kernel for one GPU",
        "One-Pass Attention for Hopper",
        "We write attention as a single GPU kernel that keeps softmax statistics on chip and "
        "overlaps loads with tensor-core math, 1.5x faster than the best open implementation.",
        {"kernels"},
        "single-device",
    ),
    (
        "a matrix-multiply kernel judged against the vendor library",
        "Faster Skinny Matrix Products",
        "Our matrix multiplication for very thin operands reorders thread blocks and beats "
        "cuBLAS by 1.3x.",
        {"kernels"},
        "single-device",
    ),
    (
        "compiler-generated operators",
        "Automatic Operator Generation for Attention Variants",
        "A DL compiler lowers new attention variants into GPU operators by searching tile "
        "sizes and loop optimizations; the generated code is 2x faster than eager PyTorch.",
        {"kernels"},
        "single-device",
    ),
    (
        "convolution kernels for an older GPU generation",
        "Winograd on Pascal",
        "We present convolution kernels for Pascal GPUs that reuse input tiles in shared "
        "memory and are 1.6x faster than the library default.",
        {"kernels"},
        "single-device",
    ),
    (
        "low-bit matrix arithmetic by table lookup on CPUs",
        "Lookup-Table GEMM for 2-bit Weights",
        "We replace multiplications of 2-bit quantized weights by table lookups in the inner "
        "loop and get 3x more tokens per second on laptop CPUs.",
        {"kernels"},
        None,
    ),
    (
        "an MoE inference system with expert offloading",
        "Quick Decoding for Sparse Expert Models with Host Memory",
        "Mixture-of-experts models do not fit a desktop GPU. We run inference with experts "
        "offloaded to host memory and prefetch the experts the router is about to pick.",
        {"moe", "serving"},
        "single-device",
    ),
    (
        "a serving scheduler for chat requests",
        "Fair Scheduling of Chat Requests",
        "We schedule user requests of an LLM serving system by predicted output length and "
        "cut p99 latency by 40% under bursty load.",
        {"serving"},
        None,
    ),
    (
        "KV-cache compression for long contexts",
        "Smaller Key-Value Memory for Long Prompts",
        "We quantize the key-value cache to 2 bits during decoding and keep accuracy on "
        "long-context tasks while doubling batch size.",
        {"serving"},
        None,
    ),
    (
        "on-device LLM inference on phones",
        "LLMs in Your Hand",
        "We measure how many tokens per second 1B to 7B language models generate on recent "
        "smartphones and where the time goes.",
        {"serving"},
        "edge",
    ),
    (
        "an efficient model architecture (not serving)",
        "A Slimmer Vision Transformer for Efficient Inference",
        "We drop redundant tokens inside a vision transformer and keep its accuracy with 35% "
        "fewer FLOPs.",
        set(),
        None,
    ),
    (
        "distributed training across many machines, without parallelism words",
        "Training Recommendation Models on Elastic Fleets",
        "We train recommendation models across hundreds of GPUs that join and leave, with low "
        "communication overhead on multi-GPU workers.",
        {TP},
        "multi-node",
    ),
    (
        "single-GPU fine-tuning with host-side updates",
        "Fine-Tuning a 7B Model on an 8 GB Card",
        "We fine-tune 7B language models on one 8 GB GPU by running the optimizer step on the "
        "CPU while the GPU computes gradients of the next micro-batch.",
        {TP},
        "single-device",
    ),
    (
        "pipeline-parallel pre-training",
        "Fewer Bubbles in Pipeline Schedules",
        "We reorder micro-batches of pipeline parallelism for pre-training 70B models and "
        "cut idle time by a third on 256 GPUs.",
        {TP},
        "multi-node",
    ),
    (
        "an RL post-training system with separate rollout and training GPUs",
        "Decoupled Rollouts for RL Fine-Tuning",
        "We build an asynchronous RL system that moves GPUs between rollout and training "
        "stages of reasoning-model post-training.",
        {TP},
        None,
    ),
    (
        "tensor-parallel inference (not training)",
        "Sharded Decoding on Eight GPUs",
        "We study tensor parallelism for LLM inference on a node of 8 A100 GPUs and cut "
        "time to first token by 30%.",
        {"serving"},
        "single-node",
    ),
    (
        "an MoE training system with expert parallelism",
        "Balanced Expert Parallel Pre-Training",
        "We rebalance expert parallelism during pre-training of a mixture-of-experts model "
        "and raise training throughput by 25% on 1,024 GPUs.",
        {"moe", TP},
        "multi-node",
    ),
    (
        "LLM-written parallel programs (other)",
        "Can Language Models Write OpenMP?",
        "We ask LLMs to parallelize serial C loops with OpenMP and MPI and check whether the "
        "generated programs are correct and fast.",
        set(),
        None,
    ),
    (
        "a Gaussian-process kernel method (other)",
        "Scalable Kernel Regression for Sensors",
        "We approximate Gaussian kernels with random features and fit a million sensor "
        "readings in minutes.",
        set(),
        None,
    ),
    (
        "an accelerator evaluated in simulation (not a target)",
        "Near-Memory Softmax Units",
        "We add softmax units next to DRAM banks; an event-driven simulator shows 2x faster "
        "attention for a 70B model.",
        set(),
        "unknown",
    ),
    (
        "a speech model for wearables",
        "Always-On Wake Words",
        "We shrink a keyword spotter so that it runs on wearable devices for a day on one charge.",
        set(),
        "edge",
    ),
]


@pytest.mark.parametrize(
    ("kind", "title", "abstract", "expected", "scale"), CASES, ids=[c[0] for c in CASES]
)
def test_paraphrase_keeps_its_labels(taxonomy, catalog, kind, title, abstract, expected, scale):
    found = classify(taxonomy, title, abstract).topics
    assert set(found) == expected, (kind, found)
    if scale is not None:
        s = suggest_hardware(catalog, title, abstract, topics=found)
        assert s.scale == scale, (kind, s.target)


def test_there_are_about_twenty_paraphrases():
    assert len(CASES) >= 20
