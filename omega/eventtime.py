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
    moment = parse_iso(iso)
    return None if moment is None else int(moment.timestamp() * 1000)


def parse_iso(iso: object) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime in its own offset (naive means UTC); None when unparseable."""
    if not isinstance(iso, str):
        return None
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    # Its own offset, not UTC: converting can overflow at the ends of the calendar, where a timestamp cannot.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def to_iso(ms: int | None) -> str | None:
    """ISO-8601 UTC text of epoch milliseconds."""
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()
