"""Where files live and what the user configured.

`DIGEST_TUI_HOME=DIR` puts config, data and cache under DIR (tests rely on it); otherwise the
platform's directories from platformdirs are used. Settings come from `config.yaml` in the
config dir, validated by pydantic (settings_schema.py, loaded when a setting is first read) so
a typo is reported with its field name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from digest_tui.arxiv_category import ARXIV_CATEGORY as ARXIV_CATEGORY
from digest_tui.arxiv_category import check_arxiv_category as check_arxiv_category
from digest_tui.errors import ConfigError

if TYPE_CHECKING:  # imported lazily at run time: see `__getattr__`
    from collections.abc import Sequence

    from digest_tui.settings_schema import ArxivCategory as ArxivCategory
    from digest_tui.settings_schema import ArxivSettings as ArxivSettings
    from digest_tui.settings_schema import DeviceCount as DeviceCount
    from digest_tui.settings_schema import FilterWord as FilterWord
    from digest_tui.settings_schema import Machine as Machine
    from digest_tui.settings_schema import Settings as Settings
    from digest_tui.yaml_files import Problem

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


# The pydantic models of config.yaml live in settings_schema.py and are imported on first use
# (PEP 562 `__getattr__` below): importing pydantic and building the models costs ~60-100 ms,
# which every command paid at start-up, though most never read a setting.
_SCHEMA_NAMES = frozenset(
    {"DeviceCount", "Machine", "ArxivSettings", "Settings", "ArxivCategory", "FilterWord"}
)


def __getattr__(name: str) -> Any:
    if name in _SCHEMA_NAMES:
        from digest_tui import settings_schema

        return getattr(settings_schema, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SETTINGS_SHAPE = "a mapping of settings at the top level"


def load_settings(paths: Paths) -> Settings:
    """The user's settings; a problem is one line, `config.yaml:LINE: field: problem`."""
    from digest_tui.settings_schema import Settings

    path = paths.config_file
    if not path.exists():
        return Settings()
    from digest_tui import yaml_files

    doc = yaml_files.load_file(path, ConfigError)
    yaml_files.require_mapping(doc, ConfigError, _SETTINGS_SHAPE)
    return yaml_files.validate(Settings, doc, ConfigError)


def load_settings_leaving_out_mistakes(paths: Paths) -> tuple[Settings, str | None]:
    """For the app, which goes on after a mistake: the settings with each wrong entry left out
    (one of `machines:`, one arXiv category or word, one setting), and what to tell the
    reader (None when the file is right). A typo in the second machine keeps the first
    machine and the theme. A file that is not YAML, or not a mapping, gives the defaults."""
    from pydantic import ValidationError

    from digest_tui import yaml_files
    from digest_tui.settings_schema import Settings

    path = paths.config_file
    if not path.exists():
        return Settings(), None
    try:  # read and parsed once: the passes below validate what is left of the same data
        doc = yaml_files.load_file(path, ConfigError)
        data = yaml_files.require_mapping(doc, ConfigError, _SETTINGS_SHAPE)
    except ConfigError as exc:
        return Settings(), f"{exc}. Using the default settings until it is fixed."
    problems: list[Problem] = []
    # Each pass leaves out what the last one found wrong (pydantic reports every error of a
    # pass, so one more pass normally validates).
    for _ in range(4):
        try:
            settings = Settings.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors()
        else:
            return settings, _left_out_message(problems)
        for error in errors:
            loc = tuple(error["loc"])
            problems.append(doc.problem(loc, yaml_files.error_message(error), data=data))
        data = _without(data, [_entry_of(tuple(error["loc"])) for error in errors])
    first = min(problems, key=yaml_files.problem_order)
    return Settings(), f"{first}. Using the default settings until it is fixed."


def _left_out_message(problems: list[Problem]) -> str | None:
    """The first mistake in the file (the CLI names the same one), and how many more."""
    if not problems:
        return None
    from digest_tui.yaml_files import problem_order

    first = min(problems, key=problem_order)
    more = len(problems) - 1
    also = f" (and {more} more mistake{'s' if more > 1 else ''}, also left out)" if more else ""
    return f"{first}{also}. Left out until it is fixed; the rest of the file applies."


