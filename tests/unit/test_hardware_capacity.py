"""A memory estimate larger than the setup the paper states is no requirement of that setup.

When the text states its setup ("on a single RTX 4090") and no model size it uses fits that
setup's memory, the paper keeps the state off the devices (offloading to CPU memory or SSD),
runs a part of it, or names a model that runs elsewhere (an LLM an agent calls). The estimate
then stays as information, and the fit goes by the setup: a machine like the one the paper
used is never told it lacks memory the paper itself did without. Where a size fits the setup,
or the text states no setup, the estimate is the requirement as before.
"""

from __future__ import annotations

from digest_tui.config import Machine
from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.fit import fit_machines
from digest_tui.enrich.hardware.suggest import suggest_hardware

LAPTOP = Machine(name="laptop", devices=[{"id": "rtx-4090", "count": 1}])
SMALL = Machine(name="small", devices=[{"id": "rtx-3060", "count": 1}])
NODE = Machine(name="node", devices=[{"id": "h100", "count": 8}])


def suggest(catalog: HardwareCatalog, abstract: str):  # type: ignore[no-untyped-def]
    return suggest_hardware(catalog, "A paper", abstract)


def verdicts(catalog: HardwareCatalog, s, *machines: Machine) -> dict[str, bool | None]:  # type: ignore[no-untyped-def]
    return {f.name: f.fits for f in fit_machines(s, list(machines), catalog)}


def test_a_model_larger_than_the_stated_single_gpu_is_no_requirement(catalog):
    s = suggest(
        catalog,
        "We fine-tune a 70B model on a single RTX 4090 by streaming optimizer states and "
        "parameters between GPU memory, host memory and NVMe SSDs.",
    )
    assert s.device_counts == {"rtx-4090": 1}
    assert s.memory_gb is None
    assert s.memory_arithmetic is not None
    assert "70B" in s.memory_arithmetic and "more than the 24 GB" in s.memory_arithmetic
    fits = verdicts(catalog, s, LAPTOP, NODE)
    assert fits == {"laptop": True, "node": True}


def test_a_model_an_agent_calls_does_not_size_the_gpu_it_benchmarks_on(catalog):
    s = suggest(
        catalog,
        "Our agent uses a 120B open-weight LLM to write CUDA kernels and profiles each "
        "candidate on one RTX 6000 Ada, reaching a 1.6x speedup over PyTorch.",
    )
    assert s.device_counts == {"rtx-6000-ada": 1}
    assert s.memory_gb is None
    assert verdicts(catalog, s, NODE) == {"node": True}


def test_a_smaller_machine_is_still_judged_against_the_stated_device(catalog):
    # No memory requirement, but the paper's device holds 80 GB: a 12 GB card is not like it.
    s = suggest(
        catalog,
        "We fine-tune a 175B model on one A100 80GB GPU with CPU and SSD offloading.",
    )
    assert s.memory_gb is None
    assert verdicts(catalog, s, SMALL)["small"] is not True


def test_a_size_that_fits_the_stated_setup_stays_the_requirement(catalog):
    # The 7B model fits one A100 80GB: the estimate is that model's, a requirement as before.
    s = suggest(
        catalog,
        "We serve a 7B model on one A100 80GB GPU, and compare with a 70B model's quality.",
    )
    assert s.memory_gb is not None and s.memory_gb <= 80
    assert "more than the" not in (s.memory_arithmetic or "")


def test_without_a_stated_setup_the_estimate_is_the_requirement(catalog):
    s = suggest(catalog, "We fine-tune a 70B model with full-parameter updates in bf16.")
    assert s.memory_gb is not None and s.memory_gb > 24
    assert verdicts(catalog, s, LAPTOP)["laptop"] is False
