"""§3.5.5 cross-memory consistency: the projections keep it, and the checker catches each rule broken."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from projections.memories.consistency import check_consistency
from tests.unit.projections.factories import Log, episode_events, replay, session_script


@pytest.fixture
def documents() -> dict[str, Any]:
    log = Log()
    log.extend(session_script("s1"))
    log.extend(session_script("s1", iteration=2, start=400, outcome="FAILURE"))
    return replay(log.events)["s1"].documents()


def test_projected_memories_are_consistent(documents: dict[str, Any]) -> None:
    assert set(documents) == {"session", "pattern", "failure", "success"}
    assert check_consistency(documents) == []
    log = Log()
    log.extend(episode_events("ep-1"))
    assert check_consistency(replay(log.events)["ep-1"].documents()) == []


def test_missing_memories_read_as_empty() -> None:
    assert check_consistency({}) == []


def test_rule_1_a_failure_pattern_missing_from_failure_memory(documents: dict[str, Any]) -> None:
    broken = copy.deepcopy(documents)
    gone = broken["failure"]["session_failures"].pop()
    violations = check_consistency(broken)
    assert violations
    assert all(v.startswith("rule 1") for v in violations)
    assert any(gone["id"] in v or gone["pattern"] in v for v in violations)


def test_rule_2_a_success_pattern_missing_from_success_memory(documents: dict[str, Any]) -> None:
    broken = copy.deepcopy(documents)
    broken["success"]["session_successes"] = []
    violations = check_consistency(broken)
    assert violations
    assert all(v.startswith("rule 2") for v in violations)


def test_rule_3_a_specialised_event_missing_from_the_timeline(documents: dict[str, Any]) -> None:
    broken = copy.deepcopy(documents)
    failure_event = broken["failure"]["session_failures"][0]["event_id"]
    broken["session"]["timeline"] = [e for e in broken["session"]["timeline"] if e["id"] != failure_event]
    violations = check_consistency(broken)
    assert violations
    assert all(v.startswith("rule 3") for v in violations)
    assert any("failure.session_failures[0].event_id" in v for v in violations)
    assert any(v.startswith("rule 3: pattern.") for v in violations)  # the failure pattern names it too
