"""Event time: ISO-8601 text parsed once for the core (`to_ms`) and the shell (`parse_iso`); naive means UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from omega.eventtime import parse_iso, to_iso, to_ms


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-01-01T00:00:00Z", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01T10:00:00.123456", datetime(2026, 1, 1, 10, 0, 0, 123456, tzinfo=UTC)),
        ("2026-01-01", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01T05:30:00+05:30", datetime(2026, 1, 1, 5, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))),
    ],
)
def test_parse_iso_reads_the_moment_naive_as_utc(text: str, moment: datetime) -> None:
    parsed = parse_iso(text)
    assert parsed == moment
    assert parsed is not None
    assert parsed.utcoffset() == moment.utcoffset()


def test_parse_iso_keeps_the_offset_so_the_ends_of_the_calendar_still_parse() -> None:
    parsed = parse_iso("0001-01-01T00:00:00+01:00")
    assert parsed is not None
    assert parsed.utcoffset() == timedelta(hours=1)


@pytest.mark.parametrize("text", ["", "yesterday", "2026-13-01", "2026-01-01T25:00:00", None, 1767225600, b"2026"])
def test_what_is_not_an_iso_timestamp_is_none(text: object) -> None:
    assert parse_iso(text) is None
    assert to_ms(text) is None


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:01.5", 1500),
        ("1970-01-01T01:00:00+01:00", 0),
        ("2026-01-01T00:00:00Z", 1_767_225_600_000),
        ("0001-01-01T00:00:00+01:00", -62_135_600_400_000),
    ],
)
def test_to_ms_is_epoch_milliseconds(text: str, ms: int) -> None:
    assert to_ms(text) == ms


def test_to_iso_is_utc_text() -> None:
    assert to_iso(1_767_225_600_000) == "2026-01-01T00:00:00+00:00"
    assert to_iso(None) is None
