"""Golden tests for the hardware-target suggestion and the machine fit (enrich/hardware/)."""

from __future__ import annotations

import pytest

from digest_tui.config import Machine
from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.fit import fit_machines
from digest_tui.enrich.hardware.suggest import HardwareSuggestion, suggest_hardware

CONTRACT_KEYS = {"target", "scale", "devices", "memory_gb", "confidence", "evidence"}


def suggest(catalog: HardwareCatalog, abstract: str, title: str = "A paper", **kw):  # type: ignore[no-untyped-def]
    return suggest_hardware(catalog, title, abstract, **kw)


def quotes(s: HardwareSuggestion) -> list[str]:
    return [e["quote"] for e in s.evidence]


# ---- explicit counts and devices ---------------------------------------------------------


def test_eight_a100_gpus(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We evaluate our system on 8 A100 GPUs and beat the baselines.")
    assert s.devices == ["a100"]
    assert s.device_counts == {"a100": 8}
    assert s.scale == "single-node"
    assert s.confidence == "high"
    assert "8 A100" in quotes(s)
    assert "8x A100" in s.target


def test_hundreds_of_metax_c550(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "Training remains stable for weeks on hundreds of MetaX C550 GPUs.")
    assert s.devices == ["metax-c550"]
    assert s.scale == "multi-node"
    assert s.confidence == "high"
    assert s.target.startswith("hundreds of MetaX C550")
    assert s.scaled_down is not None and s.scaled_down["count"] == 8


def test_single_8xh100_node(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "ALST trains Llama 8B with 3.7M tokens on a single 8xH100 GPU node.")
    assert s.device_counts == {"h100": 8}
    assert s.scale == "single-node"
    assert s.confidence == "high"
    assert "8xH100 GPU node" in quotes(s)


def test_eight_h100_gpu_node_with_hyphen(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "When evaluated on an 8-H100 GPU node, FlashMoE is 6x faster.")
    assert s.device_counts == {"h100": 8} and s.scale == "single-node"


def test_glued_times_count(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "It produces long videos with low latency on 8timesRTX 4090 GPUs.")
    assert s.device_counts == {"rtx-4090": 8}
    assert s.scale == "single-node"


def test_node_cluster_is_multi_node_with_the_papers_own_node_scaled_down(
    catalog: HardwareCatalog,
) -> None:
    s = suggest(
        catalog,
        "ALST supports 500K tokens on a single H100 GPU, 3.7M on a single 8xH100 GPU node, "
        "and over 15M on a 4 node cluster.",
    )
    assert s.scale == "multi-node"
    assert s.device_counts == {"h100": 32}
    assert s.target.startswith("4 nodes of H100")
    assert s.scaled_down is not None
    assert s.scaled_down["devices"] == {"h100": 8}
    assert s.scaled_down["note"] == "the paper's own smaller setup"


def test_above_eight_devices_is_multi_node_and_scaled_down(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We train a 7B model on 512 H100 GPUs with our framework.")
    assert s.scale == "multi-node"
    assert s.device_counts == {"h100": 512}
    assert s.scaled_down == {
        "devices": {"h100": 8},
        "count": 8,
        "scale": "single-node",
        "fits_estimate": True,
        "note": "one node: same code path, a smaller model or fewer steps",
    }


def test_count_without_device_keeps_the_vendor_unnamed(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We achieve 502 petaFLOP/s on 3072 GPUs with our schedule.")
    assert s.scale == "multi-node"
    assert s.devices == []
    assert s.device_total == 3072
    assert "device not named" in s.target


def test_gpu_hours_are_a_cost_not_a_setup(catalog: HardwareCatalog) -> None:
    s = suggest(
        catalog,
        "Generating a kernel takes 26 minutes on one RTX6000, cheaper than work that costs "
        "6 H100 hours per kernel.",
    )
    assert s.device_counts == {"rtx-6000-ada": 1}
    assert set(s.devices) == {"rtx-6000-ada", "h100"}


def test_gh200_is_not_h200(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We study inference on GH200 systems at large batch sizes.")
    assert s.devices == ["gh200"]


def test_motivation_counts_do_not_make_the_target(catalog: HardwareCatalog) -> None:
    s = suggest(
        catalog,
        "Large models are everywhere. It requires 800 NVIDIA V100 GPUs just to fit a trillion "
        "parameter model. We sustain 25 petaflops on 512 NVIDIA V100 GPUs.",
    )
    assert s.device_counts == {"v100": 512}


# ---- named systems -------------------------------------------------------------------------


def test_on_frontier_means_mi250x(catalog: HardwareCatalog) -> None:
    s = suggest(
        catalog,
        "We propose a partitioning for the current top supercomputing cluster, Frontier.",
        title="Scaling Large Language Model Training on Frontier",
    )
    assert s.devices == ["mi250x"]
    assert s.device_sources == {"mi250x": "system"}
    assert s.systems == ["Frontier (OLCF)"]
    assert s.scale == "multi-node"
    assert s.confidence == "medium"
    assert s.scaled_down is not None and s.scaled_down["devices"] == {"mi250x": 4}


@pytest.mark.parametrize(
    "text",
    [
        "Our agents let frontier LLMs write CUDA kernels.",
        "We outperform frontier models such as DeepSeek-V3.1-Think and Claude-4-sonnet.",
        "Frontier models are expensive to run.",
        "This advances the accuracy-latency frontier of small models.",
    ],
)
def test_frontier_models_are_not_hardware(catalog: HardwareCatalog, text: str) -> None:
    s = suggest(catalog, text)
    assert "mi250x" not in s.devices
    assert s.systems == []


def test_named_system_counts(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "It fine-tunes trillion parameter models on a single NVIDIA DGX-2 node.")
    assert s.device_counts == {"v100": 16}
    assert s.scale == "single-node"
    cloud = suggest(catalog, "We serve DeepSeek-R1 on Huawei CloudMatrix384.")
    assert cloud.device_counts == {"ascend-910c": 384}
    assert cloud.scale == "multi-node"


# ---- architecture floors -----------------------------------------------------------------


def test_tma_wgmma_kernel_needs_hopper(catalog: HardwareCatalog) -> None:
    s = suggest(
        catalog,
        "Our attention kernel uses TMA and wgmma to overlap data movement with tensor cores.",
    )
    assert s.feature_floor == "Hopper (TMA/wgmma)"
    assert s.floor_architecture == "hopper"
    assert s.devices == ["h100"]
    assert s.device_sources == {"h100": "architecture"}
    assert s.confidence == "low"
    assert s.scale == "single-device"


def test_fp8_floor_is_ada_and_fp4_is_blackwell(catalog: HardwareCatalog) -> None:
    fp8 = suggest(catalog, "We train with FP8 matmuls in our CUDA kernels.")
    assert fp8.floor_architecture == "ada"
    fp4 = suggest(catalog, "We implement NVFP4 GEMM kernels and MXFP4 quantization.")
    assert fp4.floor_architecture == "blackwell"
    assert fp4.feature_floor == "Blackwell (FP4)"


def test_architecture_name_alone_is_not_a_named_device(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We benchmark the tensor cores of the Hopper GPU with microbenchmarks.")
    assert s.devices == ["h100"]
    assert s.device_sources["h100"] == "architecture"


# ---- edge ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We deploy a 1B model on smartphones with 4-bit weights.",
        "Our detector runs on mobile devices in real time.",
        "It runs at 178 fps on an NVIDIA Jetson TX2 GPU.",
        "We study on-device inference latency of small models.",
    ],
)
def test_phones_jetson_on_device_are_edge(catalog: HardwareCatalog, text: str) -> None:
    assert suggest(catalog, text).scale == "edge"


def test_edge_motivation_with_a_datacenter_gpu_is_not_edge(catalog: HardwareCatalog) -> None:
    s = suggest(
        catalog,
        "KV caches burden VRAM in resource-constrained scenarios (e.g., edge computing and "
        "personal devices). For a 13B model using an NVIDIA A6000 GPU, we are 11x faster.",
    )
    assert s.scale == "single-device"
    assert s.device_counts == {"a6000": 1}


# ---- memory estimates ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "gib", "arithmetic"),
    [
        ("We serve a 7B model.", 16.6, "7B params x 2 bytes (bf16) x 1.2 + 1 GiB = 17 GiB"),
        ("We serve a 70B model.", 157.5, "70B params x 2 bytes (bf16) x 1.2 + 1 GiB = 157 GiB"),
        (
            "We serve Mixtral 8x7B.",
            105.4,
            "46.7B total (12.9B active) params x 2 bytes (bf16) x 1.2 + 1 GiB = 105 GiB",
        ),
        (
            "We serve a 1.2T model.",
            2683.2,
            "1.2T params x 2 bytes (bf16) x 1.2 + 1 GiB = 2683 GiB",
        ),
        (
            "We pre-train a 7B model.",
            104.3,
            "7B params x 16 bytes (AdamW, mixed precision) = 104 GiB before activations",
        ),
        (
            "We pre-train a 70B model.",
            1043.1,
            "70B params x 16 bytes (AdamW, mixed precision) = 1043 GiB before activations",
        ),
        (
            "We pre-train an 8x7B mixture-of-experts model.",
            834.5,
            "56B (experts x size: an upper bound) params x 16 bytes (AdamW, mixed precision) = "
            "834 GiB before activations",
        ),
        (
            "We pre-train a 1.2T model.",
            17881.4,
            "1.2T params x 16 bytes (AdamW, mixed precision) = 17881 GiB before activations",
        ),
    ],
)
def test_memory_arithmetic(
    catalog: HardwareCatalog, text: str, gib: float, arithmetic: str
) -> None:
    s = suggest(catalog, text)
    assert s.memory_gb == pytest.approx(gib, abs=0.1)
    assert s.memory_arithmetic == arithmetic


def test_estimate_picks_the_device_count(catalog: HardwareCatalog) -> None:
    small = suggest(catalog, "We serve a 7B model.")
    assert small.device_counts == {"rtx-4090": 1} and small.scale == "single-device"
    big = suggest(catalog, "We serve a 70B model.")
    assert big.device_counts == {"h100": 2} and big.scale == "single-node"
    huge = suggest(catalog, "We serve a 1.2T model.")
    assert huge.device_counts == {"h100": 34} and huge.scale == "multi-node"
    assert huge.confidence == "medium"


def test_quantization_and_zero3(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "Our INT4 quantization serves a 70B model with INT4 weights.")
    assert s.memory_arithmetic == "70B params x 0.5 bytes (int4) x 1.2 + 1 GiB = 40 GiB"
    z = suggest(catalog, "We pre-train a 70B model with ZeRO-3 on 64 A100 GPUs.")
    assert z.memory_arithmetic is not None
    assert z.memory_arithmetic.endswith("ZeRO-3 over 64 GPUs: 16 GiB per GPU")


def test_tokens_datasets_and_baselines_are_not_model_sizes(catalog: HardwareCatalog) -> None:
    s = suggest(
        catalog,
        "We train on 150B tokens from the dataset BM-6B. Our model outperforms QwQ-32B.",
    )
    assert s.memory_gb is None
    assert {m["role"] for m in s.model_sizes} <= {"comparison"}


def test_stated_gpu_memory_beats_the_formula(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We fine-tune OPT-175B on a mere 18GB GPU with offloading.")
    assert s.scale == "single-device"
    assert s.memory_gb == 18
    assert s.memory_arithmetic is not None and s.memory_arithmetic.startswith("as written: 18 GB")


# ---- curated notes, modes, contract ------------------------------------------------------------


def test_tested_on_is_the_strongest_evidence(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We evaluate on 512 H100 GPUs.", tested_on=["8x A100 80GB"])
    assert s.device_counts == {"a100": 8}
    assert s.confidence == "high"
    assert s.device_sources["a100"] == "curated"
    assert s.evidence[0] == {"quote": "8x A100 80GB", "source": "curated", "start": 0, "end": 12}


@pytest.mark.parametrize(
    ("title", "text", "mode"),
    [
        ("Fast LLM Serving", "We serve models with lower latency.", "inference"),
        ("Scaling Pre-training", "We pre-train models on clusters.", "training"),
        ("LoRA for MoE", "We fine-tune models with LoRA adapters.", "fine-tuning"),
        ("A benchmark", "We collect human votes.", "unknown"),
    ],
)
def test_mode(catalog: HardwareCatalog, title: str, text: str, mode: str) -> None:
    assert suggest(catalog, text, title=title).mode == mode


def test_json_contract_and_evidence_offsets(catalog: HardwareCatalog) -> None:
    title = "Serving on 8 A100 GPUs"
    abstract = "Motivation first. Then more. We serve a 70B model on 8 A100 GPUs."
    data = suggest_hardware(catalog, title, abstract).to_json()
    assert set(data) >= CONTRACT_KEYS
    assert data["scale"] in {"single-device", "single-node", "multi-node", "edge", "unknown"}
    assert data["confidence"] in {"high", "medium", "low"}
    for ev in data["evidence"]:
        text = title if ev["source"] == "title" else abstract
        assert text[ev["start"] : ev["end"]] == ev["quote"]


def test_nothing_to_go_on(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We propose a benchmark of image editing with human preference votes.")
    assert s.scale == "unknown" and s.devices == [] and s.confidence == "low"
    assert s.target.startswith("unknown")


@pytest.mark.parametrize(
    "text", ["", "\x1b[31m[bold]H100[/bold]\x1b]8;;http://x\x07", "GPU " * 2000, "8x" * 500]
)
def test_odd_input_does_not_break(catalog: HardwareCatalog, text: str) -> None:
    suggest_hardware(catalog, text, text).to_json()


# ---- machines ----------------------------------------------------------------------------------

LAPTOP = Machine(name="laptop", devices=[{"id": "rtx-4090", "count": 1}])  # type: ignore[list-item]
NODE = Machine(name="node", devices=[{"id": "h100", "count": 8}])  # type: ignore[list-item]


def fits(catalog: HardwareCatalog, s: HardwareSuggestion) -> dict[str, tuple[bool | None, str]]:
    return {f.name: (f.fits, f.reason) for f in fit_machines(s, [LAPTOP, NODE], catalog)}


def test_fit_70b_inference(catalog: HardwareCatalog) -> None:
    result = fits(catalog, suggest(catalog, "We serve a 70B model."))
    assert result["laptop"] == (False, "1x GeForce RTX 4090 24 GB < 157 GB needed")
    assert result["node"] == (True, "8x H100 SXM 80 GB = 640 GB >= 157 GB; 8 >= 2 devices")


def test_fit_7b_inference_fits_both(catalog: HardwareCatalog) -> None:
    result = fits(catalog, suggest(catalog, "We serve a 7B model."))
    assert result["laptop"][0] is True and result["node"][0] is True


def test_fit_feature_floor(catalog: HardwareCatalog) -> None:
    result = fits(catalog, suggest(catalog, "Our GEMM kernel relies on TMA and wgmma."))
    assert result["laptop"] == (
        False,
        "1x GeForce RTX 4090 does not meet the Hopper (TMA/wgmma) floor",
    )
    assert result["node"][0] is True
    assert "meets the Hopper (TMA/wgmma) floor" in result["node"][1]


def test_fit_device_count_and_scaled_down(catalog: HardwareCatalog) -> None:
    eight = fits(catalog, suggest(catalog, "We evaluate on 8 A100 GPUs."))
    assert eight["laptop"] == (False, "needs 8 devices as written; 1x GeForce RTX 4090 is 1")
    assert eight["node"] == (True, "8x H100 SXM; 8 >= 8 devices")
    big = fits(catalog, suggest(catalog, "We train a 7B model on 512 H100 GPUs."))
    assert big["laptop"][0] is False
    assert big["node"][0] is True
    assert big["node"][1].startswith("fits the scaled-down setup of 8 devices (8x H100 SXM)")


def test_fit_unknown(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "We propose a benchmark of image editing.")
    assert all(f is None for f, _ in fits(catalog, s).values())
    odd = Machine(name="odd", devices=[{"id": "no-such-gpu", "count": 1}])  # type: ignore[list-item]
    [fit] = fit_machines(suggest(catalog, "We serve a 7B model."), [odd], catalog)
    assert fit.fits is None and "no-such-gpu" in fit.reason


@pytest.mark.parametrize(
    ("notes", "counts", "scale"),
    [
        (["4 nodes x 8 A100 80GB (NVLink within a node)"], {"a100": 32}, "multi-node"),
        (["384 A100 80GB GPUs (48 nodes of 8)"], {"a100": 384}, "multi-node"),
        (["DGX-A100 servers (8 GPUs each)"], {"a100": 8}, "single-node"),
        (["single RTX 4090 24GB in a consumer PC"], {"rtx-4090": 1}, "single-device"),
        (["single 48GB GPU finetunes a 65B model"], {"l40s": 1}, "single-device"),
    ],
)
def test_curated_notes(
    catalog: HardwareCatalog, notes: list[str], counts: dict[str, int], scale: str
) -> None:
    s = suggest(catalog, "", tested_on=notes)
    assert (s.device_counts, s.scale, s.confidence) == (counts, scale, "high")


def test_curated_note_sets_the_floor(catalog: HardwareCatalog) -> None:
    s = suggest(catalog, "", tested_on=["H100 80GB SXM5 (Hopper only: uses WGMMA and TMA)"])
    assert s.feature_floor == "Hopper (TMA/wgmma)"
    assert s.device_counts == {"h100": 1}
