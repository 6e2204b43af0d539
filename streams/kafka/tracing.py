"""W3C trace context across the worker (issue 23): a `traceparent` header on an input record is carried to every
output the record causes, as a child span of it, so a verdict or an alert joins the agent trace that produced its
packet. The child's span id is derived from the output itself (its topic and bytes, which carry its derived id),
never random, so a redelivery or a replay of the same input gives the same headers. Inputs without a valid
`traceparent` give outputs without one (an invalid one is not repaired: a trace id cannot be guessed).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

HEADER = "traceparent"
_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


def parent_of(headers: Any) -> str | None:
    """The input record's `traceparent` (Faust gives headers as a mapping or as (name, bytes) pairs), when valid:
    version 00, trace id and parent id not all zeros (W3C Trace Context, "traceparent Header")."""
    pairs: Iterable[Any] = headers.items() if isinstance(headers, dict) else (headers or ())
    for name, value in pairs:
        if str(name).lower() != HEADER:
            continue
        text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
        match = _TRACEPARENT.match(text.strip())
        if match and match[1] == "00" and set(match[2]) != {"0"} and set(match[3]) != {"0"}:
            return match.group(0)
    return None


def child_of(parent: str, topic: str, value: bytes) -> str:
    """The `traceparent` of one output of a record traced as `parent`: same trace id and flags, its own span id."""
    _, trace_id, _, flags = parent.split("-")
    digest = hashlib.sha256(topic.encode("utf-8") + b"\x00" + value).hexdigest()
    span_id = digest[:16] if set(digest[:16]) != {"0"} else digest[16:32]
    return f"00-{trace_id}-{span_id}-{flags}"
