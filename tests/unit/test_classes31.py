"""Classes of the thirty-eighth and thirty-ninth blind splits' misses, and one older class
(docs/topics.md, "Thirty-first topic round"; docs/hardware.md, "Thirty-first round"), fixed as the
general rule each is an instance of. Every example is hand-written in the field's own wording,
none copied from a labelled split; each class has look-alikes that must keep their reading. The
rules are read alone (`scoring.learned` off)."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- training-parallelism: distributed training said as optimization or by its method -----------


def test_distributed_optimization_over_devices_is_training_parallelism(rules):
    found = topics(
        rules,
        "Fewer Rounds",
        "Distributed optimization lets every device take several update steps between two "
        "rounds of averaging; we bound its error for transformer language models.",
    )
    assert "training-parallelism" in found


def test_local_sgd_is_training_parallelism(rules):
    found = topics(
        rules,
        "Averaging Less Often",
        "With Local SGD each replica takes many steps before the models are averaged; we show "
        "when this keeps the accuracy of ResNet-50 on ImageNet.",
    )
    assert "training-parallelism" in found


def test_parallelizing_training_over_many_gpus_is_training_parallelism(rules):
    found = topics(
        rules,
        "Split the Batch",
        "We parallelize the training of recurrent networks over many GPUs by giving each a "
        "slice of every batch.",
    )
    assert "training-parallelism" in found


def test_training_parallelized_on_one_gpu_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Faster Kriging",
        "We parallelize the training procedure of our Gaussian process on a GPU with CUDA "
        "streams and numerical gradients, halving its training time.",
    )
    assert "training-parallelism" not in found


def test_training_across_unreliable_workers_supports_training_parallelism(rules):
    found = topics(
        rules,
        "Sync Rarely",
        "Our scheme enables training across slow and unreliable workers, exchanging gradients "
        "only every hundred steps.",
    )
    assert "training-parallelism" in found


def test_an_optimizer_for_one_machine_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Momentum Again",
        "We optimize the learning-rate schedule of stochastic gradient descent for small "
        "convolutional networks and report the optimization curves.",
    )
    assert "training-parallelism" not in found


# --- training-parallelism: GShard listed among MoE models names a model --------------------------


def test_gshard_listed_with_switch_transformer_is_not_a_training_system(rules):
    found = topics(
        rules,
        "Sparse Feed-Forward Layers",
        "Our mixture-of-experts language model with token routing improves training efficiency "
        "2x over MoE baselines (GShard, Switch Transformer) at the same compute.",
    )
    assert "moe" in found
    assert "training-parallelism" not in found


def test_gshard_as_the_system_that_trains_still_counts(rules):
    found = topics(
        rules,
        "Sharded Giants",
        "Built on GShard, our training run shards a 600B translation model and improves "
        "training efficiency on 2048 TPU cores.",
    )
    assert "training-parallelism" in found


# --- kernels: an implementation of the primitives of deep learning ------------------------------


def test_an_implementation_of_the_primitives_of_neural_networks_is_kernels(rules):
    found = topics(
        rules,
        "Tiny Networks, Tiny Chips",
        "We give an implementation of the basic primitives needed by convolutional neural "
        "networks on Cortex-M microcontrollers, 3x faster than the vendor's.",
    )
    assert "kernels" in found


def test_an_implementation_of_secure_primitives_is_not_kernels(rules):
    found = topics(
        rules,
        "Private Inference",
        "We give an implementation of secure primitives for neural network inference between "
        "two parties, with fewer rounds of communication.",
    )
    assert "kernels" not in found


# --- hardware -----------------------------------------------------------------------------------


def test_an_example_after_the_papers_own_claim_is_its_own_setup(catalog):
    s = suggest(
        catalog,
        "Batched drafts need a new scheduler. This paper describes a serving system for batched "
        "drafts. For example, for a 13B model on a single H100 GPU, each request finishes in "
        "20 ms.",
    )
    assert s.scale == "single-device", s.target
    assert s.devices == ["h100"], s.target


def test_an_example_in_motivation_stays_motivation(catalog):
    s = suggest(
        catalog,
        "Serving large models is costly. Existing systems are slow. For example, serving a 70B "
        "model requires 8 A100 GPUs. We propose a cache for prompts.",
    )
    assert s.device_total != 8, s.target


def test_over_a_number_is_a_quantity_not_a_comparison(catalog):
    s = suggest(
        catalog,
        "Scaling laws are hard to fit. In this work we fit them anew: we conduct over 300 runs "
        "with up to 3B total parameters.",
    )
    assert s.scale != "unknown", s.target
    assert any(m["text"] == "3B" and m["role"] == "own" for m in s.model_sizes), s.model_sizes


def test_a_model_compared_over_stays_a_comparison(catalog):
    s = suggest(catalog, "In this work, our 1B model beats models of over 70B parameters.")
    roles = {m["text"]: m["role"] for m in s.model_sizes}
    assert roles.get("1B") == "own", s.model_sizes
    assert roles.get("70B") == "comparison", s.model_sizes


def test_the_gpu_that_fails_is_not_the_setup(catalog):
    s = suggest(
        catalog,
        "We propose elastic tensor parallelism for training. With the failure of a single GPU "
        "the whole replica stalls; our scheme keeps the other replicas running.",
    )
    assert s.scale != "single-device", s.target


def test_a_single_gpu_that_runs_the_work_is_the_setup(catalog):
    s = suggest(catalog, "Our method fine-tunes a 7B model on a single GPU in four hours.")
    assert s.scale == "single-device", s.target


def test_a_small_model_trained_by_local_sgd_is_not_one_device(catalog):
    s = suggest(
        catalog,
        "We study asynchronous Local SGD for language models of up to 350M parameters and "
        "propose a momentum correction for stale updates.",
    )
    assert s.scale == "multi-node", s.target


def test_a_small_model_trained_plainly_is_one_device(catalog):
    s = suggest(
        catalog,
        "We fine-tune a 350M parameter language model with SGD and a new momentum schedule.",
    )
    assert s.scale == "single-device", s.target
