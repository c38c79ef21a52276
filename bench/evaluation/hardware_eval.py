"""Measure the hardware-target suggestion against a labelled split.

Two splits: the development split (fixtures/eval/hardware.yaml, labels only; the text comes from
the fixture digests the rules were written from) and the test split
(fixtures/eval/hardware_test.yaml, self-contained: each paper carries its arXiv id and abstract;
the rules and the catalog are never tuned on it).

Two things are scored per paper:
- named devices: the catalog ids the suggestion says the text names (`device_sources` of
  `named`, `system` or `curated`; devices it only infers from an architecture, a floor or a
  memory estimate are suggestions, not names) against the labelled `devices`. A memory or
  form-factor variant matches its family (a100-40gb = a100, h100-pcie = h100).
- scale: the suggested scale against the labelled one (a list of defensible scales counts any).

Pure functions over already-read data plus small readers, so the bench script and the tests
run one implementation.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from digest_tui.enrich.hardware.catalog import HardwareCatalog
from digest_tui.enrich.hardware.suggest import HardwareSuggestion, suggest_hardware
from digest_tui.errors import EvalDataError

SCALES = ("single-device", "single-node", "multi-node", "edge", "unknown")
NAMED_SOURCES = frozenset({"named", "system", "curated"})


class _Label(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1)
    devices: list[str] = Field(default_factory=list)
    scale: list[str]
    basis: Literal["explicit", "inferred", "none"] = "explicit"
    note: str | None = None
    # Only in a self-contained split (the test split): where the text comes from.
    arxiv_id: str | None = None
    abstract: str | None = None

    @field_validator("scale", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("scale")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if v not in SCALES]
        if bad or not value:
            raise ValueError(f"scale must be one or more of {', '.join(SCALES)}; got {value}")
        return value


class _LabelFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    papers: list[_Label]


@dataclass(frozen=True)
class LabelledPaper:
    title: str
    devices: frozenset[str]
    scales: frozenset[str]
    basis: str
    note: str | None = None


@dataclass(frozen=True)
class PaperOutcome:
    title: str
    label: LabelledPaper
    suggestion: HardwareSuggestion
    named: frozenset[str]  # predicted named devices, as catalog families
    gold: frozenset[str]  # labelled devices, as catalog families

    @property
    def scale_ok(self) -> bool:
        return self.suggestion.scale in self.label.scales

    @property
    def missed_devices(self) -> set[str]:
        return set(self.gold - self.named)

    @property
    def extra_devices(self) -> set[str]:
        return set(self.named - self.gold)

    @property
    def right(self) -> bool:
        return self.scale_ok and not self.missed_devices and not self.extra_devices


@dataclass
class EvalReport:
    outcomes: list[PaperOutcome] = field(default_factory=list)
    seconds_per_paper: float | None = None

    def _devices(self) -> tuple[int, int, int]:
        tp = sum(len(o.gold & o.named) for o in self.outcomes)
        gold = sum(len(o.gold) for o in self.outcomes)
        pred = sum(len(o.named) for o in self.outcomes)
        return tp, gold, pred

    @property
    def device_recall(self) -> float:
        tp, gold, _ = self._devices()
        return tp / gold if gold else 1.0

    @property
    def device_precision(self) -> float:
        tp, _, pred = self._devices()
        return tp / pred if pred else 1.0

    def scale_agreement(self, basis: str | None = None) -> float:
        chosen = [o for o in self.outcomes if basis is None or o.label.basis == basis]
        return sum(o.scale_ok for o in chosen) / len(chosen) if chosen else 1.0

    def unknown_counts(self) -> tuple[int, int, int]:
        """(predicted `unknown`, labelled only `unknown`, both): how often the suggester gives
        up, against how often the text really says nothing."""
        predicted = sum(o.suggestion.scale == "unknown" for o in self.outcomes)
        labelled = sum(o.label.scales == {"unknown"} for o in self.outcomes)
        both = sum(
            o.suggestion.scale == "unknown" and o.label.scales == {"unknown"} for o in self.outcomes
        )
        return predicted, labelled, both

    def known_scale_agreement(self) -> float:
        """Agreement on the papers whose labelled scale is known (not only `unknown`)."""
        chosen = [o for o in self.outcomes if o.label.scales != {"unknown"}]
        return sum(o.scale_ok for o in chosen) / len(chosen) if chosen else 1.0

    def confusion(self) -> dict[str, Counter[str]]:
        """Labelled scale (first listed) -> predicted scale counts."""
        table: dict[str, Counter[str]] = {s: Counter() for s in SCALES}
        for o in self.outcomes:
            gold = o.suggestion.scale if o.scale_ok else sorted(o.label.scales)[0]
            table[gold][o.suggestion.scale] += 1
        return table

    def by_confidence(self) -> dict[str, tuple[int, int]]:
        """Confidence -> (papers, scale agreements): is "high" more often right than "low"?"""
        out: dict[str, list[int]] = {}
        for o in self.outcomes:
            row = out.setdefault(o.suggestion.confidence, [0, 0])
            row[0] += 1
            row[1] += int(o.scale_ok)
        return {k: (v[0], v[1]) for k, v in out.items()}

    @property
    def disagreements(self) -> list[PaperOutcome]:
        return [o for o in self.outcomes if not o.right]

    def to_json(self) -> dict[str, Any]:
        tp, gold, pred = self._devices()
        unknown_predicted, unknown_labelled, unknown_both = self.unknown_counts()
        return {
            "papers": len(self.outcomes),
            "unknown": {
                "predicted": unknown_predicted,
                "labelled": unknown_labelled,
                "both": unknown_both,
            },
            "devices": {
                "labelled": gold,
                "predicted": pred,
                "matched": tp,
                "recall": round(self.device_recall, 4),
                "precision": round(self.device_precision, 4),
            },
            "scale": {
                "agreement": round(self.scale_agreement(), 4),
                "agreement_known": round(self.known_scale_agreement(), 4),
                "by_basis": {
                    b: round(self.scale_agreement(b), 4) for b in ("explicit", "inferred", "none")
                },
                "confusion": {g: dict(row) for g, row in self.confusion().items() if row},
            },
            "by_confidence": {
                k: {"papers": n, "scale_agreement": ok}
                for k, (n, ok) in self.by_confidence().items()
            },
            "microseconds_per_paper": (
                round(self.seconds_per_paper * 1e6, 1) if self.seconds_per_paper else None
            ),
            "disagreements": [_outcome_json(o) for o in self.disagreements],
        }


def _outcome_json(o: PaperOutcome) -> dict[str, Any]:
    return {
        "title": o.title,
        "labelled_scale": sorted(o.label.scales),
        "predicted_scale": o.suggestion.scale,
        "missed_devices": sorted(o.missed_devices),
        "extra_devices": sorted(o.extra_devices),
        "target": o.suggestion.target,
        "confidence": o.suggestion.confidence,
        "evidence": [e["quote"] for e in o.suggestion.evidence[:4]],
        "note": o.label.note,
    }


# ---- reading -------------------------------------------------------------------------------


def _read_label_file(path: Path) -> _LabelFile:
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return _LabelFile.model_validate(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise EvalDataError(f"{path}: {exc}") from exc
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise EvalDataError(f"{path}: {where}: {err['msg']}") from exc


def load_labels(path: Path) -> list[LabelledPaper]:
    data = _read_label_file(path)
    titles = [p.title for p in data.papers]
    dupes = sorted({t for t in titles if titles.count(t) > 1})
    if dupes:
        raise EvalDataError(f"{path}: papers labelled twice: {dupes}")
    return [
        LabelledPaper(p.title, frozenset(p.devices), frozenset(p.scale), p.basis, p.note)
        for p in data.papers
    ]


def read_split_papers(path: Path) -> dict[str, str]:
    """Title -> abstract of a self-contained split file whose papers carry their own abstracts;
    a paper without one is an error (it could not be measured)."""
    data = _read_label_file(path)
    papers: dict[str, str] = {}
    for index, item in enumerate(data.papers):
        if not (item.abstract or "").strip():
            raise EvalDataError(f"{path}: papers[{index}] ({item.title!r}): no abstract")
        papers[item.title] = item.abstract or ""
    return papers


def read_digest_papers(paths: Iterable[Path]) -> dict[str, str]:
    """Title -> abstract for every distinct paper of the digest files (first one wins)."""
    from digest_tui.sources.hf_page import parse_file

    papers: dict[str, str] = {}
    for path in sorted(paths):
        # The year only matters for dates, which the evaluation ignores: fix it for determinism.
        for paper in parse_file(path, year=2025).papers:
            papers.setdefault(paper.title, paper.abstract)
    return papers


# ---- scoring -------------------------------------------------------------------------------


def _family(catalog: HardwareCatalog, device_id: str) -> str:
    device = catalog.get(device_id)
    return device.family if device is not None else device_id


def evaluate(
    catalog: HardwareCatalog,
    labels: Sequence[LabelledPaper],
    papers: Mapping[str, str],
    *,
    timing_rounds: int = 0,
) -> EvalReport:
    """Suggest a target for every labelled paper and score it; optionally time the suggester
    (median over `timing_rounds` passes, seconds per paper)."""
    missing = [label.title for label in labels if label.title not in papers]
    if missing:
        raise EvalDataError(f"labelled papers not found in the digests: {missing}")
    unknown = sorted({d for label in labels for d in label.devices if catalog.get(d) is None})
    if unknown:
        raise EvalDataError(f"labelled devices not in the catalog: {unknown}")
    report = EvalReport()
    for label in labels:
        suggestion = suggest_hardware(catalog, label.title, papers[label.title])
        named = frozenset(
            _family(catalog, d)
            for d in suggestion.devices
            if suggestion.device_sources.get(d) in NAMED_SOURCES
        )
        gold = frozenset(_family(catalog, d) for d in label.devices)
        report.outcomes.append(PaperOutcome(label.title, label, suggestion, named, gold))
    if timing_rounds > 0:
        items = [(label.title, papers[label.title]) for label in labels]
        report.seconds_per_paper = time_suggester(catalog, items, timing_rounds)
    return report


def time_suggester(
    catalog: HardwareCatalog, items: Sequence[tuple[str, str]], rounds: int
) -> float:
    """Median seconds per paper over `rounds` passes (the first call compiles the patterns,
    so it runs once before timing)."""
    suggest_hardware(catalog, *items[0])
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for title, abstract in items:
            suggest_hardware(catalog, title, abstract)
        samples.append((time.perf_counter() - start) / len(items))
    return statistics.median(samples)


def format_report(report: EvalReport) -> str:
    data = report.to_json()
    dev, scale = data["devices"], data["scale"]
    lines = [
        f"papers: {data['papers']}",
        f"named devices: recall {dev['recall']:.1%} ({dev['matched']}/{dev['labelled']}), "
        f"precision {dev['precision']:.1%} ({dev['matched']}/{dev['predicted']})",
        f"scale agreement: {scale['agreement']:.1%} of all papers, "
        f"{scale['agreement_known']:.1%} of papers with a known scale",
        f"unknown scale: predicted for {data['unknown']['predicted']} papers, labelled for "
        f"{data['unknown']['labelled']}, both for {data['unknown']['both']}",
        "  by label basis: " + ", ".join(f"{b} {v:.1%}" for b, v in scale["by_basis"].items()),
        "  confidence: "
        + ", ".join(
            f"{k} {v['scale_agreement']}/{v['papers']}"
            for k, v in sorted(data["by_confidence"].items())
        ),
        "  confusion (labelled -> predicted): "
        + "; ".join(
            f"{g}: " + ", ".join(f"{p} {n}" for p, n in sorted(row.items()))
            for g, row in scale["confusion"].items()
        ),
    ]
    if data["microseconds_per_paper"] is not None:
        lines.append(f"time: {data['microseconds_per_paper']:.0f} us per paper (median)")
    lines.append(f"disagreements ({len(data['disagreements'])}):")
    for d in data["disagreements"]:
        lines.append(f"- {d['title']}")
        lines.append(
            f"    scale: labelled {'/'.join(d['labelled_scale'])}, predicted "
            f"{d['predicted_scale']} ({d['confidence']})"
        )
        if d["missed_devices"] or d["extra_devices"]:
            missed, extra = d["missed_devices"] or "-", d["extra_devices"] or "-"
            lines.append(f"    devices: missed {missed}, extra {extra}")
        lines.append(f"    target: {d['target']}")
        if d["evidence"]:
            lines.append(f"    evidence: {'; '.join(repr(q) for q in d['evidence'])}")
        if d["note"]:
            lines.append(f"    label note: {d['note']}")
    return "\n".join(lines)
