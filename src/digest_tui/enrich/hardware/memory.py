"""Memory estimates from a model size, with the arithmetic written out.

The formulas are those of docs/reference/hardware-facts.md:
- weights: params x bytes per param (fp32 4, bf16/fp16 2, int8/fp8 1, int6 0.75, int4/fp4 0.5);
  a Mixture-of-Experts model needs its *total* parameters in memory;
- inference: weights x 1.2 + 1 GiB of runtime context (KV cache for modest batches included);
- full training (or full fine-tuning) with AdamW in mixed precision: ~16 bytes per parameter
  before activations; ZeRO-3 / FSDP divides that by the number of data-parallel GPUs;
- LoRA-style fine-tuning keeps the base frozen: about the inference footprint.

Results are in GiB. Datasheet capacities ("80 GB" HBM) are binary sizes in practice, so a GiB
estimate compares directly with a device's `memory_gb`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GIB = 1024**3
INFERENCE_FACTOR = 1.2
RUNTIME_GIB = 1.0
ADAMW_BYTES = 16


@dataclass(frozen=True)
class MemoryEstimate:
    gib: float
    arithmetic: str
    mode: str
    per_device_gib: float | None = None  # ZeRO-3 over N data-parallel GPUs

    def devices_needed(self, device_gb: float) -> int:
        return max(1, math.ceil(round(self.gib, 1) / device_gb))


def format_gb(value: float) -> str:
    """157.46 -> "157", 3.24 -> "3.2": whole units once the figure is large."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def format_params(billions: float) -> str:
    """70 -> "70B", 46.7 -> "46.7B", 1200 -> "1.2T", 0.76 -> "760M"."""
    if billions >= 1000:
        return f"{billions / 1000:g}T"
    if billions < 1:
        return f"{billions * 1000:g}M"
    return f"{round(billions, 2):g}B"


def _gib(params_b: float, nbytes: float) -> float:
    return params_b * 1e9 * nbytes / GIB


def estimate(
    params_b: float,
    mode: str,
    *,
    precision: tuple[str, float] | None = None,
    adapter: bool = False,
    active_b: float | None = None,
    zero3_gpus: int | None = None,
    upper_bound: bool = False,
) -> MemoryEstimate:
    """Estimate the memory to run `mode` on a model of `params_b` billion (total) parameters."""
    name, nbytes = precision if precision else ("bf16", 2.0)
    params = format_params(params_b)
    if active_b:
        params += f" total ({format_params(active_b)} active)"
    if upper_bound:
        params += " (experts x size: an upper bound)"
    full_training = mode == "training" or (mode == "fine-tuning" and not adapter)
    if full_training:
        gib = _gib(params_b, ADAMW_BYTES)
        text = (
            f"{params} params x {ADAMW_BYTES} bytes (AdamW, mixed precision) = "
            f"{format_gb(gib)} GiB before activations"
        )
        per_device = None
        if zero3_gpus and zero3_gpus > 1:
            per_device = gib / zero3_gpus
            text += f"; ZeRO-3 over {zero3_gpus} GPUs: {format_gb(per_device)} GiB per GPU"
        return MemoryEstimate(gib, text, "training", per_device)
    weights = _gib(params_b, nbytes)
    gib = weights * INFERENCE_FACTOR + RUNTIME_GIB
    text = (
        f"{params} params x {nbytes:g} bytes ({name}) x {INFERENCE_FACTOR:g} + "
        f"{RUNTIME_GIB:g} GiB = {format_gb(gib)} GiB"
    )
    if mode == "fine-tuning":
        text += " (adapter fine-tuning: frozen base, small adapters)"
    return MemoryEstimate(gib, text, "fine-tuning" if mode == "fine-tuning" else "inference")