def _entry_of(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """The entry a wrong field belongs to: the outermost list item on its path (a machine,
    not one of its devices: a machine missing a device would fit papers it cannot), else the
    field itself (a setting, `arxiv.keep_if_any` as a whole)."""
    for depth, key in enumerate(loc):
        if isinstance(key, int):
            return loc[: depth + 1]
    return loc


def _without(data: Any, entries: list[tuple[str | int, ...]]) -> Any:
    """A copy of `data` with each entry (a path of keys and list indexes) removed."""
    import copy

    pruned = copy.deepcopy(data)

    # Deepest and last items first, so removing one never shifts another's index.
    def order(entry: tuple[str | int, ...]) -> tuple[int, list[tuple[int, str | int]]]:
        return len(entry), [(0, k) if isinstance(k, int) else (1, k) for k in entry]

    for entry in sorted(set(entries), key=order, reverse=True):
        parent = pruned
        for key in entry[:-1]:
            try:
                parent = parent[key]
            except (KeyError, IndexError, TypeError):
                parent = None
                break
        last = entry[-1] if entry else None
        in_mapping = isinstance(parent, dict) and last in parent
        in_list = isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent)
        if in_mapping or in_list:
            del parent[last]
    return pruned


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

    def _unconfigured(self) -> bool:
        """No config.yaml and no settings loaded yet: every setting has its default."""
        return "settings" not in vars(self) and not self.paths.config_file.exists()

    @cached_property
    def _plain(self) -> PlainSettings | None:
        """config.yaml read without pydantic when it is plainly valid (`read_plain`)."""
        if "settings" in vars(self):
            return None  # already validated: use that
        return read_plain(self.paths.config_file)

    @property
    def machines(self) -> Sequence[Machine]:
        """`machines:` of config.yaml. Without a config.yaml there are none, and the
        settings' models (pydantic, ~60-100 ms to import) are not loaded to say so; a file
        that is plainly valid is read without them too (`read_plain`)."""
        if self._unconfigured():
            return ()  # Settings().machines: tests/unit/test_config_lazy.py
        plain = self._plain
        if plain is not None:
            # PlainMachine has what every reader of a machine uses (`name`, each device's
            # `id` and `count`), not the pydantic model's methods.
            return cast("Sequence[Machine]", plain.machines)
        return self.settings.machines

    @property
    def repo_health(self) -> bool:
        """`repo_health:` of config.yaml (default true), read as `machines` is."""
        if self._unconfigured():
            return True  # Settings().repo_health
        plain = self._plain
        if plain is not None:
            return plain.repo_health
        return self.settings.repo_health


@dataclass(frozen=True)
class PlainDevice:
    id: str
    count: int = 1


@dataclass(frozen=True)
class PlainMachine:
    name: str
    devices: tuple[PlainDevice, ...] = ()


@dataclass(frozen=True)
class PlainSettings:
    machines: tuple[PlainMachine, ...]
    repo_health: bool


# What `read_plain` takes as it is: settings whose only check is their type (the others,
# `arxiv:` and `auto_read_seconds`, send the file to pydantic).
_PLAIN_FLAGS = frozenset({"repo_health", "sync_on_start", "sync_on_quit"})
_PLAIN_KEYS = _PLAIN_FLAGS | {"machines", "theme", "fetch_on_start_days"}
# The schema's bounds, repeated here (settings_schema imports pydantic); held to it by
# tests/unit/test_config_plain.py.
_MAX_FETCH_DAYS = 31
_MIN_DEVICE_COUNT = 1


def read_plain(path: Path) -> PlainSettings | None:
    """`machines:` and `repo_health:` of a config.yaml that is plainly valid, without the
    settings' pydantic models: importing pydantic and building them cost ~0.13-0.2 s, most
    of a `papers --sort reproducible` at 100,000 papers.

    Deliberately narrow: only values pydantic would take unchanged (a `str` name, an `int`
    count of at least 1, a `bool` flag, ...). Anything else, including every mistake and
    every value pydantic would coerce ("2" for a count), gives None, and the caller
    validates the file with pydantic, which reports mistakes exactly as before
    (tests/unit/test_config_plain.py compares the two on valid and invalid files)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    import yaml  # type: ignore[import-untyped]

    try:  # the loader yaml_files.parse uses, so the data is the same
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    # An empty file is a mistake to pydantic ("a valid dictionary"): it says so, not here.
    if type(data) is not dict or not all(type(k) is str for k in data):
        return None
    if not set(data) <= _PLAIN_KEYS:
        return None
    if any(type(data[k]) is not bool for k in _PLAIN_FLAGS & set(data)):
        return None
    if "theme" in data and data["theme"] is not None and type(data["theme"]) is not str:
        return None
    days = data.get("fetch_on_start_days", 0)
    if type(days) is not int or not 0 <= days <= _MAX_FETCH_DAYS:
        return None
    machines = _plain_machines(data.get("machines", []))
    if machines is None:
        return None
    return PlainSettings(machines, data.get("repo_health", True))


def _plain_machines(value: Any) -> tuple[PlainMachine, ...] | None:
    if type(value) is not list:
        return None
    machines = []
    for item in value:
        if type(item) is not dict or not set(item) <= {"name", "devices"}:
            return None
        name, devices = item.get("name"), item.get("devices", [])
        if type(name) is not str or type(devices) is not list:
            return None
        parts = []
        for device in devices:
            if type(device) is not dict or not set(device) <= {"id", "count"}:
                return None
            ident, count = device.get("id"), device.get("count", 1)
            if type(ident) is not str or type(count) is not int or count < _MIN_DEVICE_COUNT:
                return None
            parts.append(PlainDevice(ident, count))
        machines.append(PlainMachine(name, tuple(parts)))
    return tuple(machines)
