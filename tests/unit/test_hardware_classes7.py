"""The hardware error classes of the seventh blind split (docs/hardware.md, "Eighth round"), each
as hand-written examples with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

_OPENING = "Language models keep growing and so does the memory they need. "

# --- not a reproduction target: modelled hardware, simulators ---------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "CacheShift: Offloading Attention State for a 671B Model",
            _OPENING + "We move attention state of DeepSeek-V3 to host memory and keep the hot "
            "part on the GPU. Our high-fidelity simulations show 60% more decode throughput.",
        ),
        (
            "Stacked SRAM for Long-Context Decoding",
            _OPENING + "This work proposes a prefetch scheduler with large on-chip memories for "
            "Llama-70B decoding, evaluated on GPU-like hardware with 1 GB of extra SRAM: 3x "
            "faster decoding.",
        ),
        (
            "Fast What-If Exploration of Training Clusters",
            _OPENING + "Choosing a network fabric for 100,000 GPUs needs thousands of runs. We "
            "introduce Pathfinder, a GPU-accelerated network simulator, which matches real "
            "traces within 2% and runs 40x faster than packet-level tools.",
        ),
    ],
)
def test_modelled_hardware_and_simulators_are_not_targets(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.target.startswith("not a reproduction target"), s.target
    assert s.scale == "unknown"


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # A setup stated beside the simulation keeps the paper a target.
        (
            "We serve Llama-70B on 8 H100 GPUs; high-fidelity simulations of larger "
            "clusters confirm the trend.",
            "single-node",
        ),
        # "like" used as an example, not a modelled chip.
        ("We fine-tune a 7B model on one A100 GPU, like prior work.", "single-device"),
    ],
)
def test_a_stated_setup_beside_a_simulation_stays_a_target(catalog, abstract, scale):
    s = suggest(catalog, abstract)
    assert not s.target.startswith("not a reproduction target"), s.target
    assert s.scale == scale, s.target


# --- edge cues without a device ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Dataflow Compilation for Edge-Side NPUs",
            "We extend the compiler of edge NPUs to keep tensors on chip and cut memory traffic "
            "by 40%.",
        ),
        (
            "ExpertSwap: MoE Inference with a Memory Budget",
            "Running MoE models on memory-constrained devices is hard. We keep a few experts in "
            "memory under a tunable memory budget and cut memory from 12 GiB to 4 GiB.",
        ),
    ],
)
def test_edge_cues_without_a_device_are_edge(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "edge", s.target


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        # A memory budget alone (a server GPU's KV cache) is not an edge device.
        (
            "KV Cache Eviction under a Limited Memory Budget",
            "We evict KV entries to fit a memory budget and keep accuracy on long contexts.",
        ),
        # "memory-constrained devices" named once in passing, no budget: still weak.
        (
            "Sparse Attention for Long Documents",
            "Our attention also helps memory-constrained devices and improves accuracy.",
        ),
    ],
)
def test_edge_look_alikes_stay_off_the_edge(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale != "edge", s.target


# --- a stated intra-node setup caps the scale at one node -----------------------------------------


def test_intra_node_parallelism_is_never_sized_past_one_node(catalog):
    abstract = (
        _OPENING + "We study intra-node parallelization schemes for serving Llama-3.1-405B "
        "and how batching changes latency."
    )
    s = suggest(catalog, abstract, "Tensor Parallel Serving of Dense LLMs")
    assert s.scale == "single-node", s.target


def test_a_large_model_without_an_intra_node_statement_is_still_sized_past_one_node(catalog):
    abstract = _OPENING + "We study batching for serving Llama-3.1-405B and its latency."
    s = suggest(catalog, abstract, "Serving Dense LLMs")
    assert s.scale == "multi-node", s.target


# --- single-GPU cues and compiler papers that time operators on one GPU ----------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Streaming Layers for Wide Networks",
            "We train networks larger than the available GPU memory by streaming layers from "
            "host memory, at 70% of in-memory speed.",
        ),
        (
            "Replicas for Small Models",
            "Small models leave compute idle, so we run four replicas within one GPU's "
            "spare memory and double throughput.",
        ),
        (
            "LoopForge: Joint Loop and Layout Tuning",
            "A DL compiler that tunes loop transformations and tensor layouts together; it "
            "beats cuDNN by 1.5x on single operators.",
        ),
        (
            "Tiles All the Way Down",
            "A tile-based programming language for DL operators; its generated code is 2x "
            "faster than existing DL compilers.",
        ),
    ],
)
def test_single_gpu_cues_and_compiler_papers_are_one_device(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "single-device", s.target


@pytest.mark.parametrize(
    ("title", "abstract", "scale"),
    [
        # Larger than one GPU's memory, split over several: not one device.
        (
            "Sharded Giants",
            "Models larger than GPU memory are split across multiple GPUs of one server "
            "with tensor parallelism.",
            "single-node",
        ),
        # A compiler paper that only generates code (correctness rates) times nothing.
        (
            "Verified Lowering",
            "A DL compiler pass with formal verification of the loop transformations it applies.",
            "unknown",
        ),
    ],
)
def test_single_gpu_look_alikes_keep_their_reading(catalog, title, abstract, scale):
    s = suggest(catalog, abstract, title)
    assert s.scale == scale, s.target
