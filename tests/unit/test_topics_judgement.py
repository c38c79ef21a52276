"""Topic judgement on papers nobody tuned on: each error class of the test split (docs/topics.md)
as hand-written abstracts, so a rule change is checked on the class, not on one paper.

The abstracts are written for these tests; none is copied from the labelled splits.
"""

from __future__ import annotations

import pytest

from digest_tui.enrich.topics.classifier import classify
from digest_tui.enrich.topics.taxonomy import load_taxonomy
from digest_tui.errors import TaxonomyError
from tests.support.judgement import topics

TP = "training-parallelism"


# --- parallelism at inference time is not training parallelism -----------------------------

INFERENCE_PARALLEL = [
    (
        "Splitting Decoders Across Chips: Tensor-Parallel Inference for Latency-Critical LLMs",
        "Serving large language models under tight latency targets requires spreading each "
        "layer over several accelerators. We study tensor parallelism and pipeline parallelism "
        "for inference on an 8-GPU server connected by NVLink, measure all-reduce costs per "
        "decoded token, and propose a placement that lowers time-to-first-token by 31%.",
    ),
    (
        "A Chunked-Prefill Scheduler for Multi-Node LLM Serving",
        "Prefill and decode compete for the same GPUs. Our scheduler splits long prompts into "
        "chunks and interleaves them with decode steps across a multi-node deployment using "
        "pipeline parallelism, with stragglers handled by request migration. It raises goodput "
        "by 1.7x over vLLM at the same latency SLO.",
    ),
    (
        "ExpertFlow: Expert Scheduling for Mixture-of-Experts Inference",
        "Mixture-of-Experts models activate few experts per token, yet expert parallelism at "
        "inference time leaves GPUs idle while all-to-all exchanges finish. We schedule experts "
        "across devices ahead of routing and overlap communication with computation, cutting "
        "decoding latency by 40% on hundreds of GPUs in production serving.",
    ),
    (
        "Collaborative Edge Inference Across Phones and Laptops",
        "We partition a vision-language model across nearby edge devices with hybrid data and "
        "pipeline parallelism, so that a phone and a laptop answer queries together. Adaptive "
        "parallelism strategies follow the bandwidth of the wireless link.",
    ),
    (
        "A Dataflow Accelerator for Token Serving",
        "We present a dataflow chip for serving large language models. Layers are mapped to "
        "tiles with pipeline parallelism across 64 chips and a Megatron-style tensor split, "
        "delivering 3x tokens per second per watt over GPU inference.",
    ),
]


@pytest.mark.parametrize(("title", "abstract"), INFERENCE_PARALLEL)
def test_parallelism_at_inference_time_is_not_training_parallelism(taxonomy, title, abstract):
    result = classify(taxonomy, title, abstract)
    assert TP not in result.topics
    assert "serving" in result.topics or "moe" in result.topics or result.unmet.get(TP)


def test_the_same_parallelism_with_training_context_is_training_parallelism(taxonomy):
    _title, abstract = INFERENCE_PARALLEL[0]
    trained = abstract.replace("for inference", "for pre-training").replace(
        "per decoded token", "per gradient step"
    )
    assert TP in topics(taxonomy, "Tensor-Parallel Pre-Training on One Server", trained)


# --- hardware counts and MFU alone, and parallel *programs*, are not the topic ----------------

HARDWARE_ONLY = [
    (
        "The Energy Bill of Large Models",
        "We estimate the electricity and carbon footprint of training large language models. "
        "A frontier-scale run on 16,384 H100 GPUs for 54 days at 40% MFU draws as much power "
        "as a small town; we compare LLM training throughput across three supercomputers.",
    ),
    (
        "Can LLMs Write Parallel Code? Generating MPI and OpenMP Programs",
        "We fine-tune a code language model to write parallel programs for HPC. Given serial "
        "C code, the model adds OpenMP pragmas and MPI calls; automatic parallelization of "
        "loops reaches 2.1x speedups on 128 nodes of a supercomputer, and the generated MPI "
        "code scales to thousands of cores.",
    ),
]


@pytest.mark.parametrize(("title", "abstract"), HARDWARE_ONLY)
def test_counts_mfu_and_parallel_programs_do_not_make_training_parallelism(
    taxonomy, title, abstract
):
    assert TP not in topics(taxonomy, title, abstract)


# --- training systems described without the usual parallelism words -------------------------

TRAINING_SYSTEMS = [
    (
        "Inside Our Training Infrastructure",
        "We describe the infrastructure behind our model development: a 4,000-GPU cluster, "
        "its storage layer, the job scheduler and automatic recovery from hardware failures, "
        "and what two years of pre-training runs taught us about keeping goodput high.",
    ),
    (
        "Adaptive Expert Placement for Mixture-of-Experts Training",
        "Training mixture-of-experts models suffers from skewed token routing. We adapt the "
        "expert parallelism degree during training, moving experts between GPUs as the load "
        "shifts, which raises training throughput by 1.5x at the same loss.",
    ),
    (
        "A Framework for Reinforcement-Learning Post-Training of Reasoning Models",
        "Post-training with reinforcement learning alternates rollout generation and policy "
        "updates. Our framework runs rollout workers and trainers on separate pools with a "
        "parameter server, keeping accelerators busy during long generations.",
    ),
    (
        "Fine-Tuning a 13B Model on One Consumer GPU",
        "We fine-tune large models on a single 24 GB GPU by offloading optimizer states and "
        "activations to CPU memory and NVMe, overlapping transfers with computation.",
    ),
]


