"""The hardware suggestion's model, apart from the code that makes it (suggest.py).

Reading a stored suggestion (the paper view, `fits:`, the fit against the user's machines in
fit.py) needs the model only; suggest.py brings the text patterns with it, whose import
compiles them (~0.1 s). suggest.py re-exports these names.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Scale = Literal["single-device", "single-node", "multi-node", "edge", "unknown"]
Confidence = Literal["high", "medium", "low"]


class HardwareSuggestion(BaseModel):
    """The JSON contract's `hardware` object plus the working behind it."""

    model_config = ConfigDict(extra="forbid")
    target: str
    scale: Scale = "unknown"
    devices: list[str] = Field(default_factory=list)
    memory_gb: float | None = None
    confidence: Confidence = "low"
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    device_counts: dict[str, int] = Field(default_factory=dict)
    # Devices in the target, also when the device is not named ("3072 GPUs").
    device_total: int | None = None
    # How each device was found: curated | named | system | architecture | floor | estimate.
    device_sources: dict[str, str] = Field(default_factory=dict)
    systems: list[str] = Field(default_factory=list)
    model_sizes: list[dict[str, Any]] = Field(default_factory=list)
    mode: Literal["training", "fine-tuning", "inference", "unknown"] = "unknown"
    memory_arithmetic: str | None = None
    feature_floor: str | None = None
    floor_features: list[str] = Field(default_factory=list)
    floor_architecture: str | None = None
    scaled_down: dict[str, Any] | None = None
    alternatives: list[dict[str, Any]] = Field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
