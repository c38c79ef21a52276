"""A deterministic synthetic library for the benchmarks.

`generate(n, seed)` yields Daily Papers pages (one per day, ~50 papers each, newest last) whose
papers read like ML-systems digests: kernels, MoE, serving and training parallelism, mixed with
unrelated ML topics; ~1,500-character abstracts with some GitHub links and some hardware
("8 A100 GPUs"); dates over at most two years; heavy-tailed upvotes. The same seed always gives
the same bytes, so figures from two machines or two commits compare like for like.

Two ways in, both through the real code:
- `write_pages(out, n)` writes page-text files in exactly the fixture format, for the parser
  and `digest-tui import` (CLI: `python bench/synthetic.py --papers 100000 --out DIR`);
- `build_library(home, n)` fills a DIGEST_TUI_HOME through `Library.import_parsed` with the real
  enricher, cached under bench/out/ (keyed by n, seed, generator version and the enrichment
  fingerprint) so a benchmark re-run only copies a file.

Every page includes at least one older paper whose date prints its year (as real pages often
do), so the parser infers each page's year from the page alone and no `--year` is needed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import random
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from digest_tui.ids import normalize_title, paper_id
from digest_tui.models import Digest, Paper, ParsedDigest

# Bump when the output for a given seed changes: cached libraries are keyed by it.
GENERATOR_VERSION = "1"
DEFAULT_SEED = 20_251_231
PER_PAGE = 50
SPAN_DAYS = 730  # dates spread over at most two years
END_DATE = dt.date(2025, 12, 31)
SOURCE = "hf-page"
BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"

HEADER = [
    "new",
    "Get trending papers in your email inbox!",
    "Subscribe",
    "Daily Papers",
    "byAK and the research community",
]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


@dataclass(frozen=True)
class SynthPaper:
    title: str
    abstract: str
    published: dt.date
    year_printed: bool
    upvotes: int | None
    authors_count: int | None
    organization: tuple[str, str] | None  # (handle, display name), shown instead of authors


@dataclass(frozen=True)
class SynthPage:
    date: dt.date
    papers: tuple[SynthPaper, ...]

    @property
    def filename(self) -> str:
        return f"{self.date.isoformat()}.txt"


# ---- vocabularies ---------------------------------------------------------------------------
# Themes and their weights: roughly what an ML-systems reader's digest looks like, with a third
# of unrelated ML so topic filters have something to leave out.
THEMES = {
    "kernels": 0.17,
    "moe": 0.13,
    "serving": 0.17,
    "parallel": 0.13,
    "other": 0.40,
}

NAME_PREFIXES = [
    "Flash",
    "Turbo",
    "Hyper",
    "Mega",
    "Giga",
    "Quick",
    "Swift",
    "Spec",
    "Zero",
    "Hydra",
    "Orca",
    "Vortex",
    "Nimbus",
    "Aurora",
    "Tensor",
    "Sparse",
    "Fused",
    "Lumen",
    "Atlas",
    "Nova",
    "Pulse",
    "Helix",
    "Quasar",
    "Strato",
    "Echo",
    "Polar",
    "Meta",
    "Omni",
    "Pico",
    "Tera",
    "Cobalt",
    "Ember",
    "Falcon",
    "Lynx",
    "Orion",
    "Prism",
    "Rapid",
    "Sigma",
    "Titan",
    "Vega",
    "Apex",
    "Blaze",
    "Cinder",
    "Delta",
    "Flux",
    "Kite",
    "Mosaic",
    "Onyx",
    "Ripple",
    "Zephyr",
]
NAME_ROOTS = {
    "kernels": [
        "Kernel",
        "Tile",
        "Fuse",
        "GEMM",
        "Warp",
        "Attn",
        "Core",
        "Blas",
        "Tune",
        "Gen",
        "Comp",
        "Ops",
        "Mat",
        "Thread",
        "Reg",
        "Cache",
    ],
    "moe": [
        "MoE",
        "Expert",
        "Route",
        "Gate",
        "Switch",
        "Mix",
        "Shard",
        "Dispatch",
        "Balance",
        "Router",
        "Sparse",
        "Pool",
    ],
    "serving": [
        "Serve",
        "Decode",
        "Infer",
        "Batch",
        "Spec",
        "Cache",
        "Page",
        "Stream",
        "Queue",
        "Token",
        "Prefill",
        "Sched",
    ],
    "parallel": [
        "Pipe",
        "Shard",
        "Train",
        "Scale",
        "Mesh",
        "Grid",
        "Zero",
        "Ring",
        "Flow",
        "Sync",
        "Pod",
        "Fabric",
    ],
    "other": [
        "Vision",
        "Diff",
        "Agent",
        "Reason",
        "Speech",
        "Graph",
        "Mind",
        "Gen",
        "World",
        "Pixel",
        "Chat",
        "Bench",
        "Align",
        "Code",
        "Math",
        "Video",
    ],
}
NAME_SUFFIXES = ["", "", "", "", "-LM", "-2", "-X", "++", "Net", "Lite", "-V", "Pro", "-R1"]

TITLE_PATTERNS = {
    "kernels": [
        "{adj} {kobj} Kernels for {kctx}",
        "Fusing {kop} and {kop2} into One {hw} Kernel",
        "Automatic Generation of {adj} {kobj} Kernels with LLM Agents",
        "{adj} {kobj} on {hw} GPUs via Warp Specialization",
        "Tuning {kobj} Kernels Across {hw} and {hw2} Architectures",
        "Low-Precision {kobj} Kernels for {kctx}",
        "Dissecting the {hw} Memory Hierarchy for {kobj}",
    ],
    "moe": [
        "{adj} Expert Parallelism for {mctx}",
        "Scaling Mixture-of-Experts Training with {mtech}",
        "{mtech} for Sparse Mixture-of-Experts {mctx}",
        "Expert Offloading and {mtech} on {hw} GPUs",
        "Load-Balanced Token Routing for {adj} MoE Models",
        "Fine-Grained Experts with {mtech} at Trillion Scale",
    ],
    "serving": [
        "{adj} LLM Serving with {stech}",
        "{stech} for Long-Context Inference on {hw} GPUs",
        "Disaggregated Prefill and Decode with {stech}",
        "Speculative Decoding Meets {stech}",
        "SLO-Aware {stech} for Multi-Tenant LLM Inference",
        "KV Cache {kvop} for {adj} Long-Context Serving",
    ],
    "parallel": [
        "{adj} Pipeline Parallelism with {ptech}",
        "Training {size} Models on {count} {hw} GPUs with {ptech}",
        "{ptech} for Heterogeneous Clusters",
        "Overlapping Communication and Computation in {ptech}",
        "Fault-Tolerant {ptech} at {count}-GPU Scale",
        "Automatic Sharding Plans for {adj} Distributed Training",
    ],
    "other": [
        "{adj} {otask} with {omethod}",
        "Rethinking {omethod} for {otask}",
        "A Benchmark for {otask} in the Wild",
        "{omethod} Improves {otask} Without Extra Data",
        "Towards {adj} {otask} via {omethod}",
        "When Does {omethod} Help {otask}",
    ],
}
FILL = {
    "adj": [
        "Efficient",
        "Scalable",
        "Fast",
        "Adaptive",
        "Memory-Efficient",
        "Robust",
        "Lightweight",
        "Hardware-Aware",
        "Elastic",
        "Communication-Efficient",
        "Dynamic",
        "Portable",
        "Predictable",
        "Cost-Effective",
        "Holistic",
        "Unified",
    ],
    "kobj": [
        "Attention",
        "GEMM",
        "Grouped GEMM",
        "Sparse Matrix Multiplication",
        "FP8 GEMM",
        "Softmax",
        "LayerNorm",
        "Convolution",
        "All-Reduce",
        "Top-k Sampling",
        "Paged Attention",
        "Linear Attention",
        "State-Space Scan",
        "Dequantization",
    ],
    "kop": [
        "Attention",
        "RMSNorm",
        "Rotary Embedding",
        "Dequantization",
        "Softmax",
        "Expert Routing",
        "GEMM",
        "Activation",
    ],
    "kop2": [
        "GEMM",
        "Softmax",
        "All-Gather",
        "Reduce-Scatter",
        "Quantization",
        "Residual Add",
        "Top-k Selection",
        "Bias Add",
    ],
    "kctx": [
        "Long Sequences",
        "Small Batches",
        "LLM Decoding",
        "Edge Devices",
        "Training at Scale",
        "Variable-Length Inputs",
        "Block-Sparse Masks",
        "4-bit Weights",
    ],
    "hw": [
        "H100",
        "A100",
        "MI300X",
        "H800",
        "B200",
        "RTX 4090",
        "Hopper",
        "Ampere",
        "Ascend",
        "TPU v5e",
        "Jetson Orin",
        "L40S",
    ],
    "hw2": ["Blackwell", "CDNA3", "Ada", "Volta", "Gaudi", "Grace Hopper"],
    "mctx": [
        "Pretraining",
        "Inference",
        "Fine-Tuning",
        "Edge Deployment",
        "Multimodal Models",
        "Long-Context Models",
    ],
    "mtech": [
        "Expert Placement",
        "Token Dropping",
        "Capacity-Aware Routing",
        "Expert Pruning",
        "Expert Caching",
        "All-to-All Compression",
        "Expert Merging",
        "Hierarchical Dispatch",
    ],
    "stech": [
        "Paged KV Caches",
        "Continuous Batching",
        "Prefix Sharing",
        "Chunked Prefill",
        "Request Scheduling",
        "KV Cache Compression",
        "Elastic Autoscaling",
        "Speculative Drafting",
        "Semantic Caching",
    ],
    "kvop": ["Eviction", "Quantization", "Offloading", "Compression", "Sharing", "Migration"],
    "ptech": [
        "Tensor Parallelism",
        "Sequence Parallelism",
        "ZeRO-3 Sharding",
        "FSDP",
        "Context Parallelism",
        "Interleaved Pipeline Schedules",
        "3D Parallelism",
        "Activation Recomputation",
        "Zero-Bubble Pipelines",
    ],
    "size": ["7B", "13B", "70B", "175B", "405B", "1T-Parameter"],
    "count": ["64", "256", "512", "1,024", "4,096", "10,000"],
    "otask": [
        "Image Segmentation",
        "Text-to-Video Generation",
        "Mathematical Reasoning",
        "Speech Recognition",
        "Protein Structure Prediction",
        "Code Generation",
        "Visual Question Answering",
        "Robot Manipulation",
        "Machine Translation",
        "Molecule Generation",
        "Open-Domain Dialogue",
        "3D Scene Reconstruction",
        "Time-Series Forecasting",
        "Document Understanding",
        "Recommendation",
    ],
    "omethod": [
        "Contrastive Pretraining",
        "Diffusion Models",
        "Reinforcement Learning",
        "Chain-of-Thought Prompting",
        "Retrieval Augmentation",
        "Preference Optimization",
        "Self-Supervised Learning",
        "Graph Neural Networks",
        "Curriculum Learning",
        "Synthetic Data",
        "Test-Time Scaling",
        "Knowledge Distillation",
    ],
}

CONTEXT = {
    "kernels": [
        "Attention and matrix multiplication dominate the runtime of modern transformer "
        "workloads, yet hand-written CUDA kernels rarely keep pace with new GPU generations.",
        "Fused GPU kernels such as FlashAttention cut memory traffic by keeping intermediate "
        "tiles in shared memory, but writing them remains the work of a few experts.",
        "Low-precision formats such as FP8 and FP4 promise large speedups, but existing "
        "kernels leave much of the tensor core throughput unused on irregular shapes.",
        "Triton and CUTLASS make kernel programming more accessible, but tuning tile sizes, "
        "pipelining and warp specialization by hand is still slow and error-prone.",
        "Memory-bound operators between large GEMMs waste bandwidth because each kernel "
        "launch reads and writes its operands through HBM.",
    ],
    "moe": [
        "Mixture-of-Experts (MoE) models scale parameter counts without a proportional "
        "increase in compute by activating only a few experts per token.",
        "Sparse MoE layers route each token to its top-k experts, which makes all-to-all "
        "communication and expert load imbalance the main obstacles to efficient training.",
        "Fine-grained experts improve quality per FLOP, but they multiply the number of small "
        "GEMMs and the volume of token dispatch between devices.",
        "Serving large MoE models requires holding hundreds of experts in memory even though "
        "most of them are idle for any given batch.",
    ],
    "serving": [
        "Serving large language models at scale is limited by KV cache memory and by the "
        "latency of autoregressive decoding.",
        "LLM inference services must meet time-to-first-token and time-per-output-token "
        "service-level objectives under bursty, heterogeneous request loads.",
        "Long-context requests inflate the KV cache until it no longer fits in GPU memory, "
        "forcing systems such as vLLM and SGLang to preempt or recompute work.",
        "Speculative decoding accelerates generation by verifying several draft tokens at "
        "once, but its benefit collapses at high batch sizes.",
    ],
    "parallel": [
        "Training frontier models requires combining data, tensor, pipeline and sequence "
        "parallelism across thousands of accelerators.",
        "Pipeline parallelism suffers from bubbles, while tensor parallelism saturates the "
        "interconnect once it crosses node boundaries.",
        "Sharded data parallelism such as ZeRO and FSDP reduces memory per device at the cost "
        "of frequent all-gather and reduce-scatter collectives.",
        "Large training jobs run for weeks on clusters where node failures and stragglers "
        "are routine rather than exceptional.",
    ],
    "other": [
        "Large pretrained models have transformed {otask_l}, yet they remain brittle under "
        "distribution shift.",
        "Progress in {otask_l} has been driven by ever larger datasets, which are costly to "
        "collect and difficult to audit.",
        "Recent work applies {omethod_l} to {otask_l}, but the reasons for its success are "
        "poorly understood.",
        "Evaluating {otask_l} remains difficult because existing benchmarks are saturated or "
        "contaminated by pretraining data.",
        "Despite rapid progress, state-of-the-art systems for {otask_l} still fail on long "
        "and compositional inputs.",
    ],
}
METHOD = {
    "kernels": [
        "{name} decomposes the computation into tiles that stay resident in shared memory and "
        "overlaps data movement with tensor core math using asynchronous copies.",
        "We introduce an autotuner that searches tile shapes, pipeline depths and thread block "
        "layouts, guided by a roofline model of the target GPU.",
        "A code generator emits Triton and CUDA variants from a single high-level description, "
        "and a lightweight cost model picks the fastest one for each input shape.",
        "{name} fuses dequantization, GEMM and the epilogue into one persistent kernel, "
        "removing three round trips through global memory.",
        "We use an LLM agent that writes, compiles and profiles candidate kernels, keeping "
        "only those that pass numerical checks against a reference implementation.",
        "Warp-specialized producer and consumer groups hide memory latency behind "
        "computation without increasing register pressure.",
    ],
    "moe": [
        "{name} places experts on devices according to their observed popularity and "
        "replicates hot experts to balance load across GPUs.",
        "We design a capacity-aware router that keeps expert utilization even without an "
        "auxiliary load balancing loss.",
        "Token dispatch is overlapped with expert computation by splitting each batch into "
        "micro-chunks that flow through a pipelined all-to-all.",
        "{name} caches frequently used experts in GPU memory and prefetches the rest from host "
        "memory, guided by a lightweight predictor of the next layer's routing.",
        "We compress the all-to-all payload with low-bit quantization of token activations, "
        "halving the communication volume of expert parallelism.",
    ],
    "serving": [
        "{name} manages the KV cache in fixed-size pages and shares common prefixes between "
        "requests, raising the effective batch size.",
        "A scheduler separates prefill and decode onto different GPU pools and migrates KV "
        "cache state between them over NVLink.",
        "We combine continuous batching with chunked prefill so that long prompts no longer "
        "stall the decoding of short requests.",
        "{name} predicts output lengths to order requests and preempts those unlikely to meet "
        "their latency target.",
        "KV cache entries are quantized to 4 bits and evicted by an attention-score policy "
        "that preserves accuracy on long-context retrieval tasks.",
    ],
    "parallel": [
        "{name} searches over combinations of tensor, pipeline and data parallelism with a "
        "simulator calibrated on a few profiling runs.",
        "We schedule pipeline stages with interleaved micro-batches and a zero-bubble backward "
        "split that removes most idle time.",
        "Collectives are decomposed into chunks and overlapped with the computation of "
        "neighbouring layers, hiding most of the communication.",
        "{name} shards optimizer states, gradients and parameters across nodes and keeps "
        "activation checkpoints in host memory.",
        "A checkpointing service snapshots training state asynchronously, so that a failed "
        "node is replaced in minutes rather than hours.",
    ],
    "other": [
        "We propose {name}, which combines {omethod_l} with a simple consistency objective.",
        "{name} builds a curated dataset of hard examples and trains a compact model on it "
        "with a two-stage curriculum.",
        "Our approach uses {omethod_l} to generate diverse training signals and filters them "
        "with a learned verifier.",
        "We analyse failure modes across model families and identify a small set of features "
        "that predict errors.",
        "{name} introduces a plug-in module that can be attached to existing backbones "
        "without retraining them from scratch.",
    ],
}
RESULTS = {
    "kernels": [
        "{name} reaches {pct}% of peak tensor core throughput and is {x}x faster than cuBLAS "
        "on the shapes that matter for decoding.",
        "Across {k} operators, the generated kernels match or beat vendor libraries and "
        "speed up end-to-end inference by {x}x.",
    ],
    "moe": [
        "{name} trains MoE models {x}x faster than Megatron-LM and reduces all-to-all time "
        "by {pct}%.",
        "On DeepSeek and Mixtral style models, {name} improves decoding throughput by {x}x "
        "while keeping expert load imbalance below {k}%.",
    ],
    "serving": [
        "Compared with vLLM and SGLang, {name} serves {x}x more requests per second at the "
        "same latency SLO and cuts time-to-first-token by {pct}%.",
        "{name} improves goodput by {x}x on production traces with negligible loss in accuracy.",
    ],
    "parallel": [
        "{name} achieves {pct}% model FLOPs utilization and trains {x}x faster than "
        "Megatron-LM and DeepSpeed baselines.",
        "At {count} GPUs, {name} keeps scaling efficiency above {pct}% and recovers from "
        "failures {x}x faster.",
    ],
    "other": [
        "Experiments on {k} benchmarks show that {name} improves accuracy by {pct} points over "
        "strong baselines.",
        "{name} sets a new state of the art while using {x}x less training data.",
    ],
}
HARDWARE = [
    "{count_small} A100 GPUs",
    "a single H100 80GB GPU",
    "{count} H800 GPUs across {nodes} nodes",
    "8 H100 GPUs connected by NVLink",
    "AMD MI300X GPUs",
    "a cluster of {count} A100-40GB GPUs",
    "TPU v5e pods",
    "an RTX 4090",
    "Ascend 910B NPUs",
    "a Jetson AGX Orin",
    "{count_small} L40S GPUs",
    "B200 GPUs",
    "{count} MI250X GPUs on Frontier",
]
HW_SENTENCES = [
    "All experiments run on {hwphrase}.",
    "We evaluate on {hwphrase} with models of up to {size} parameters.",
    "Measured on {hwphrase}, the gains hold across batch sizes and sequence lengths.",
]
DETAIL = {
    "kernels": [
        "The kernels support arbitrary head dimensions, causal and sliding-window masks, and "
        "variable sequence lengths within a batch.",
        "A profiling study with Nsight Compute shows that the main bottleneck shifts from "
        "global memory bandwidth to instruction issue once tiles are fused.",
        "Numerical accuracy is preserved by accumulating in FP32 and rescaling partial results "
        "online.",
        "We port the design to AMD GPUs through HIP with minor changes to the tiling strategy.",
    ],
    "moe": [
        "The router adds less than one percent overhead and requires no change to the gating "
        "network at inference time.",
        "We characterise routing statistics across layers and find that expert popularity is "
        "stable within a request but shifts between domains.",
        "Expert parallelism is combined with data parallelism for the dense layers, so the "
        "approach drops into existing training stacks.",
    ],
    "serving": [
        "The system exposes an OpenAI-compatible API and integrates with existing model "
        "repositories.",
        "Our trace analysis shows that prompt lengths follow a heavy-tailed distribution, "
        "which static batching handles poorly.",
        "Memory freed by the cache manager is returned to a shared pool that also hosts LoRA "
        "adapters.",
    ],
    "parallel": [
        "The planner finishes in seconds and its predicted iteration times are within ten "
        "percent of measurements.",
        "Communication runs over NCCL and uses the intra-node NVLink and inter-node InfiniBand "
        "links in a topology-aware order.",
        "Memory savings allow larger micro-batches, which further reduces pipeline bubbles.",
    ],
    "other": [
        "We collect human annotations for a subset of the data to validate automatic metrics.",
        "Qualitative analysis reveals that the remaining errors concentrate on rare categories.",
        "The method is simple to implement and adds little computational overhead.",
    ],
}
GENERIC = [
    "We further show that the approach composes with quantization and pruning.",
    "An ablation study attributes most of the improvement to the proposed scheduling policy.",
    "The design requires no changes to model architecture or training hyperparameters.",
    "Our analysis explains when the method helps and when simpler baselines suffice.",
    "We also release a profiling toolkit and detailed traces to support future research.",
    "Results are consistent across model sizes from {size} upward.",
    "These findings suggest that careful co-design of algorithms and systems remains "
    "essential as models continue to grow.",
]
CODE_SENTENCES = [
    "Code is available at https://github.com/{owner}/{repo}.",
    "Our implementation is open-sourced at https://github.com/{owner}/{repo}.",
    "We release code and checkpoints at https://github.com/{owner}/{repo}.",
]
OTHER_LINKS = [
    "Project page: https://{repo}.github.io.",
    "The benchmark is hosted at https://huggingface.co/datasets/{owner}/{repo}.",
]
OWNERS = [
    "nvidia",
    "deepseek-ai",
    "sgl-project",
    "vllm-project",
    "microsoft",
    "google-research",
    "facebookresearch",
    "mit-han-lab",
    "hao-ai-lab",
    "thu-ml",
    "alibaba",
    "bytedance",
    "snowflakedb",
    "Dao-AILab",
    "HazyResearch",
    "stanford-futuredata",
    "openai",
    "ROCm",
]
ORGS = [
    ("deepseek-ai", "DeepSeek"),
    ("nvidia", "NVIDIA"),
    ("google", "Google"),
    ("meta-llama", "Meta Llama"),
    ("Qwen", "Qwen"),
    ("microsoft", "Microsoft"),
    ("Zyphra", "Zyphra"),
    ("bytedance-research", "ByteDance Seed"),
]


# ---- generation -----------------------------------------------------------------------------


class _Gen:
    """One pass of generation; all randomness comes from one seeded Random, in a fixed order."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen_titles: set[str] = set()
        self.themes = list(THEMES)
        self.weights = list(THEMES.values())

    def pick(self, items: list[str]) -> str:
        return items[self.rng.randrange(len(items))]

    def fill(self, template: str, theme_fill: dict[str, str]) -> str:
        values = dict(theme_fill)
        for key in (
            "adj",
            "kobj",
            "kop",
            "kop2",
            "kctx",
            "hw",
            "hw2",
            "mctx",
            "mtech",
            "stech",
            "kvop",
            "ptech",
            "size",
            "count",
        ):
            if "{" + key + "}" in template:
                values[key] = self.pick(FILL[key])
        values.setdefault("x", f"{self.rng.uniform(1.2, 9.5):.1f}")
        values.setdefault("pct", str(self.rng.randint(12, 93)))
        values.setdefault("k", str(self.rng.randint(3, 40)))
        values.setdefault("count_small", self.pick(["2", "4", "8", "16", "32"]))
        values.setdefault("nodes", self.pick(["2", "4", "8", "16", "64"]))
        return template.format(**values)

    def name(self, theme: str) -> str:
        return self.pick(NAME_PREFIXES) + self.pick(NAME_ROOTS[theme]) + self.pick(NAME_SUFFIXES)

    def title(self, theme: str, name: str, theme_fill: dict[str, str]) -> str:
        for attempt in range(50):
            if attempt:
                name = self.name(theme)
            title = f"{name}: {self.fill(self.pick(TITLE_PATTERNS[theme]), theme_fill)}"
            key = normalize_title(title)
            if key not in self.seen_titles:
                self.seen_titles.add(key)
                return title
        # Practically unreachable for n <= 10**6; keeps titles unique regardless.
        title = f"{title} (Part {len(self.seen_titles)})"
        self.seen_titles.add(normalize_title(title))
        return title

    def paper(self, page_date: dt.date, older: bool) -> SynthPaper:
        rng = self.rng
        theme = rng.choices(self.themes, self.weights)[0]
        name = self.name(theme)
        theme_fill = {
            "otask": self.pick(FILL["otask"]),
            "omethod": self.pick(FILL["omethod"]),
            "name": name,
            "size": self.pick(FILL["size"]),
            "count": self.pick(FILL["count"]),
        }
        theme_fill["otask_l"] = theme_fill["otask"].lower()
        theme_fill["omethod_l"] = theme_fill["omethod"].lower()
        title = self.title(theme, name, theme_fill)
        # A fifth of systems papers touch a second systems theme (multi-label topics).
        second = None
        if theme != "other" and rng.random() < 0.2:
            second = self.pick([t for t in THEMES if t not in ("other", theme)])
        abstract = self.abstract(theme, second, theme_fill)
        if older:
            # Any day of the previous year: its date line prints the year, and the parser infers
            # the page's year as that year + 1 (Daily Papers prints years only for other years).
            start = dt.date(page_date.year - 1, 1, 1)
            published = start + dt.timedelta(
                days=rng.randrange((page_date.replace(month=1, day=1) - start).days)
            )
        else:
            published = page_date - dt.timedelta(days=rng.randint(0, 9))
        upvotes = None if rng.random() < 0.12 else min(int(rng.paretovariate(0.8)) - 1, 999)
        if rng.random() < 0.15:
            org = ORGS[rng.randrange(len(ORGS))]
            authors = None
        else:
            org = None
            authors = max(1, int(rng.gauss(8, 5)))
        return SynthPaper(
            title=title,
            abstract=abstract,
            published=published,
            year_printed=published.year != page_date.year,
            upvotes=upvotes,
            authors_count=authors,
            organization=org,
        )

    def abstract(self, theme: str, second: str | None, theme_fill: dict[str, str]) -> str:
        rng = self.rng
        sentences = [self.fill(self.pick(CONTEXT[theme]), theme_fill)]
        if rng.random() < 0.5:
            sentences.append(self.fill(self.pick(CONTEXT[theme]), theme_fill))
        methods = METHOD[theme][:]
        rng.shuffle(methods)
        sentences += [self.fill(m, theme_fill) for m in methods[: rng.randint(3, 4)]]
        details = DETAIL[theme][:]
        rng.shuffle(details)
        sentences += details[: rng.randint(1, 3)]
        if second is not None:
            sentences.append(self.fill(self.pick(METHOD[second]), theme_fill))
        hardware_share = 0.15 if theme == "other" else 0.6
        if rng.random() < hardware_share:
            hwphrase = self.fill(self.pick(HARDWARE), theme_fill)
            sentences.append(
                self.fill(self.pick(HW_SENTENCES), {**theme_fill, "hwphrase": hwphrase})
            )
        sentences.append(self.fill(self.pick(RESULTS[theme]), theme_fill))
        target = rng.randint(1300, 1750)
        generic = GENERIC[:]
        rng.shuffle(generic)
        for extra in generic:
            if sum(len(s) + 1 for s in sentences) >= target:
                break
            sentences.insert(-1, self.fill(extra, theme_fill))
        link_share = 0.25 if theme == "other" else 0.45
        repo = theme_fill["name"].lower().replace("+", "p")
        if rng.random() < link_share:
            owner = self.pick(OWNERS)
            sentences.append(
                self.fill(self.pick(CODE_SENTENCES), {**theme_fill, "owner": owner, "repo": repo})
            )
        elif rng.random() < 0.08:
            owner = self.pick(OWNERS)
            sentences.append(
                self.fill(self.pick(OTHER_LINKS), {**theme_fill, "owner": owner, "repo": repo})
            )
        return " ".join(sentences)


