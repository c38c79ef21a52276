"""A paper's `machine_fit` as the JSON contract prints it, judged once per distinct fit.

`papers --format jsonl` asks about every paper (one `MachineFits` for the dump); `paper_view`
about one paper at a time (`show`, `similar --format json`, the app's panel). Both read the
answer as the encoded list: `[{"name": ..., "fits": ..., "reason": ...}, ...]`.

Three levels, cheapest first:
- a suggestion the current enricher wrote is keyed by the text of its fit fields
  (enrich/hardware/fit_slices.py, ~2 us), not validated: validating each one (~10 us) and
  building its fit inputs (~5 us) were ~1.5 s of a 100,000-paper dump;
- that key's answer kept across commands (store/fit_texts.py): then neither the hardware
  catalog nor pydantic is loaded (~0.1-0.15 s of every command that prints a paper object
  with machines configured, ~0.3-0.5 s of the dump);
- otherwise judged: validated, then `fit_machines` once per distinct set of the fields fit.py
  reads (verdicts and reasons alike). Without this a 100,000-paper dump with machines
  configured took 16-20 s (~100 us of judging a paper).

Any text the current enricher did not write is validated, as before, so one that does not
validate still answers None (the callers then say its hardware data is outdated).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from digest_tui.enrich.hardware.fit_slices import fit_slices

if TYPE_CHECKING:
    from digest_tui.config import Machine
    from digest_tui.store.fit_texts import FitTexts

# What the contract's encoder prints (json.dumps with ensure_ascii=False).
_encode = json.JSONEncoder(ensure_ascii=False).encode


class MachineFits:
    """`machine_fit` texts for one set of machines and one catalog (`catalog()` is asked
    only when something must be judged), optionally kept across commands in `kept`."""

    def __init__(
        self,
        machines: Sequence[Machine],
        catalog: Callable[[], Any],
        kept: FitTexts | None = None,
    ) -> None:
        self.machines = machines
        self._catalog_of = catalog
        self._kept = kept
        self._texts: dict[tuple[Any, ...], str] = {}
        self._by_slices: dict[tuple[str, ...], str | None] = {}
        self._judging: tuple[Any, ...] | None = None

    def text(self, hardware: str, *, current: bool = False) -> str | None:
        """The encoded `machine_fit` list of a stored suggestion; None when it does not
        validate. `current`: the row's `enrich_fp` is the current enricher's, so its text
        has the layout `fit_slices` reads."""
        if not current:
            return self._judge(hardware)
        slices = fit_slices(hardware)
        if slices is None:
            return self._judge(hardware)
        try:
            return self._by_slices[slices]
        except KeyError:
            pass
        found = self._kept.get(slices) if self._kept is not None else None
        if found is None:
            found = self._judge(hardware)
            if found is not None and self._kept is not None:
                self._kept.put(slices, found)
        self._by_slices[slices] = found
        return found

    def _tools(self) -> tuple[Any, ...]:
        """What judging needs, imported and loaded on the first judgement only: pydantic and
        the catalog are what a kept answer spares."""
        if self._judging is None:
            from pydantic import ValidationError

            from digest_tui.enrich.hardware.fit import fit_inputs, fit_machines
            from digest_tui.enrich.hardware.suggestion import HardwareSuggestion

            self._judging = (
                ValidationError,
                HardwareSuggestion.model_validate_json,
                fit_inputs,
                fit_machines,
                self._catalog_of(),
            )
        return self._judging

    def _judge(self, hardware: str) -> str | None:
        invalid, validate, inputs, fit, catalog = self._tools()
        try:
            s = validate(hardware)
        except invalid:
            return None
        key = inputs(s)
        found = self._texts.get(key)
        if found is None:
            fits = fit(s, self.machines, catalog)
            found = self._texts[key] = _encode([f.model_dump() for f in fits])
        return found
