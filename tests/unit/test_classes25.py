"""Classes of the twenty-fourth blind split's misses (docs/topics.md, "Twenty-fifth topic
round"; docs/hardware.md, "Twenty-fifth round"), fixed as the general rule each is an instance
of. Every example is hand-written in the field's own wording, none copied from a labelled
split; each class has look-alikes that must keep their reading. The rules are read alone
(`scoring.learned` off): these are the rules' classes, and the look-alikes are short texts the
learned reader does not read anyway."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- kernels: operator implementations for a CPU architecture ------------------------------------


def test_operator_implementations_for_an_arm_architecture_are_kernels(rules):
    found = topics(
        rules,
        "Faster Light Convolutions on Phones",
        "Existing code for light convolutions leaves the vector units idle. We rewrite the "
        "implementations of depthwise and grouped convolution based on ARM architecture and "
        "cut cache misses at register level by half.",
    )
    assert "kernels" in found


def test_an_implementation_based_on_a_framework_is_not_kernels(rules):
    found = topics(
        rules,
        "A Library for Graph Augmentation",
        "Our implementation based on the PyTorch framework adds twelve graph augmentations.",
    )
    assert "kernels" not in found


# --- serving: the KV cache said in full -----------------------------------------------------------


def test_caching_key_and_value_states_is_serving(rules):
    found = topics(
        rules,
        "Sliding Windows with Anchors",
        "Generation caches the key and value states of every past token, so memory grows with "
        "the dialogue. We keep four anchor tokens and a recent window and generate 2 million "
        "tokens stably.",
    )
    assert "serving" in found


def test_a_key_value_store_cache_is_not_serving(rules):
    found = topics(
        rules,
        "HotKeys: Caching for Key-Value Stores",
        "Our cache keeps the hottest key and value pairs of a key-value store in DRAM and cuts "
        "tail reads by 40%.",
    )
    assert "serving" not in found


# --- serving: an inference scheduler said by its queries ------------------------------------------


def test_a_scheduler_of_inference_queries_is_serving(rules):
    found = topics(
        rules,
        "Batching Ranking Queries",
        "Our scheduler splits batches by query size and arrival patterns to maximize "
        "latency-bounded throughput of ranking models in the datacenter.",
    )
    assert "serving" in found


def test_query_sizes_of_a_database_alone_are_not_serving(rules):
    found = topics(
        rules,
        "Profiling Analytical Workloads",
        "We characterize query sizes of ten data warehouses and propose an index advisor.",
    )
    assert "serving" not in found


# --- training-parallelism: GPU and CPU memory for training; time to train on N devices -----------


def test_gpu_and_cpu_memory_used_together_for_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Swapping Activations",
        "Our runtime pages feature maps so that GPU and CPU memory together hold networks too "
        "large for the GPU during training.",
    )
    assert "training-parallelism" in found


def test_gpu_and_cpu_memory_at_inference_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Experts in Host Memory",
        "Our inference engine keeps the experts of an MoE model in GPU and CPU memory and "
        "prefetches them per token.",
    )
    assert "training-parallelism" not in found


def test_a_time_to_train_on_many_gpus_is_training_parallelism(rules):
    found = topics(
        rules,
        "BERT in an Hour",
        "We train BERT-Large in 47 minutes on 1,472 GPUs with a tuned LAMB schedule.",
    )
    assert "training-parallelism" in found


def test_a_model_trained_for_days_is_not_a_training_record(rules):
    found = topics(
        rules,
        "A 7B Code Model",
        "Our 7B model was trained for 21 days on 512 GPUs and tops four code benchmarks.",
    )
    assert "training-parallelism" not in found


def test_deep_learning_scaled_onto_supercomputers_is_training_parallelism(rules):
    found = topics(
        rules,
        "Segmenting Storms at Scale",
        "We tune the input pipeline and the training algorithm to scale deep learning on the "
        "Frontier and Aurora systems, at a parallel efficiency of 88%.",
    )
    assert "training-parallelism" in found


def test_parallel_efficiency_of_a_solver_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "A Scalable Multigrid Solver",
        "Our multigrid solver reaches a parallel efficiency of 85% on 4,096 nodes.",
    )
    assert "training-parallelism" not in found


# --- hardware: machines counted bare; a TPU list --------------------------------------------------


def test_hundreds_of_machines_are_many_nodes(catalog):
    s = suggest(catalog, "Deployed in production, it cuts latency by 30% on hundreds of machines.")
    assert s.scale == "multi-node", s.target


def test_support_vector_machines_are_no_machines(catalog):
    s = suggest(catalog, "We compare with two support vector machines on three datasets.")
    assert s.scale == "unknown", s.target


def test_a_tpu_v2_v3_list_names_the_v3(catalog):
    s = suggest(catalog, "We benchmark Cloud TPU v2/v3 against one V100 GPU.")
    assert "tpu-v3" in s.devices, s.target
