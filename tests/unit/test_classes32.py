"""Classes of the fortieth and forty-first blind splits' misses (docs/topics.md, "Thirty-second
topic round"; docs/hardware.md, "Thirty-second round"), fixed as the general rule each is an
instance of. Every example is hand-written in the field's own wording, none copied from a
labelled split; each class has look-alikes that must keep their reading. The rules are read
alone (`scoring.learned` off)."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- kernels: computational kernels, the polyhedral model, implementations on today's CPUs ------


def test_computational_kernels_are_kernels(rules):
    found = topics(
        rules,
        "Portable Speed",
        "Our generator writes new computational kernels for each accelerator and retunes "
        "existing computational kernels in minutes.",
    )
    assert "kernels" in found


def test_the_computational_cost_of_kernel_methods_is_not_kernels(rules):
    found = topics(
        rules,
        "Cheaper Kernel Regression",
        "The computational cost of kernel ridge regression grows cubically; our sketch makes it "
        "linear in the number of samples.",
    )
    assert "kernels" not in found


def test_the_polyhedral_model_over_a_models_operators_is_kernels(rules):
    found = topics(
        rules,
        "Better Memory-Access Patterns on NPUs",
        "We apply the polyhedral model to the loop nests of every operator of a network and "
        "halve the memory accesses of an inference chip.",
    )
    assert "kernels" in found


def test_polyhedral_meshes_are_not_kernels(rules):
    found = topics(
        rules,
        "Learning on Meshes",
        "A graph network learns fluid dynamics on polyhedral meshes and generalizes to new "
        "geometries.",
    )
    assert "kernels" not in found


def test_implementations_on_modern_cpus_with_vector_units_are_kernels(rules):
    found = topics(
        rules,
        "Sparse Training, Wide Registers",
        "Deep learning implementations on modern CPUs leave their vector units idle; we "
        "vectorize hash-based sparse back-propagation and gain 5x.",
    )
    assert "kernels" in found


def test_a_framework_that_runs_on_cpus_is_not_kernels(rules):
    found = topics(
        rules,
        "Train Anywhere",
        "Our framework trains recommendation models on commodity CPUs when no GPU is at hand "
        "and matches their accuracy.",
    )
    assert "kernels" not in found


# --- hardware -----------------------------------------------------------------------------------


def test_an_evaluations_list_of_models_is_its_own(catalog):
    s = suggest(
        catalog,
        "Long contexts make the KV cache large. We evict pairs a reconstruction pass finds "
        "unimportant. Evaluations include several models such as Llama-3-8B and Qwen2.5-14B "
        "with contexts up to 128K tokens.",
    )
    assert s.scale == "single-device", s.target
    assert {m["role"] for m in s.model_sizes} <= {"own", "neutral"}, s.model_sizes


def test_models_such_as_in_motivation_stay_background(catalog):
    s = suggest(
        catalog,
        "Serving is costly. Large models such as GPT-3 175B need many GPUs to serve. We "
        "propose a cache for prompts.",
    )
    assert s.model_sizes, s
    assert all(m["role"] == "background" for m in s.model_sizes), s.model_sizes


def test_a_single_gpu_that_cannot_hold_the_model_is_not_the_setup(catalog):
    s = suggest(
        catalog,
        "Embedding tables reach terabytes. Since a single GPU cannot hold all the embeddings, "
        "we shard them across the host memory of the training servers.",
    )
    assert s.scale != "single-device", s.target


def test_a_single_gpu_that_holds_the_model_is_the_setup(catalog):
    s = suggest(catalog, "With our packing, a single GPU can hold the whole 7B model.")
    assert s.scale == "single-device", s.target


def test_an_analytical_model_checked_by_evaluations_on_machines_is_a_real_run(catalog):
    s = suggest(
        catalog,
        "We pick parallelization schemes with an analytical performance model. We conduct "
        "evaluations on two kinds of GPU machines with VGG and Transformer models.",
    )
    assert "modelled" not in s.target, s.target


def test_an_analytical_model_alone_is_modelled_hardware(catalog):
    s = suggest(
        catalog,
        "We build an analytical performance model of pipeline schedules and use it to pick the "
        "best schedule for large GPU clusters.",
    )
    assert "modelled" in s.target, s.target
