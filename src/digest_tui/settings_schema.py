"""The settings of `config.yaml` as pydantic models (config.py loads this on first use).

Kept apart from config.py so that a command that never reads a setting (`tags`, `list`,
`papers`) does not import pydantic: `digest_tui.config` re-exports these names lazily.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from digest_tui.arxiv_category import check_arxiv_category


class DeviceCount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    count: int = Field(default=1, ge=1)


class Machine(BaseModel):
    """One of the user's own machines, e.g. a laptop with one RTX 4090."""

    model_config = ConfigDict(extra="forbid")
    name: str
    devices: list[DeviceCount] = Field(default_factory=list)


def _filter_word(value: str) -> str:
    word = " ".join(value.split())
    if not word:
        raise ValueError("an empty word would keep every paper; remove it")
    return word


# Checked item by item, so a mistake is reported at the line of that item.
ArxivCategory = Annotated[str, AfterValidator(check_arxiv_category)]
FilterWord = Annotated[str, AfterValidator(_filter_word)]


class ArxivSettings(BaseModel):
    """`arxiv:` in config.yaml: which listings the app's refresh fetches, and a keyword
    pre-filter so a broad feed (cs.LG) keeps only the papers the reader wants."""

    model_config = ConfigDict(extra="forbid")
    # Fetched by the app's refresh (R) beside Hugging Face; the CLI's --arxiv names its own.
    categories: list[ArxivCategory] = Field(default_factory=list)
    # Keep a paper only if its title or abstract has one of these words or phrases (at the
    # start of a word, any case: "GPU" keeps "GPUs"). Empty: keep everything.
    keep_if_any: list[FilterWord] = Field(default_factory=list)
    # The categories the filter applies to (e.g. [cs.LG]); empty: every category fetched.
    filter_categories: list[ArxivCategory] = Field(default_factory=list)


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    theme: str | None = None
    auto_read_seconds: float | None = Field(default=None, ge=0)
    machines: list[Machine] = Field(default_factory=list)
    # Fetch stars, licence and last push of a paper's GitHub repos when it is shown.
    repo_health: bool = True
    # Fetch this many latest days from the Hugging Face API when the app starts (0: off).
    fetch_on_start_days: int = Field(default=0, ge=0, le=31)
    # Sync reading state with the remote set by `digest-tui sync init` when the app starts
    # and when it quits (docs/sync.md). The remote itself is kept in the library, not here.
    sync_on_start: bool = False
    sync_on_quit: bool = False
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings)
