"""Topic error classes of the fifth blind split (docs/topics.md, "Sixth round"), as
hand-written abstracts with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import topics

TP = "training-parallelism"


# --- embedding tables placed over devices: model parallelism of recommendation models ----------


def test_embedding_tables_placed_over_devices_are_training_parallelism(taxonomy):
    title = "TablePlanner: Learning Embedding Table Placement for Click-Through-Rate Models"
    abstract = (
        "We study embedding table sharding for recommendation models: we split the tables "
        "over several GPUs so that computation and communication costs are balanced, and our "
        "learned planner beats hand-written heuristics by 20%."
    )
    assert TP in topics(taxonomy, title, abstract)


def test_embedding_tables_placed_for_inference_stay_out(taxonomy):
    title = "TablePlanner: Embedding Table Placement for Recommendation Inference"
    abstract = (
        "We study embedding table sharding for recommendation models: we split the tables "
        "over several GPUs for online inference so that lookup latency stays low."
    )
    assert TP not in topics(taxonomy, title, abstract)


def test_database_tables_over_nodes_are_not_training(taxonomy):
    abstract = (
        "We partition the tables of a relational database over many nodes and cut the cost "
        "of distributed joins by 2x."
    )
    assert TP not in topics(taxonomy, "Join-aware table partitioning", abstract)


# --- GPU convolution algorithms are kernels ----------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "A Faster Convolution Algorithm for Batch-One Inference on Embedded GPUs",
            "We design a GPU convolution algorithm for single-image inference that beats the "
            "im2col approach by 3x.",
        ),
        (
            "Winograd Meets Mobile",
            "We present OpenCL convolution implementations for mobile GPUs and compare them with "
            "direct convolution and im2col, with 2x speedups.",
        ),
    ],
)
def test_gpu_convolution_algorithms_are_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


def test_convolution_theory_is_not_kernels(taxonomy):
    title = "On the Expressivity of Convolution Layers"
    abstract = "We prove bounds on what convolution layers with small filters can represent."
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- "without any training" does not make a training paper -----------------------------------


def test_expert_parallel_serving_without_training_is_not_training_parallelism(taxonomy):
    title = "ReplicaTune: Hot-Expert Replication for MoE Serving"
    abstract = (
        "Expert parallelism places experts on different GPUs of an MoE serving system. "
        "ReplicaTune replicates hot experts and plugs into serving engines without any "
        "additional training or model changes, raising serving throughput by 1.2x."
    )
    found = topics(taxonomy, title, abstract)
    assert TP not in found
    assert "serving" in found


def test_expert_parallel_training_stays_training_parallelism(taxonomy):
    title = "Faster Expert Parallelism for MoE Pre-training"
    abstract = (
        "We overlap the all-to-all of expert parallelism with computation when training "
        "large MoE models, and speed up pre-training by 1.4x without changing the loss."
    )
    assert TP in topics(taxonomy, title, abstract)


# --- hardware designs are not serving systems -------------------------------------------------


def test_accelerator_design_motivated_by_inference_services_is_not_serving(taxonomy):
    title = "A Ternary Systolic Engine for Vision Transformers"
    abstract = (
        "To support the deployment of transformers, cloud providers run inference services "
        "that cost a great deal of energy, and the inference hardware behind inference "
        "services is inefficient. We design a ternary systolic engine and validate it on an "
        "FPGA, with 2x better energy efficiency than a GPU."
    )
    assert "serving" not in topics(taxonomy, title, abstract)


def test_inference_service_systems_stay_serving(taxonomy):
    title = "QueueWise: Scheduling Requests of LLM Inference Services"
    abstract = (
        "We schedule user requests of LLM inference services across GPUs to meet latency "
        "SLOs, cutting tail latency by 40%."
    )
    assert "serving" in topics(taxonomy, title, abstract)


# --- resource management of RL post-training ----------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Balancer: GPU Allocation for Agentic RL Post-Training",
            "Rollouts of agents have long tails. We move GPUs between the rollout and training "
            "clusters as the workload drifts and raise throughput by 2x.",
        ),
        (
            "Elastic Resource Management for Reinforcement Learning Post-Training",
            "Our scheduler gives idle GPUs of the generation and training stages to each other.",
        ),
    ],
)
def test_rl_post_training_resource_management_is_training_parallelism(taxonomy, title, abstract):
    assert TP in topics(taxonomy, title, abstract)


def test_rl_post_training_algorithm_is_not_training_parallelism(taxonomy):
    title = "Token-Level Credit Assignment for RL Post-Training"
    abstract = (
        "We propose a new advantage estimator for RL post-training of LLMs that improves "
        "math reasoning accuracy by 3 points."
    )
    assert TP not in topics(taxonomy, title, abstract)
