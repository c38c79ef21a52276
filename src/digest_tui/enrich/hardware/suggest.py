"""The hardware target to reproduce a paper on, and whether the user's machines fit it.

Pure and fast: text in (title, abstract, curated "tested on" notes), a `HardwareSuggestion`
out; no I/O, patterns compiled once per catalog (enrich/hardware/text.py).

The target is picked in the order of docs/reference/hardware-facts.md, "Picking a target":
1. curated tested-on notes, then an explicit "N x device" as written ("8 A100 GPUs",
   "8-H100 GPU node", "hundreds of MetaX C550 GPUs"), or a named system (Frontier, DGX-2);
2. a count with no device ("3072 GPUs", "4 node cluster") or a scale phrase ("on-device",
   "GPU clusters", "a single 24GB GPU"), on the device the paper names;
3. a memory estimate from the model sizes in the text, on the paper's vendor;
4. a named device or architecture with nothing else: one of it.
Architecture features (TMA, wgmma, FP8, FP4) set a floor that a machine must meet. Above one
node the scale is multi-node and a scaled-down setup a single lab could run is suggested.

Why this module is long: `_Builder` is one decision procedure, the ordered rules above,
sharing the floor, the named devices and the evidence as it goes; its steps read each other's
intermediate results, so cutting it into modules would mean passing that state around in the
open. The text facts it decides from live in text.py.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from digest_tui.enrich.gate import folded, folded_parts, folds
from digest_tui.enrich.hardware.catalog import Architecture, Device, HardwareCatalog, meets_floor
from digest_tui.enrich.hardware.memory import (
    MemoryEstimate,
    estimate,
    format_gb,
    format_params,
)
from digest_tui.enrich.hardware.suggestion import Confidence, HardwareSuggestion, Scale
from digest_tui.enrich.hardware.text import (
    LIMITED_MEMORY_DEVICES,
    CountMention,
    Cue,
    Mention,
    SizeMention,
    Span,
    TextFacts,
    extract,
    matchers,
)

_SCALE_RANK = {"unknown": 0, "single-device": 1, "single-node": 2, "multi-node": 3, "edge": 0}
_MAX_EVIDENCE = 8
# Features that are number formats: they say what a paper computes in, not what it programs.
_NUMBER_FORMATS = frozenset({"fp4", "fp6", "fp8", "bf16"})
_GB = re.compile(r"(\d+(?:\.\d+)?)\s?G(?:B|iB)?\b", re.IGNORECASE)


# ---- setups: a device and how many, as the text gives them -----------------------------------


@dataclass
class _Setup:
    device: str
    count: int | None  # total devices, None when only "Frontier" or "GPU clusters" is known
    scale: Scale
    source: str  # curated | named | system | generic | cue | estimate | architecture | kernel
    spans: list[Span] = field(default_factory=list)
    vague: bool = False
    label: str = ""  # the count as written, or the system's name
    position: int = 0
    system: bool = False

    @property
    def span_order(self) -> int:
        """Title first, then abstract: "first written" follows reading order."""
        source = self.spans[0].source if self.spans else "abstract"
        return {"title": 0, "abstract": 1, "curated": 2}[source]


def _scale_for(device: Device | None, total: int | None, *, one_node: bool = False) -> Scale:
    if device is not None and device.edge:
        return "edge"
    if total is None:
        return "unknown"
    node = device.node_size if device is not None else 8
    if total <= 1:
        return "single-device"
    if one_node or total <= node:
        return "single-node"
    return "multi-node"


def _mention_setup(catalog: HardwareCatalog, mention: Mention) -> _Setup | None:
    """A setup from one device or system mention that carries a count (or a system size)."""
    if mention.kind == "system":
        system = catalog.system(mention.ref)
        if system is None:
            return None
        device = catalog.get(system.device)
        units = mention.count or 1
        total = system.count * units if system.count else None
        scale: Scale = system.scale if units == 1 else "multi-node"
        if mention.in_cluster and mention.count is None:
            # (twenty-seventh round) "DGX-A100 clusters" are clusters of DGX nodes: many
            # nodes, how many the text does not say.
            total, scale = None, "multi-node"
        return _Setup(
            system.device,
            total,
            scale,
            "system",
            [mention.span],
            label=system.name,
            position=mention.span.start,
            system=True,
        )
    if mention.kind != "device" or mention.count is None or mention.hours:
        return None
    device = catalog.get(mention.ref)
    if mention.in_cluster and mention.count == 1:
        # "an A100 cluster" is a cluster of A100s, not one A100: the count the quote gives is
        # "many", so the setup is multi-node with the count left open.
        return _Setup(
            mention.ref,
            None,
            "multi-node",
            "named",
            [mention.span],
            position=mention.span.start,
        )
    if mention.in_testbed:
        # (nineteenth round) "an A100 GPU testbed": the article counts the testbed; its GPUs are
        # several, their number open, so one server at least.
        return _Setup(
            mention.ref,
            None,
            "single-node",
            "named",
            [mention.span],
            position=mention.span.start,
        )
    if mention.nodes:
        # "16 8xA100 nodes": the count written is per node, the nodes multiply it.
        total = mention.nodes * mention.count
        return _Setup(
            mention.ref,
            total,
            _scale_for(device, total),
            "named",
            [mention.span],
            label=f"{mention.nodes} nodes",
            position=mention.span.start,
        )
    if mention.vague and mention.count >= 100:
        scale = "edge" if device is not None and device.edge else "multi-node"
    else:
        scale = _scale_for(device, mention.count, one_node=mention.in_node)
    return _Setup(
        mention.ref,
        mention.count,
        scale,
        "named",
        [mention.span],
        vague=mention.vague,
        position=mention.span.start,
    )


class _DevicesBySentence:
    """The device mentions of each sentence, to find the one a device-less count belongs to
    without a pass over every mention per count (quadratic on a long text)."""

    def __init__(self, pool: Sequence[Mention]) -> None:
        self.devices: dict[int, list[Mention]] = {}
        for m in pool:
            if m.kind == "device" and not m.hours:
                self.devices.setdefault(m.sentence, []).append(m)
        self.starts = {i: [m.span.start for m in ms] for i, ms in self.devices.items()}
        self.in_order = {
            i: all(a <= b for a, b in itertools.pairwise(starts))
            for i, starts in self.starts.items()
        }

    def nearest_before(self, count: CountMention) -> Mention | None:
        """The last device written at or before the count in its sentence, else the first."""
        devices = self.devices.get(count.sentence)
        if not devices:
            return None
        starts = self.starts[count.sentence]
        if self.in_order[count.sentence]:
            i = bisect.bisect_right(starts, count.span.start)
            return devices[i - 1] if i else devices[0]
        # Mentions out of text order (not seen in practice): the plain scan, same answer.
        before = [m for m in devices if m.span.start <= count.span.start]
        return before[-1] if before else devices[0]


def _count_scale(count: CountMention) -> Scale:
    if count.unit == "node":
        if count.per_node:
            return "single-node" if count.count == 1 else "multi-node"
        return "single-node" if count.count <= 1 else "multi-node"
    if count.vague:
        return "multi-node" if count.count >= 100 else "single-node"
    return _scale_for(None, count.count)


def _usable(item: Mention | CountMention) -> bool:
    return (
        not item.background
        and not item.baseline
        and not (isinstance(item, CountMention) and item.kinds)
    )


# ---- the suggestion ----------------------------------------------------------------------


def suggest_hardware(
    catalog: HardwareCatalog,
    title: str,
    abstract: str,
    *,
    topics: Sequence[str] = (),
    tested_on: Sequence[str] = (),
) -> HardwareSuggestion:
    """Suggest where to reproduce a paper: see the module docstring for the order of rules."""
    facts = extract(matchers(catalog), title or "", abstract or "", tuple(tested_on))
    suggestion = _Builder(catalog, facts, kernels="kernels" in topics or facts.kernel_paper).build()
    study = None if tested_on else _study_kind(title or "", abstract or "")
    if (
        study is None
        and not tested_on
        and suggestion.confidence == "low"
        and suggestion.device_total is None
    ):
        # Wording that says results come from a simulation platform counts only when the text
        # states no setup of its own (a count next to a device, a named device).
        study = _simulated(abstract or "")
    if study is None and not tested_on and not _states_setup(facts):
        # Only when the text writes no machine of its own down: results from a model of the
        # hardware ("our high-fidelity simulations show", "evaluated on TPUv6e-like
        # hardware"); (eleventh round) new hardware beside the software ("a hardware-software
        # co-design ... a lightweight engine in the switch"); an energy or power measurement
        # study (about the meter, unless it writes its rig down: "on 4 A100 GPUs").
        study = (
            _modelled(abstract or "")
            or _co_designed_hardware(title or "", abstract or "")
            or _energy_study(title or "", abstract or "")
        )
    if study is None:
        return suggestion
    # A survey, a footprint study or a position paper has no experiment of its own to rerun:
    # say so instead of turning the devices it discusses into a setup. Named devices stay
    # listed (they are in the text), with no count, scale or memory.
    return suggestion.model_copy(
        update={
            "target": f"not a reproduction target: {study}; it reports no setup of its own",
            "scale": "unknown",
            "confidence": "low",
            "device_counts": {},
            "device_total": None,
            "memory_gb": None,
            "memory_arithmetic": None,
            "scaled_down": None,
            "alternatives": [],
        }
    )


# What kind of paper has no setup to reproduce, from its title (the strongest sign) or from
# how the abstract describes itself ("this survey", "we estimate the carbon footprint of").
_STUDY_TITLE = (
    ("a survey", re.compile(r"\b(?:survey|literature review|systematic review)\b", re.I)),
    ("a position paper", re.compile(r"\bposition(?: paper)?:|\bposition paper\b", re.I)),
    # (eighteenth round) "A Large-Scale Simulation Framework for LLM Inference" is a simulator
    (
        "a simulation study",
        re.compile(r"\bsimulators?\b|\bsimulation (?:framework|platform|toolkit|tool)s?\b", re.I),
    ),
    # A network or cluster simulation is the subject; a physics simulation on GPUs is not.
    (
        "a simulation study",
        re.compile(
            r"\b(?:network|packet-level|flow-level|discrete-event|cluster) simulations?\b", re.I
        ),
    ),
    (
        "a footprint study",
        re.compile(r"\bfootprints?\b|\b(?:carbon|emissions?)\b|\bresource costs?\b", re.I),
    ),
)
# Each abstract pattern comes with lower-case literals one of which any match contains: the
# regex runs only when one is in the text (most abstracts have none, and these case-insensitive
# patterns cost more than the rest of the study check).
_STUDY_ABSTRACT: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        "a survey",
        ("survey", "review"),
        re.compile(
            r"\b(?:this|our|the present) (?:comprehensive |systematic )?(?:survey|review)\b"
            r"|\bwe (?:comprehensively |systematically )?(?:survey|review) (?:the|recent)\b",
            re.I,
        ),
    ),
    ("a position paper", ("position paper",), re.compile(r"\b(?:this|our) position paper\b", re.I)),
    # Results from simulation only: no machine of the paper's own to size.
    (
        "a simulation study",
        ("simulation",),
        re.compile(
            r"\b(?:comprehensive |extensive )?simulation results (?:will )?(?:show|demonstrate)\b"
            r"|\bvalidated? (?:\w+ ){0,3}via (?:\w+-based )?(?:discrete-event )?simulation\b",
            re.I,
        ),
    ),
    # The paper's contribution is a simulator ("we introduce X, a GPU-based training
    # simulator"): the clusters it simulates are its subject, not a setup to rerun.
    (
        "a simulation study",
        ("simulator",),
        re.compile(
            r"\b(?:we (?:introduce|present|propose|build|develop|design)|this (?:paper|work) "
            r"(?:introduces|presents|proposes))\s+(?:[\w-]+,\s+)?(?:a |an )(?:[\w-]+ ){0,4}?"
            r"simulators?\b",
            re.I,
        ),
    ),
    # A performance-modelling framework predicts runs; the devices it is validated on are
    # published measurements, not a setup ("a performance model" inside a system is not one).
    (
        "a performance model",
        ("performance model",),
        re.compile(r"\bperformance model(?:l?ing)? (?:framework|tool|methodology)s?\b", re.I),
    ),
    # (fourteenth round) Said outright: "all without requiring access to real hardware". The
    # devices such a text names are the ones its model covers, not a setup.
    (
        "results from modelled hardware",
        ("without", "no real", "no physical"),
        re.compile(
            r"\bwithout (?:requiring |needing |any )?(?:access to )?(?:any )?(?:real|physical"
            r"|actual) (?:hardware|GPUs|devices|machines|clusters)\b"
            r"|\bno (?:real|physical) hardware (?:is )?(?:needed|required)\b",
            re.I,
        ),
    ),
    # A cycle-accurate (cycle-level) simulator models a chip that is not on sale.
    ("a hardware design", ("cycle-",), re.compile(r"\bcycle-(?:accurate|level) simulat\w+", re.I)),
    # A proposed chip or microarchitecture: measured in a simulator, not on a device to buy.
    (
        "a hardware design",
        (
            "extensions",
            "overhead",
            "hardware design",
            "microarchitecture",
            "multiplier",
            "accelerator",
            "hardware architecture",
            "fpga",
            "chiplet",
            "memory-centric",
            "near-memory",
            "in-memory",
            "pim",
            "pnm",
            "chip architecture",
            "dataflow architecture",
        ),
        re.compile(
            r"\barchitectural extensions\b|\barea (?:and power )?overheads?\b"
            r"|\bhardware design\b|\bmicroarchitecture designed\b|\bmultiplier units?\b"
            # "This paper proposes an edge LLM inference accelerator", not "an accelerator-aware
            # method".
            # (tenth round) also "we develop / build / introduce", with the design's name first
            # ("We introduce X, a disaggregated accelerator"); not a cluster or pool of them.
            r"|\b(?:we|this (?:paper|work)) (?:propose|design|present|develop|build|introduce)s? "
            # (twelfth round) also a chip's architecture named by its kind, the adjectives
            # perhaps split by commas: "we present AMMA, a multi-chiplet, memory-centric
            # architecture" ("a memory-efficient architecture" of a model is not one).
            r"(?:[\w-]+,\s+)?(?:a |an )?(?:novel )?(?:[\w-]+,? ){0,4}?"
            r"(?:accelerator|microarchitecture|(?:hardware|chip|(?:multi-)?chiplet|memory-centric"
            r"|near-memory|in-memory|processing-in-memory|PIM|PNM|dataflow) architecture)(?![\w-])"
            r"(?! (?:clusters?|nodes?|servers?|pools?|instances))"
            # an FPGA design is a circuit the paper builds, not a device to rent
            r"|\bFPGA (?:designs?|accelerators?|prototypes?)\b",
            re.I,
        ),
    ),
    (
        "a footprint study",
        ("footprint", "impact", "cost"),
        re.compile(
            r"\bwe (?:estimate|quantify|measure|analy[sz]e|assess) the (?:\w+ )?"
            r"(?:carbon|energy|environmental|material|water) (?:footprint|impact|costs?)\b",
            re.I,
        ),
    ),
)


# Results obtained on a simulated cluster rather than machines: "we develop a cluster
# simulation platform", "trace-driven simulations", "employing the simulator".
_SIMULATED = re.compile(
    r"\bsimulation (?:platform|framework|environment|testbed|toolchain|tool)s?\b"
    r"|\btrace-driven simulations?\b|\bsimulated (?:GPU )?clusters?\b"
    # hardware stood in for by an emulator: "a baseline PIM emulation system"
    r"|\bemulation (?:system|platform|environment|framework)s?\b",
    re.I,
)

# A study of traces a cluster recorded, or of what would have happened ("what-if analysis"):
# the cluster is the subject, not a setup the reader reruns.
_TRACE_STUDY = re.compile(
    r"\bwhat-if analys[ie]s\b|\btraces? (?:collected|gathered|recorded) (?:from|on|in)\b"
    r"|(?:day|week|month|year) (?:\w+ )?traces?\b",
    re.I,
)


# ...unless the paper also runs on machines: "evaluated on physical DL clusters", "a testbed".
_REAL_RUN = re.compile(
    r"\b(?:physical|real|production) (?:[\w-]+ ){0,2}(?:clusters?|testbeds?|machines|servers"
    r"|GPUs|hardware|deployments?)\b|\btestbeds?\b|\bprototype\b"
    # (twenty-fourth round) "in experiments with real DL jobs and with trace-driven
    # simulations": jobs run for real, on a cluster of the paper's own ("real job traces" are
    # only the input of a simulation)
    r"|\bexperiments with real (?:[\w-]+ ){0,2}jobs\b",
    re.I,
)

# ...unless the trace drives runs on machines of the paper's own (a production cluster is the
# trace's source, so it does not count here).
_TRACE_REPLAYED = re.compile(
    r"\btestbeds?\b|\bprototype\b|\breplay\w*\b"
    r"|\b(?:physical|real) (?:[\w-]+ ){0,2}(?:clusters?|machines|servers|GPUs|hardware)\b",
    re.I,
)


# Results that come from a model of the hardware: "our high-fidelity simulations show", "a
# cycle-level model", "on TPUv6e-like hardware" / "TPU-like architectures" (a design that does
# not exist as a product).
_MODELLED = re.compile(
    r"\b(?:high-fidelity|detailed|analytical) simulations?\b"
    r"|\b[\w.]+-like (?:hardware|architectures?|accelerators?|chips?)\b"
    # (ninth round) the same class in the field's other words: results projected by an
    # analytical / performance / roofline model, or by an event-driven, cycle-accurate or
    # architectural simulator, and "simulated speedups / latency / throughput"
    r"|\b(?:event-driven|discrete-event|cycle-(?:accurate|level)|architectural|trace-based)"
    r" (?:performance )?simulat(?:ors?|ions?)\b"
    r"|\bsimulated (?:speed-?ups?|latency|latencies|throughput|performance|results|energy)\b",
    re.I,
)
# (ninth round) Results projected by an analytical / roofline model: modelled hardware too, but
# only when nothing was measured, since such models are as often fitted to real profiles.
_PROJECTED = re.compile(
    r"\b(?:analytical|first-principles|roofline) (?:performance |cost |latency )?models?\b", re.I
)
_MEASURED_RUN = re.compile(
    r"\b(?:profil(?:e|es|ed|ing)|measure(?:s|d|ments?)?|measuring|experiments?|benchmark\w*"
    r"|testbeds?)\b"
    # (fourteenth round) a model checked against a device of the paper's own: "validated on an
    # edge device featuring a Mali GPU", "validated on a smartphone"; (thirty-second round) or
    # evaluated there: "we conduct evaluations on Multi-Node-Multi-GPU machines"
    r"|\b(?:validated|evaluations?|evaluated) (?:\w+ ){0,2}on (?:a |an |the |two |three |real "
    r"|physical )*(?:[\w-]+ ){0,4}?(?:devices?|boards?|GPUs?|SoCs?|phones?|smartphones?|hardware"
    r"|platforms?|machines?|servers?|clusters?)\b",
    re.I,
)
# (fourteenth round) "all without requiring access to real hardware": the words of a real run,
# negated, say the opposite.
_NEGATED_BEFORE = re.compile(
    r"\b(?:without|no|not|never|instead of|rather than)\b(?:\s+[\w-]+){0,3}\s*$", re.I
)


def _real_run(head: str) -> bool:
    """Whether the text says it also ran on machines of its own (`_REAL_RUN`), not negated."""
    if not _finds(_REAL_RUN, head):
        return False
    return any(
        not _NEGATED_BEFORE.search(head, max(0, m.start() - 48), m.start())
        for m in _REAL_RUN.finditer(head)
    )


_MODELLED_GATES = ("simulat", "-like")
_PROJECTED_GATES = ("analytical", "first-principles", "roofline")


# The texts the study checks read, each with its lower-cased form and whether a case-insensitive
# pattern finds the same there (gate.folds): the last few, as the checks ask of the same title
# and abstract in turn.
_FOLDINGS: dict[str, tuple[str, bool]] = {}
_CASELESS = re.IGNORECASE.value  # an int: `int & re.IGNORECASE` runs enum code in Python
# On a shorter text (a title) one pattern per first character costs more calls than it saves
# (5 title checks: 4.6 us folded whole, 6.0 in parts, 9.7 as written with IGNORECASE).
_PARTS_FROM = 300


def _folding(text: str) -> tuple[str, bool]:
    """`text.lower()` and whether a case-insensitive pattern finds the same there (gate.folds),
    kept for the last few texts."""
    folding = _FOLDINGS.get(text)
    if folding is None:
        if len(_FOLDINGS) >= 8:
            _FOLDINGS.clear()
        lower = text.lower()
        folding = _FOLDINGS[text] = (lower, folds(text, lower))
    return folding


def _lower(text: str) -> str:
    """`text.lower()`, for the study checks that ask it of the same abstract in turn."""
    return _folding(text)[0]


def _finds(pattern: re.Pattern[str], text: str) -> bool:
    """Whether `pattern.search(text)` finds something: a case-insensitive pattern is run in its
    folded form on the lower-cased text when that finds the same (several times faster)."""
    if not pattern.flags & _CASELESS:
        return pattern.search(text) is not None
    folding = _folding(text)
    if folding[1]:
        parts = folded_parts(pattern) if len(text) >= _PARTS_FROM else None
        if parts is not None:  # one per first character: any of them finds something
            return any(part.search(folding[0]) is not None for part in parts)
        return folded(pattern).search(folding[0]) is not None
    return pattern.search(text) is not None


def _modelled(abstract: str) -> str | None:
    head = abstract[:4000]
    lower = _lower(head)
    if any(g in lower for g in _MODELLED_GATES) and _finds(_MODELLED, head):
        if _real_run(head):
            return None
        return "results from modelled hardware"
    if (
        any(g in lower for g in _PROJECTED_GATES)
        and _finds(_PROJECTED, head)
        and not _real_run(head)
        and not _finds(_MEASURED_RUN, head)
    ):
        return "results from modelled hardware"
    return None


def _simulated(abstract: str) -> str | None:
    head = abstract[:4000]
    lower = _lower(head)
    simulated = "simulat" in lower or "emulation" in lower
    if simulated and _finds(_SIMULATED, head) and not _real_run(head):
        return "a simulation study"
    traced = "trace" in lower or "what-if" in lower
    if traced and _finds(_TRACE_STUDY, head) and not _finds(_TRACE_REPLAYED, head):
        return "a trace study"
    return None


# A study whose subject is measuring energy, power or carbon: the title says it measures
# ("Measuring/Profiling/Characterizing ... Energy", "How Much Energy ...", "The Energy Cost of
# ..."), not that it saves ("Reducing the Energy Consumption of ..." is a method).
_ENERGY_TITLE = re.compile(r"\b(?:energy|power|electricity|joules?)\b", re.I)
_MEASURING_TITLE = re.compile(
    r"\b(?:measur\w*|profil\w*|characteri[sz]\w*|quantif\w*|monitor\w*|audit\w*|account\w*"
    r"|how much|(?:price|cost|bill) of)\b",
    re.I,
)
_SAVING_TITLE = re.compile(
    r"\b(?:reduc\w*|sav(?:e|es|ing)|cut\w*|minimi[sz]\w*|optimi[sz]\w*|efficien\w*|aware"
    r"|lower\w*|green\w*)\b",
    re.I,
)
# ...or the abstract says so of itself: "this paper profiles the energy consumption of".
_ENERGY_ABSTRACT = re.compile(
    r"\bthis (?:paper|work|study) (?:\w+ )?(?:measures|profiles|characteri[sz]es|quantifies"
    r"|audits) (?:the )?(?:[\w-]+ ){0,2}?(?:energy|power|electricity)\b",
    re.I,
)


def _energy_study(title: str, abstract: str) -> str | None:
    if (
        _finds(_ENERGY_TITLE, title)
        and _finds(_MEASURING_TITLE, title)
        and not _finds(_SAVING_TITLE, title)
    ):
        return "an energy measurement study"
    head = abstract[:4000]
    if "this " in _lower(head) and _finds(_ENERGY_ABSTRACT, head):
        return "an energy measurement study"
    return None


_CO_DESIGN = re.compile(
    r"\b(?:hardware[-/ ]software|software[-/ ]hardware|HW/SW|SW/HW) co-?design", re.I
)
# ...with a hardware part of its own: "lightweight hardware in the GPU hub", "a hardware
# engine", "hardware support for X", "by hardware-accelerating the control plane".
_NEW_HARDWARE = re.compile(
    r"\b(?:lightweight|dedicated|small|custom|new|simple) (?:hardware|engine|unit|logic)\b"
    r"|\bhardware (?:units?|engines?|support|extensions?|blocks?|modules?)\b"
    r"|\bhardware-accelerat\w+ (?:the|its|our|all)\b",
    re.I,
)


def _co_designed_hardware(title: str, abstract: str) -> str | None:
    # The abstract's head, as the other study checks read it: `_finds` keeps its lower-cased
    # form for them all (and a megabyte of text is not scanned again).
    head = abstract[:4000]
    if not (_finds(_CO_DESIGN, title) or _finds(_CO_DESIGN, head)):
        return None
    found = _finds(_NEW_HARDWARE, title) or _finds(_NEW_HARDWARE, head)
    return "a hardware design" if found else None


def _states_setup(facts: TextFacts) -> bool:
    """Whether the text writes a machine of its own down: a named device or system, or a count
    of devices or nodes, outside motivation and baselines."""
    return any(_usable(m) and m.kind in ("device", "system") for m in facts.mentions) or any(
        _usable(c) for c in facts.counts
    )


def _study_kind(title: str, abstract: str) -> str | None:
    for kind, pattern in _STUDY_TITLE:
        if _finds(pattern, title):
            return kind
    head = abstract[:4000]  # a paper says what it is early on; bounded for huge inputs
    lower = _lower(head)
    for kind, guards, pattern in _STUDY_ABSTRACT:
        if any(g in lower for g in guards) and _finds(pattern, head):
            return kind
    return None


_INTRA_NODE = re.compile(r"\bintra-?node\b", re.I)
# The edge phrases that say only "little memory or compute", no kind of device.
_CONSTRAINED_DEVICES = re.compile(
    r"\b(?:resource|memory)-(?:constrained|limited) devices?\b|" + LIMITED_MEMORY_DEVICES, re.I
)
_OFFLOAD = re.compile(r"offload|\bCPU[-\u2013]GPU\b", re.I)
_SMALL_DEVICES = re.compile(r"\bmemory-constrained devices\b", re.I)


class _Builder:
    def __init__(self, catalog: HardwareCatalog, facts: TextFacts, *, kernels: bool) -> None:
        self.catalog = catalog
        self.facts = facts
        self.kernels = kernels
        self.floor_features: list[str] = []
        self.floor_arch: str | None = None

    # -- what the text names -----------------------------------------------------------------

    def _named(self) -> list[Mention]:
        return [m for m in self.facts.mentions if m.kind in ("device", "system")]

    def _named_devices(self) -> dict[str, str]:
        """Every device the text names (systems through their device), with its source."""
        out: dict[str, str] = {}
        for m in self._named():
            curated = m.span.source == "curated"
            if m.kind == "system":
                system = self.catalog.system(m.ref)
                if system is not None:
                    out.setdefault(system.device, "curated" if curated else "system")
            else:
                out.setdefault(m.ref, "curated" if curated else "named")
        return out

    def _architectures(self) -> list[Architecture]:
        """Architectures named in the paper's own sentences, when all are of one vendor (a
        paper listing "NVIDIA GPUs, Huawei NPUs and Google TPUs" targets none of them)."""
        archs = [
            a
            for m in self.facts.mentions
            if m.kind == "architecture"
            and _usable(m)
            and (a := self.catalog.architecture(m.ref)) is not None
        ]
        return archs if len({a.vendor for a in archs}) == 1 else []

    def _architecture_representative(self) -> str | None:
        return next((a.representative for a in self._architectures() if a.representative), None)

    # -- setups ------------------------------------------------------------------------------

    def _explicit_setups(self) -> list[_Setup]:
        """Setups as written: curated notes when there are any, else the paper's sentences."""
        curated = [m for m in self._named() if m.span.source == "curated"]
        if curated:
            counts = [c for c in self.facts.counts if c.span.source == "curated"]
            setups = self._setups(curated, counts, "curated")
            # A curated note without a count ("A100 80GB") still names the device: one of it.
            have = {s.device for s in setups}
            for m in curated:
                if m.kind == "device" and m.ref not in have:
                    device = self.catalog.get(m.ref)
                    setups.append(_Setup(m.ref, 1, _scale_for(device, 1), "curated", [m.span]))
                    have.add(m.ref)
            return setups
        pool = [m for m in self._named() if _usable(m)]
        counts = [c for c in self.facts.counts if _usable(c) and c.span.source != "curated"]
        return self._setups(pool, counts, "named") + self._architecture_setups()

    def _architecture_setups(self) -> list[_Setup]:
        """ "8 Nvidia Hopper GPUs": a count of GPUs of one generation. The device is not named,
        so none is invented; the count and its scale are the paper's."""
        out: list[_Setup] = []
        for m in self.facts.mentions:
            if m.kind != "architecture" or m.count is None or m.hours or not _usable(m):
                continue
            if m.span.source == "curated":
                continue
            scale = "multi-node" if m.vague and m.count >= 100 else _scale_for(None, m.count)
            out.append(
                _Setup(
                    "",
                    m.count,
                    scale,
                    "generic",
                    [m.span],
                    vague=m.vague,
                    label=m.span.quote,
                    position=m.span.start,
                )
            )
        return out

    def _setups(self, pool: list[Mention], counts: list[CountMention], source: str) -> list[_Setup]:
        setups = [s for m in pool if (s := _mention_setup(self.catalog, m)) is not None]
        for s in setups:
            s.source = source if source == "curated" or s.source == "named" else s.source
        # "512-GPU scale ... on NVIDIA H100 GPUs", "over 15M on a 4 node cluster" after
        # "8xH100 GPU node": a device-less count in a sentence that names a device is a setup of
        # that device (the nearest one written before it).
        by_sentence = _DevicesBySentence(pool)
        for count in counts:
            mention = by_sentence.nearest_before(count)
            if mention is None:
                continue
            device = self.catalog.get(mention.ref)
            scale = "edge" if device is not None and device.edge else _count_scale(count)
            total = _count_total(count, device)
            node_size = device.node_size if device is not None else 8
            if count.unit == "node" and not count.per_node and mention.count:
                if 1 < mention.count <= node_size:
                    total = count.count * mention.count  # "4 nodes x 8 A100", "4 nodes of 8x H100"
                elif mention.count > node_size:
                    total = mention.count  # "384 A100 GPUs (48 nodes of 8)": the total is written
            label = f"{count.count} nodes" if count.unit == "node" and not count.per_node else ""
            setups.append(
                _Setup(
                    mention.ref,
                    total,
                    scale,
                    source,
                    [count.span, mention.span],
                    vague=count.vague,
                    label=label,
                    position=count.span.start,
                )
            )
        return setups

    @staticmethod
    def _pick(setups: list[_Setup]) -> _Setup:
        """The setup behind the paper's headline: the largest scale; within multi-node the
        largest count; otherwise the first written. An edge device wins over one GPU."""
        top = max(_SCALE_RANK[s.scale] for s in setups)
        edge = [s for s in setups if s.scale == "edge"]
        if edge and top <= _SCALE_RANK["single-device"]:
            return edge[0]
        best = [s for s in setups if _SCALE_RANK[s.scale] == top]
        if top == _SCALE_RANK["multi-node"]:
            return max(best, key=lambda s: (s.count or 0, s.source != "system"))
        return min(best, key=lambda s: (s.span_order, s.position))

    def _cue_scale(self) -> tuple[Scale, list[Span]]:
        by_scale: dict[str, list[Cue]] = {}
        for cue in self.facts.cues:
            if not cue.background:
                by_scale.setdefault(cue.scale, []).append(cue)

        def qualified(scale: str) -> list[Span]:
            found = by_scale.get(scale, [])
            strong = [c.span for c in found if c.strong or c.span.source == "title"]
            if strong:
                return strong
            # Two different weak phrases ("NVLink", "distributed inference") make one strong.
            return [c.span for c in found] if len({c.span.quote.lower() for c in found}) > 1 else []

        if spans := qualified("edge"):
            # (motivation counts here: "existing systems offload weights to CPU memory" says
            # what kind of machine the paper's own offloading runs on)
            offloads = [
                c.span
                for c in self.facts.cues
                if c.scale == "single-device" and _OFFLOAD.search(c.span.quote)
            ]
            if offloads and all(_CONSTRAINED_DEVICES.search(s.quote) for s in spans):
                # (eleventh round) "resource-constrained devices" whose weights are offloaded
                # to CPU / host memory: a GPU with a host beside it, not a phone or a board.
                return "single-device", offloads
            return "edge", spans
        if self.facts.memory_budget and (
            spans := [
                c.span for c in by_scale.get("edge", []) if _SMALL_DEVICES.search(c.span.quote)
            ]
        ):
            # "Serving MoE models on memory-constrained devices ... with tunable memory
            # budgets": the budget makes the weak phrase the paper's own setting.
            return "edge", spans
        for scale in ("multi-node", "single-node", "single-device"):
            if spans := qualified(scale):
                return scale, spans  # type: ignore[return-value]
        return "unknown", []

    def _intra_node(self) -> list[Span]:
        """The paper's own statement that its work stays inside one node ("intra-node
        parallelism"), outside motivation and related work."""
        return [
            c.span for c in self.facts.cues if not c.background and _INTRA_NODE.search(c.span.quote)
        ]

    def _distributed_setting(self) -> tuple[Scale | None, list[Span]]:
        """A strong multi-node wording, also in the opening sentence, with the model split
        into stages or parallel parts: the paper runs across machines."""
        if not (self.facts.parallel or self.facts.stages):
            return None, []
        spans = [c.span for c in self.facts.cues if c.scale == "multi-node" and c.strong]
        return ("multi-node", spans) if spans else (None, [])

    # -- memory and floor ----------------------------------------------------------------------

    def _sizes(self) -> list[SizeMention]:
        """The sizes the paper itself uses (its models or evaluation models), not baselines
        or motivation; the largest of them drives the estimate."""
        return [s for s in self.facts.sizes if s.role in ("own", "neutral") and not s.active_only]

    def _estimate(self, target: _Setup | None) -> tuple[MemoryEstimate | None, SizeMention | None]:
        """The memory estimate of the target: from the largest size the paper itself uses,
        or, when the target is a setup the paper states and that size cannot fit in it, from
        the largest size that does (the estimate must describe the target it is shown with:
        a 7B model run "on one A100 80GB" is not a 405B model it also mentions)."""
        sizes = sorted(self._sizes(), key=lambda s: s.total_b, reverse=True)
        if not sizes:
            return None, None
        count = target.count if target is not None else None
        estimates = [(self._estimate_for(size, count), size) for size in sizes]
        capacity = self._capacity(target)
        if capacity is not None:
            fitting = [(est, size) for est, size in estimates if est.gib <= capacity]
            if fitting:
                return fitting[0]
        return estimates[0]

    def _estimate_for(self, size: SizeMention, zero3_gpus: int | None) -> MemoryEstimate:
        mode = self.facts.mode if self.facts.mode != "unknown" else "inference"
        return estimate(
            size.total_b,
            mode,
            precision=self.facts.precision[:2] if self.facts.precision else None,
            adapter=self.facts.adapter,
            active_b=size.active_b,
            zero3_gpus=zero3_gpus if self.facts.zero3 else None,
            upper_bound=size.experts_upper_bound,
        )

    def _capacity(self, target: _Setup | None) -> float | None:
        """Total device memory (GB) of a setup the text states, when known."""
        if target is None or target.source not in ("curated", "named", "system"):
            return None
        device = self.catalog.get(target.device)
        if device is None or not device.memory_gb or not target.count:
            return None
        return device.memory_gb * target.count

    def _floor(self) -> tuple[str | None, list[Span]]:
        """Set the feature floor from features (TMA, FP8...) or, for a kernel paper, from the
        architecture it is written for; return its human text and evidence."""
        found: dict[str, Span] = {}
        for feature_id, span in self.facts.features:
            found.setdefault(feature_id, span)
        floor: Architecture | None = None
        for feature_id in found:
            feature = self.catalog.feature(feature_id)
            arch = self.catalog.architecture(feature.introduced_by if feature else None)
            if arch is not None and (floor is None or arch.order > floor.order):
                floor = arch
        spans = list(found.values())
        if floor is None and self.kernels and (archs := self._architectures()):
            floor = min(archs, key=lambda a: a.order)
            spans += [m.span for m in self.facts.mentions if m.ref == floor.id][:1]
        if floor is None:
            return None, []
        self.floor_features = list(found)
        self.floor_arch = floor.id
        names = [
            feat.name
            for f in found
            if (feat := self.catalog.feature(f)) is not None and feat.introduced_by == floor.id
        ]
        return (f"{floor.name} ({'/'.join(names)})" if names else floor.name), spans

    def _vendor(self) -> str:
        for dev_id in self._named_devices():
            dev = self.catalog.get(dev_id)
            if dev is not None and dev.vendor in self.catalog.ladders:
                return dev.vendor
        for arch in self._architectures():
            if arch.vendor in self.catalog.ladders:
                return arch.vendor
        if self.facts.vendors:
            vendor, hits = self.facts.vendors.most_common(1)[0]
            if hits and vendor in self.catalog.ladders:
                return vendor
        return self.catalog.default_vendor

    def _ladder(self) -> list[Device]:
        """The vendor's suggestion ladder, keeping only devices that meet the floor."""
        for vendor in (self._vendor(), self.catalog.default_vendor):
            devices = [
                d
                for d in (self.catalog.get(i) for i in self.catalog.ladders.get(vendor, []))
                if d is not None
                and d.memory_gb
                and meets_floor(self.catalog, d, self.floor_arch, self.floor_features)
            ]
            if devices:
                return devices
        return []

    def _roomiest_named(self) -> Device | None:
        """The named (usable, non-edge) device with the most memory, if any."""
        best: Device | None = None
        for mention in self._named():
            if mention.kind != "device" or not _usable(mention):
                continue
            device = self.catalog.get(mention.ref)
            if device is None or device.edge or not device.memory_gb:
                continue
            if best is None or device.memory_gb > (best.memory_gb or 0):
                best = device
        return best

    def _ladder_setup(self, gib: float) -> _Setup | None:
        """The first ladder device that holds `gib` alone, else several of the last one."""
        ladder = self._ladder()
        if not ladder:
            return None
        for dev in ladder:
            if gib <= (dev.memory_gb or 0):
                return _Setup(dev.id, 1, "single-device", "estimate")
        dev = ladder[-1]
        n = max(1, math.ceil(round(gib, 1) / (dev.memory_gb or 1)))
        return _Setup(dev.id, n, _scale_for(dev, n), "estimate")

    # -- assembling ----------------------------------------------------------------------------

    def build(self) -> HardwareSuggestion:
        named = self._named_devices()
        floor_text, floor_spans = self._floor()
        setups = self._explicit_setups()
        target = self._pick(setups) if setups else None
        confidence: Confidence = "low"
        if target is not None:
            confidence = "high" if target.source in ("curated", "named") else "medium"
        est, size = self._estimate(target)
        stated_gib: float | None = None
        # A device named only in motivation ("e.g. an NVIDIA H100") is not the paper's target.
        first_named = next(
            (
                m.ref if m.kind == "device" else self.catalog.system(m.ref).device  # type: ignore[union-attr]
                for m in self._named()
                if _usable(m)
            ),
            None,
        )
        device_hint = first_named or self._architecture_representative()

        if target is None:
            # "a single GPU" is left to the phrases below, which also read "a 24GB GPU".
            counts = [
                c
                for c in self.facts.counts
                if _usable(c) and not (c.unit == "device" and c.count == 1)
            ]
            cue_scale, cue_spans = self._cue_scale()
            if (
                counts
                and cue_scale == "multi-node"
                and all(
                    c.vague and _SCALE_RANK[_count_scale(c)] < _SCALE_RANK["multi-node"]
                    for c in counts
                )
            ):
                # (twentieth round) "multiple devices" is a lower bound; the paper's own "across
                # a distributed cluster" says how far above it the setup goes.
                counts = []
            if counts:
                best = max(counts, key=lambda c: (_SCALE_RANK[_count_scale(c)], c.count))
                device = self.catalog.get(device_hint) if device_hint else None
                if device is not None and device.edge:
                    device = None  # "iGPUs and mobile phones ... only four GPUs": not phones
                total = _count_total(best, device) if device or best.unit == "device" else None
                count_scale = _count_scale(best)
                if (
                    count_scale == "single-node"
                    and best.unit == "device"
                    and self.kernels
                    and self.facts.measured
                    and self.facts.mode != "training"
                    and not (self.facts.multi_device or self.facts.parallel)
                ):
                    # "Our experiments on three GPUs" in a kernel paper whose kernels share
                    # nothing between devices: three GPU models, each timed alone.
                    total, count_scale = 1, "single-device"
                if cue_scale == "edge" and best.unit == "device" and device is None:
                    # "multiple devices" of a Raspberry Pi cluster or phones: edge devices, not
                    # GPUs in a server.
                    count_scale = "edge"
                target = _Setup(
                    device.id if device is not None else "",
                    total,
                    count_scale,
                    "generic",
                    [best.span],
                    vague=best.vague,
                    label=best.span.quote,
                )
                confidence = "medium" if first_named else "low"
            elif cue_scale != "unknown":
                stated_gib = _stated_memory(cue_spans) if cue_scale == "single-device" else None
                device_id = device_hint
                if device_id is None and stated_gib is not None:
                    setup = self._ladder_setup(stated_gib)
                    device_id = setup.device if setup else None
                count = 1 if cue_scale == "single-device" else None
                target = _Setup(device_id or "", count, cue_scale, "cue", cue_spans[:2])
                confidence = "medium" if first_named else "low"
                if any(span.source == "curated" for span in cue_spans):
                    confidence = "high"  # "single 48GB GPU" in a curated note
            elif est is not None:
                device = self.catalog.get(device_hint) if device_hint else None
                if device is not None and first_named and est.gib > (device.memory_gb or 0):
                    # (nineteenth round) A model no single device of the first named holds runs
                    # on the largest device the paper names ("LLaMA-13B on A6000 ... LLaMa-33B
                    # on A100 ... GPT-3 with pipeline parallelism"): size it on that one.
                    device = self._roomiest_named() or device
                if device is not None and device.memory_gb:
                    n = est.devices_needed(device.memory_gb)
                    target = _Setup(device.id, n, _scale_for(device, n), "estimate")
                else:
                    target = self._ladder_setup(est.gib)
                confidence = "medium"
                if (
                    target is not None
                    and target.scale in ("single-device", "single-node")
                    and size is not None
                    and _beyond_one_node(self.facts, size)
                ):
                    # Pre-training a model on trillions of tokens: the memory would fit, the
                    # compute needs more than a node for a month (see _beyond_one_node).
                    target = _Setup("", None, "multi-node", "cue", [size.span])
                    confidence = "low"
                if (
                    target is not None
                    and target.scale == "multi-node"
                    and (intra := self._intra_node())
                ):
                    # "Intra-node parallelization schemes" of a 405B model: the paper states
                    # its setup is one node, so the estimate may not size it past one.
                    target = _Setup(target.device, None, "single-node", "cue", intra)
                    confidence = "low"
                if target is not None and target.scale == "single-device" and self.facts.parallel:
                    # The text splits the model over devices (tensor, expert or pipeline
                    # parallelism): the estimate may raise that setup, never shrink it to one
                    # device. How many devices the text does not say.
                    target = _Setup(target.device, None, "single-node", "estimate")
                spread_scale, spread_spans = self._distributed_setting()
                if target is not None and target.scale == "single-device" and spread_scale:
                    # A small model that would fit one GPU, trained or served in stages across
                    # the nodes the paper sets out ("decentralized nodes, e.g. multiple spot
                    # instances"): the setting is the setup, the size does not shrink it.
                    target = _Setup("", None, spread_scale, "cue", spread_spans[:2])
                    confidence = "low"
                if (
                    target is not None
                    and target.scale == "single-device"
                    and self.facts.worker_training
                    and size is not None
                ):
                    # (thirty-first round) A small model trained by a method whose subject is
                    # its spread over workers (Local SGD, distributed optimization): the size
                    # would fit one GPU, the method runs on several machines, how many unsaid.
                    target = _Setup("", None, "multi-node", "cue", [size.span])
                    confidence = "low"
            elif first_named:
                device = self.catalog.get(first_named)
                scale: Scale = "edge" if device is not None and device.edge else "single-device"
                if scale == "single-device" and self.facts.parallel:
                    # "tensor-parallel inference on A100 platforms": the model is split over
                    # several A100s; how many the text does not say, so not "1x A100".
                    target = _Setup(first_named, None, "single-node", "named")
                elif scale == "single-device" and self.facts.scaled_training:
                    # "Scalable training ... on TPU v5e": a run across machines of that
                    # device, how many the text does not say.
                    target = _Setup(first_named, None, "multi-node", "named")
                else:
                    target = _Setup(first_named, 1, scale, "named")
                confidence = "medium"
            elif self.floor_arch or (device_hint and self.kernels):
                rep = device_hint
                if rep is None:
                    arch = self.catalog.architecture(self.floor_arch)
                    rep = arch.representative if arch is not None else None
                # A kernel paper measures on one device; otherwise the count is not given. One
                # that only generates or verifies code (correctness rates, no timing) ran no
                # kernel on a device of its own.
                # A floor from number formats alone ("MXFP4", "FP8"), no device, architecture
                # or programming feature (TMA, wgmma) named: a numerics paper, unless it times
                # something.
                formats_only = device_hint is None and all(
                    f in _NUMBER_FORMATS for f in self.floor_features
                )
                one = (
                    self.kernels
                    and self.facts.mode != "training"
                    and (
                        self.facts.measured
                        if formats_only
                        else (self.facts.measured or not self.facts.code_only)
                    )
                )
                target = _Setup(
                    rep or "",
                    1 if one else None,
                    "single-device" if one else "unknown",
                    "architecture",
                )
            elif self.kernels and self.facts.measured and not self.facts.multi_device:
                # A kernel paper that reports timed results ran its kernels on one device,
                # even when it names none (the labelling rule of every split: "a kernel paper
                # measuring one device"), also when its kernels serve training. One that only
                # generates code reports no setup; one whose kernels overlap communication runs
                # on several devices, how many the text does not say.
                target = _Setup("", 1, "single-device", "kernel")
        return self._assemble(
            target, confidence, named, est, size, stated_gib, floor_text, floor_spans, setups
        )

    def _assemble(
        self,
        target: _Setup | None,
        confidence: Confidence,
        named: dict[str, str],
        est: MemoryEstimate | None,
        size: SizeMention | None,
        stated_gib: float | None,
        floor_text: str | None,
        floor_spans: list[Span],
        setups: list[_Setup],
    ) -> HardwareSuggestion:
        devices: list[str] = []
        sources: dict[str, str] = {}
        if target is not None and target.device:
            devices.append(target.device)
            sources[target.device] = named.get(target.device, target.source)
        for dev_id, src in named.items():
            if dev_id not in sources:
                devices.append(dev_id)
                sources[dev_id] = src
        systems: list[str] = []
        for m in self.facts.mentions:
            system = self.catalog.system(m.ref) if m.kind == "system" else None
            if system is not None and system.name not in systems:
                systems.append(system.name)

        spans: list[Span] = list(target.spans) if target is not None else []
        if size is not None:
            spans.append(size.span)
        spans += floor_spans
        spans += [m.span for m in self._named()]
        if target is not None and target.scale == "edge" and target.source != "cue":
            spans += self._cue_scale()[1][:1]

        memory_gb = round(est.gib, 2) if est is not None else None
        arithmetic = est.arithmetic if est is not None else None
        capacity = self._capacity(target)
        if est is not None and capacity is not None and est.gib > capacity:
            # The paper states its setup and no model size it uses fits that setup's memory
            # (_estimate took the largest that fits when one does): it keeps the state off the
            # devices (offloading to CPU memory or SSD, swapping) or runs a part of it. The
            # estimate is then no requirement of the target: a machine like the stated setup
            # must not be told it does not fit (a 175B fine-tune "on one RTX 4090" with SSD
            # offloading asked 2,608 GB of a 24 GB laptop). Kept as information.
            memory_gb = None
            arithmetic = (
                f"{est.arithmetic}: more than the {capacity:g} GB of the setup the paper states, "
                "which does not hold it all (offloaded, a smaller run, or a model used "
                "elsewhere); the fit goes by that setup"
            )
        if stated_gib is not None:
            # "a 24G GPU", "18GB GPU", "3GB of VRAM": the paper's own figure beats the formula.
            memory_gb = stated_gib
            arithmetic = f"as written: {stated_gib:g} GB" + (
                f" (the size-based estimate would be {arithmetic})" if arithmetic else ""
            )
        count = target.count if target is not None else None
        scale: Scale = target.scale if target is not None else "unknown"
        return HardwareSuggestion(
            target=self._target_text(target, est, floor_text),
            scale=scale,
            devices=devices,
            memory_gb=memory_gb,
            confidence=confidence if target is not None else "low",
            evidence=_evidence(spans),
            device_counts={target.device: count} if target and target.device and count else {},
            device_total=count,
            device_sources=sources,
            systems=systems,
            model_sizes=[_size_json(s) for s in self.facts.sizes],
            mode=self.facts.mode,  # type: ignore[arg-type]
            memory_arithmetic=arithmetic,
            feature_floor=floor_text,
            floor_features=self.floor_features,
            floor_architecture=self.floor_arch,
            scaled_down=self._scaled_down(target, est, setups),
            alternatives=self._alternatives(target, est, setups),
        )

    def _device_name(self, device_id: str) -> str:
        device = self.catalog.get(device_id)
        return device.name if device is not None else device_id

    def _target_text(
        self, target: _Setup | None, est: MemoryEstimate | None, floor: str | None
    ) -> str:
        if target is None:
            return "unknown: the text names no hardware, model size or hardware feature"
        scale_words = {
            "single-device": "one device",
            "single-node": "one node",
            "multi-node": "multi-node",
            "edge": "edge",
            "unknown": "count not given",
        }
        where = scale_words[target.scale]
        if not target.device:
            if target.source == "generic":
                return f"{target.label} ({where}; device not named)"
            return {
                "edge": "an edge device (phone / Jetson class); device not named",
                "multi-node": "a multi-node GPU cluster; device not named",
                "single-node": "one multi-GPU node; device not named",
                "single-device": (
                    "one GPU, as kernel papers measure; device not named"
                    if target.source == "kernel"
                    else "one GPU; device not named"
                ),
            }.get(target.scale, "unknown")
        name = self._device_name(target.device)
        if target.system and target.count is None:
            text = f"{target.label}: {name} nodes ({where})"
        elif target.system:
            text = f"{target.count}x {name} ({where}) in {target.label}"
        elif target.label and target.source in ("named", "curated") and target.count:
            text = f"{target.label} of {name} (~{target.count} devices; {where})"
        elif target.vague and target.count:
            text = f"{_vague_words(target.count)} {name} ({where})"
        elif target.count:
            text = f"{target.count}x {name} ({where})"
        else:
            text = f"{name} ({where})"
        if target.source == "estimate" and est is not None:
            text += f", from a memory estimate of {format_gb(est.gib)} GiB"
        elif target.source == "architecture":
            text += f", as the paper's architecture{f'; floor {floor}' if floor else ''}"
        elif target.source == "curated":
            text += ", as tested (curated)"
        elif target.source in ("named", "system") and target.count and target.spans:
            text += f", as written: {target.spans[0].quote!r}"
        elif target.source in ("generic", "cue") and target.spans:
            text += f", from {target.spans[0].quote!r}"
        return text

    def _scaled_down(
        self, target: _Setup | None, est: MemoryEstimate | None, setups: list[_Setup]
    ) -> dict[str, Any] | None:
        """For a multi-node target: a setup one lab can run, the paper's own if it has one."""
        if target is None or target.scale != "multi-node":
            return None
        device = self.catalog.get(target.device) if target.device else None
        node = device.node_size if device is not None else 8
        own = [s for s in setups if s.count and s.count <= node and s is not target]
        if own:
            chosen = max(own, key=lambda s: s.count or 0)
            dev_id, count, note = chosen.device, chosen.count or 1, "the paper's own smaller setup"
        else:
            dev_id, count = target.device, node
            note = "one node: same code path, a smaller model or fewer steps"
        chosen_dev = self.catalog.get(dev_id) if dev_id else None
        fits: bool | None = None
        if est is not None and chosen_dev is not None and chosen_dev.memory_gb:
            total = chosen_dev.memory_gb * count
            fits = est.gib <= total
            if not fits:
                note += (
                    f"; the estimate ({format_gb(est.gib)} GiB) exceeds {total:g} GB: use ZeRO-3, "
                    "offloading or a smaller model size"
                )
        return {
            "devices": {dev_id: count} if dev_id else {},
            "count": count,
            "scale": _scale_for(chosen_dev, count),
            "fits_estimate": fits,
            "note": note,
        }

    def _alternatives(
        self, target: _Setup | None, est: MemoryEstimate | None, setups: list[_Setup]
    ) -> list[dict[str, Any]]:
        """Other setups the paper writes, then equivalents of the target device (an offer
        only: the target keeps the vendor the paper names)."""
        out: list[dict[str, Any]] = []
        if target is None or not target.device:
            return out
        for s in setups:
            if s is target or not s.device or not s.count:
                continue
            if all(a["devices"] != {s.device: s.count} for a in out):
                out.append({"devices": {s.device: s.count}, "why": "another setup in the paper"})
        device = self.catalog.get(target.device)
        if device is None:
            return out[:5]
        for alt_id in device.alternatives:
            alt = self.catalog.get(alt_id)
            if alt is None:
                continue
            # Swap like for like when the count is written; re-count from the estimate only
            # when the estimate chose the count.
            count = target.count or 1
            if target.source == "estimate" and est is not None and alt.memory_gb:
                count = est.devices_needed(alt.memory_gb)
            out.append({"devices": {alt_id: count}, "why": f"equivalent to {device.name}"})
        return out[:5]


