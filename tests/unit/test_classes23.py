"""Classes of the twenty-second blind split's misses (docs/topics.md, "Twenty-third topic
round"; docs/hardware.md, "Twenty-third round"), fixed as the general rule each is an instance
of. Every example is hand-written in the field's own wording, none copied from a labelled
split; each class has look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- kernels: a compiler for hardware in general, named in full ---------------------------------


def test_a_neural_network_compiler_for_many_hardware_targets_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Retarget: One Frontend, Many Backends",
        "We describe a neural network compiler for multiple hardware targets: its lowering "
        "reduces each operator to a few linear-algebra primitives, so a new backend needs only "
        "those, and each backend does its own code generation.",
    )
    assert "kernels" in found


def test_a_compiler_for_a_language_is_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Neural Decompilation",
        "We train a model that translates binaries back to C and compare with a compiler for "
        "the same language on ten benchmarks.",
    )
    assert "kernels" not in found


# --- kernels: operator work on CPUs measured against a CPU kernel library -----------------------


def test_cpu_operator_level_work_against_onednn_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Faster Transformers on Server CPUs",
        "CPU inference usually calls oneDNN operators one at a time. We combine "
        "operation-level and graph-level optimizations with tensor layout transformations; "
        "BERT on one socket takes 1.9x less time than with implementations built on oneDNN.",
    )
    assert "kernels" in found


def test_a_cpu_library_named_once_is_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Tabular Data Augmentation",
        "Our augmentation improves tree models on twelve datasets; training uses OpenBLAS on a "
        "laptop.",
    )
    assert "kernels" not in found


# --- serving: Mixture-of-Experts inference spelled out, deployed on one GPU ---------------------


def test_mixture_of_experts_inference_in_the_title_is_serving(taxonomy):
    found = topics(
        taxonomy,
        "Lookahead Routing for Mixture-of-Experts Inference",
        "Sparse experts keep compute low but their weights do not fit in GPU memory. Predicting "
        "the next layer's experts one layer early lets us fetch them while the current layer "
        "runs.",
    )
    assert "serving" in found


def test_deploying_a_large_model_on_just_one_gpu_is_serving(taxonomy):
    found = topics(
        taxonomy,
        "Expert Prefetching",
        "We prefetch the weights each token will need. This lets operators deploy 47B-parameter "
        "models using only a single GPU at interactive speed, with inference latency within "
        "10% of a four-GPU setup.",
    )
    assert "serving" in found


def test_training_mixture_of_experts_is_not_serving(taxonomy):
    found = topics(
        taxonomy,
        "Load-Balanced Mixture-of-Experts Training",
        "We add an auxiliary loss that balances expert load during pre-training of a 16-expert "
        "model.",
    )
    assert "serving" not in found


# --- serving: a model's work split between a phone and the cloud --------------------------------


def test_layers_split_between_phone_and_cloud_is_serving(taxonomy):
    found = topics(
        taxonomy,
        "SplitNet: Latency-Aware Layer Placement",
        "We choose, per layer, whether a DNN runs on the handset or remotely, dividing the "
        "network between the mobile device and the cloud server to cut inference latency by 3x "
        "under changing bandwidth.",
    )
    assert "serving" in found


def test_data_split_between_edge_and_cloud_storage_is_not_serving(taxonomy):
    found = topics(
        taxonomy,
        "Tiered Photo Backup",
        "We study how users share photos between the phone and the cloud and how often they "
        "delete them.",
    )
    assert "serving" not in found


# --- hardware: a TPU pod, a Xeon named by its line, a single commodity server --------------------


def test_a_tpu_v3_pod_is_many_hosts(catalog):
    s = suggest(catalog, "We train with batch 64k, the most that fits a TPU v3 Pod.")
    assert s.scale == "multi-node", s.target
    assert "tpu-v3" in s.devices, s.target


def test_one_tpu_v3_is_still_one_device(catalog):
    s = suggest(catalog, "We time the layer on a TPU v3 and report its step time.")
    assert s.scale == "single-device", s.target


def test_an_intel_gold_cpu_is_a_xeon(catalog):
    s = suggest(catalog, "Inference runs 2x faster on an Intel Gold 6248 processor.")
    assert "xeon" in s.devices, s.target


def test_intel_gold_without_a_model_number_is_no_device(catalog):
    s = suggest(catalog, "We thank Intel Gold Sponsorship for support of the workshop.")
    assert "xeon" not in s.devices, s.target


def test_a_single_commodity_server_is_one_node(catalog):
    s = suggest(
        catalog,
        "We train billion-parameter models on a single commodity server by moving "
        "activations between GPU and host memory.",
    )
    assert s.scale == "single-node", s.target


# --- hardware: one GPU as the low end of a range -------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Our library scales a training script from one GPU to many with two added lines.",
        "Throughput grows almost linearly from a single GPU to dozens.",
    ],
)
def test_one_gpu_as_the_start_of_a_range_is_not_the_setup(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale != "single-device", s.target


def test_one_gpu_alone_is_still_one_device(catalog):
    s = suggest(catalog, "We fine-tune the 7B model on one GPU in four hours.")
    assert s.scale == "single-device", s.target


# --- hardware: a stated Ethernet link between workers; a problem stated as such -----------------


def test_training_over_gigabit_ethernet_is_many_machines(catalog):
    s = suggest(
        catalog,
        "Sparsified updates make data-parallel training practical over 10Gbps Ethernet "
        "between workers.",
    )
    assert s.scale == "multi-node", s.target


def test_phones_in_a_stated_problem_are_not_the_setup(catalog):
    s = suggest(
        catalog,
        "Gradient exchange limits distributed training. The situation gets even worse for "
        "federated training on mobile phones. We compress gradients 300x, so that training "
        "ResNet-50 over 1Gbps Ethernet loses no accuracy.",
    )
    assert s.scale == "multi-node", s.target


def test_phones_as_the_papers_own_setting_stay_edge(catalog):
    s = suggest(
        catalog,
        "We run federated training on mobile phones and cut upload traffic by 300x.",
    )
    assert s.scale == "edge", s.target
