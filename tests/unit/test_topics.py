"""Golden tests for the topic classifier, its taxonomy loader and its evaluation."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from digest_tui.enrich.topics.classifier import KEYWORD_SEPARATOR, classify, explain
from digest_tui.enrich.topics.taxonomy import Taxonomy, load_taxonomy
from digest_tui.errors import TaxonomyError

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/evaluation: the evaluation code lives beside the scripts

from evaluation.topic_eval import (  # noqa: E402
    LabelledPaper,
    PaperText,
    evaluate,
    format_report,
    load_labels,
    read_digest_papers,
)

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ["kernels", "moe", "serving", "training-parallelism"]


def topics_of(taxonomy: Taxonomy, abstract: str, title: str = "") -> list[str]:
    return classify(taxonomy, title, abstract).topics


def phrases(taxonomy: Taxonomy, topic: str, abstract: str, title: str = "") -> list[str]:
    return [ev.phrase.lower() for ev in explain(taxonomy, title, abstract)[topic][1]]


# --- the packaged taxonomy ------------------------------------------------------------------


def test_builtin_topics_in_display_order(taxonomy: Taxonomy) -> None:
    assert taxonomy.ids == BUILTIN
    assert [t.label for t in taxonomy.topics] == [
        "Kernels",
        "MoE",
        "Serving",
        "Training parallelism",
    ]
    assert all(t.description for t in taxonomy.topics)


def test_fingerprint_is_stable(taxonomy: Taxonomy) -> None:
    assert load_taxonomy().fingerprint == taxonomy.fingerprint
    assert len(taxonomy.fingerprint) == 16


def test_empty_paper_is_other(taxonomy: Taxonomy) -> None:
    result = classify(taxonomy, "", "")
    assert result.topics == [] and result.evidence == {}


# --- ambiguous words, each in both senses ---------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We replace the neurons of an MLP with Gaussian kernels and fit radiance fields.",
        "Using the kernel trick, our kernel ridge regression scales to large datasets.",
        "We estimate the density with kernel density estimation and a learned bandwidth.",
        "Larger convolution kernel sizes improve the receptive field of the CNN backbone.",
        "A single layer of Radial Basis Function (RBF) kernels represents 3D signals.",
        "We analyse the neural tangent kernel of wide networks at initialisation.",
    ],
)
def test_kernel_methods_are_not_kernels(taxonomy: Taxonomy, abstract: str) -> None:
    assert "kernels" not in topics_of(taxonomy, abstract)


@pytest.mark.parametrize(
    "abstract",
    [
        "We write a fused CUDA kernel for RMSNorm and all-reduce that runs on few SMs.",
        "Our Triton kernels for attention reach 70% of peak FLOPs on H100 tensor cores.",
        "HIP kernels for GEMM and attention on AMD GPUs rival hand-written assembly.",
        "An LLM agent generates and tunes GPU kernels, verified on KernelBench.",
    ],
)
def test_compute_kernels_are_kernels(taxonomy: Taxonomy, abstract: str) -> None:
    assert "kernels" in topics_of(taxonomy, abstract)


def test_gaussian_kernel_gives_no_evidence_but_cuda_kernel_does(taxonomy: Taxonomy) -> None:
    assert phrases(taxonomy, "kernels", "We smooth it with a Gaussian kernel.") == []
    # (fourteenth topic round) the whole fused operator is the evidence
    assert phrases(taxonomy, "kernels", "We smooth it with a fused CUDA kernel.") == [
        "fused cuda kernel"
    ]


@pytest.mark.parametrize(
    "abstract",
    [
        "The workflow mimics human experts, who inspect failures and iterate on designs.",
        "We collected annotations from domain experts and expert feedback on every answer.",
        "Participants need not be machine learning experts to join the competition.",
    ],
)
def test_people_experts_are_not_moe(taxonomy: Taxonomy, abstract: str) -> None:
    assert "moe" not in topics_of(taxonomy, abstract)
    assert phrases(taxonomy, "moe", abstract) == []


def test_mixture_of_experts_is_moe(taxonomy: Taxonomy) -> None:
    abstract = (
        "Mixture-of-Experts (MoE) models route each token to a few experts; we balance "
        "expert placement across GPUs to cut all-to-all traffic."
    )
    assert "moe" in topics_of(taxonomy, abstract)


def test_mixture_of_block_attention_is_not_moe(taxonomy: Taxonomy) -> None:
    abstract = "Mixture of Block Attention (MoBA) lets queries attend to a few key-value blocks."
    assert "moe" not in topics_of(taxonomy, abstract)


def test_one_passing_moe_mention_is_not_enough_in_an_abstract(taxonomy: Taxonomy) -> None:
    assert "moe" not in topics_of(taxonomy, "Our method also applies to MoE models.")
    assert "moe" in topics_of(taxonomy, "Results on three models.", title="Fast MoE Layers")


@pytest.mark.parametrize(
    "abstract",
    [
        "We study causal inference from observational data with instrumental variables.",
        "Variational inference and Bayesian inference give calibrated posteriors.",
        "Inference-time scaling and more test-time compute improve the verifier.",
        "Statistical inference on the estimates uses bootstrap confidence intervals.",
    ],
)
def test_statistical_inference_is_not_serving(taxonomy: Taxonomy, abstract: str) -> None:
    assert "serving" not in topics_of(taxonomy, abstract)


def test_serving_systems_are_serving(taxonomy: Taxonomy) -> None:
    abstract = (
        "We present an LLM serving system with continuous batching and a paged KV cache that "
        "improves throughput under latency SLOs."
    )
    assert "serving" in topics_of(taxonomy, abstract)


def test_serving_as_a_verb_is_not_serving(taxonomy: Taxonomy) -> None:
    assert phrases(taxonomy, "serving", "The dataset, serving as a benchmark, is public.") == []


def test_method_acronym_sla_is_not_a_service_level_agreement(taxonomy: Taxonomy) -> None:
    abstract = "SLA (Sparse-Linear Attention) fuses sparse and linear attention. SLA is fast."
    assert "serving" not in topics_of(taxonomy, abstract, title="SLA: Sparse-Linear Attention")


def test_frontier_supercomputer_versus_frontier_models(taxonomy: Taxonomy) -> None:
    supercomputer = "We train a 1T-parameter model on Frontier, the exascale supercomputer."
    models = "Frontier models such as GPT-4 and the accuracy-latency frontier of small models."
    assert "frontier" in phrases(taxonomy, "training-parallelism", supercomputer)
    assert "frontier" not in phrases(taxonomy, "training-parallelism", models)
    assert "training-parallelism" not in topics_of(taxonomy, models)


@pytest.mark.parametrize(
    "abstract",
    [
        "We mine parallel corpora to train the translation model.",
        "Parallel decoding and parallel sampling of draft tokens speed up generation.",
        "Massively parallel RL environments run on one GPU in JAX.",
    ],
)
def test_parallel_in_other_senses_is_not_training_parallelism(
    taxonomy: Taxonomy, abstract: str
) -> None:
    assert "training-parallelism" not in topics_of(taxonomy, abstract)


def test_pipeline_parallel_training_is_training_parallelism(taxonomy: Taxonomy) -> None:
    abstract = "We combine tensor and pipeline parallelism to train a 175B model on 1,024 GPUs."
    assert "training-parallelism" in topics_of(taxonomy, abstract)


# --- multi-label, evidence, fields ----------------------------------------------------------


def test_multi_label(taxonomy: Taxonomy) -> None:
    result = classify(
        taxonomy,
        "Training MoE Models with Expert Parallelism and Fused Kernels",
        "We fuse expert computation and all-to-all communication into one persistent GPU "
        "kernel, overlapping communication with computation in distributed training.",
    )
    assert result.topics == ["kernels", "moe", "training-parallelism"]
    assert set(result.evidence) == set(result.topics)


def test_evidence_offsets_point_at_the_phrase(taxonomy: Taxonomy) -> None:
    title = "Fast LLM Serving with a Paged KV Cache"
    abstract = "Speculative decoding on İstanbul's GPUs; the KV-cache lives in HBM."
    keywords = ["speculative decoding", "KV cache"]
    result = classify(taxonomy, title, abstract, keywords)
    texts = {"title": title, "abstract": abstract, "keywords": KEYWORD_SEPARATOR.join(keywords)}
    evidence = result.evidence["serving"]
    assert {ev.field for ev in evidence} == {"title", "abstract", "keywords"}
    for ev in evidence:
        assert texts[ev.field][ev.start : ev.end] == ev.phrase
    assert "KV-cache" in [ev.phrase for ev in evidence]


def test_title_weighs_more_than_abstract(taxonomy: Taxonomy) -> None:
    in_title = classify(taxonomy, "Tensor Parallelism", "").scores["training-parallelism"]
    in_abstract = classify(taxonomy, "", "Tensor parallelism").scores["training-parallelism"]
    assert in_title == 2 * in_abstract


def test_keywords_count_as_evidence(taxonomy: Taxonomy) -> None:
    result = classify(taxonomy, "A Paper", "We study a system.", ["Mixture-of-Experts", "MoE"])
    assert "moe" in result.topics
    assert {ev.field for ev in result.evidence["moe"]} == {"keywords"}


def test_urls_are_not_evidence(taxonomy: Taxonomy) -> None:
    abstract = "Code: https://github.com/org/sequence-parallelism and github.com/x/kv-cache."
    assert classify(taxonomy, "", abstract).topics == []


# --- the user's taxonomy in the config dir --------------------------------------------------

USER_TAXONOMY = """
topics:
  - id: quantization
    label: Quantization
    description: Low-bit weights and activations.
    threshold: 3
    patterns:
      - phrase: [post-training quantization, quantization-aware training]
        weight: 3
      - regex: int[48]|fp[48]
        weight: 1
  - id: serving
    enabled: false
  - id: kernels
    add_patterns:
      - phrase: ptx assembly
        weight: 4
