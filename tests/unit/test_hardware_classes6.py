"""The error classes left after the sixth blind split (docs/hardware.md, "Seventh round"), each
as hand-written examples with look-alikes that must keep their reading. None is copied from a
labelled split."""

from __future__ import annotations

import pytest

from tests.support.judgement import suggest

# A four-sentence abstract: its opening sentence is motivation, like a real one's.
_OPENING = "Large models keep growing and their training keeps getting dearer. "

# --- GPU-days, -weeks and -years are a cost, like GPU-hours -------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Quantization-aware training needs 30-40 GPU days, while our method quantizes a model in "
        "one hour.",
        "Our sparse attention trains in 12 GPU-days instead of 48 GPU weeks.",
        "A full sweep costs about 200 A100 days; our proxy ranks candidates in minutes.",
        "Reproducing the baseline took roughly 3 GPU-years of compute.",
    ],
)
def test_gpu_days_are_a_cost_not_a_count(catalog, abstract):
    s = suggest(catalog, abstract)
    # A device named beside its cost is still named (one of it, as for GPU-hours), never a count.
    assert s.device_total in (None, 1), s.target
    assert s.scale != "multi-node", s.target


@pytest.mark.parametrize(
    ("abstract", "total", "scale"),
    [
        # Look-alikes: GPUs used for some days are still a setup.
        ("We fine-tune on 16 GPUs for 3 days.", 16, "multi-node"),
        ("Our run uses 8 A100 GPUs over two weeks.", 8, "single-node"),
        ("It needs 50 H100 hours on 4 H100 GPUs.", 4, "single-node"),
    ],
)
def test_gpus_used_for_days_stay_a_setup(catalog, abstract, total, scale):
    s = suggest(catalog, abstract)
    assert (s.device_total, s.scale) == (total, scale), s.target


