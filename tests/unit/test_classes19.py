"""Classes of the nineteenth blind split's disagreements (docs/topics.md and docs/hardware.md,
"Twentieth round"), fixed as the general rule each is an instance of. Every example is
hand-written in the field's own wording, none copied from a labelled split; each class has
look-alikes that must keep their reading."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- hardware: a name given in brackets after its description is the paper's own -------------


def test_a_bracketed_name_speaks_for_the_paper(catalog):
    s = suggest(
        catalog,
        "Serving long contexts is memory-bound. We propose a hierarchically sharded cache "
        "(\\textbf{HiSC}) technique for attention states. For instance, a 13B model can be "
        "served with HiSC on a single H100 within 2 ms per token.",
    )
    assert s.scale == "single-device", s.target
    assert "h100" in s.devices


def test_an_example_of_someone_elses_setup_stays_background(catalog):
    s = suggest(
        catalog,
        "Serving long contexts is memory-bound. We propose a hierarchically sharded cache "
        "(\\textbf{HiSC}) technique for attention states. For instance, existing systems serve "
        "a 13B model on a single H100 within 2 ms per token.",
    )
    assert s.scale != "single-device", s.target


# --- hardware: "A100-40G" is the 40 GB card --------------------------------------------------


def test_a_memory_size_without_its_b_still_names_the_variant(catalog):
    s = suggest(catalog, "We quantize the model on one A100-40G GPU in two hours.")
    assert "a100-40gb" in s.devices, s.devices


# --- hardware: the offloading setting said as the two memories --------------------------------


def test_host_memory_beside_gpu_memory_is_one_gpu(catalog):
    s = suggest(
        catalog,
        "Our MoE inference engine uses both the host's main memory, which is cheap, and GPU "
        "memory, keeping only hot experts on the GPU.",
    )
    assert s.scale == "single-device", s.target


def test_parameters_offloaded_to_host_memory_are_one_gpu(catalog):
    s = suggest(
        catalog,
        "Sparse activation lets the unused parameters be offloaded to host memory; our cache "
        "prefetches them before each layer.",
    )
    assert s.scale == "single-device", s.target


def test_host_memory_beside_a_cluster_keeps_the_cluster(catalog):
    s = suggest(
        catalog,
        "We keep cold experts in host memory and hot ones in GPU memory on each of 32 nodes "
        "of 8 H100 GPUs.",
    )
    assert s.scale == "multi-node", s.target


# --- hardware: a vague count yields to the paper's own cluster --------------------------------


def test_multiple_devices_of_a_distributed_cluster_are_many_machines(catalog):
    s = suggest(
        catalog,
        "Model parallelism multiplexes multiple devices between models. Our serving system "
        "places collections of models across a distributed cluster.",
    )
    assert s.scale == "multi-node", s.target


def test_multiple_devices_alone_stay_one_node(catalog):
    s = suggest(
        catalog,
        "Model parallelism multiplexes multiple devices between models; our placement "
        "cuts latency by 3x.",
    )
    assert s.scale == "single-node", s.target


# --- topics: running models on embedded systems is on-device inference ------------------------


def test_an_inference_framework_for_embedded_systems_is_serving(taxonomy):
    found = topics(
        taxonomy,
        "PicoRT: A Runtime for Microcontrollers",
        "We present PicoRT, an open-source inference framework for running neural networks "
        "on embedded systems with 16 KB of RAM.",
    )
    assert "serving" in found


def test_embedded_systems_as_a_field_are_not_serving(taxonomy):
    found = topics(
        taxonomy,
        "Fault Injection in Automotive Controllers",
        "We study bit flips in embedded systems of cars and propose a checker that runs on "
        "each controller.",
    )
    assert "serving" not in found
