"""The Phase Q thresholds, only from the config's named symbols (`phase-q-config.json`); no number here.

A config maps each symbol to `{"value": ..., "rule": ..., ...}` (a bare value is accepted too). A case
field written `"CONFIG:NAME"` is resolved against it. `ABLATION_STRATEGY` must be `single-segment`: the
other published alternatives are not implemented (and `random-k` would break determinism).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.canonical import content_hash

CONFIG_PREFIX = "CONFIG:"
SUPPORTED_STRATEGIES = ("single-segment",)
REQUIRED = ("UNSUPPORTED_MAX", "NECESSITY_MIN_RATIO", "STABILITY_FACTOR", "ABLATION_STRATEGY")


class ConfigError(ValueError):
    """A config that cannot be used, or a `CONFIG:` reference it cannot resolve."""


@dataclass(frozen=True)
class OracleConfig:
    """The resolved symbols, the raw config (for `CONFIG:` lookups) and the config's hash."""

    unsupported_max: int
    necessity_min_ratio: float
    stability_factor: float
    ablation_strategy: str
    symbols: Mapping[str, object]
    config_hash: str

    def resolve(self, value: object) -> object:
        """`"CONFIG:NAME"` -> the symbol's value; anything else unchanged."""
        if isinstance(value, str) and value.startswith(CONFIG_PREFIX):
            name = value[len(CONFIG_PREFIX):]
            if name not in self.symbols:
                raise ConfigError(f"unknown config symbol {name!r} in {value!r}")
            return self.symbols[name]
        return value


def _value(raw: Mapping[str, Any], name: str) -> object:
    if name not in raw:
        raise ConfigError(f"config has no symbol {name}")
    entry = raw[name]
    if isinstance(entry, Mapping):
        if "value" not in entry:
            raise ConfigError(f"config symbol {name} has no 'value'")
        return entry["value"]
    return entry


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{name} must be a number, got {value!r}")
    return float(value)


def load_config(raw: Mapping[str, Any]) -> OracleConfig:
    """Validate a parsed config and resolve its symbols; raises ConfigError."""
    if not isinstance(raw, Mapping):
        raise ConfigError("the config must be a JSON object")
    symbols = {name: _value(raw, name) for name in sorted(raw)}
    for name in REQUIRED:
        _value(raw, name)
    unsupported = symbols["UNSUPPORTED_MAX"]
    if isinstance(unsupported, bool) or not isinstance(unsupported, int) or unsupported < 0:
        raise ConfigError(f"UNSUPPORTED_MAX must be a count >= 0, got {unsupported!r}")
    ratio = _number("NECESSITY_MIN_RATIO", symbols["NECESSITY_MIN_RATIO"])
    if not 0.0 <= ratio <= 1.0:
        raise ConfigError(f"NECESSITY_MIN_RATIO must be within [0, 1], got {ratio}")
    factor = _number("STABILITY_FACTOR", symbols["STABILITY_FACTOR"])
    if factor < 0:
        raise ConfigError(f"STABILITY_FACTOR must be >= 0, got {factor}")
    strategy = symbols["ABLATION_STRATEGY"]
    if strategy not in SUPPORTED_STRATEGIES:
        raise ConfigError(f"ABLATION_STRATEGY {strategy!r} is not supported (only {', '.join(SUPPORTED_STRATEGIES)})")
    return OracleConfig(unsupported, ratio, factor, str(strategy), symbols, content_hash(dict(raw)))
