"""Readiness labels from a root listing and a README (repohealth/readiness_signals.py)."""

from __future__ import annotations

import json
from pathlib import Path

from digest_tui.repohealth.readiness_signals import (
    readme_labels,
    readme_text,
    root_file_labels,
    runnable,
    score,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "github"


def load(name: str) -> object:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_root_listing_of_an_artifact_repo() -> None:
    labels = root_file_labels(load("contents_ae_repo.json"))  # type: ignore[arg-type]
    assert labels == ("docker", "reqs", "package", "make", "scripts", "configs")


def test_names_that_only_look_like_run_scripts_are_not_labels() -> None:
    # runtime.py is not run_*.py; a directory called Dockerfile is not a Dockerfile.
    entries = [
        {"name": "runtime.py", "type": "file"},
        {"name": "Dockerfile", "type": "dir"},
        {"name": "notes", "type": "dir"},
        {"name": "requirements.txt", "type": "dir"},
        "not an object",
        {"name": 7, "type": "file"},
    ]
    assert root_file_labels(entries) == ()


def test_each_file_rule() -> None:
    cases = {
        "Dockerfile.cuda": "docker",
        "docker-compose.yaml": "docker",
        "environment.yml": "conda",
        "requirements-dev.txt": "reqs",
        "Pipfile": "reqs",
        "pyproject.toml": "package",
        "CMakeLists.txt": "make",
        "run_all.sh": "scripts",
        "reproduce.py": "scripts",
        "eval_config.yaml": "configs",
    }
    for name, label in cases.items():
        assert root_file_labels([{"name": name, "type": "file"}]) == (label,), name
    assert root_file_labels([{"name": ".devcontainer", "type": "dir"}]) == ("docker",)
    assert root_file_labels([{"name": "experiments", "type": "dir"}]) == ("scripts",)


def test_readme_sections_and_badges_from_the_recorded_answer() -> None:
    text = readme_text(load("readme_ae_repo.json"))
    assert text is not None and text.startswith("# FlashServe")
    sections, badges = readme_labels(text)
    assert sections == ("install", "quickstart", "reproduce", "artifact-evaluation")
    # Two badge images; the sentence "Artifacts available on request" is prose, not a badge.
    assert badges == ("available", "functional")


def test_prose_and_other_badges_are_not_ae_badges() -> None:
    text = readme_text(load("readme_bare_repo.json"))
    assert text is not None
    assert readme_labels(text) == ((), ())
    prose = "# Notes\n\nArtifacts available upon request. Results reproduced by us.\n"
    assert readme_labels(prose) == ((), ())


def test_readme_text_rejects_what_is_not_a_readme() -> None:
    assert readme_text([1, 2]) is None
    assert readme_text({"content": 5, "encoding": "base64"}) is None
    assert readme_text({"content": "x", "encoding": "rot13"}) is None
    # Bad UTF-8 becomes U+FFFD instead of failing.
    assert readme_text({"content": "/w==", "encoding": "base64"}) == "\ufffd"


def test_a_huge_readme_is_read_within_its_cap() -> None:
    text = "# Installation\n" + "a" * 5_000_000 + "\n# Reproduce\n"
    sections, _ = readme_labels(text)
    assert sections == ("install",)  # the heading past README_CHARS is not read


def test_runnable_needs_an_environment_and_instructions() -> None:
    assert runnable(["docker", "reproduce"])
    assert not runnable(["docker"])  # nothing says how to run it
    assert not runnable(["reproduce", "scripts"])  # nothing to rebuild the environment
    assert score(["docker", "reproduce"], ["available"]) == 3 + 2 + 3
    assert score(["docker", "docker"]) == 3
