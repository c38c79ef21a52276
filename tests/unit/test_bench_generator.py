"""The benchmarks' synthetic-library generator: deterministic, and read by the real parser."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from digest_tui.ids import normalize_title
from digest_tui.sources.hf_page import parse_file, parse_page

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load_synthetic():  # type: ignore[no-untyped-def]
    # bench/ is a directory of scripts, not a package: load the module from its file.
    if "synthetic" in sys.modules:
        return sys.modules["synthetic"]
    spec = importlib.util.spec_from_file_location("synthetic", BENCH / "synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["synthetic"] = module
    spec.loader.exec_module(module)
    return module


synthetic = _load_synthetic()


def test_same_seed_same_output_and_other_seed_differs(tmp_path: Path) -> None:
    first = synthetic.write_pages(tmp_path / "a", 180, seed=7)
    second = synthetic.write_pages(tmp_path / "b", 180, seed=7)
    other = synthetic.write_pages(tmp_path / "c", 180, seed=8)
    assert [p.name for p in first] == [p.name for p in second]
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert [p.read_bytes() for p in first] != [p.read_bytes() for p in other]


def test_parser_reads_generated_pages_without_warnings(tmp_path: Path) -> None:
    paths = synthetic.write_pages(tmp_path, 230, seed=3)
    assert len(paths) == 5  # 50 a page, the last one partial
    papers = []
    for path in paths:
        parsed = parse_file(path)
        assert parsed.warnings == []
        # Every page prints one older date with its year, so the page year is inferred right.
        assert parsed.digest.date.isoformat() == path.stem
        papers.extend(parsed.papers)
    assert len(papers) == 230
    assert len({p.id for p in papers}) == 230
    assert len({normalize_title(p.title) for p in papers}) == 230
    assert all(p.abstract and p.published and p.published <= synthetic.END_DATE for p in papers)
    mean_abstract = sum(len(p.abstract) for p in papers) / len(papers)
    assert 1300 <= mean_abstract <= 1700
    assert sum("https://github.com/" in p.abstract for p in papers) > 230 * 0.2
    assert sum(p.upvotes is not None for p in papers) > 230 * 0.7


def test_direct_papers_equal_parsed_pages() -> None:
    # The direct import path (no text) must store exactly what the parser would produce.
    for page in synthetic.generate(120, seed=11):
        parsed = parse_page(synthetic.render_page(page), page.filename)
        direct = synthetic.to_parsed(page)
        assert parsed.papers == direct.papers
        assert parsed.digest == direct.digest


def test_large_libraries_span_at_most_two_years() -> None:
    pages, per_page = synthetic.pages_layout(100_000)
    assert pages <= synthetic.SPAN_DAYS and pages * per_page >= 100_000
    assert synthetic.pages_layout(10_000) == (200, 50)
