"""Topic misses of the eleventh blind split (docs/topics.md, "Eleventh topic round (after the
eleventh blind split)"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import topics

# --- measured against a class of math libraries --------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "TileMM: Portable Strassen-Like Multiplication",
            "We deploy fast matrix multiplication algorithms across devices with code "
            "generation; TileMM outperforms BLAS libraries such as OpenBLAS and cuBLAS by 9%.",
        ),
        (
            "Sparse Attention Blocks for Long Sequences",
            "Our block-sparse products run 1.8x faster than sparse libraries (e.g., cuSPARSE) "
            "on long-context workloads.",
        ),
    ],
)
def test_beating_a_class_of_math_libraries_is_a_kernels_paper(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a library used, not beaten
        (
            "A Tabular Benchmark for Data Science Agents",
            "Agents call data-science libraries such as pandas to answer questions; we "
            "compare with human analysts.",
        ),
        # a software library compared on usability, not a math library
        (
            "Ergonomics of Plotting APIs",
            "We compare plotting libraries on how many lines of code a chart needs.",
        ),
    ],
)
def test_other_libraries_do_not_make_a_kernels_paper(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- rollout efficiency of RL post-training is a training-systems question -----------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "TailTrim: Accelerating LLM Reinforcement Learning by Cutting Long Rollouts",
            "Rollout stragglers leave trainers idle; we cut long-tail rollouts early and "
            "resume them in the next step, 1.6x faster end to end.",
        ),
        (
            "Balanced Rollouts for GRPO",
            "Long-tailed rollouts dominate step time in RL post-training of LLMs. We rebalance "
            "rollouts across engines and overlap rollout generation with the policy update.",
        ),
    ],
)
def test_rl_rollout_efficiency_is_training_parallelism(taxonomy, title, abstract):
    assert "training-parallelism" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # faster RL by a better algorithm: no system
        (
            "Accelerating Reinforcement Learning with Optimistic Exploration",
            "We propose an exploration bonus that halves the number of environment steps a "
            "policy needs on Atari.",
        ),
    ],
)
def test_faster_rl_by_an_algorithm_is_not_training_parallelism(taxonomy, title, abstract):
    assert "training-parallelism" not in topics(taxonomy, title, abstract)


# --- the training-inference pair of RL post-training is not serving ------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Closing the Training-Inference Gap in MoE Policy Optimization",
            "Routers choose different experts in the trainer and in the rollout engine. We log "
            "expert choices from the inference engine and reuse them during training, which "
            "removes the training-inference mismatch and stabilises RL.",
        ),
        (
            "Matching Training and Inference Precision in RL",
            "Low-precision rollouts drift from the BF16 trainer; a training-inference "
            "precision mismatch we correct with importance weights.",
        ),
    ],
)
def test_the_rollout_engine_of_rl_training_is_not_serving(taxonomy, title, abstract):
    assert "serving" not in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # a serving system that also mentions training
        (
            "FastServe-MoE: Expert Scheduling for Low-Latency Inference",
            "We build an inference engine for MoE models that schedules experts across GPUs, "
            "cutting time to first token by 40% over vLLM.",
        ),
    ],
)
def test_an_inference_engine_of_its_own_is_still_serving(taxonomy, title, abstract):
    assert "serving" in topics(taxonomy, title, abstract)
