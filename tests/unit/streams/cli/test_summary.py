"""The readable replay summary: one rich table of the counts it is given."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from streams.cli.summary import render_summary
from streams.replay.replayer import ReplaySummary


def _rows(text: str) -> set[tuple[str, ...]]:
    return {tuple(cell.strip() for cell in line.strip("│").split("│")) for line in text.splitlines()
            if line.startswith("│")}


@pytest.mark.parametrize("escalations", [0, 1, 2, 17])
def test_the_summary_table_prints_the_escalation_count_it_is_given(escalations: int) -> None:
    buffer = io.StringIO()
    render_summary(ReplaySummary(events_in=5, escalations=escalations), Console(file=buffer, width=100))
    rows = _rows(buffer.getvalue())
    assert ("escalations", "", str(escalations)) in rows
    assert ("events in", "", "5") in rows


def test_sessions_and_their_terminations_appear_only_when_there_were_sessions() -> None:
    quiet, busy = io.StringIO(), io.StringIO()
    render_summary(ReplaySummary(events_in=1), Console(file=quiet, width=100))
    render_summary(ReplaySummary(events_in=9, sessions=2, messages=7, terminations={"SUCCESS": 1, "PARTIAL": 1}),
                   Console(file=busy, width=100))
    assert not any(row[0].startswith("OMEGA-57") for row in _rows(quiet.getvalue()))
    assert {("OMEGA-57 sessions", "", "2"), ("agent messages accepted", "", "7"), ("terminations", "PARTIAL", "1"),
            ("terminations", "SUCCESS", "1")} <= _rows(busy.getvalue())
