"""Where files live and what the user configured.

`DIGEST_TUI_HOME=DIR` puts config, data and cache under DIR (tests rely on it); otherwise the
platform's directories from platformdirs are used. Settings come from `config.yaml` in the
config dir, validated by pydantic so a typo is reported with its field name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from digest_tui.errors import ConfigError

APP_NAME = "digest-tui"
HOME_ENV = "DIGEST_TUI_HOME"


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path
    cache_dir: Path
    # Logs (the app's error log). Optional so Paths(config, data, cache) still works: it then
    # sits beside the data dir.
    state_dir: Path | None = None

    @classmethod
    def discover(cls) -> Paths:
        home = os.environ.get(HOME_ENV)
        if home:
            root = Path(home).expanduser()
            return cls(root / "config", root / "data", root / "cache", root / "state")
        import platformdirs  # deferred: only needed when no DIGEST_TUI_HOME is set

        dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
        return cls(
            Path(dirs.user_config_dir),
            Path(dirs.user_data_dir),
            Path(dirs.user_cache_dir),
            Path(dirs.user_state_dir),
        )

    @property
    def database(self) -> Path:
        return self.data_dir / "library.sqlite3"

    @property
    def error_log(self) -> Path:
        """Where the app appends the tracebacks of failures it reported in one line."""
        return (self.state_dir or self.data_dir) / "errors.log"

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.yaml"

    def ensure(self) -> Paths:
        for directory in (self.config_dir, self.data_dir, self.cache_dir):
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                hint = f" (set {HOME_ENV} to a writable folder)" if os.environ.get(HOME_ENV) else ""
                raise ConfigError(
                    f"{directory}: cannot create this folder: {exc.strerror or exc}{hint}"
                ) from exc
        return self


class DeviceCount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    count: int = Field(default=1, ge=1)


class Machine(BaseModel):
    """One of the user's own machines, e.g. a laptop with one RTX 4090."""

    model_config = ConfigDict(extra="forbid")
    name: str
    devices: list[DeviceCount] = Field(default_factory=list)


# An arXiv category as the API spells it: cs.DC, math.OC, hep-th, physics.comp-ph, q-bio.NC.
# Nothing else reaches the query, so a category can never add words of its own to it.
ARXIV_CATEGORY = re.compile(r"^[a-z][a-z-]{0,15}(?:\.[A-Za-z][A-Za-z-]{0,15})?$")


def check_arxiv_category(value: str) -> str:
    """`value` stripped, or ValueError naming it when it is not an arXiv category."""
    name = value.strip()
    if not ARXIV_CATEGORY.match(name):
        raise ValueError(f"{value!r} is not an arXiv category such as cs.DC or hep-th")
    return name


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


def load_settings(paths: Paths) -> Settings:
    """The user's settings; a problem is one line, `config.yaml:LINE: field: problem`."""
    path = paths.config_file
    if not path.exists():
        return Settings()
    from digest_tui import yaml_files

    doc = yaml_files.load_file(path, ConfigError)
    yaml_files.require_mapping(doc, ConfigError, "a mapping of settings at the top level")
    return yaml_files.validate(Settings, doc, ConfigError)


class AppContext:
    """Paths plus lazily loaded settings, passed to CLI commands and the TUI.

    It also remembers every library opened for it (service.open_library), so that whoever
    made the context can close them all on the way out, errors included: `close()`.
    """

    def __init__(self, paths: Paths | None = None) -> None:
        self.paths = (paths or Paths.discover()).ensure()
        self._open: list[Any] = []

    def track(self, library: Any) -> None:
        """Close `library` with this context (anything with a `close()` method)."""
        self._open.append(library)

    def close(self) -> None:
        """Checkpoint and close every library opened for this context."""
        while self._open:
            self._open.pop().close()

    @cached_property
    def settings(self) -> Settings:
        return load_settings(self.paths)
