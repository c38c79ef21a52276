"""Classes of the thirty-sixth and thirty-seventh blind splits' misses (docs/topics.md,
"Thirtieth topic round"; docs/hardware.md, "Thirtieth round"), fixed as the general rule each
is an instance of. Every example is hand-written in the field's own wording, none copied from a
labelled split; each class has look-alikes that must keep their reading. The rules are read
alone (`scoring.learned` off)."""

from __future__ import annotations

from tests.support.judgement import suggest, topics

# --- moe: the SMoE abbreviation; a size in active parameters ------------------------------------


def test_a_sparse_mixture_of_experts_named_with_its_abbreviation_is_moe(rules):
    found = topics(
        rules,
        "Shared Layers, Less Compute",
        "We add a Sparse Mixture of Experts (SMoE) to a weight-shared transformer and halve "
        "its compute on translation.",
    )
    assert "moe" in found


def test_a_model_size_in_active_parameters_supports_moe(rules):
    found = topics(
        rules,
        "Open Weights",
        "Our hybrid mixture of experts language model has 52B active parameters and a context "
        "of 256K tokens.",
    )
    assert "moe" in found


def test_active_parameters_of_a_dense_model_are_not_moe(rules):
    found = topics(
        rules,
        "Lean Fine-Tuning",
        "Only 2M active parameters are updated by our adapters while the backbone stays frozen.",
    )
    assert "moe" not in found


# --- serving: speculative decoding said by its steps ---------------------------------------------


def test_draft_generation_and_verification_is_serving(rules):
    found = topics(
        rules,
        "Guess and Check",
        "Autoregressive generation during inference is bound by memory bandwidth. Prompt "
        "tokens tuned into a frozen LLM make it semi-autoregressive, with draft candidate "
        "generation and verification in the same forward pass, raising the inference "
        "efficiency of existing LLMs 2.5x.",
    )
    assert "serving" in found


def test_a_search_that_drafts_and_verifies_is_not_serving(rules):
    found = topics(
        rules,
        "Faster Tuning Search",
        "Our tensor program tuner follows a draft-then-verify paradigm: a cheap model drafts "
        "candidates and the cost model verifies them, 2x faster than Ansor.",
    )
    assert "serving" not in found


# --- training parallelism: passive training on systems; swapping; gradients exchanged ---------


def test_models_trained_on_multi_gpu_systems_with_collectives_are_training_parallelism(rules):
    found = topics(
        rules,
        "Collectives as Code",
        "Large models are trained and served on large multi-GPU systems, where AllReduce and "
        "AllToAll collective communication algorithms become the bottleneck; our compiler "
        "lowers new collective algorithms for each topology.",
    )
    assert "training-parallelism" in found


def test_tensors_swapped_to_host_memory_for_training_are_training_parallelism(rules):
    found = topics(
        rules,
        "Bigger Batches",
        "Networks no longer fit the memory limits of GPUs during training. We rewrite the "
        "graph with swap-out and swap-in operations that keep activations in CPU memory.",
    )
    assert "training-parallelism" in found


def test_kv_swapping_to_host_memory_at_inference_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Long Chats",
        "Our serving engine swaps idle KV blocks to CPU memory and back, holding 3x more "
        "conversations at the same latency.",
    )
    assert "training-parallelism" not in found


def test_gossip_exchange_of_gradients_is_training_parallelism(rules):
    found = topics(
        rules,
        "Talk to Neighbours",
        "Workers exchange their gradients with one rotating partner instead of an AllReduce; "
        "this gossip averaging scales ResNet training with the same accuracy.",
    )
    assert "training-parallelism" in found


def test_gossip_in_a_peer_to_peer_network_is_not_training_parallelism(rules):
    found = topics(
        rules,
        "Rumours",
        "We model how gossip spreads in peer-to-peer networks and bound its delay.",
    )
    assert "training-parallelism" not in found


# --- kernels: primitive libraries, optimized operators, FFT convolutions ------------------------


def test_a_deep_learning_primitives_library_is_kernels(rules):
    found = topics(
        rules,
        "Primitives for Everyone",
        "We describe our deep learning primitives library for GPUs: highly optimized "
        "implementations of common operators, fused to save GPU launch overheads.",
    )
    assert "kernels" in found


def test_cryptographic_primitives_are_not_kernels(rules):
    found = topics(
        rules,
        "Private Training",
        "We build federated learning on cryptographic primitives so that no server sees a "
        "client's data.",
    )
    assert "kernels" not in found


def test_convolutions_computed_in_the_fourier_domain_on_gpus_are_kernels(rules):
    found = topics(
        rules,
        "Spectral Speed",
        "We compute convolutions as products in the Fourier domain and reuse transformed "
        "feature maps; the algorithm is implemented on a GPU architecture and trains "
        "networks 5x faster.",
    )
    assert "kernels" in found


def test_a_fourier_mixing_layer_is_not_kernels(rules):
    found = topics(
        rules,
        "Mixing Tokens",
        "Replacing attention with a Fourier transform layer keeps 92% of BERT's accuracy on GLUE.",
    )
    assert "kernels" not in found


# --- hardware: a GPU generation between the count and the model --------------------------------


def test_a_generation_between_count_and_model_keeps_the_count(catalog):
    s = suggest(catalog, "Throughput holds at 96% efficiency on 256 NVIDIA Volta V100 GPUs.")
    assert s.scale == "multi-node", s.target
    assert s.device_total == 256, s.target


def test_a_generation_named_as_a_feature_is_not_a_count(catalog):
    s = suggest(catalog, "Two Hopper features speed up attention on one H100.")
    assert s.scale == "single-device", s.target
    assert s.device_total == 1, s.target