# --- spot and preemptible cloud instances are a fleet ---------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        ("", "We present a system that trains DNNs on cheap spot instances the cloud may reclaim."),
        ("Elastic pipelines on preemptible VMs", "Our trainer adapts its plan when VMs vanish."),
        ("", "We train ResNet-50 on volatile cloud instances and study how preemption slows SGD."),
    ],
)
def test_spot_and_preemptible_instances_are_multi_node(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "multi-node", s.target


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # One instance is one machine; its GPU count decides.
        ("We run our benchmark on a single spot instance with one T4 GPU.", "single-device"),
        # An instance of a problem is no machine.
        ("We solve 40 spot-price instances of the bidding problem on a laptop CPU.", "edge"),
    ],
)
def test_one_instance_is_not_a_fleet(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale


# --- hardware that trained somebody else's model is motivation ----------------------------------


@pytest.mark.parametrize(
    ("abstract", "total", "device"),
    [
        (
            _OPENING + "Llama 3 was pre-trained on 16,384 H100 GPUs. We present a pruning "
            "method. We evaluate it on two A100 GPUs.",
            2,
            "a100",
        ),
        (
            _OPENING + "GPT-4 was reportedly trained on about 25,000 A100 GPUs for 90 days. We "
            "present a cheaper recipe for small models. Our experiments run on 4 RTX 4090 GPUs.",
            4,
            "rtx-4090",
        ),
    ],
)
def test_others_training_hardware_does_not_outweigh_the_evaluation(
    catalog, abstract, total, device
):
    s = suggest(catalog, abstract)
    assert s.device_total == total, s.target
    assert s.devices[0] == device
    assert s.scale == "single-node"


@pytest.mark.parametrize(
    ("abstract", "total"),
    [
        # The paper's own model, in the passive: still the setup.
        (
            _OPENING + "We introduce a 7B code model. The model was trained on 512 H100 GPUs "
            "for three weeks. It beats larger models.",
            512,
        ),
        (
            _OPENING + "We present OrcaLM, a 13B model. OrcaLM was trained on 256 A100 GPUs. It "
            "is open.",
            256,
        ),
        (
            _OPENING + "Our model was pre-trained on 1,024 TPU v4 chips. We release it.",
            1024,
        ),
    ],
)
def test_the_papers_own_training_run_stays_the_setup(catalog, abstract, total):
    s = suggest(catalog, abstract)
    assert s.device_total == total, s.target
    assert s.scale == "multi-node"


# --- energy and power measurement studies --------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Measuring the Energy Cost of LLM Inference",
            "We profile the power draw of 7B to 70B models on workstation GPUs and a laptop, and "
            "report joules per token.",
        ),
        (
            "Characterizing Power Consumption of Open Chat Models",
            "We run 13B and 70B chat models under varied prompts and log their energy use; "
            "larger models cost far more per token.",
        ),
        (
            "How Much Energy Does a Prompt Use? Profiling Local LLM Deployments",
            "We monitor CPU and GPU energy while serving a 70B model at 4-bit precision.",
        ),
    ],
)
def test_energy_measurement_studies_are_not_reproduction_targets(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "unknown", s.target
    assert s.target.startswith("not a reproduction target"), s.target


@pytest.mark.parametrize(
    ("title", "abstract", "scale"),
    [
        # A measurement study that writes its rig down: that rig is what one reruns.
        (
            "Characterizing Power Consumption of GPU Inference",
            "We measure energy per token of a 70B model on 4 A100 GPUs.",
            "single-node",
        ),
        # A method that saves energy is a method, measured on its setup.
        (
            "Reducing the Energy Consumption of LLM Serving",
            "Our scheduler cuts energy use by 30% on 8 A100 GPUs.",
            "single-node",
        ),
        (
            "Energy-Efficient Decoding for Phones",
            "Our decoder halves power draw on smartphones.",
            "edge",
        ),
    ],
)
def test_energy_methods_and_written_rigs_keep_their_setup(catalog, title, abstract, scale):
    s = suggest(catalog, abstract, title)
    assert s.scale == scale, s.target


# --- a named device in scalable or distributed training is not one device ---------------------


@pytest.mark.parametrize(
    ("title", "abstract"),
    [
        (
            "Scalable Training of Transformers on TPU v5e",
            "We describe how sharding annotations in pjit map onto TPU v5e and report efficiency.",
        ),
        (
            "",
            "We study distributed training of a language model on H100 GPUs and report where "
            "the step time goes.",
        ),
    ],
)
def test_named_device_in_distributed_training_is_multi_node(catalog, title, abstract):
    s = suggest(catalog, abstract, title)
    assert s.scale == "multi-node", s.target
    assert s.device_total is None


@pytest.mark.parametrize(
    ("abstract", "scale", "total"),
    [
        ("We fine-tune a 1B model with LoRA on an A100.", "single-device", 1),
        ("Our image classifier trains on an RTX 4090 in an hour.", "single-device", 1),
        # A count written next to the device still decides.
        ("We study distributed training on 4 H100 GPUs.", "single-node", 4),
    ],
)
def test_named_device_without_distribution_keeps_its_reading(catalog, abstract, scale, total):
    s = suggest(catalog, abstract)
    assert (s.scale, s.device_total) == (scale, total), s.target


# --- a model named in a comparison does not size the target -------------------------------------


def test_a_comparison_noun_marks_the_models_compared(catalog):
    s = suggest(
        catalog,
        "Our comparison with the zero-shot output of GPT-4o and Llama 3.1 405B shows large gaps "
        "that our retrieval prompts close.",
    )
    assert s.memory_gb is None, s.target
    assert s.scale == "unknown"


def test_a_model_evaluated_in_a_comparison_study_still_counts(catalog):
    # "comparison" without "with/to/against" before the size: the size is the paper's own.
    s = suggest(catalog, "We run a careful comparison of decoding methods on a 70B model.")
    assert s.memory_gb is not None


# --- CPU-GPU work written with an en dash ------------------------------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Hybrid CPU\u2013GPU co-execution of experts lets our system serve MoE models that do not "
        "fit in GPU memory.",
        "Our runtime overlaps CPU\u2013GPU transfers with compute and keeps cold experts in host "
        "memory.",
    ],
)
def test_cpu_gpu_with_an_en_dash_is_one_device(catalog, abstract):
    s = suggest(catalog, abstract + " Experts are offloaded to CPU memory.")
    assert s.scale == "single-device", s.target