def pages_layout(n: int) -> tuple[int, int]:
    """(number of pages, papers per page): 50 a page, more when n would span over two years."""
    per_page = max(PER_PAGE, math.ceil(n / SPAN_DAYS))
    return math.ceil(n / per_page), per_page


def generate(n: int, seed: int = DEFAULT_SEED) -> Iterator[SynthPage]:
    """Yield the pages of a library of exactly n papers, oldest page first."""
    gen = _Gen(seed)
    pages, per_page = pages_layout(n)
    first_day = END_DATE - dt.timedelta(days=pages - 1)
    made = 0
    for index in range(pages):
        day = first_day + dt.timedelta(days=index)
        count = min(per_page, n - made)
        # The first paper of each page is an older one, printed with its year (see module doc).
        papers = tuple(gen.paper(day, older=(i == 0)) for i in range(count))
        made += count
        yield SynthPage(day, papers)


# ---- rendering ------------------------------------------------------------------------------


def _date_text(day: dt.date, with_year: bool) -> str:
    text = f"{MONTHS[day.month - 1]} {day.day}"
    return f"{text}, {day.year}" if with_year else text


def _layout(page: SynthPage) -> tuple[list[str], list[int]]:
    """The page's lines, and the 1-based line number of each paper's title."""
    lines: list[str] = []
    for header in HEADER:
        lines += [header, ""]
    lines += [_date_text(page.date, False), ""]
    title_lines: list[int] = []
    for paper in page.papers:
        title_lines.append(len(lines) + 1)
        lines += [paper.title, "", paper.abstract, ""]
        if paper.organization is not None:
            lines.append(f"{paper.organization[0]} {paper.organization[1]}")
        else:
            lines.append(f"  • {paper.authors_count} authors")
        date_line = _date_text(paper.published, paper.year_printed)
        if paper.upvotes is not None:
            date_line += f" {paper.upvotes}"
        lines += ["·", date_line, ""]
    return lines, title_lines


