"""`machine_fit` answers kept across commands (store/fit_texts.py, through machine_fits.py).

Through the CLI on the fixture digests with two machines in config.yaml: a command that finds
its answers kept prints exactly what judging prints and loads no hardware catalog; a change of
the machines (another key) is judged again; a cache file that cannot be read, or is not a
database, is worked around; a row the current enricher did not write is never answered from
what another paper with the same fit fields got.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.enrich.hardware import catalog as catalog_module
from digest_tui.store.fit_verdicts import FILE_NAME
from tests.support.paths import DIGESTS

MACHINES = """machines:
  - name: laptop
    devices: [{id: rtx-4090, count: 1}]
  - name: node
    devices: [{id: h100, count: 8}]
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


@pytest.fixture
def library_home(home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    run(capsys, "import", *map(str, sorted(DIGESTS.glob("*.txt"))))
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(MACHINES, encoding="utf-8")
    return home


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a command loaded the hardware catalog."""
    calls: list[int] = []
    real = catalog_module.load_hardware_catalog

    def load(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(catalog_module, "load_hardware_catalog", load)
    return calls


def _judged(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> str:
    """The output with nothing kept (the code before)."""
    (home / "cache" / FILE_NAME).unlink(missing_ok=True)
    out = run(capsys, *args)
    (home / "cache" / FILE_NAME).unlink(missing_ok=True)
    return out


def test_kept_answers_print_what_judging_prints_without_the_catalog(library_home, capsys, loads):
    judged = _judged(capsys, library_home, "papers", "--format", "jsonl")
    assert '"machine_fit": [{"name": "laptop"' in judged
    loads.clear()
    first = run(capsys, "papers", "--format", "jsonl")
    assert first == judged and loads == [1]  # judged, then kept
    second = run(capsys, "papers", "--format", "jsonl")
    assert second == judged and loads == [1]  # answered from what was kept
    # One paper's object, as `show` prints it, from the same kept answers.
    ident = json.loads(judged.splitlines()[0])["id"]
    shown = run(capsys, "show", ident, "--format", "json")
    assert loads == [1]
    assert json.loads(shown)["machine_fit"] == json.loads(judged.splitlines()[0])["machine_fit"]


def test_other_machines_are_judged_again(library_home, capsys, loads):
    run(capsys, "papers", "--format", "jsonl")
    config = library_home / "config" / "config.yaml"
    config.write_text(MACHINES.replace("h100, count: 8", "a100, count: 2"), encoding="utf-8")
    loads.clear()
    after = run(capsys, "papers", "--format", "jsonl")
    assert loads == [1]
    assert after == _judged(capsys, library_home, "papers", "--format", "jsonl")
    assert "2x A100" in after


@pytest.mark.parametrize("kept", [b"not a database at all" * 100, "directory"])
def test_an_unreadable_cache_file_is_worked_around(library_home, capsys, loads, kept):
    judged = _judged(capsys, library_home, "papers", "--format", "jsonl")
    path = library_home / "cache" / FILE_NAME
    if kept == "directory":
        path.mkdir(parents=True)
    else:
        path.write_bytes(kept)
    loads.clear()
    for _ in range(2):
        assert run(capsys, "papers", "--format", "jsonl") == judged
    assert len(loads) == 2  # judged each time: nothing could be kept


def test_a_row_not_the_current_enrichers_is_not_answered_from_the_cache(tmp_path):
    from digest_tui.enrich.hardware.suggestion import HardwareSuggestion
    from digest_tui.machine_fits import MachineFits
    from digest_tui.store.fit_texts import FitTexts
    from tests.unit.test_fit_keys import CATALOG
    from tests.unit.test_fit_keys import MACHINES as SOME_MACHINES

    good = HardwareSuggestion(target="x", scale="single-node", memory_gb=80.0, device_total=8)
    text = json.dumps(good.to_json(), ensure_ascii=False)
    bad = text.replace('"confidence": "low"', '"confidence": "certain"')

    kept = FitTexts(tmp_path / FILE_NAME, lambda: "context")
    answer = MachineFits(SOME_MACHINES, lambda: CATALOG, kept).text(text, current=True)
    assert answer is not None
    kept.close()

    def no_catalog() -> object:
        raise AssertionError("a kept answer needs no catalog")

    again = FitTexts(tmp_path / FILE_NAME, lambda: "context")
    assert MachineFits(SOME_MACHINES, no_catalog, again).text(text, current=True) == answer
    # The same fit fields in a row of another enricher: validated, and refused.
    judging = MachineFits(SOME_MACHINES, lambda: CATALOG, again)
    assert judging.text(bad, current=False) is None
    # Another context (other machines, catalog or code) keeps nothing of this one.
    other = FitTexts(tmp_path / FILE_NAME, lambda: "another context")
    from digest_tui.enrich.hardware.fit_slices import fit_slices

    slices = fit_slices(text)
    assert slices is not None and again.get(slices) == answer
    assert other.get(slices) is None
