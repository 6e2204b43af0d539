"""Issue 46: the orders the memories promise, at a tie on the primary key. Session Memory's timeline is in "event
time, then id" order (`session_memory.timeline_key`); Failure and Success Memory keep their "time-ordered lists
sorted by (time, id)" (their module docstrings); the store's cross-session failures/successes come "in time order",
then by session id and entry id (`ReadModelStore.failures`). Each test feeds two entries of one instant in both
arrival orders: whichever came first, the smaller id comes first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from projections.memories import failure_memory, session_memory, success_memory
from projections.memories.log_events import AGENT_MESSAGES, ALERTS, LogEvent
from projections.projector import Projector
from projections.store.sqlite import SqliteStore
from tests.unit.projections.factories import Log, alert, event, message, msg

Reducer = Callable[[dict[str, Any] | None, LogEvent], dict[str, Any]]


def _both_ways(reducer: Reducer, collection: str, first: LogEvent, second: LogEvent) -> list[dict[str, Any]]:
    """The collection after `first, second` and after `second, first`: the same list, asserted."""
    lists = []
    for events in ((first, second), (second, first)):
        memory: dict[str, Any] | None = None
        for e in events:
            memory = reducer(memory, e)
        assert memory is not None
        lists.append(list(memory[collection]))
    assert lists[0] == lists[1]
    return lists[0]


SAME_INSTANT = 40.0

CASES = {
    "session timeline, two messages": (
        session_memory.apply, "timeline", "timestamp",
        msg("s1", 1, 1, "[X] a", at=SAME_INSTANT), msg("s1", 2, 7, "[X] b", at=SAME_INSTANT)),
    "session timeline, a message and an alert": (
        session_memory.apply, "timeline", "timestamp",
        msg("s1", 1, 1, "[X] a", at=SAME_INSTANT),
        event(ALERTS, alert("s1", "AGENT_FAILURE", "SERIOUS", "bad output", source_event_id="m", at=SAME_INSTANT))),
    "failure session_failures": (
        failure_memory.apply, "session_failures", "occurred_at",
        msg("s1", 1, 16, "[FAILED] no signal", at=SAME_INSTANT), msg("s1", 2, 32, "[FAILED] no fit", at=SAME_INSTANT)),
    "failure active_warnings": (
        failure_memory.apply, "active_warnings", "detected_at",
        event(ALERTS, alert("ep", "TOKEN_MISUSE", "HIGH", "write without token", source_event_id="q",
                            at=SAME_INSTANT)),
        event(ALERTS, alert("ep", "TASK_TIMEOUT", "WARNING", "t-1 late", source_event_id="r", at=SAME_INSTANT), 1)),
    "success session_successes": (
        success_memory.apply, "session_successes", "occurred_at",
        msg("s1", 1, 32, "[BREAKTHROUGH] reproduced", at=SAME_INSTANT),
        msg("s1", 2, 14, "[BREAKTHROUGH] explained", at=SAME_INSTANT)),
    "success brilliant_ideas": (
        success_memory.apply, "brilliant_ideas", "captured_at",
        msg("s1", 1, 57, "[X] natural experiment", extras={"brilliant": True}, at=SAME_INSTANT),
        msg("s1", 2, 57, "[X] placebo arm", extras={"brilliant": True}, at=SAME_INSTANT)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_entries_of_one_instant_are_kept_in_id_order_whatever_came_first(case: str) -> None:
    reducer, collection, time_field, first, second = CASES[case]
    entries = _both_ways(reducer, collection, first, second)
    assert len(entries) == 2
    assert entries[0][time_field] == entries[1][time_field]  # a tie on the time: the id decides
    assert entries[0]["id"] < entries[1]["id"]


def test_failures_across_sessions_at_one_instant_come_by_session_then_entry_id(tmp_path: Path) -> None:
    """Two sessions' failures at one instant, the later session's logged first, and two failures of one session
    at that instant: time, then session id, then entry id."""
    log = Log(partitions=1)  # one partition: the log order below is the projector's arrival order
    for session, seq, agent, text, at in (("s-b", 1, 16, "[FAILED] b1", SAME_INSTANT),
                                          ("s-a", 2, 32, "[FAILED] a2", SAME_INSTANT),
                                          ("s-a", 1, 16, "[FAILED] a1", SAME_INSTANT),
                                          ("s-c", 1, 16, "[FAILED] c1", SAME_INSTANT - 1)):
        log.add(AGENT_MESSAGES, message(session, seq, agent, text, at=at))
    with SqliteStore(tmp_path / "rm.sqlite") as store:
        Projector(store).rebuild(log.events)
        found = [(f["session_id"], f["occurred_at"], f["id"]) for f in store.failures()]
    a_ids = sorted(f[2] for f in found if f[0] == "s-a")
    assert [(sid, fid) for sid, _, fid in found] == [
        ("s-c", found[0][2]), ("s-a", a_ids[0]), ("s-a", a_ids[1]), ("s-b", found[3][2])]
    assert found[0][1] < found[1][1] == found[2][1] == found[3][1]
