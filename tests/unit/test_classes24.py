"""Classes of the twenty-third blind split's misses (docs/topics.md, "Twenty-fourth topic
round"; docs/hardware.md, "Twenty-fourth round"), fixed as the general rule each is an instance
of. Every example is hand-written in the field's own wording, none copied from a labelled
split; each class has look-alikes that must keep their reading."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- kernels: a primitive computed with fewer memory accesses, operators fused ------------------


def test_layernorm_with_fewer_memory_accesses_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "One-Pass LayerNorm",
        "We compute LayerNorm statistics in one pass, with fewer memory accesses than the "
        "two-pass method; LayerNorm+GELU combined and fused runs 2.1x faster on real hardware.",
    )
    assert "kernels" in found


def test_a_model_with_fewer_memory_accesses_is_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Tiny Recommenders",
        "Our embedding compression gives a model that needs fewer memory accesses per query and "
        "keeps accuracy on three datasets.",
    )
    assert "kernels" not in found


# --- kernels: an attention implementation for accelerators -------------------------------------


def test_an_attention_implementation_for_accelerators_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Chunked Attention in Linear Memory",
        "Processing attention in chunks needs memory linear in sequence length. We give an "
        "implementation for TPUs whose runtime is within 5% of the usual implementation of "
        "attention.",
    )
    assert "kernels" in found


def test_a_model_released_with_an_implementation_is_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Better Retrieval Heads",
        "We add retrieval heads to a language model and release an implementation in PyTorch; "
        "accuracy improves on four benchmarks.",
    )
    assert "kernels" not in found


# --- kernels: kernels from libraries, standalone kernels ----------------------------------------


def test_an_operator_abstraction_measured_on_standalone_kernels_is_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Portable Tensor Operators",
        "Models call fixed kernels from vendor libraries or slow reference code. Our set of "
        "small tensor operators composes into new layers; standalone kernels and whole models "
        "built from it match the libraries.",
    )
    assert "kernels" in found


def test_a_kernel_method_library_is_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "A Library of Gaussian Kernels",
        "We describe a statistics library of Gaussian kernels for density estimation and its "
        "bandwidth selection.",
    )
    assert "kernels" not in found


# --- kernels: a device's CUDA cores are a spec, not kernel work ---------------------------------


def test_cuda_cores_of_a_board_in_a_power_study_are_not_kernels(taxonomy):
    found = topics(
        taxonomy,
        "A Roofline View of Edge Boards",
        "Edge boards with 1024 CUDA cores offer many power modes. We build a roofline model per "
        "power mode and explain why the fastest mode wastes energy; the roofline predicts "
        "latency within 8%.",
    )
    assert "kernels" not in found


def test_cuda_kernels_beside_cuda_cores_are_kernels(taxonomy):
    found = topics(
        taxonomy,
        "Mixed-Unit GEMM",
        "Our CUDA kernels split each GEMM between tensor cores and CUDA cores.",
    )
    assert "kernels" in found


# --- training-parallelism: distributed synchronous SGD -------------------------------------------


def test_distributed_synchronous_sgd_over_many_gpus_is_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "Scaling Batch Size for Speech Models",
        "Distributed synchronous SGD splits each minibatch over parallel workers. We keep "
        "accuracy at batch 16k with a warmup rule and train in two hours on 512 GPUs.",
    )
    assert "training-parallelism" in found


def test_synchronous_sgd_on_one_device_is_not_training_parallelism(taxonomy):
    found = topics(
        taxonomy,
        "A Note on SGD Noise",
        "We analyse the noise of synchronous SGD in a toy model and relate it to sharp minima.",
    )
    assert "training-parallelism" not in found


# --- hardware: cloud instance types, real jobs beside a simulation, a datacenter chip ----------


def test_aws_instances_are_their_gpus(catalog):
    s = suggest(catalog, "We train on 16 p4d.24xlarge instances and reach 52% MFU.")
    assert s.scale == "multi-node", s.target
    assert s.devices == ["a100-40gb"], s.target
    assert s.device_total == 128, s.target


def test_one_aws_instance_is_one_node(catalog):
    s = suggest(catalog, "All runs use one p3.16xlarge instance.")
    assert s.scale == "single-node", s.target
    assert s.devices == ["v100-16gb"], s.target


def test_real_jobs_beside_a_simulation_are_a_real_run(catalog):
    s = suggest(
        catalog,
        "Our scheduler packs training jobs on GPU clusters. In experiments with real training "
        "jobs and with trace-driven simulations it cuts job completion time by 30%.",
    )
    assert s.scale == "multi-node", s.target


def test_a_simulation_of_real_job_traces_is_still_a_simulation(catalog):
    s = suggest(
        catalog,
        "We replay real job traces in trace-driven simulations of a GPU cluster and cut queueing "
        "delay by 30%.",
    )
    assert s.scale == "unknown", s.target


def test_a_chip_deployed_in_datacenters_is_no_cluster(catalog):
    s = suggest(
        catalog,
        "We compare our in-datacenter accelerator with datacenter GPUs of the same year, chip "
        "against chip.",
        title="In-Datacenter Analysis of an Inference Chip",
    )
    assert s.scale != "multi-node", s.target


def test_training_in_datacenters_is_still_many_machines(catalog):
    s = suggest(
        catalog,
        "Large-scale distributed training in datacenters is bottlenecked by the network; we "
        "cut its traffic by 10x.",
    )
    assert s.scale == "multi-node", s.target
