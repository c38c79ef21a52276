"""Classes of the eighteenth blind split's disagreements (docs/topics.md and docs/hardware.md,
"Nineteenth round"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest, topics

# --- topics: a sequence split over devices is sequence parallelism -----------------------------


def test_sequences_split_across_devices_for_training_are_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "Striped Context for Million-Token Pre-Training",
        "We partition each long sequence across many GPUs and pass key-value blocks around a "
        "ring, so pre-training reaches contexts eight times longer at the same memory.",
    )
    assert "training-parallelism" in found


def test_sequences_split_across_devices_for_serving_stay_serving(taxonomy):
    found = topics(
        taxonomy,
        "Context-Parallel Prefill for Long Prompts",
        "Our serving engine splits each long prompt's sequence across four GPUs during "
        "prefill, cutting time to first token by 3x for million-token requests.",
    )
    assert "training-parallelism" not in found
    assert "serving" in found


# --- topics: "can be trained on 1,024 GPUs" is a training paper's own run ----------------------


def test_a_model_sharded_and_trained_on_many_devices_is_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "AutoPart: Annotations for Giant Models",
        "AutoPart adds sharding annotations to a compiler so a 300B model is split with "
        "tensor parallelism without code changes. The model was efficiently trained on 1,024 "
        "TPU v4 chips in a week.",
    )
    assert "training-parallelism" in found


def test_a_model_trained_on_many_devices_without_systems_work_stays_out(taxonomy):
    # a model report's setup: trained on many GPUs, no way of parallelising it described
    found = topics(
        taxonomy,
        "A Multilingual Speech Model",
        "Our 2B model was trained on 256 GPUs for two weeks and beats Whisper on 40 languages.",
    )
    assert "training-parallelism" not in found


# --- topics: on-device training is not serving --------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "On-Device Training for Tiny Sensors",
            "On-device training lets sensors adapt a model after edge deployment, but on-device "
            "training needs memory a microcontroller lacks. Our engine prunes the backward "
            "graph so on-device fine-tuning fits in 512KB, where devices could only perform "
            "inference before.",
        ),
    ],
)
def test_on_device_training_is_not_serving(taxonomy, title, abstract):
    assert "serving" not in topics(taxonomy, title, abstract)


def test_on_device_inference_stays_serving(taxonomy):
    found = topics(
        taxonomy,
        "Fast On-Device LLM Decoding",
        "Our on-device inference engine runs a 3B model on smartphones at 20 tokens/s by "
        "keeping the KV cache in NPU memory.",
    )
    assert "serving" in found


# --- topics: the inference half of a training-and-inference system ----------------------------


def test_tail_latency_and_inference_scheduling_give_serving(taxonomy):
    found = topics(
        taxonomy,
        "Balancing All-to-All in Distributed MoE",
        "We analyze all-to-all in distributed MoE training and inference. For training we "
        "reorder collectives; for inference we schedule experts during inference by their "
        "predicted popularity, cutting the P95 latency by 1.5x.",
    )
    assert "serving" in found


def test_scheduling_at_training_time_is_not_serving(taxonomy):
    found = topics(
        taxonomy,
        "Overlapping Collectives in MoE Training",
        "We schedule all-to-all and allreduce during training so MoE training step time drops "
        "by 1.4x on 32 GPUs with expert parallelism.",
    )
    assert "serving" not in found


# --- hardware: a pruning or quantization method is sized for inference -------------------------


def test_pretrained_models_are_not_the_papers_training(catalog):
    s = suggest(
        catalog,
        "We prune pretrained transformer models in one shot without retraining and run our "
        "method on OPT-175B in four hours; the pruned weights are ignored at inference time.",
    )
    assert s.mode == "inference", s.memory_arithmetic
    assert s.scale == "single-node", s.target


def test_pretraining_a_model_is_still_training(catalog):
    s = suggest(catalog, "We study pretraining of a 7B model and its loss spikes.")
    assert s.mode == "training", s.memory_arithmetic


# --- hardware: machines of many owners pooled over the network ---------------------------------


def test_resources_of_many_parties_are_many_machines(catalog):
    s = suggest(
        catalog,
        "Our system runs a 176B model on consumer GPUs by joining the resources of many "
        "volunteers connected over the Internet.",
    )
    assert s.scale == "multi-node", s.target


def test_an_api_over_the_internet_is_no_cluster(catalog):
    s = suggest(
        catalog,
        "We call a hosted model over the Internet and cache its answers on one RTX 4090.",
    )
    assert s.scale == "single-device", s.target


# --- hardware: "an A100 GPU testbed" is a testbed of A100s -------------------------------------


def test_a_testbed_of_a_device_is_several_of_it(catalog):
    s = suggest(
        catalog,
        "We build the system for distributed MoE training. Experiments on an H100 GPU "
        "testbed show 1.6x shorter steps.",
    )
    assert s.scale == "single-node", s.target
    assert "h100" in s.devices


def test_an_h100_alone_is_one_device(catalog):
    s = suggest(catalog, "Experiments on an H100 show 1.6x faster decoding of a 7B model.")
    assert s.scale == "single-device", s.target


# --- hardware: a large model is sized on the largest device the paper names --------------------


def test_the_largest_model_is_sized_on_the_roomiest_named_device(catalog):
    s = suggest(
        catalog,
        "For LLaMA-7B on RTX 3090 GPUs we double throughput; for OPT-175B on A100 GPUs we "
        "gain 1.4x.",
    )
    assert s.scale == "single-node", s.target
    assert "a100" in s.device_counts, s.target
