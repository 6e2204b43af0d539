"""§6.2 built-in evaluators: durations to minutes, timestamps to epoch ms, and comparisons. None means the
value cannot be parsed; callers turn that (and any missing parameter) into `unsupported`, never a guess."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$")
UNIT_MINUTES = {
    "millisecond": 1 / 60_000, "msec": 1 / 60_000, "ms": 1 / 60_000,
    "second": 1 / 60, "sec": 1 / 60, "s": 1 / 60,
    "minute": 1.0, "min": 1.0, "m": 1.0,
    "hour": 60.0, "hr": 60.0, "h": 60.0,
    "day": 1440.0, "d": 1440.0,
    "week": 10080.0, "w": 10080.0,
}
COMPARATORS = {">": lambda a, b: a > b, "<": lambda a, b: a < b, "==": lambda a, b: a == b,
               ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}


def duration_minutes(value: object) -> float | None:
    """`"15 minutes"` -> 15.0, `"2 hours"` -> 120.0; a bare number is minutes; None when unparseable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    match = _DURATION.match(value.lower())
    if not match:
        return None
    unit = match.group(2)
    # an exact unit first: "ms" is milliseconds, not the plural of "m"
    unit = unit[:-1] if unit not in UNIT_MINUTES and unit.endswith("s") and unit[:-1] in UNIT_MINUTES else unit
    factor = UNIT_MINUTES.get(unit)
    return None if factor is None else float(match.group(1)) * factor


def timestamp_ms(value: object) -> int | None:
    """ISO-8601 date or date-time -> epoch ms (naive means UTC); None when unparseable."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp() * 1000)


def compare(left: float | None, op: str, right: float | None) -> bool | None:
    """`left op right` for op in > < == >= <=; None when either side is missing or the op unknown."""
    fn = COMPARATORS.get(op)
    if fn is None or left is None or right is None:
        return None
    return bool(fn(left, right))


def number_param(params: dict[str, object], name: str) -> float | None:
    """A numeric query parameter (a number, or a numeric string), or None when missing or malformed."""
    value = params.get(name)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
