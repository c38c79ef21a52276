"""Topic error classes of the seventh blind split (docs/topics.md, "Eighth round"), as
hand-written abstracts with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import topics

TP = "training-parallelism"


# --- compiler wording whose contribution is generated kernels ----------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Joint Layout and Loop Tuning for Deep Learning Compilation",
            "Deep compilers fix tensor layouts first and optimize loops afterwards. We tune "
            "data layout transformations and loop optimizations together and beat the best "
            "existing compiler by 1.3x per operator.",
        ),
        (
            "TileFlow: Scheduling Operator Memory Traffic with Tile Programs",
            "We present a DNN compiler that models every operator as a tile program and "
            "chooses inter-operator data reuse from a tile traffic cost model; the generated "
            "code is 1.8x faster than vendor libraries.",
        ),
        (
            "PadFree: Fast Transformers for Ragged Batches",
            "Padding wastes work on ragged batches. We remove it from every layer and write a "
            "fused multi-head attention with architecture-aware optimizations; it is 4x faster "
            "than the framework's attention on one GPU.",
        ),
        (
            "A Sparse Convolution Library",
            "We describe an implementation of sparse convolution (SC) on GPUs and "
            "the kernels that gather and scatter its features, 2x faster than prior libraries.",
        ),
    ],
)
def test_compiler_and_fused_operator_wording_is_kernels(taxonomy, title, abstract):
    assert "kernels" in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Loop Optimizations in Reinforcement Learning Curricula",
            "We study how the outer loop of curriculum design is tuned and report which "
            "choices matter for sample efficiency.",
        ),
        (
            "Multimodal Fusion for Video QA",
            "Our model combines fused attention features from audio and video streams and "
            "improves answer accuracy by 3 points.",
        ),
        (
            "A Survey of Compilers",
            "We review the history of compilers for general-purpose languages, from parsing to "
            "register allocation.",
        ),
    ],
)
def test_compiler_look_alikes_stay_out_of_kernels(taxonomy, title, abstract):
    assert "kernels" not in topics(taxonomy, title, abstract)


# --- kernels false positives -------------------------------------------------------------------


def test_an_inference_deployment_study_naming_tensorrt_is_serving_not_kernels(taxonomy):
    title = "Deploying Detectors with TensorRT on Drones"
    abstract = (
        "We port three object detectors to an embedded GPU with TensorRT, compare its "
        "precision modes and batch sizes, and report inference latency and energy per frame. "
        "TensorRT halves latency over the framework baseline."
    )
    predicted = topics(taxonomy, title, abstract)
    assert "kernels" not in predicted
    assert "serving" in predicted


def test_a_kernel_paper_that_compares_with_tensorrt_keeps_kernels(taxonomy):
    title = "FastConv: Hand-tuned CUDA Kernels for Depth Estimation"
    abstract = "Our CUDA kernels are 1.4x faster than TensorRT on the same GPU."
    assert "kernels" in topics(taxonomy, title, abstract)


def test_a_simulator_using_kernel_fusion_in_passing_is_not_kernels(taxonomy):
    title = "ClusterSim: Fast Simulation of Datacenter Networks"
    abstract = (
        "ClusterSim simulates packet-level traffic of large clusters on GPUs; a kernel-fusion "
        "technique and batched event queues make it 30x faster than CPU simulators."
    )
    assert "kernels" not in topics(taxonomy, title, abstract)


def test_kernel_fusion_with_gpu_evidence_stays_kernels(taxonomy):
    title = "Automatic Kernel Fusion for Graph Neural Networks"
    abstract = "We fuse sparse and dense operators into one CUDA kernel and cut launches by 5x."
    assert "kernels" in topics(taxonomy, title, abstract)
    abstract2 = (
        "We apply kernel fusion to the message-passing layers of GNNs and tune tile size and "
        "shared memory use for each GPU."
    )
    assert "kernels" in topics(taxonomy, "Faster GNN layers", abstract2)


# --- memory-saving training systems are training parallelism -----------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Out-of-Core Training of Wide Networks",
            "We stream layers between host and device so that a network larger than GPU "
            "memory can be trained on one GPU at 70% of in-memory speed.",
        ),
        (
            "Swapless: Training Large Vision Models on a Single GPU",
            "Models whose activations are larger than the available GPU memory cannot be "
            "trained today. We combine tiling with activation check-pointing and train them "
            "on one GPU without loss of accuracy.",
        ),
        (
            "SplitGraph: Fitting Giant Networks",
            "SplitGraph partitions large DNN models across several GPUs to cut the per-GPU "
            "memory footprint, choosing the split of each operator by a search that minimises "
            "communication. It lets us train very large recurrent models on an 8-GPU server.",
        ),
    ],
)
def test_memory_saving_training_systems_are_training_parallelism(taxonomy, title, abstract):
    assert TP in topics(taxonomy, title, abstract)


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Out-of-Core Graph Analytics on SSDs",
            "We run PageRank on graphs larger than host memory by streaming edges from SSDs.",
        ),
        (
            "Serving Large Models from Host Memory",
            "We serve models larger than GPU memory by streaming weights from the host during "
            "inference and keep latency within 2x of in-memory serving.",
        ),
        (
            "Balanced Graph Partitioning for Social Networks",
            "We partition social graphs into balanced communities and compare with spectral "
            "clustering on ten datasets.",
        ),
    ],
)
def test_memory_look_alikes_stay_out_of_training_parallelism(taxonomy, title, abstract):
    assert TP not in topics(taxonomy, title, abstract)


# --- parallelising a deployment is serving, whatever else the model is good for ----------------


def test_parallelization_strategies_of_deployment_are_not_training(taxonomy):
    title = "Parallelization Strategies for Chatbot Deployment on Multi-GPU Servers"
    abstract = (
        "Dense chat models are popular for their accuracy and ease of fine-tuning. We measure "
        "how tensor and pipeline parallelism configurations, batching and request rates trade "
        "serving latency for throughput when the model exceeds one GPU's memory, in LLM "
        "inference on one server."
    )
    predicted = topics(taxonomy, title, abstract)
    assert TP not in predicted
    assert "serving" in predicted


def test_parallelization_strategies_of_training_stay_training(taxonomy):
    title = "Parallelization Strategies for Pre-training on Thousand-GPU Clusters"
    abstract = (
        "We compare tensor, pipeline and data parallelism configurations for pre-training "
        "large language models and report training throughput on 1,024 GPUs."
    )
    assert TP in topics(taxonomy, title, abstract)


def test_fine_tuning_done_by_the_paper_still_counts(taxonomy):
    title = "Fine-Tuning 70B Models on One Node"
    abstract = (
        "We fine-tune a 70B model with ZeRO-3 and CPU offloading on eight GPUs and report "
        "throughput against full sharding."
    )
    assert TP in topics(taxonomy, title, abstract)
