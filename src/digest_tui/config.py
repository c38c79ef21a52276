"""Where files live and what the user configured.

`DIGEST_TUI_HOME=DIR` puts config, data and cache under DIR (tests rely on it); otherwise the
platform's directories from platformdirs are used. Settings come from `config.yaml` in the
config dir, validated by pydantic so a typo is reported with its field name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
            directory.mkdir(parents=True, exist_ok=True)
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


def load_settings(paths: Paths) -> Settings:
    path = paths.config_file
    if not path.exists():
        return Settings()
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"{path}: {problems}") from exc


class AppContext:
    """Paths plus lazily loaded settings, passed to CLI commands and the TUI."""

    def __init__(self, paths: Paths | None = None) -> None:
        self.paths = (paths or Paths.discover()).ensure()

    @cached_property
    def settings(self) -> Settings:
        return load_settings(self.paths)