# One 8-GPU node for a month: 8 x 989 TFLOP/s (H100 bf16 dense) x 40 % utilisation x 30 days
# = 8.2e21 FLOPs. Training costs about 6 x parameters x tokens FLOPs, so a run is more than a
# node-month when parameters (B) x tokens (B) exceed 8.2e21 / 6 / 1e18 = 1370.
_NODE_MONTH_PARAM_TOKENS_B2 = 1370.0


def _beyond_one_node(facts: TextFacts, size: SizeMention) -> bool:
    """Training `size` on the tokens the paper states takes more than a node-month."""
    if facts.mode != "training" or facts.tokens_b is None:
        return False
    return size.total_b * facts.tokens_b > _NODE_MONTH_PARAM_TOKENS_B2


def _count_total(count: CountMention, device: Device | None) -> int:
    if count.unit == "node":
        per = count.per_node or (device.node_size if device is not None else 8)
        return count.count * per
    return count.count


def _stated_memory(spans: list[Span]) -> float | None:
    """The largest device memory a single-device phrase states ("a 24G GPU" -> 24)."""
    found = [float(m.group(1)) for s in spans if (m := _GB.search(s.quote))]
    return max(found) if found else None


def _size_json(size: SizeMention) -> dict[str, Any]:
    out: dict[str, Any] = {"text": size.text, "params_b": size.total_b, "role": size.role}
    if size.active_b:
        out["active_b"] = size.active_b
    if size.model:
        out["model"] = size.model
    return out


def _evidence(spans: list[Span]) -> list[dict[str, Any]]:
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for span in spans:
        key = (span.source, span.quote.lower())  # "Frontier" five times is one piece
        if key not in seen:
            seen.add(key)
            out.append(span.evidence())
    return out[:_MAX_EVIDENCE]


def _vague_words(count: int) -> str:
    return {
        100: "hundreds of",
        1000: "thousands of",
        10000: "tens of thousands of",
        24: "dozens of",
        2: "several",
    }.get(count, f"{count}+")


__all__ = [
    "HardwareSuggestion",
    "format_params",
    "suggest_hardware",
]