def render_page(page: SynthPage) -> str:
    """The page as Daily Papers text, in exactly the format of fixtures/digests/*.txt."""
    lines, _ = _layout(page)
    return "\n".join(lines)


def to_parsed(page: SynthPage, origin: str | None = None) -> ParsedDigest:
    """The page as the parser would return it, built directly (no text, no parsing)."""
    origin = origin or page.filename
    _, title_lines = _layout(page)
    papers = [
        Paper(
            id=paper_id(p.title),
            title=p.title,
            abstract=p.abstract,
            published=p.published,
            published_year_inferred=not p.year_printed,
            upvotes=p.upvotes,
            authors_count=p.authors_count,
            organization=p.organization[0] if p.organization else None,
            organization_name=p.organization[1] if p.organization else None,
            source=SOURCE,
            source_ref=f"{origin}:{line}",
        )
        for p, line in zip(page.papers, title_lines, strict=True)
    ]
    digest = Digest(
        id=f"{SOURCE}-{page.date.isoformat()}",
        source=SOURCE,
        date=page.date,
        title=f"Daily Papers {page.date.isoformat()}",
        paper_ids=[p.id for p in papers],
        origin=origin,
    )
    return ParsedDigest(digest=digest, papers=papers)


def write_pages(out: Path, n: int, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write the library as page-text files (one per day) into `out`; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for page in generate(n, seed):
        path = out / page.filename
        path.write_text(render_page(page), encoding="utf-8")
        paths.append(path)
    return paths


def cached_pages(n: int, seed: int = DEFAULT_SEED) -> list[Path]:
    """Page files for n papers under bench/out/, written once per (n, seed, version)."""
    target = OUT_DIR / f"pages-n{n}-s{seed}-g{GENERATOR_VERSION}"
    if not (target / ".complete").exists():
        building = OUT_DIR / f".building-{target.name}-{os.getpid()}"
        shutil.rmtree(building, ignore_errors=True)
        write_pages(building, n, seed)
        (building / ".complete").write_text("ok\n")
        shutil.rmtree(target, ignore_errors=True)
        try:
            building.rename(target)
        except OSError:
            shutil.rmtree(building, ignore_errors=True)
    return sorted(target.glob("*.txt"))


# ---- libraries ------------------------------------------------------------------------------


@contextmanager
def digest_home(home: Path) -> Iterator[None]:
    """Point DIGEST_TUI_HOME at `home` for the duration (the app's own path rules apply)."""
    from digest_tui.config import HOME_ENV

    before = os.environ.get(HOME_ENV)
    os.environ[HOME_ENV] = str(home)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(HOME_ENV, None)
        else:
            os.environ[HOME_ENV] = before


def database_path(home: Path) -> Path:
    from digest_tui.config import Paths

    with digest_home(home):
        return Paths.discover().database


def import_generated(home: Path, n: int, seed: int = DEFAULT_SEED, *, quiet: bool = True) -> int:
    """Import n generated papers into the library of `home` via Library.import_parsed."""
    from digest_tui.config import AppContext
    from digest_tui.service import open_library

    with digest_home(home):
        library = open_library(AppContext())
    started = time.perf_counter()
    stored = 0
    try:
        for page in generate(n, seed):
            report = library.import_parsed(to_parsed(page))
            stored += report.new + report.updated
            if not quiet and stored % 5000 < len(page.papers):
                rate = stored / (time.perf_counter() - started)
                print(f"  {stored}/{n} papers ({rate:.0f}/s)", file=sys.stderr)
        library.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        library.conn.close()
    return stored


def build_library(
    home: Path,
    n: int,
    seed: int = DEFAULT_SEED,
    *,
    reuse_stale: bool | None = None,
    similar_index: bool = False,
) -> Path:
    """Make `home` a DIGEST_TUI_HOME whose library holds n synthetic papers; return `home`.

    The library is built once per (n, seed, generator version, enrichment fingerprint) under
    bench/out/ and copied, so the app finds nothing stale to re-enrich at start-up.

    `reuse_stale` (default: the BENCH_REUSE_STALE environment variable): when only the
    enrichment data changed since a library of n papers was built, copy that one and stamp it
    with the current fingerprint instead of rebuilding for minutes. Timings of search, start-up
    and typing do not depend on the exact topic evidence; the figures then say so.

    `similar_index`: the copy holds a built similarity index, as a library does once the app
    has been open for a few minutes after an import (built once into the cached library).
    Without it the app builds the index in the background while it is being timed (about a
    minute of CPU at 100,000 papers).
    """
    from digest_tui.enrich.pipeline import Enricher

    fingerprint = Enricher(None).fingerprint
    prefix = f"lib-n{n}-s{seed}-g{GENERATOR_VERSION}-e"
    cache_home = OUT_DIR / f"{prefix}{fingerprint}"
    if reuse_stale is None:
        reuse_stale = os.environ.get("BENCH_REUSE_STALE", "") not in ("", "0")
    restamp = False
    if not (cache_home / ".complete").exists():
        older = sorted(
            (p.parent for p in OUT_DIR.glob(f"{prefix}*/.complete")),
            key=lambda p: p.stat().st_mtime,
        )
        if reuse_stale and older:
            cache_home, restamp = older[-1], True
            print(f"reusing {cache_home.name} (enrichment data changed since)", file=sys.stderr)
        else:
            # Built aside and renamed into place, so concurrent runs never see half a library.
            building = OUT_DIR / f".building-{cache_home.name}-{os.getpid()}"
            shutil.rmtree(building, ignore_errors=True)
            print(f"building a synthetic library of {n} papers in {cache_home} …", file=sys.stderr)
            import_generated(building, n, seed, quiet=False)
            (building / ".complete").write_text("ok\n")
            shutil.rmtree(cache_home, ignore_errors=True)
            try:
                building.rename(cache_home)
            except OSError:  # another run finished first: use theirs
                shutil.rmtree(building, ignore_errors=True)
    if similar_index:
        _build_similar_index(cache_home)
    target = database_path(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    shutil.copyfile(database_path(cache_home), target)
    if restamp:
        import sqlite3

        from digest_tui.store.topic_edits import remember_taxonomy

        conn = sqlite3.connect(target)
        with conn:
            conn.execute("UPDATE papers SET enrich_fp = ?", (fingerprint,))
            # Stamped as enriched with the current files, so keep those files' taxonomy as
            # their snapshot too: a taxonomy edit then settles as on a library built now.
            remember_taxonomy(conn, Enricher(None))
        conn.close()
    return home


def _build_similar_index(cache_home: Path) -> None:
    """Build the similarity index in a cached library, once (restamping leaves it valid: the
    index is marked stale only by a change of title, abstract or keywords)."""
    from digest_tui.similar.index import SimilarIndex
    from digest_tui.store.db import connect

    conn = connect(database_path(cache_home))
    try:
        index = SimilarIndex(conn)
        if index.needs_full_build() or index.pending():
            print(f"building the similarity index in {cache_home.name} …", file=sys.stderr)
            index.refresh()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000, help="how many (default 10000)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, help="write page-text files into this directory")
    parser.add_argument("--home", type=Path, help="build a DIGEST_TUI_HOME with the library")
    args = parser.parse_args(argv)
    if args.out is None and args.home is None:
        parser.error("give --out DIR (page files) and/or --home DIR (a library)")
    if args.out is not None:
        paths = write_pages(args.out, args.papers, args.seed)
        print(f"wrote {args.papers} papers in {len(paths)} pages to {args.out}")
    if args.home is not None:
        build_library(args.home, args.papers, args.seed)
        print(f"DIGEST_TUI_HOME={args.home} now holds {args.papers} papers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
