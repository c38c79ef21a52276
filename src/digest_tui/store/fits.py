"""`fits:MACHINE`: does a paper's suggested hardware fit one of the user's machines?

The answer needs the hardware catalog and the `machines:` of the config, so it cannot be plain
SQL: `install_fits` registers on a connection `paper_key_fits(fit_key, machine_name)`, asked
once per distinct fit key of the library (store/fit_keys.py: the filter then looks papers up
by key), its guard `paper_fits_by_key()`, and `paper_fits(hardware_json, machine_name)` for a
paper without a key yet. Both inputs are loaded lazily, on the first query that asks, so
opening the library stays cheap.

The fit itself belongs to enrich/hardware/fit.py (`fit_machines(suggestion, machines, catalog)`);
`_fallback_fits`, a simple rule of memory and device ids, serves only where that cannot be
used (no catalog given, or hardware JSON stored in an older shape).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeAlias

from digest_tui.search_syntax import ParsedSearch
from digest_tui.store.fit_keys import suggestion_of_key
from digest_tui.store.fit_verdicts import NAME, VerdictCache, kept_or_judged

if TYPE_CHECKING:  # annotations only: the settings' pydantic models load on first use
    from digest_tui.config import Machine

MachinesSource: TypeAlias = "Sequence[Machine] | Callable[[], Sequence[Machine]]"


def install_fits(
    conn: sqlite3.Connection,
    machines: MachinesSource = (),
    catalog: Any | Callable[[], Any] = None,
    verdicts: VerdictCache | None = None,
) -> None:
    """Register the `fits:` functions on `conn` (again, replacing an earlier registration).

    `verdicts`: the verdicts per key kept across commands (store/fit_verdicts.py); only with a
    `catalog` that always gives a catalog (or raises), as the library's enricher does, since
    the catalog is then not loaded while every verdict asked for is kept."""

    @lru_cache(maxsize=1)
    def by_name() -> dict[str, Machine]:
        found = machines() if callable(machines) else machines
        return {m.name.casefold(): m for m in found}

    @lru_cache(maxsize=1)
    def resolved() -> tuple[dict[str, Machine], Any]:
        names = by_name()  # the config first: its mistake is the one reported
        return names, catalog() if callable(catalog) else catalog

    @lru_cache(maxsize=65536)
    def fits(hardware: str | None, name: str | None) -> int:
        if not hardware or not name:
            return 0
        names, data = resolved()
        machine = names.get(name.casefold())
        if machine is None:
            return 0
        try:
            suggestion = json.loads(hardware)
        except ValueError:
            return 0
        return int(machine_fits(suggestion, machine, data))

    # Per key and name: a statement asks about every key of the library (a few thousand), and
    # the search box runs the same query again on each keystroke.
    @lru_cache(maxsize=65536)
    def fits_by_key(key: str | None, name: str | None) -> int:
        if not key or not name:
            return 0
        folded = name.casefold()
        machine = by_name().get(folded)
        if machine is None:
            return 0
        return kept_or_judged(
            verdicts, NAME, folded, key, lambda: int(key_fits(key, machine, resolved()[1]))
        )

    def by_key() -> int:
        # Without a catalog the fallback rule judges valid suggestions too, on `devices`,
        # which their keys leave out: each paper is then judged from its own JSON. With
        # `verdicts` there is always a catalog (see above): not loaded to say so.
        if verdicts is not None:
            return 1
        return int(resolved()[1] is not None)

    conn.create_function("paper_fits", 2, fits, deterministic=True)
    conn.create_function("paper_key_fits", 2, fits_by_key, deterministic=True)
    conn.create_function("paper_fits_by_key", 0, by_key, deterministic=True)


def fits_problems(parsed: ParsedSearch, machines: MachinesSource) -> list[str]:
    """Warnings for `fits:` names that match no configured machine (shown beside results).

    `machines` may be a callable: it is called only when the search uses `fits:`.
    """
    names = parsed.values("fits") + parsed.values("-fits")
    if not names:
        return []
    found: Iterable[Machine] = machines() if callable(machines) else machines
    known = {m.name.casefold(): m.name for m in found}
    problems = []
    for name in names:
        if name.casefold() not in known:
            listed = ", ".join(sorted(known.values())) or "none: add `machines:` to config.yaml"
            problems.append(f"fits:{name}: no machine of that name (configured: {listed})")
    return problems


def machine_fits(suggestion: dict[str, Any], machine: Machine, catalog: Any) -> bool:
    """True only when the fit is known to hold (an undecidable fit does not match)."""
    return _fits_parsed(suggestion, _validated(suggestion), machine, catalog)


def key_fits(key: str, machine: Machine, catalog: Any) -> bool:
    """`machine_fits` for the papers of a fit key (store/fit_keys.py), the key's suggestion
    parsed and validated once for every machine asked about it."""
    suggestion, parsed = _key_suggestion(key)
    if suggestion is None:
        return False
    return _fits_parsed(suggestion, parsed, machine, catalog)


@lru_cache(maxsize=65536)
def _key_suggestion(key: str) -> tuple[dict[str, Any] | None, Any]:
    suggestion = suggestion_of_key(key)
    return suggestion, (_validated(suggestion) if suggestion is not None else None)


def _validated(suggestion: dict[str, Any]) -> Any:
    """The suggestion as a HardwareSuggestion, or None where the fallback rule judges it."""
    try:
        from digest_tui.enrich.hardware.suggestion import HardwareSuggestion
    except ImportError:
        return None
    from pydantic import ValidationError

    try:
        return HardwareSuggestion.model_validate(suggestion)
    except ValidationError:
        # Stored by an older enrichment: re-enrichment will refresh it; judge it simply.
        return None


def _fits_parsed(suggestion: dict[str, Any], parsed: Any, machine: Machine, catalog: Any) -> bool:
    if parsed is None or catalog is None:
        return _fallback_fits(suggestion, machine, catalog)
    try:
        from digest_tui.enrich.hardware.fit import fit_machines
    except ImportError:
        return _fallback_fits(suggestion, machine, catalog)
    return _interpret(fit_machines(parsed, [machine], catalog), machine)


def _interpret(result: Any, machine: Machine) -> bool:
    """Accept the plausible shapes of fit_machines' answer for one machine."""
    if isinstance(result, bool):
        return result
    if isinstance(result, dict):
        value = result.get(machine.name)
        return bool(getattr(value, "fits", value))
    for item in result or ():
        if isinstance(item, str) and item == machine.name:
            return True
        name = getattr(item, "name", None) or getattr(item, "machine", None)
        name = getattr(name, "name", name)
        if name == machine.name:
            return bool(getattr(item, "fits", True))
    return False


def _fallback_fits(suggestion: dict[str, Any], machine: Machine, catalog: Any) -> bool:
    """A machine fits when it has the memory the estimate asks for (or, with no estimate, one
    of the suggested devices), and the work is not multi-node."""
    scale = suggestion.get("scale")
    if scale in (None, "unknown", "multi-node"):
        return False
    suggested = set(suggestion.get("devices") or [])
    need_gb = suggestion.get("memory_gb")
    owned = [(d.id, d.count) for d in machine.devices]
    if need_gb is None:
        return any(device in suggested for device, _ in owned)
    memories = []
    for device, count in owned:
        entry = catalog.get(device) if catalog is not None else None
        memory = getattr(entry, "memory_gb", None)
        if memory:
            memories.append((float(memory), count))
    if scale in ("single-device", "edge"):
        return any(memory >= float(need_gb) for memory, _ in memories)
    return sum(memory * count for memory, count in memories) >= float(need_gb)
