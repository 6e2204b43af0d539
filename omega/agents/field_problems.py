"""Why one field's value is not what §2.1 asks, or None when it is: agent id, timestamp, iteration, a count,
confidence, output tier; and `kind_of`, what a JSON value is, for the reasons.

- Numbers and booleans are strict: no quoted numbers, no bools as ints.
- timestamp: ISO 8601 extended date and time (`T` separator), offset optional (naive means UTC, as in
  `omega.eventtime`).
- iteration: an int >= 0; iterations count from `FIRST_ITERATION` = 0, so A.3's limit of 10 full cycles is
  iterations 0..9. The limit is the termination judge's to enforce, not a reason to refuse a message.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from omega.agents import roster
from omega.agents.crossrefs import show as _show

FIRST_ITERATION = 0
MAX_AVRO_INT = 2**31 - 1
MAX_AVRO_LONG = 2**63 - 1

_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}")


def agent_id_problem(value: Any) -> str | None:
    """Why `value` is not an agent id (an int 1..57), or None when it is one."""
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be an agent id (an integer 1..57), got {_show(value)}"
    return None if roster.is_agent_id(value) else f"{_show(value)} is outside the agent ids 1..57"


def timestamp_problem(value: Any) -> str | None:
    """Why `value` is not an ISO 8601 date-time string, or None when it is one."""
    if not isinstance(value, str):
        return f"must be an ISO 8601 date-time string, got {_show(value)}"
    text = value.strip()
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return f"{_show(value)} is not an ISO 8601 date-time"
    if not _ISO_DATE_TIME.match(text):
        return f"{_show(value)} is not an ISO 8601 date-time (expected e.g. 2025-01-26T09:00:00Z)"
    return None


def iteration_problem(value: Any) -> str | None:
    """Why `value` is not an iteration number (an int from 0 within Avro's int), or None."""
    problem = count_problem(value, MAX_AVRO_INT)
    return None if problem is None else f"{problem} (iterations count from {FIRST_ITERATION})"


def count_problem(value: Any, limit: int) -> str | None:
    """Why `value` is not a count (an int 0..`limit`), or None."""
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be a non-negative integer, got {_show(value)}"
    if value < 0:
        return f"{_show(value)} is negative"
    return None if value <= limit else f"{_show(value)} is over the limit of {limit}"


def confidence_problem(value: Any) -> str | None:
    """Why `value` is not a confidence (a finite number in [0, 1]), or None; a percentage gets a hint."""
    finite = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if not finite or isinstance(value, bool):
        return f"must be a number in [0, 1], got {_show(value)}"
    if 0 <= value <= 1:
        return None
    # An int past float range cannot go through `:g`; 1e400 as a JSON int is still a number to report.
    shown = f"{value:g}" if isinstance(value, float) else _show(value)
    percent = 1 < value <= 100 and value == int(value)
    hint = f" (a percentage? write {value / 100:g} for {shown}%)" if percent else ""
    return f"{shown} is outside [0, 1]{hint}"


def tier_problem(value: Any) -> str | None:
    """Why `value` is not a §5 output tier (0, 1 or 2), or None."""
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1, 2):
        return None
    return f"must be 0, 1 or 2 (§5 output tier), got {_show(value)}"


def kind_of(value: Any) -> str:
    """What a JSON value is, for reasons: "null", "a number", "a list", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    names: dict[type, str] = {str: "a string", list: "a list", dict: "a mapping"}
    return names.get(type(value), type(value).__name__)
