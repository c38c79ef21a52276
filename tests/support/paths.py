"""Where the repository's fixture digests are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = ROOT / "fixtures" / "digests"
SEED_DEC10 = DIGESTS / "000_994e30a84fb3dacc.txt"
SEED_DEC09 = DIGESTS / "001_5094fac457fca0e8.txt"
SEED_JAN08 = DIGESTS / "002_b5a9888533951722.txt"
SEED_DEC30 = DIGESTS / "004_71cad56db34cffbd.txt"
ALL_SEEDS = [SEED_DEC10, SEED_DEC09, SEED_JAN08, SEED_DEC30]
