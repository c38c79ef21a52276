"""The learned topic reader (enrich/topics/learned.py): its features, its file, and when the
classifier lets it add a topic (only where the rules found evidence with every required kind
but not enough to decide, on a whole abstract, and never when the user turns it off)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from digest_tui.enrich import pipeline
from digest_tui.enrich.topics.classifier import classify, classify_stored
from digest_tui.enrich.topics.learned import (
    LearnedTopic,
    TopicModel,
    load_topic_model,
    paper_features,
)
from digest_tui.enrich.topics.taxonomy import Taxonomy, load_taxonomy
from digest_tui.errors import TaxonomyError

ROOT = Path(__file__).resolve().parents[2]

# A long enough abstract (the reader reads nothing under 60 words) with one weak kernels word
# ("tiling", 1 point under the rules' threshold of 4) and the word the test model weighs.
FILLER = " ".join(f"word{i}" for i in range(70))
ABSTRACT = f"We study tiling of the warpspeed operator. {FILLER}."


def _model(**weights: float) -> TopicModel:
    return TopicModel(
        threshold=0.5, topics={"kernels": LearnedTopic(bias=-2.0, weights=dict(weights))}
    )


def _taxonomy(model: TopicModel, **scoring: object) -> Taxonomy:
    packaged = load_taxonomy()
    return Taxonomy(
        packaged.topics, packaged.scoring.model_copy(update=scoring), learned_model=model
    )


# --- features ------------------------------------------------------------------------------------


def test_features_are_words_and_neighbouring_pairs_without_stop_words():
    found = paper_features("Fused Kernels", "We fuse the GEMM and the softmax.")
    assert found.values["u:kernels"] == 2.0  # the title weighs 2
    assert found.values["u:gemm"] == 1.0
    assert found.values["b:fused_kernels"] == 2.0
    assert found.values["b:gemm_softmax"] == 1.0  # "and the" are stop words between them
    assert "u:the" not in found.values


def test_a_feature_in_title_and_abstract_counts_both_fields():
    found = paper_features("Sparse Kernels", "Our kernels run on GPUs.")
    assert found.values["u:kernels"] == 3.0
    assert found.spans["u:kernels"].field == "title"  # the first occurrence is the title's


@given(st.text(alphabet="abcXYZ -+,.0123", max_size=80), st.text(alphabet="ab c-.", max_size=40))
def test_every_span_points_at_its_words(abstract: str, title: str) -> None:
    found = paper_features(title, abstract)
    texts = {"title": title, "abstract": abstract}
    for feature, span in found.spans.items():
        quoted = texts[span.field][span.start : span.end].lower()
        words = feature[2:].split("_") if feature.startswith("b:") else [feature[2:]]
        assert quoted.startswith(words[0]) and quoted.endswith(words[-1])


# --- when the classifier lets it speak ------------------------------------------------------------


def test_the_reader_adds_a_topic_the_rules_found_but_did_not_decide():
    taxonomy = _taxonomy(_model(**{"u:warpspeed": 5.0}))
    result = classify(taxonomy, "A Study", ABSTRACT)
    assert "kernels" in result.topics
    assert result.learned["kernels"] > 0.5
    assert [e.phrase for e in result.evidence["kernels"]] == ["warpspeed"]
    # It says who decided: the panel, `show` and the JSON contract mark the reader's topics.
    assert [e.by for e in result.evidence["kernels"]] == ["reader"]
    stored = classify_stored(taxonomy, "A Study", ABSTRACT)
    assert stored.topics == result.topics
    assert stored.evidence["kernels"][0]["phrase"] == "warpspeed"
    assert stored.evidence["kernels"][0]["by"] == "reader"


def test_a_rules_evidence_keeps_its_shape():
    taxonomy = _taxonomy(_model(**{"u:warpspeed": 5.0}))
    title, abstract = "Fused CUDA Kernels for Attention", ABSTRACT
    result = classify(taxonomy, title, abstract)
    assert "kernels" in result.topics and result.learned == {}
    assert {e.by for e in result.evidence["kernels"]} == {"rules"}
    stored = classify_stored(taxonomy, title, abstract)
    assert all(set(e) == {"phrase", "field", "start", "end"} for e in stored.evidence["kernels"])


def test_below_its_threshold_the_reader_adds_nothing():
    taxonomy = _taxonomy(_model(**{"u:warpspeed": 1.0}))  # sigmoid(-2 + 1) < 0.5
    assert "kernels" not in classify(taxonomy, "A Study", ABSTRACT).topics


def test_without_rule_evidence_the_reader_adds_nothing():
    taxonomy = _taxonomy(_model(**{"u:warpspeed": 5.0}))
    abstract = ABSTRACT.replace("tiling of ", "")
    assert "kernels" not in classify(taxonomy, "A Study", abstract).topics


def test_a_negated_sense_leaves_no_evidence_for_the_reader():
    # "graph kernels" cancels "kernels" (the topic's negatives): score 0, the reader stays out
    taxonomy = _taxonomy(_model(**{"u:graph": 5.0}))
    abstract = f"We compare molecules with graph kernels. {FILLER}."
    assert "kernels" not in classify(taxonomy, "Graph Kernels", abstract).topics


def test_a_topic_lacking_a_required_kind_stays_out():
    # GPU counts and MFU carry no `systems` kind: training parallelism stays unmet
    model = TopicModel(
        threshold=0.5,
        topics={"training-parallelism": LearnedTopic(bias=-2.0, weights={"u:footprint": 9.0})},
    )
    abstract = (
        "We estimate the carbon footprint of training large language models on 16,384 H100 "
        f"GPUs at 40% MFU. {FILLER}."
    )
    result = classify(_taxonomy(model), "The Footprint of Training", abstract)
    assert "training-parallelism" not in result.topics


def test_a_short_abstract_is_not_read():
    taxonomy = _taxonomy(_model(**{"u:warpspeed": 5.0}))
    assert "kernels" not in classify(taxonomy, "A Study", "We study tiling of warpspeed.").topics


def test_the_user_can_turn_the_reader_off(tmp_path: Path):
    (tmp_path / "taxonomy.yaml").write_text("scoring:\n  learned: false\n", encoding="utf-8")
    loaded = load_taxonomy(tmp_path)
    assert loaded.scoring.learned is False and loaded.learned is None
    off = _taxonomy(_model(**{"u:warpspeed": 5.0}), learned=False)
    assert "kernels" not in classify(off, "A Study", ABSTRACT).topics


def test_a_disabled_topic_is_never_added(tmp_path: Path):
    (tmp_path / "taxonomy.yaml").write_text(
        "topics:\n  - id: kernels\n    enabled: false\n", encoding="utf-8"
    )
    packaged = load_taxonomy(tmp_path)
    taxonomy = Taxonomy(
        packaged.topics, packaged.scoring, learned_model=_model(**{"u:warpspeed": 5.0})
    )
    assert "kernels" not in classify(taxonomy, "A Study", ABSTRACT).topics


# --- the packaged file ---------------------------------------------------------------------------


def _training(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from evaluation import learned_training, splits  # type: ignore[import-not-found]

    return learned_training, splits


def test_the_packaged_model_was_trained_on_every_split(monkeypatch: pytest.MonkeyPatch):
    # Retrain after adding or relabelling a split: bench/train_topic_model.py (~12 s). Its
    # --check compares the file byte for byte on the machine that wrote it; the suite does not,
    # since another machine's libm may round a weight's last digit differently.
    training, splits = _training(monkeypatch)
    model = load_topic_model()
    assert model.trained_on == list(splits.SPLIT_NAMES)
    assert set(model.topics) == {"kernels", "moe", "serving", "training-parallelism"}
    assert all(0 < len(t.weights) <= training.MAX_FEATURES for t in model.topics.values())


def test_training_is_deterministic_and_learns_its_labels(monkeypatch: pytest.MonkeyPatch):
    training, _ = _training(monkeypatch)
    first, again = training.train(["test3"]), training.train(["test3"])
    assert first == again
    examples = training.split_examples("test3")
    for topic in ("moe", "serving"):
        inside = [e for e in examples if topic in e.required]
        outside = [e for e in examples if topic not in e.required | e.allowed]
        mean_in = sum(first.probability(topic, first.features(e.title, e.abstract)) for e in inside)
        mean_out = sum(
            first.probability(topic, first.features(e.title, e.abstract)) for e in outside
        )
        assert mean_in / len(inside) > 0.5 > mean_out / len(outside)


def test_a_broken_model_file_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from digest_tui.enrich.topics import learned

    (tmp_path / "topic_model.yaml").write_text("version: 1\nthreshold: 2\ntopics: {}\n")
    monkeypatch.setattr(learned, "DATA_DIR", tmp_path)
    with pytest.raises(TaxonomyError, match=r"topic_model\.yaml: threshold: "):
        load_topic_model()


def test_retraining_the_model_classifies_stored_papers_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    before = pipeline._salt(pipeline.TOPICS)
    (tmp_path / "topic_model.yaml").write_text("version: 1\nthreshold: 0.5\ntopics: {}\n")
    monkeypatch.setattr(pipeline, "DATA_DIR", tmp_path)
    pipeline._learned_digest.cache_clear()
    try:
        assert pipeline._salt(pipeline.TOPICS) != before
        assert pipeline._salt(pipeline.HARDWARE) == pipeline._salt(pipeline.HARDWARE)
    finally:
        monkeypatch.undo()
        pipeline._learned_digest.cache_clear()
    assert pipeline._salt(pipeline.TOPICS) == before


def test_the_result_names_the_topics_the_reader_may_add():
    # bench/eval_learned.py gates the reader with this list, as the classifier does
    off = _taxonomy(_model(**{"u:warpspeed": 5.0}), learned=False)
    assert classify(off, "A Study", ABSTRACT).undecided == ["kernels"]
    footprint = (
        "We estimate the carbon footprint of training large language models on 16,384 H100 "
        f"GPUs at 40% MFU. {FILLER}."
    )
    assert "training-parallelism" not in classify(off, "Footprint", footprint).undecided