@pytest.mark.parametrize(("title", "abstract"), TRAINING_SYSTEMS)
def test_training_systems_without_parallelism_words_are_training_parallelism(
    taxonomy, title, abstract
):
    assert TP in topics(taxonomy, title, abstract)


# --- the mechanism: required kinds of evidence ---------------------------------------------


def test_a_topic_reaching_its_threshold_without_a_required_kind_says_which(taxonomy):
    title, abstract = INFERENCE_PARALLEL[0]
    result = classify(taxonomy, title, abstract)
    assert result.scores[TP] >= 4 and result.unmet[TP] == ["training"]


def test_requires_must_name_a_kind_some_pattern_has(tmp_path):
    (tmp_path / "taxonomy.yaml").write_text(
        "version: 1\ntopics:\n  - id: kernels\n    requires: [nonsense]\n", encoding="utf-8"
    )
    with pytest.raises(TaxonomyError, match="requires"):
        load_taxonomy(tmp_path)


def test_a_user_can_drop_the_requirement(tmp_path, taxonomy):
    (tmp_path / "taxonomy.yaml").write_text(
        f"version: 1\ntopics:\n  - id: {TP}\n    requires: []\n", encoding="utf-8"
    )
    mine = load_taxonomy(tmp_path)
    title, abstract = INFERENCE_PARALLEL[0]
    assert TP in topics(mine, title, abstract) and TP not in topics(taxonomy, title, abstract)
    assert mine.fingerprint != taxonomy.fingerprint


# --- kernels described without the word "kernel" in a compute sense ---------------------------

KERNEL_WORK = [
    (
        "Overlapping GEMM and All-Reduce Inside One Operator",
        "Tensor-parallel layers wait for communication after every matrix multiplication. We "
        "build fused computation-communication operators that tile the GEMM and issue the "
        "reduction of finished tiles from the same GPU program, hiding 80% of the transfer.",
    ),
    (
        "Fast Long Convolutions on Tensor Cores",
        "Long convolutions in sequence models are computed with the FFT, which maps poorly to "
        "modern hardware. We present a GPU implementation of FFT convolution that uses tensor "
        "cores and keeps intermediate results in shared memory, 4x faster than cuFFT.",
    ),
    (
        "A Code Generator for Deep Learning Accelerators",
        "New AI chips ship without mature software. We present a code generation framework "
        "for accelerators that lowers tensor programs to the chip's instruction set, with a "
        "lightweight runtime that schedules operators on its matrix units.",
    ),
]


@pytest.mark.parametrize(("title", "abstract"), KERNEL_WORK)
def test_kernel_work_without_the_word_kernel_is_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


NOT_KERNELS = [
    (
        "Kernel Two-Sample Tests for Distribution Shift",
        "We fuse information from several kernel functions in a single kernel two-sample "
        "test, with an implementation for large data sets.",
    ),
    (
        "An LLM Writes OpenMP",
        "We ask a language model to parallelise C loops with OpenMP; the code generation for "
        "multicore CPUs is checked by compiling and running the programs.",
    ),
]


@pytest.mark.parametrize(("title", "abstract"), NOT_KERNELS)
def test_kernel_lookalikes_stay_out(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- second test split classes (docs/topics.md): hand-written examples ---------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "StreamRL: An Asynchronous RL Framework for Post-Training Reasoning Models",
            "Colocated RL frameworks stall while the slowest response finishes. We decouple "
            "the rollout workers from the trainer: rollout generation runs on its own GPUs "
            "with an inference engine for rollouts, and weights are pushed after every policy "
            "update. StreamRL doubles training throughput on 256 GPUs.",
        ),
        (
            "Trimming the Tail of Rollouts",
            "Most RL frameworks pair inference engines for rollout generation with training "
            "engines for policy updates. Long responses leave GPUs idle; we cut them at a "
            "budget and resume them in the next step, raising RL training throughput by 40%.",
        ),
    ],
)
def test_rl_post_training_systems_are_training_parallelism_not_serving(taxonomy, title, abstract):
    found = topics(taxonomy, title, abstract)
    assert TP in found
    assert "serving" not in found


def test_an_rl_algorithm_called_a_framework_is_not_a_training_system(taxonomy):
    assert TP not in topics(
        taxonomy,
        "Reward Shaping for Geometry Proofs",
        "We propose an RL framework that rewards intermediate lemmas. Fine-tuning a 7B model "
        "with it solves 12% more olympiad problems than outcome rewards alone.",
    )


