"""§6.2 evaluators: timestamps with an offset, naive timestamps read as UTC whatever the machine's zone, and
numeric query parameters (a number or a numeric string, never a boolean)."""

from __future__ import annotations

import time

import pytest

from omega.answers.evaluators import number_param, timestamp_ms

MIDNIGHT_UTC = 1_685_577_600_000  # 2023-06-01T00:00:00Z


def test_a_timestamp_with_an_offset_is_the_instant_it_names() -> None:
    assert timestamp_ms("2023-06-01T02:00:00+02:00") == MIDNIGHT_UTC
    assert timestamp_ms("2023-05-31T19:00:00-05:00") == MIDNIGHT_UTC
    assert timestamp_ms("2023-06-01T00:00:00Z") == MIDNIGHT_UTC


def test_a_naive_timestamp_is_utc_whatever_the_machines_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert timestamp_ms("2023-06-01") == MIDNIGHT_UTC
        assert timestamp_ms("2023-06-01T00:00:00") == MIDNIGHT_UTC
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_numeric_parameter_is_a_number_or_a_numeric_string_never_a_boolean() -> None:
    params: dict[str, object] = {"n": 20, "s": " 20.5 ", "t": True, "f": False, "x": "twenty", "l": [20]}
    assert number_param(params, "n") == 20.0
    assert number_param(params, "s") == 20.5
    assert number_param(params, "t") is None
    assert number_param(params, "f") is None
    assert number_param(params, "x") is None
    assert number_param(params, "l") is None
    assert number_param(params, "missing") is None
