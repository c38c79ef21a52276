"""The effective taxonomy: the packaged `data/taxonomy.yaml` merged with the user's
`<config_dir>/taxonomy.yaml`, compiled once for matching, with a fingerprint of what it holds."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from digest_tui.enrich.topics.learned import TopicModel
from digest_tui.enrich.topics.matching import CompiledTopic, PatternIndex
from digest_tui.enrich.topics.schema import (
    Scoring,
    TopicDef,
    TopicOverride,
    _PackagedFile,
    _Strict,
    _UserFile,
)
from digest_tui.errors import TaxonomyError

TAXONOMY_FILE = "taxonomy.yaml"
# A change to the classifier's code that changes results for the same taxonomy is announced by
# bumping ENRICH_VERSION in enrich/pipeline.py: stored enrichment is checked against
# `Enricher.fingerprint` (that version and the data files' bytes), not against anything here.


class Taxonomy:
    """The effective taxonomy (packaged, merged with the user's file), compiled for matching."""

    def __init__(
        self,
        topics: Sequence[TopicDef],
        scoring: Scoring,
        sources: Sequence[Path] = (),
        *,
        learned_model: TopicModel | None = None,
    ) -> None:
        self.topics: list[TopicDef] = list(topics)
        self.scoring = scoring
        self.sources: list[Path] = list(sources)
        # The learned reader to use instead of the packaged one (tests, the evaluation).
        self._learned_model = learned_model
        # Identifies the effective taxonomy (bench/eval_topics.py records it with its results);
        # the store does not check it (see the comment at TAXONOMY_FILE).
        payload = {
            "scoring": scoring.model_dump(mode="json"),
            "topics": [t.model_dump(mode="json") for t in self.topics],
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        self.fingerprint: str = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    # Compiled on first use, not on load: the app's tree needs only the topics' labels, and
    # compiling ~135 patterns took ~0.44 s of its start-up at any library size (the patterns'
    # regexes were already checked when the file was validated, schema.py).
    @cached_property
    def compiled(self) -> list[CompiledTopic]:
        return [CompiledTopic(t) for t in self.topics]

    @cached_property
    def index(self) -> PatternIndex:
        return PatternIndex({p: t.id for t in self.compiled for p in (*t.patterns, *t.negatives)})

    @cached_property
    def learned(self) -> TopicModel | None:
        """The learned reader, or None when the scoring turns it off. Loaded on first use
        (~60 ms), like the compiled patterns: the app's tree never needs it."""
        if not self.scoring.learned:
            return None
        if self._learned_model is not None:
            return self._learned_model
        from digest_tui.enrich.topics.learned import load_topic_model

        return load_topic_model()

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.topics]

    def topic(self, topic_id: str) -> TopicDef | None:
        return next((t for t in self.topics if t.id == topic_id), None)


# --- loading -----------------------------------------------------------------------------------


def packaged_taxonomy_text() -> tuple[str, str]:
    """The packaged taxonomy's text and a name for it in messages."""
    resource = resources.files("digest_tui") / "data" / TAXONOMY_FILE
    return resource.read_text(encoding="utf-8"), str(resource)


def load_taxonomy(config_dir: Path | None = None) -> Taxonomy:
    """The packaged taxonomy merged with `config_dir/taxonomy.yaml` when that file exists.

    Raises TaxonomyError, `FILE:LINE: field: problem`, when either file is invalid.
    """
    from digest_tui import yaml_files

    user_path = Path(config_dir) / TAXONOMY_FILE if config_dir is not None else None
    user_text = None
    if user_path is not None and user_path.is_file():
        user_text = yaml_files.read_text(user_path, TaxonomyError)
    topics, scoring, sources = taxonomy_definitions(user_text, user_path)
    return Taxonomy(topics, scoring, sources)


def taxonomy_definitions(
    user_text: str | None,
    user_path: Path | None = None,
    packaged_text: str | None = None,
) -> tuple[list[TopicDef], Scoring, list[Path]]:
    """The effective topics and scoring of the packaged taxonomy (`packaged_text`, or the
    packaged file) merged with a user's file's text, validated but not compiled.

    Raises TaxonomyError, `FILE:LINE: field: problem`, when either text is invalid."""
    from digest_tui import yaml_files

    text, name = packaged_taxonomy_text()
    if packaged_text is not None:
        text = packaged_text
    packaged_doc = yaml_files.parse(text, name, TaxonomyError)
    packaged = _validate(_PackagedFile, packaged_doc)
    topics = list(packaged.topics)
    scoring = packaged.scoring
    sources = [Path(name)]
    if user_text is not None:
        user_name = str(user_path) if user_path is not None else TAXONOMY_FILE
        user_doc = yaml_files.parse(user_text, user_name, TaxonomyError)
        user = _validate(_UserFile, user_doc)
        topics, scoring = _merge(topics, scoring, user, user_doc)
        sources.append(Path(user_name))
    if not topics:
        raise TaxonomyError(f"{sources[-1]}: every topic is disabled; at least one must remain")
    return topics, scoring, sources


def _validate(model: type[_Strict], doc: Any) -> Any:
    from digest_tui import yaml_files

    yaml_files.require_mapping(doc, TaxonomyError, "a mapping with 'topics' at the top level")
    # YAML keeps the last of two equal keys silently: a pattern that lost its `- regex:` line
    # merges into the one before it and its `weight` wins (seen in a rule edit). An error,
    # like any other mistake in a taxonomy file.
    duplicates = yaml_files.duplicate_keys(doc.root)
    if duplicates:
        key, line = duplicates[0]
        message = (
            f"'{key}' is given twice in the same mapping (a list item that lost its '- ' does "
            "this); YAML would keep only the last"
        )
        raise yaml_files.fail(TaxonomyError, yaml_files.Problem(doc.path, line, "", message))
    return yaml_files.validate(model, doc, TaxonomyError, data=doc.data or {})


def _merge(
    topics: list[TopicDef], scoring: Scoring, user: _UserFile, doc: Any
) -> tuple[list[TopicDef], Scoring]:
    from digest_tui import yaml_files

    def fail(index: int, message: str, loc: tuple[str | int, ...] = ()) -> TaxonomyError:
        problem = doc.problem(("topics", index, *loc), message)
        return yaml_files.fail(TaxonomyError, problem)  # type: ignore[return-value]

    if user.scoring is not None:
        changes = user.scoring.model_dump(exclude_none=True)
        scoring = scoring.model_copy(update=changes)
    merged: dict[str, TopicDef | None] = {t.id: t for t in topics}
    order = [t.id for t in topics]
    seen: set[str] = set()
    for index, entry in enumerate(user.topics):
        if entry.id in seen:
            raise fail(index, "the same id appears twice in this file", ("id",))
        seen.add(entry.id)
        base = merged.get(entry.id)
        if not entry.enabled:
            if entry.id not in merged:
                raise fail(index, "enabled: false names no known topic", ("enabled",))
            merged[entry.id] = None
            continue
        try:
            if base is None:
                if entry.id in merged:
                    raise fail(index, "this topic was disabled earlier in the file")
                if entry.label is None or entry.patterns is None:
                    raise fail(index, "a new topic needs 'label' and 'patterns'")
                merged[entry.id] = _apply(None, entry)
                order.append(entry.id)
            else:
                merged[entry.id] = _apply(base, entry)
        except ValidationError as exc:
            raise yaml_files.validation_error(
                exc, doc, TaxonomyError, prefix=("topics", index)
            ) from None
    return [t for t in (merged[i] for i in order) if t is not None], scoring


def _apply(base: TopicDef | None, entry: TopicOverride) -> TopicDef:
    """The topic `entry` describes: `base` with the fields `entry` gives replaced and its
    `add_*` lists appended, re-validated as a whole (so an emptied pattern list is an error)."""
    patterns = entry.patterns if entry.patterns is not None else (base.patterns if base else [])
    negatives = entry.negatives if entry.negatives is not None else (base.negatives if base else [])
    values: dict[str, Any] = {
        "id": entry.id,
        "label": entry.label if entry.label is not None else (base.label if base else None),
        "description": entry.description
        if entry.description is not None
        else (base.description if base else ""),
        "patterns": [p.model_dump() for p in [*patterns, *entry.add_patterns]],
        "negatives": [n.model_dump() for n in [*negatives, *entry.add_negatives]],
    }
    requires = entry.requires if entry.requires is not None else (base.requires if base else [])
    values["requires"] = list(requires)
    threshold = entry.threshold if entry.threshold is not None else (base and base.threshold)
    if threshold:
        values["threshold"] = threshold
    return TopicDef.model_validate(values)