"""


def test_user_taxonomy_adds_and_disables_topics(tmp_path: Path, taxonomy: Taxonomy) -> None:
    (tmp_path / "taxonomy.yaml").write_text(USER_TAXONOMY, encoding="utf-8")
    user = load_taxonomy(tmp_path)
    assert user.ids == ["kernels", "moe", "training-parallelism", "quantization"]
    assert user.topic("quantization").label == "Quantization"  # type: ignore[union-attr]
    assert user.fingerprint != taxonomy.fingerprint
    result = classify(
        user,
        "Post-Training Quantization for LLM Serving",
        "We serve INT4 models with a KV cache and continuous batching.",
    )
    assert result.topics == ["quantization"]
    assert [ev.phrase for ev in result.evidence["quantization"]] == [
        "Post-Training Quantization",
        "INT4",
    ]
    assert "kernels" in classify(user, "", "We hand-write PTX assembly for it.").topics
    assert "kernels" not in classify(taxonomy, "", "We hand-write PTX assembly for it.").topics


def test_user_scoring_override(tmp_path: Path) -> None:
    (tmp_path / "taxonomy.yaml").write_text("scoring:\n  title_weight: 3\n", encoding="utf-8")
    assert load_taxonomy(tmp_path).scoring.title_weight == 3


def test_no_user_file_means_packaged(tmp_path: Path, taxonomy: Taxonomy) -> None:
    assert load_taxonomy(tmp_path).fingerprint == taxonomy.fingerprint


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("topics: [unclosed", "not valid YAML"),
        ("- just a list\n", "expected a mapping"),
        (
            "topics:\n  - id: quantization\n    label: Q\n    patterns:\n"
            "      - phrase: int4\n        weight: -1\n",
            "topics[0] (id 'quantization').patterns[0].weight",
        ),
        (
            "topics:\n  - id: quantization\n    label: Q\n    patterns:\n"
            "      - regex: '(unclosed'\n        weight: 1\n",
            "invalid regular expression",
        ),
        ("topics:\n  - id: quantization\n    description: no label\n", "needs 'label'"),
        ("topics:\n  - id: nonesuch\n    enabled: false\n", "names no known topic"),
        ("topics:\n  - id: kernels\n    patterns: []\n", "topics[0] (id 'kernels')"),
        ("topics:\n  - id: Bad Id\n    label: x\n", "topics[0] (id 'Bad Id').id"),
        ("topic:\n  - id: typo\n", "topic: Extra inputs are not permitted"),
        ("topics:\n  - id: other\n    label: x\n", "reserved for papers in no topic"),
        # a pattern that lost its `- regex:` line: its weight would silently replace the one
        # before (YAML keeps the last of two equal keys)
        (
            "topics:\n  - id: kernels\n    add_patterns:\n      - phrase: ptx\n"
            "        weight: 2\n        weight: 4\n",
            ":6: 'weight' is given twice in the same mapping",
        ),
    ],
)
def test_broken_user_taxonomy_names_file_and_field(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "taxonomy.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TaxonomyError) as caught:
        load_taxonomy(tmp_path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_disabling_every_topic_is_an_error(tmp_path: Path) -> None:
    lines = "".join(f"  - id: {t}\n    enabled: false\n" for t in BUILTIN)
    (tmp_path / "taxonomy.yaml").write_text("topics:\n" + lines, encoding="utf-8")
    with pytest.raises(TaxonomyError, match="every topic is disabled"):
        load_taxonomy(tmp_path)


# --- papers the rules were not written against (paraphrased well-known abstracts) ----------

HELD_OUT = [
    (
        "Efficient Memory Management for Large Language Model Serving with PagedAttention",
        "High-throughput serving of LLMs needs batching many requests, but the key-value cache "
        "memory of each request is huge and grows dynamically. We propose PagedAttention and "
        "build vLLM, which achieves near-zero waste in KV cache memory.",
        {"serving"},
    ),
    (
        "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism",
        "We introduce a pipeline parallelism library that scales any network expressible as a "
        "sequence of layers by partitioning it across accelerators with micro-batches.",
        {"training-parallelism"},
    ),
    (
        "Switch Transformers: Scaling to Trillion Parameter Models with Simple and Efficient "
        "Sparsity",
        "Mixture of Experts models select different parameters for each input. We simplify the "
        "routing algorithm and reduce communication, training sparse models up to a trillion "
        "parameters.",
        {"moe"},
    ),
    (
        "Triton: An Intermediate Language and Compiler for Tiled Neural Network Computations",
        "We present a language and compiler centred on the tile to write efficient GPU kernels "
        "for matrix multiplication and convolutions that match hand-tuned vendor libraries.",
        {"kernels"},
    ),
    (
        "Attention Is All You Need",
        "We propose the Transformer, based solely on attention, which is more parallelizable "
        "and trains in 3.5 days on eight GPUs, a small fraction of the training costs.",
        set(),
    ),
    (
        "Neural Tangent Kernel: Convergence and Generalization in Neural Networks",
        "We show the evolution of a network during training is described by a kernel, the "
        "neural tangent kernel, and study the kernel gradient descent in function space.",
        set(),
    ),
    (
        "Denoising Diffusion Probabilistic Models",
        "We present high quality image synthesis using diffusion probabilistic models trained "
        "on a weighted variational bound; sampling is a progressive decoding scheme.",
        set(),
    ),
]


@pytest.mark.parametrize(
    ("title", "abstract", "expected"), HELD_OUT, ids=[h[0][:30] for h in HELD_OUT]
)
def test_held_out_papers(taxonomy: Taxonomy, title: str, abstract: str, expected: set[str]) -> None:
    assert set(classify(taxonomy, title, abstract).topics) == expected


# --- the evaluation ---------------------------------------------------------------------------


def test_evaluation_counts_allowed_as_neither(taxonomy: Taxonomy) -> None:
    papers = {
        "A": PaperText("A", "An LLM serving system with continuous batching and a KV cache."),
        "B": PaperText("B", "We study causal inference."),
    }
    labels = [
        LabelledPaper("A", frozenset(), frozenset({"serving"})),
        LabelledPaper("B", frozenset({"moe"}), frozenset()),
    ]
    report = evaluate(taxonomy, labels, papers)
    by_topic = {t.topic: t for t in report.per_topic}
    assert (by_topic["serving"].tp, by_topic["serving"].fp) == (0, 0)
    assert by_topic["moe"].fn == 1
    assert report.exact_share == 0.5
    assert [o.title for o in report.wrong] == ["B"]
    assert "FN moe" in format_report(report)


def test_fixture_evaluation_meets_targets(taxonomy: Taxonomy) -> None:
    papers = read_digest_papers((ROOT / "fixtures" / "digests").glob("*.txt"))
    labels = load_labels(ROOT / "fixtures" / "eval" / "topics.yaml")
    report = evaluate(taxonomy, labels, papers)
    assert report.unlabelled == [], "every distinct fixture paper must be labelled"
    assert len(report.outcomes) >= 130
    assert report.micro.f1 >= 0.90, format_report(report)
    assert report.exact_share >= 0.85, format_report(report)