def test_an_energy_benchmark_that_runs_models_keeps_their_size(catalog):
    # A benchmark runs the models it measures: their size still gives a setup (the labelling
    # rule infers it), unlike a profiling study of whatever machines are at hand.
    s = suggest(
        catalog,
        "We introduce a benchmark for inference power. Our experiments serve a 405B model.",
        "Benchmarking the Power Consumption of LLM Serving",
    )
    assert s.scale == "multi-node", s.target


# --- post-training quantization is not a training run ------------------------------------------


def test_post_training_quantization_sizes_like_inference(catalog):
    s = suggest(
        catalog,
        "We quantize Llama models from 8B to 70B to 2 bits in under an hour per model.",
        "Post-Training Quantization to Ternary Planes",
    )
    assert s.mode != "training", s.target
    assert s.scale == "single-node", s.target  # 70B x 2 bytes x 1.2 + 1 GiB: two 80 GB GPUs


@pytest.mark.parametrize(
    ("title", "abstract", "mode"),
    [
        (
            "RL Post-Training of Small Reasoners",
            "We post-train a 7B model with GRPO.",
            "fine-tuning",
        ),
        ("", "We pre-train a 1B model and then train it further on code.", "training"),
    ],
)
def test_training_words_around_post_training_keep_their_mode(catalog, title, abstract, mode):
    assert suggest(catalog, abstract, title).mode == mode


# --- an MoE given only by its activated parameters has no memory estimate ---------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "Our sparse vision-language models with 3B and 7B activated parameters match denser ones.",
        "We release an MoE with 12B activated parameters that rivals dense 70B models.",
    ],
)
def test_activated_parameters_alone_give_no_memory(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.memory_gb is None, s.target
    assert s.scale == "unknown", s.target
    assert s.model_sizes, "the sizes stay listed"


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # The total is written: it sizes the estimate (16B x 16 bytes = 238 GiB, one node).
        ("We train an MoE with 16B total and 2.8B activated parameters.", "single-node"),
        ("We train an MoE of 760M active, 8.3B total parameters.", "single-node"),
        # A dense size next to an unrelated "active" word keeps its estimate.
        ("We fine-tune a 70B model with active learning on 2 A100 GPUs.", "single-node"),
    ],
)
def test_a_written_total_still_sizes_the_estimate(catalog, abstract, scale):
    s = suggest(catalog, abstract)
    assert s.scale == scale, s.target


# --- machines of both an HPC centre and a cloud, and edge servers --------------------------------


@pytest.mark.parametrize(
    "abstract",
    [
        "We train a federated model across mixed HPC and cloud environments on a hybrid testbed.",
        "Our scheduler places jobs on hybrid cloud and HPC infrastructure.",
        "Our serving system spreads experts over heterogeneous GPU-equipped edge servers.",
    ],
)
def test_hpc_and_cloud_or_edge_servers_are_several_machines(catalog, abstract):
    s = suggest(catalog, abstract)
    assert s.scale in ("multi-node", "edge"), s.target
    assert s.scale != "unknown"


@pytest.mark.parametrize(
    ("abstract", "scale"),
    [
        # HPC as a field of applications is no setting.
        ("Our kernels accelerate HPC applications on one GPU by 2x.", "single-device"),
        ("We port a cloud-native inference server to one HPC node with 4 GPUs.", "single-node"),
    ],
)
def test_hpc_as_a_field_keeps_its_reading(catalog, abstract, scale):
    assert suggest(catalog, abstract).scale == scale
