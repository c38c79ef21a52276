"""Classes of the forty-second and forty-third blind splits' misses (docs/topics.md, "Thirty-third
topic round"), fixed as the general rule each is an instance of. Every example is hand-written in
the field's own wording, none copied from a labelled split; each class has look-alikes that must
keep their reading. The rules are read alone (`scoring.learned` off)."""

from __future__ import annotations

from tests.support.judgement import topics

# --- kernels: a custom kernel; how a GPU implementation lays out and maps its work --------------


def test_a_custom_kernel_is_kernels(rules):
    found = topics(
        rules,
        "Top-k Without the Logits",
        "We write a custom kernel that fuses the softmax and the top-k selection over long "
        "vocabularies, halving the loss layer's memory.",
    )
    assert "kernels" in found


def test_no_custom_kernels_is_not_kernels(rules):
    found = topics(
        rules,
        "Drop-in Decoding",
        "Our batching method needs no custom kernels and runs in stock PyTorch for LLM serving.",
    )
    assert "kernels" not in found


def test_work_mapped_onto_gpus_with_wide_loads_is_kernels(rules):
    found = topics(
        rules,
        "Recurrent Layers That Stay On-Chip",
        "We map the work onto GPUs one row per thread block, with wide memory loads and a "
        "bank-aware layout of the weights, 4x faster than the dense baseline.",
    )
    assert "kernels" in found


def test_computation_mapped_to_gpus_by_a_framework_is_not_kernels(rules):
    found = topics(
        rules,
        "Graph Learning Made Easy",
        "Our library maps the computation to GPUs through PyTorch, so researchers write message "
        "passing in a few lines.",
    )
    assert "kernels" not in found


# --- training parallelism: recomputation traded against caching; distributed RL -----------------


def test_caching_traded_against_recomputation_in_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Lean Backpropagation for Long Sequences",
        "When training recurrent neural networks on long sequences, we balance the caching of "
        "intermediate results and recomputation, since devices have limited memory.",
    )
    assert "training-parallelism" in found


def test_caching_and_recomputation_at_inference_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Prefix Reuse",
        "Our inference engine balances the caching of intermediate states and recomputation of "
        "the KV cache for long prompts.",
    )
    assert "training-parallelism" not in found


def test_a_distributed_architecture_for_deep_rl_is_training_parallelism(rules):
    found = topics(
        rules,
        "Many Actors, One Learner",
        "We present a distributed architecture for deep reinforcement learning in which many "
        "actors feed one learner, cutting wall-clock time on Atari.",
    )
    assert "training-parallelism" in found


def test_a_scalable_rl_agent_is_training_parallelism(rules):
    found = topics(
        rules,
        "Frames per Second",
        "A scalable reinforcement learning agent with centralized inference on accelerators "
        "trains on millions of frames per second.",
    )
    assert "training-parallelism" in found


def test_rl_agents_applied_to_a_task_are_not_training_parallelism(rules):
    found = topics(
        rules,
        "Placing Chips",
        "Reinforcement learning agents place the macros of a chip and generalize to new "
        "netlists after a short fine-tuning.",
    )
    assert "training-parallelism" not in found
