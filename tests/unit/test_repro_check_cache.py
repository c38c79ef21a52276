"""`links check` keeps its result in `<cache dir>/links_check.json` (enrich/repro_check_cache.py).

What it prints is the same whether the result was kept or checked, on a good catalog and on a
bad one (each problem naming its file and line); an edited, added or removed file is checked
again; so is everything when the cache file is unreadable, not ours, or cannot be written.
A kept result is printed without importing pydantic or YAML.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from digest_tui.cli import main
from digest_tui.enrich import repro_check_cache
from digest_tui.enrich.repro_check_cache import FILE_NAME, CheckResult, check_key

BAD = (
    "papers:\n"
    "  - title: A Paper\n"
    "    repos:\n"
    "      - url: javascript:alert(1)\n"
    "        kind: official\n"
    "    colour: blue\n"
)
GOOD = (
    "papers:\n"
    "  - title: Another Paper\n"
    "    repos:\n"
    "      - url: https://github.com/example/code\n"
    "        kind: official\n"
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "catalog"
    directory.mkdir()
    (directory / "a.yaml").write_text(GOOD, encoding="utf-8")
    (directory / "b.yaml").write_text(BAD, encoding="utf-8")
    return directory


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the real check ran."""
    from digest_tui.commands import links_cmds

    calls: list[int] = []
    real = links_cmds._check_catalog

    def check(dirs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(dirs)

    monkeypatch.setattr(links_cmds, "_check_catalog", check)
    return calls


def test_a_kept_result_prints_exactly_what_the_check_did(home, capsys, catalog, counted):
    first = run(capsys, "links", "check", str(catalog))
    assert (home / "cache" / FILE_NAME).is_file()
    second = run(capsys, "links", "check", str(catalog))
    assert second == first and len(counted) == 1
    code, out, err = first
    assert code == 2 and out == ""
    assert f"{catalog / 'b.yaml'}:6: unknown field 'colour'" in err
    assert f"digest-tui: 1 problem in {catalog}\n" in err


def test_the_packaged_catalog_passes_kept_or_not(home, capsys, counted):
    first = run(capsys, "links", "check")
    assert first[0] == 0 and first[1].startswith("ok: ")
    assert run(capsys, "links", "check") == first and len(counted) == 1


@pytest.mark.parametrize("change", ["edit", "add", "remove", "other dir"])
def test_a_changed_catalog_is_checked_again(home, capsys, catalog, counted, change, tmp_path):
    run(capsys, "links", "check", str(catalog))
    where = catalog
    if change == "edit":
        (catalog / "b.yaml").write_text(BAD.replace("    colour: blue\n", ""), encoding="utf-8")
    elif change == "add":
        (catalog / "c.yml").write_text(GOOD.replace("Another", "A Third"), encoding="utf-8")
    elif change == "remove":
        (catalog / "b.yaml").unlink()
    else:
        where = tmp_path / "copy"
        where.mkdir()
        for path in catalog.iterdir():
            (where / path.name).write_bytes(path.read_bytes())
    got = run(capsys, "links", "check", str(where))
    assert len(counted) == 2
    assert got == run_uncached(capsys, home, where)


def run_uncached(capsys, home: Path, where: Path) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    (home / "cache" / FILE_NAME).unlink()
    return run(capsys, "links", "check", str(where))


def test_a_change_of_the_checking_code_is_a_new_key(catalog, monkeypatch):
    before = check_key([catalog])
    monkeypatch.setattr(repro_check_cache, "_FORMAT", "another")
    assert check_key([catalog]) != before and before is not None


@pytest.mark.parametrize(
    "kept",
    [
        b"not json at all",
        b"\xff\xfe\x00binary",
        b'{"key": "someone else\'s", "papers": 1, "repos": 1, "problems": []}',
        b'["a list"]',
        None,  # the key right, the values of the wrong types
    ],
)
def test_an_unreadable_or_foreign_cache_file_is_worked_around(home, capsys, catalog, counted, kept):
    expected = run(capsys, "links", "check", str(catalog))
    path = home / "cache" / FILE_NAME
    if kept is None:
        data = json.loads(path.read_text(encoding="utf-8"))
        data.update(papers="many", problems=[1, 2])
        kept = json.dumps(data).encode()
    path.write_bytes(kept)
    assert run(capsys, "links", "check", str(catalog)) == expected
    assert len(counted) == 2
    # ... and rewritten: the next run uses it.
    assert run(capsys, "links", "check", str(catalog)) == expected
    assert len(counted) == 2


def test_a_cache_that_cannot_be_read_or_written_is_worked_around(home, capsys, catalog, counted):
    path = home / "cache" / FILE_NAME
    path.mkdir(parents=True)  # a directory where the file should be: neither read nor replaced
    first = run(capsys, "links", "check", str(catalog))
    assert run(capsys, "links", "check", str(catalog)) == first
    assert first[0] == 2 and f"{catalog / 'b.yaml'}:6: unknown field 'colour'" in first[2]
    assert len(counted) == 2 and path.is_dir()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_catalog_file_is_not_keyed(catalog):
    (catalog / "a.yaml").chmod(0)
    try:
        assert check_key([catalog]) is None
    finally:
        (catalog / "a.yaml").chmod(0o644)


def test_a_catalog_file_that_is_a_directory_is_not_keyed(catalog):
    (catalog / "d.yaml").mkdir()
    assert check_key([catalog]) is None


def test_kept_or_checked_without_a_cache_dir_always_checks(catalog):
    calls: list[int] = []

    def check() -> CheckResult:
        calls.append(1)
        return CheckResult(1, 2, ("p",))

    for _ in range(2):
        assert repro_check_cache.kept_or_checked([catalog], None, check) == CheckResult(
            1, 2, ("p",)
        )
    assert len(calls) == 2


def test_a_kept_result_loads_neither_pydantic_nor_yaml(home):
    env = {**os.environ, "DIGEST_TUI_HOME": str(home)}
    script = (
        "import sys\nfrom digest_tui.cli import main\nrc = main(['links', 'check'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'yaml'}))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        for _ in range(2)
    ]
    assert runs[0][0] == runs[1][0] and runs[0][0].startswith("ok: ")
    assert runs[0][-1] == "['pydantic', 'yaml']"  # checked
    assert runs[1][-1] == "[]"  # kept
