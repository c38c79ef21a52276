"""Measure the topic classifier against a labelled split.

Two splits: the development split (fixtures/eval/topics.yaml, labels only; the text comes from
the fixture digests the rules were written from) and the test split
(fixtures/eval/topics_test.yaml, self-contained: each paper carries its arXiv id, abstract and
the reason for its labels; the rules are never tuned on it).

Each labelled paper has `required` topics (missing one is a false negative) and `allowed` ones
(defensible either way: predicting one counts neither for nor against). Any other predicted
topic is a false positive. A paper is exactly right when
required <= predicted <= required | allowed.

Pure functions over already-read data, plus small readers for the label file and the fixture
digests, so the bench script and the tests share one implementation.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from digest_tui.enrich.topics.classifier import classify, explain
from digest_tui.enrich.topics.taxonomy import Taxonomy
from digest_tui.errors import EvalDataError
from digest_tui.models import TopicEvidence


class _Label(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1)
    required: list[str] = Field(default_factory=list)
    allowed: list[str] = Field(default_factory=list)
    note: str | None = None
    # Only in a self-contained split (the test split): where the text comes from and why.
    arxiv_id: str | None = None
    abstract: str | None = None
    reason: str | None = None


class _LabelFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    papers: list[_Label]


@dataclass(frozen=True)
class LabelledPaper:
    title: str
    required: frozenset[str]
    allowed: frozenset[str]
    note: str | None = None


@dataclass(frozen=True)
class PaperText:
    title: str
    abstract: str
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class PaperOutcome:
    title: str
    required: frozenset[str]
    allowed: frozenset[str]
    predicted: tuple[str, ...]
    scores: Mapping[str, float]
    evidence: Mapping[str, Sequence[TopicEvidence]]
    note: str | None = None

    @property
    def false_positives(self) -> set[str]:
        return set(self.predicted) - self.required - self.allowed

    @property
    def false_negatives(self) -> set[str]:
        return set(self.required) - set(self.predicted)

    @property
    def exact(self) -> bool:
        return not self.false_positives and not self.false_negatives


@dataclass(frozen=True)
class TopicScore:
    topic: str
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)


@dataclass(frozen=True)
class EvalReport:
    per_topic: list[TopicScore]
    outcomes: list[PaperOutcome]
    unlabelled: list[str] = field(default_factory=list)

    @property
    def micro(self) -> TopicScore:
        return micro(self.per_topic)

    @property
    def exact_share(self) -> float:
        return _ratio(sum(o.exact for o in self.outcomes), len(self.outcomes))

    @property
    def wrong(self) -> list[PaperOutcome]:
        return [o for o in self.outcomes if not o.exact]

    def to_json(self) -> dict[str, Any]:
        micro = self.micro
        return {
            "papers": len(self.outcomes),
            "per_topic": {t.topic: score_json(t) for t in self.per_topic},
            "micro": score_json(micro),
            "exact_share": round(self.exact_share, 4),
            "unlabelled": list(self.unlabelled),
            "wrong": [
                {
                    "title": o.title,
                    "required": sorted(o.required),
                    "allowed": sorted(o.allowed),
                    "predicted": list(o.predicted),
                    "false_positives": sorted(o.false_positives),
                    "false_negatives": sorted(o.false_negatives),
                    "scores": dict(o.scores),
                    "evidence": {
                        topic: [ev.model_dump() for ev in evs] for topic, evs in o.evidence.items()
                    },
                }
                for o in self.wrong
            ],
        }


def _ratio(num: int, den: int) -> float:
    # An empty denominator means nothing could go wrong: count it as perfect.
    return num / den if den else 1.0


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def micro(scores: Sequence[TopicScore]) -> TopicScore:
    """The per-topic counts summed: micro precision, recall and F1."""
    return TopicScore(
        "micro", sum(s.tp for s in scores), sum(s.fp for s in scores), sum(s.fn for s in scores)
    )


def score_json(score: TopicScore) -> dict[str, Any]:
    return {
        "tp": score.tp,
        "fp": score.fp,
        "fn": score.fn,
        "precision": round(score.precision, 4),
        "recall": round(score.recall, 4),
        "f1": round(score.f1, 4),
    }


def _read_label_file(path: Path) -> _LabelFile:
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise EvalDataError(f"{path}: {exc}") from exc
    try:
        return _LabelFile.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise EvalDataError(f"{path}: {problems}") from exc


def load_labels(path: Path) -> list[LabelledPaper]:
    """Read the label file; raises EvalDataError naming the file and the entry."""
    parsed = _read_label_file(path)
    labels: list[LabelledPaper] = []
    seen: set[str] = set()
    for index, item in enumerate(parsed.papers):
        if item.title in seen:
            raise EvalDataError(f"{path}: papers[{index}]: {item.title!r} is labelled twice")
        both = set(item.required) & set(item.allowed)
        if both:
            raise EvalDataError(
                f"{path}: papers[{index}]: {sorted(both)} both required and allowed"
            )
        seen.add(item.title)
        labels.append(
            LabelledPaper(item.title, frozenset(item.required), frozenset(item.allowed), item.note)
        )
    return labels


def read_split_papers(path: Path) -> dict[str, PaperText]:
    """Title -> text of a self-contained split file, whose papers carry their own abstracts.

    Every paper must have a non-empty abstract: a split without its text cannot be measured.
    """
    parsed = _read_label_file(path)
    papers: dict[str, PaperText] = {}
    for index, item in enumerate(parsed.papers):
        if not (item.abstract or "").strip():
            raise EvalDataError(f"{path}: papers[{index}] ({item.title!r}): no abstract")
        papers[item.title] = PaperText(item.title, item.abstract or "")
    return papers


def read_digest_papers(paths: Iterable[Path]) -> dict[str, PaperText]:
    """Every distinct paper (by exact title) of the given digest files, first occurrence wins."""
    from digest_tui.sources.hf_page import parse_file

    papers: dict[str, PaperText] = {}
    for path in sorted(paths):
        # The year only matters for dates, which the evaluation ignores: fix it for determinism.
        for paper in parse_file(path, year=2025).papers:
            papers.setdefault(
                paper.title, PaperText(paper.title, paper.abstract, tuple(paper.keywords))
            )
    return papers


def evaluate(
    taxonomy: Taxonomy,
    labels: Sequence[LabelledPaper],
    papers: Mapping[str, PaperText],
    topics: Sequence[str] | None = None,
) -> EvalReport:
    """Classify every labelled paper and score the predictions per topic.

    `topics` limits the scored topics (default: the taxonomy's); a label naming a paper that is
    not in `papers` is an error, a paper without a label is reported in `unlabelled`.
    """
    missing = [label.title for label in labels if label.title not in papers]
    if missing:
        raise EvalDataError(f"labelled papers not found in the digests: {missing}")
    scored = list(topics) if topics is not None else taxonomy.ids
    wanted = set(scored)
    outcomes: list[PaperOutcome] = []
    for label in labels:
        text = papers[label.title]
        result = classify(taxonomy, text.title, text.abstract, text.keywords)
        predicted = tuple(t for t in result.topics if t in wanted)
        # Evidence of every topic, also those below threshold, so a miss can be explained.
        explained = explain(taxonomy, text.title, text.abstract, text.keywords)
        outcome = PaperOutcome(
            title=label.title,
            required=label.required,
            allowed=label.allowed,
            predicted=predicted,
            scores=result.scores,
            evidence={topic: found for topic, (_score, found) in explained.items() if found},
            note=label.note,
        )
        outcomes.append(outcome)
    labelled = {label.title for label in labels}
    return EvalReport(
        per_topic=score_predictions(labels, {o.title: o.predicted for o in outcomes}, scored),
        outcomes=outcomes,
        unlabelled=[title for title in papers if title not in labelled],
    )


def score_predictions(
    labels: Sequence[LabelledPaper],
    predicted: Mapping[str, Collection[str]],
    topics: Sequence[str],
) -> list[TopicScore]:
    """Per-topic tp/fp/fn of `predicted` (title -> topics) against `labels`: a required topic
    predicted is a tp and missed a fn; an allowed topic counts neither way; any other predicted
    topic is a fp."""
    scores = []
    for topic in topics:
        tp = fp = fn = 0
        for label in labels:
            said = topic in predicted[label.title]
            if said and topic in label.required:
                tp += 1
            elif said and topic not in label.allowed:
                fp += 1
            elif not said and topic in label.required:
                fn += 1
        scores.append(TopicScore(topic, tp, fp, fn))
    return scores


def format_report(report: EvalReport, *, evidence: bool = True) -> str:
    """A plain-text report: the per-topic table, the totals, then every wrong paper."""
    lines = [f"{'topic':<22} {'P':>6} {'R':>6} {'F1':>6} {'TP':>4} {'FP':>4} {'FN':>4}"]
    for score in [*report.per_topic, report.micro]:
        lines.append(
            f"{score.topic:<22} {score.precision:6.3f} {score.recall:6.3f} {score.f1:6.3f} "
            f"{score.tp:4d} {score.fp:4d} {score.fn:4d}"
        )
    exact = sum(o.exact for o in report.outcomes)
    lines.append("")
    lines.append(
        f"papers: {len(report.outcomes)}   micro-F1: {report.micro.f1:.3f}   "
        f"exactly right: {exact}/{len(report.outcomes)} = {report.exact_share:.3f}"
    )
    if report.unlabelled:
        lines.append(f"unlabelled papers: {len(report.unlabelled)}")
        lines.extend(f"  - {title}" for title in report.unlabelled)
    if report.wrong:
        lines.append("")
        lines.append(f"wrong ({len(report.wrong)}):")
    for outcome in report.wrong:
        lines.append(f"- {outcome.title}")
        lines.append(
            f"    required {sorted(outcome.required)}  allowed {sorted(outcome.allowed)}  "
            f"predicted {list(outcome.predicted)}"
        )
        problems = [f"FP {t}" for t in sorted(outcome.false_positives)]
        problems += [f"FN {t}" for t in sorted(outcome.false_negatives)]
        shown = sorted(outcome.false_positives | outcome.false_negatives)
        scores = ", ".join(f"{t} {outcome.scores.get(t, 0.0):.2f}" for t in shown)
        lines.append(f"    {'; '.join(problems)}   scores: {scores}")
        if evidence:
            for topic in shown:
                phrases = ", ".join(
                    f"{ev.field}:{ev.phrase!r}" for ev in outcome.evidence.get(topic, [])
                )
                lines.append(f"    evidence for {topic}: {phrases or '(none)'}")
    return "\n".join(lines)


def format_splits_table(reports: Mapping[str, EvalReport]) -> str:
    """One Markdown table comparing splits: per topic precision/recall, then micro-F1 and the
    share of papers exactly right (the figures docs/topics.md quotes)."""
    names = list(reports)
    header = "| topic | " + " | ".join(f"{n} P | {n} R" for n in names) + " |"
    lines = [header, "|" + " --- |" * (1 + 2 * len(names))]
    topics = [t.topic for t in next(iter(reports.values())).per_topic] if reports else []
    for topic in [*topics, "micro"]:
        cells = []
        for name in names:
            report = reports[name]
            score = report.micro if topic == "micro" else _topic(report, topic)
            cells.append(f"{score.precision:.3f} ({score.tp}/{score.tp + score.fp})")
            cells.append(f"{score.recall:.3f} ({score.tp}/{score.tp + score.fn})")
        lines.append(f"| {topic} | " + " | ".join(cells) + " |")
    lines.append("")
    for name in names:
        report = reports[name]
        exact = sum(o.exact for o in report.outcomes)
        lines.append(
            f"{name}: {len(report.outcomes)} papers, micro-F1 {report.micro.f1:.3f}, "
            f"exactly right {exact}/{len(report.outcomes)} = {report.exact_share:.3f}"
        )
    return "\n".join(lines)


def _topic(report: EvalReport, topic: str) -> TopicScore:
    for score in report.per_topic:
        if score.topic == topic:
            return score
    return TopicScore(topic, 0, 0, 0)
