"""Classes of the twenty-eighth to thirty-first blind splits' misses (docs/topics.md,
"Twenty-eighth topic round"; docs/hardware.md, "Twenty-eighth round"), fixed as the general rule
each is an instance of. Every example is hand-written in the field's own wording, none copied
from a labelled split; each class has look-alikes that must keep their reading. The rules are
read alone (`scoring.learned` off)."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- moe: expert layers named by what they are -------------------------------------------------


def test_sparsely_gated_feed_forward_layers_are_moe(rules):
    found = topics(
        rules,
        "Mixed Blocks",
        "We search blocks that mix attention with sparsely gated feed-forward layers. A model "
        "with 4 billion activated parameters per token trains 2x faster than its dense twin.",
    )
    assert "moe" in found


def test_gated_linear_units_are_not_moe(rules):
    found = topics(
        rules,
        "Gates Help",
        "Gated feed-forward layers (GLU variants) improve perplexity of dense transformers.",
    )
    assert "moe" not in found


# --- serving: decoding made faster; models run over video ----------------------------------------


def test_blockwise_parallel_decoding_is_serving(rules):
    found = topics(
        rules,
        "Guess Ahead",
        "We propose a blockwise parallel decoding scheme that predicts several tokens and "
        "keeps the longest verified prefix, giving 3x real-time speedups over standard greedy "
        "decoding and a lower inference latency.",
    )
    assert "serving" in found


def test_parallel_decoding_of_channel_codes_is_not_serving(rules):
    found = topics(
        rules,
        "Fast Codes",
        "We decode LDPC codes in parallel on a DSP and halve the bit error rate.",
    )
    assert "serving" not in found


def test_neural_network_queries_over_video_are_serving(rules):
    found = topics(
        rules,
        "Cheap Eyes",
        "Neural network inference over every frame is expensive. For video analytics we train "
        "cascades of small models per camera and answer neural network queries 100x faster, "
        "at a fraction of the inference cost.",
    )
    assert "serving" in found


def test_a_video_analytics_survey_alone_is_not_serving(rules):
    found = topics(rules, "Cameras in Cities", "We survey video analytics datasets of 40 cities.")
    assert "serving" not in found


# --- training parallelism: training spread over stated machines; attention split over devices ----


def test_scaling_training_to_thousands_of_nodes_is_training_parallelism(rules):
    found = topics(
        rules,
        "Science at Petascale",
        "We scale training of a single model to 8192 CPU nodes with synchronous groups.",
    )
    assert "training-parallelism" in found


def test_scaling_inference_to_many_gpus_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Serving Wide",
        "We scale inference of a single model to 64 GPUs with a new router.",
    )
    assert "training-parallelism" not in found


def test_attention_distributed_across_devices_for_training_is_training_parallelism(rules):
    found = topics(
        rules,
        "Balanced Rings",
        "Ring Attention distributes self-attention across multiple devices; for causal "
        "transformer training we stripe tokens so every device does equal work, raising "
        "training throughput 1.4x.",
    )
    assert "training-parallelism" in found


def test_ring_attention_at_inference_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Long Prompts, Many Chips",
        "We serve million-token prompts with ring attention and cut time to first token by 2x.",
    )
    assert "training-parallelism" not in found


# --- kernels: sparse operations on a device; libraries and compilers said otherwise -------------


def test_sparse_operations_on_an_accelerator_are_kernels(rules):
    found = topics(
        rules,
        "Blocks on Chips",
        "Our library runs fast sparse operations on Graphcore IPUs and is faster than dense "
        "matrix multiplications at 90% sparsity.",
    )
    assert "kernels" in found


def test_sparse_operations_on_graphs_are_not_kernels(rules):
    found = topics(
        rules,
        "Graph Queries",
        "We add sparse operations on property graphs to a query language for analysts.",
    )
    assert "kernels" not in found


def test_backends_of_tensor_algebra_libraries_in_tvm_are_kernels(rules):
    found = topics(
        rules,
        "Pick the Backend",
        "Frameworks call optimized tensor algebra libraries as backends. We place each "
        "operator on the fastest backend automatically and ship it in Apache TVM.",
    )
    assert "kernels" in found


def test_a_tensor_algebra_library_for_teaching_is_not_kernels(rules):
    found = topics(rules, "Algebra for Physics", "A tensor algebra library for physics classes.")
    assert "kernels" not in found


def test_a_memory_efficient_convolution_is_kernels(rules):
    found = topics(
        rules,
        "Lean Lowering",
        "Indirect convolution algorithms such as im2col waste memory. Our memory-efficient "
        "convolution lowers inputs compactly, improving memory access patterns, and runs small "
        "matrix multiplications.",
    )
    assert "kernels" in found


def test_convolution_algorithms_for_audio_are_not_kernels(rules):
    found = topics(rules, "Reverb", "We compare convolution algorithms for game audio reverb.")
    assert "kernels" not in found


def test_code_optimization_for_neural_network_compilation_is_kernels(rules):
    found = topics(
        rules,
        "Faster Tuning",
        "Tuning code for deep neural network compilation takes hours. Our sampler explores "
        "schedules of tensor programs with fewer hardware measurements and tunes 4x faster "
        "than AutoTVM.",
    )
    assert "kernels" in found


# --- hardware: the Xeon Phi; the phone class said otherwise; the IPU -------------------------


def test_xeon_phi_nodes_are_not_server_xeons(catalog):
    s = suggest(catalog, "We scale training to 9600 Xeon-Phi nodes of a supercomputer.")
    assert "xeon" not in s.devices, s.target
    assert s.scale == "multi-node"


def test_a_xeon_gold_is_still_a_xeon(catalog):
    s = suggest(catalog, "All runs use one Intel Xeon Gold 6148 CPU.")
    assert s.devices == ["xeon"], s.target


def test_mobile_and_server_platforms_name_the_phone_class(catalog):
    s = suggest(catalog, "Our convolution gives good speedups on both mobile and server platforms.")
    assert "mobile-soc" in s.devices, s.target


def test_an_engine_tailored_to_mobile_applications_reads_edge(catalog):
    s = suggest(catalog, "We present an inference engine tailored to mobile applications.")
    assert s.scale == "edge", s.target


def test_a_library_timed_on_the_ipu_reads_one_ipu(catalog):
    s = suggest(
        catalog,
        "We benchmark block-sparse matrix multiplication kernels on IPU and report speedups.",
    )
    assert s.devices == ["graphcore-ipu"], s.target
    assert s.scale == "single-device"
