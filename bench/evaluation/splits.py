"""The labelled evaluation splits, in one place for every script that measures them.

Each split is a pair of label files under fixtures/eval/: `topics[_NAME].yaml` for the topic
classifier and `hardware[_NAME].yaml` for the hardware suggestion (the development split has no
suffix and reads its papers from the fixture digests; the test splits carry their abstracts).
Adding a split is one line in `TEST_SPLITS` (and its labels); see docs/labelling.md.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVAL_DIR = ROOT / "fixtures" / "eval"
DIGESTS = ROOT / "fixtures" / "digests"

# Test splits, oldest first, with the name a report prints ("== second test split ==").
TEST_SPLITS = {
    "test": "test",
    "test2": "second test",
    "test3": "third test",
    "test4": "fourth test",
    "test5": "fifth test",
    "test6": "sixth test",
    "test7": "seventh test",
    "test8": "eighth test",
    "test9": "ninth test",
    "test10": "tenth test",
    "test11": "eleventh test",
    "test12": "twelfth test",
    "test13": "thirteenth test",
    "test14": "fourteenth test",
    "test15": "fifteenth test",
    "test16": "sixteenth test",
    "test17": "seventeenth test",
    "test18": "eighteenth test",
    "test19": "nineteenth test",
    "test20": "twentieth test",
    "test21": "twenty-first test",
    "test22": "twenty-second test",
    "test23": "twenty-third test",
    "test24": "twenty-fourth test",
    "test25": "twenty-fifth test",
    "test26": "twenty-sixth test",
    "test27": "twenty-seventh test",
    "test28": "twenty-eighth test",
    "test29": "twenty-ninth test",
    "test30": "thirtieth test",
    "test31": "thirty-first test",
    "test32": "thirty-second test",
    "test33": "thirty-third test",
    "test34": "thirty-fourth test",
    "test35": "thirty-fifth test",
    "test36": "thirty-sixth test",
    "test37": "thirty-seventh test",
    "test38": "thirty-eighth test",
    "test39": "thirty-ninth test",
    "test40": "fortieth test",
    "test41": "forty-first test",
    "test42": "forty-second test",
    "test43": "forty-third test",
}
SPLIT_NAMES = {"dev": "development", **TEST_SPLITS}


def split_choices() -> dict[str, tuple[str, ...]]:
    """What `--split` accepts: each split alone, "both" (predates the second test split: dev
    and test) and "all". A fresh dict, so a caller may narrow it without touching others."""
    return {
        **{name: (name,) for name in SPLIT_NAMES},
        "both": ("dev", "test"),
        "all": tuple(SPLIT_NAMES),
    }


def label_file(kind: str, split: str) -> Path:
    """fixtures/eval/topics_test4.yaml for ("topics", "test4"); topics.yaml for the dev split."""
    return EVAL_DIR / (f"{kind}.yaml" if split == "dev" else f"{kind}_{split}.yaml")
