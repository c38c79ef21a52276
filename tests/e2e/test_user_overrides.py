"""Data the user overrides from the config dir takes effect on papers already in the library:
the enrichment fingerprint changes and the next open enriches them again."""

from __future__ import annotations

import json

from digest_tui.cli import main

TAXONOMY = """\
topics:
  - id: quantization
    label: Quantization
    description: Low-bit weights, activations and KV caches.
    threshold: 4
    patterns:
      - phrase: [post-training quantization, quantization-aware training]
        weight: 4
      - phrase: quantization
        weight: 2
  - id: serving
    enabled: false
"""

CATALOG = """\
papers:
  - title: "Mélange: Cost Efficient Large Language Model Serving by Exploiting GPU Heterogeneity"
    repos:
      - url: https://github.com/example-lab/melange-repro
        kind: community
        framework: PyTorch
"""


def papers(capsys, *args: str) -> list[dict]:
    capsys.readouterr()
    assert main(["papers", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_user_taxonomy_reclassifies_the_existing_library(home, capsys):
    before = papers(capsys)
    assert not any("quantization" in p["topics"] for p in before)
    assert any("serving" in p["topics"] for p in before)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "taxonomy.yaml").write_text(TAXONOMY, encoding="utf-8")
    quantized = papers(capsys, "--topic", "quantization")
    titles = [p["title"] for p in quantized]
    assert any(t.startswith("FlexQ: Efficient Post-training INT6 Quantization") for t in titles)
    assert all(p["topic_evidence"]["quantization"] for p in quantized)
    assert not any("serving" in p["topics"] for p in papers(capsys))


def test_a_user_catalog_entry_adds_a_repo_to_a_stored_paper(home, capsys):
    papers(capsys)
    (home / "config" / "repro_links").mkdir(parents=True)
    (home / "config" / "repro_links" / "mine.yaml").write_text(CATALOG, encoding="utf-8")
    capsys.readouterr()
    assert main(["show", "melange", "--format", "json"]) == 0
    repos = json.loads(capsys.readouterr().out)["repos"]
    mine = [r for r in repos if r["name"] == "melange-repro"]
    assert mine and mine[0]["kind"] == "community" and mine[0]["source"] == "curated"