def test_a_tool_covering_dense_and_moe_models_is_not_about_moe(taxonomy):
    title = "WattCast: Projecting the Energy of Language Models Before Training"
    abstract = (
        "We project the energy use of dense and mixture-of-experts (MoE) LLMs from their "
        "architecture, and validate the projections for dense or MoE models on public logs."
    )
    assert "moe" not in topics(taxonomy, title, abstract)
    # An MoE paper that also mentions dense baselines is still MoE.
    assert "moe" in topics(
        taxonomy,
        "Routing Tokens to Shared Experts",
        "We add shared experts to a mixture-of-experts (MoE) model and compare dense and MoE "
        "models of equal compute; expert load balancing improves by 20%.",
    )


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Elastic Expert Placement for MoE Serving",
            "To reduce the high training costs of dense models, mixture-of-experts (MoE) LLMs "
            "activate few experts per token and are served with expert parallelism. Stragglers "
            "among experts inflate decoding latency. We re-place hot experts between requests "
            "and cut tail latency by 35% in our serving system.",
        ),
        (
            "Sharded Experts for Encoder MoE Inference",
            "Prior work has focused on optimizing MoE training. We shard each expert across "
            "GPUs at inference time with expert parallelism and DeepSpeed-style partitioning, "
            "cutting time to first token by 3x in a multi-GPU inference system.",
        ),
    ],
)
def test_training_named_only_as_prior_work_or_motivation_is_not_training(taxonomy, title, abstract):
    found = topics(taxonomy, title, abstract)
    assert TP not in found
    assert "serving" in found


def test_deploying_on_edge_or_mobile_hardware_is_serving_with_support(taxonomy):
    assert "serving" in topics(
        taxonomy,
        "Phones as LLM Hosts: A Measurement Study",
        "Users want models that run locally on smartphones. We measure local deployment of "
        "four small LLMs on commercial mobile devices: token throughput, latency and battery.",
    )
    # An efficient model that merely mentions where it could be deployed is not serving.
    assert "serving" not in topics(
        taxonomy,
        "A Compact Vision Transformer with Shifted Windows",
        "We design a compact vision transformer that reaches 81% top-1 accuracy with 40% fewer "
        "FLOPs, which makes it suitable for deployment on edge devices.",
    )


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Faster Distributed Point-Cloud Network Training",
            "The point clouds do not fit on one machine. We cut the halo exchange of distributed "
            "point-cloud network training with a new partitioner and train 1.8x faster.",
        ),
        (
            "Placement-Aware Scheduling for Deep Learning Clusters",
            "Jobs that train models on shared GPU clusters wait for co-located GPUs. Our "
            "scheduler places model training workloads by measured interconnect speed and "
            "shortens job completion time by 22%.",
        ),
    ],
)
def test_distributed_training_and_training_cluster_schedulers_are_training(
    taxonomy, title, abstract
):
    assert TP in topics(taxonomy, title, abstract)


def test_an_inference_cluster_scheduler_is_not_training(taxonomy):
    found = topics(
        taxonomy,
        "Scheduling Inference Requests on Deep Learning Clusters",
        "We route inference requests across a deep learning cluster to meet latency SLOs and "
        "raise serving throughput by 30%.",
    )
    assert TP not in found
    assert "serving" in found


# --- third blind split: training systems named by their cluster setting --------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Straggler-Tolerant Distributed SGD for Recommendation Models",
            "Slow workers stall every step of synchronous training. We run distributed SGD with "
            "backup workers and a deadline on each step, so that the slowest replicas are "
            "dropped, and reach the same accuracy 1.4x sooner.",
        ),
        (
            "Placing Distributed DL Jobs by Their Bandwidth Needs",
            "Distributed DL jobs that share a GPU cluster slow each other down on shared links. "
            "We profile each job once and co-locate the bandwidth-hungry ones on one rack, "
            "cutting the average job completion time by 28%.",
        ),
        (
            "Rack-Aware Placement for Large Pre-Training Runs",
            "Pre-training jobs that span hundreds of nodes exchange gradients in bursts within "
            "fixed groups of GPUs. Our placement keeps each group under one switch and raises "
            "the throughput of a 70B pre-training run by 9%.",
        ),
    ],
)
def test_training_named_by_its_cluster_setting_is_training_parallelism(taxonomy, title, abstract):
    assert TP in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Distributed DL Inference on Shared Edge Servers",
            "We split distributed DL inference across shared edge servers and schedule requests "
            "so that tail latency stays under 50 ms at twice the request rate.",
        ),
        (
            "Batch Jobs That Span Many Nodes: Placing Inference Pipelines",
            "Offline inference jobs that span dozens of nodes read large inputs. We place them "
            "near their data and finish batch scoring 2x sooner.",
        ),
    ],
)
def test_the_same_cluster_words_for_inference_are_not_training(taxonomy, title, abstract):
    assert TP not in topics(taxonomy, title, abstract)
