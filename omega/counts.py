"""Summaries summed from their parts: a dataclass of counts (ints) and tallies (Counters), added field by field.

The core itself sums no summary; this lives here because both shells do (replay's jobs, the projector's
batches) and the core is the one package both may import (projections imports nothing of streams).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import fields
from typing import Any, TypeVar

Summary = TypeVar("Summary")


def summed(kind: type[Summary], parts: Iterable[Summary]) -> Summary:
    """One `kind` whose every field is the sum of the parts' (Counters merged); `kind()` when there is no part.

    Every field of `kind` must be an int or a Counter and have a default; anything else is a TypeError, since
    a sum of it would mean nothing (a time, a flag, a text)."""
    total: dict[str, Any] = {}
    for part in parts:
        for name in (f.name for f in fields(part)):  # type: ignore[arg-type]
            value = getattr(part, name)
            if isinstance(value, Counter):
                total.setdefault(name, Counter()).update(value)
            elif isinstance(value, int) and not isinstance(value, bool):
                total[name] = total.get(name, 0) + value
            else:
                raise TypeError(f"{kind.__name__}.{name} is {type(value).__name__}: not a count to sum")
    return kind(**total)
