"""Failure Memory (§3.3) and sync rule 3: self-reported failures, contradictions, abandoned approaches, Quality
Controller rejections, failure-signature and CRITICAL alerts, REJECTED verdicts, FAILURE terminations."""

from __future__ import annotations

from typing import Any

import pytest

from projections.memories import failure_memory
from projections.memories.log_events import ALERTS, TERMINATIONS, VERDICTS, LogEvent
from projections.memories.pattern_memory import pattern_id
from projections.memories.triggers import SIGNATURES
from tests.unit.projections.factories import alert, event, msg, termination, verdict


def run(*events: LogEvent) -> dict[str, Any]:
    memory: dict[str, Any] | None = None
    for e in events:
        memory = failure_memory.apply(memory, e)
    assert memory is not None
    return memory


def failures(*events: LogEvent) -> list[dict[str, Any]]:
    return list(run(*events)["session_failures"])


@pytest.mark.parametrize("reported", [
    msg("s1", 1, 16, "[FAILED] no signal"),
    msg("s1", 1, 16, "[X] no signal", flag_extras={"failure": True}),
    msg("s1", 1, 16, "[X] no signal", extras={"failure": "probe crashed"}),
    msg("s1", 1, 16, "[X] no signal", content={"failure": {"failure_type": "PREDICTION",
                                                           "description": "forecast missed"}}),
])
def test_self_reported_failures(reported: LogEvent) -> None:
    (f,) = failures(reported)
    assert f["trigger"] == "SELF_REPORTED"
    assert f["agent_id"] == 16
    assert f["pattern"] == "SELF_REPORTED_FAILURE"
    assert f["failure_type"] in ("PROCESS", "PREDICTION")
    assert f["event_id"] == reported.event_id
    assert f["occurred_at"] == reported.timestamp


def test_a_self_report_gives_analysis_lessons_prevention_and_a_rule() -> None:
    memory = run(msg("s1", 1, 16, "[FAILED] x", content={"failure": {
        "failure_type": "APPROACH", "description": "probing failed", "root_cause": "space too large",
        "contributing_factors": ["no period"], "predictable": True, "lessons": ["probe at the period"],
        "prevention": [{"condition": "periodic symptom", "action": "sample at the period"}]}}))
    (f,) = memory["session_failures"]
    assert (f["failure_type"], f["description"]) == ("APPROACH", "probing failed")
    assert f["analysis"]["root_cause"] == "space too large"
    assert f["analysis"]["predictable"] is True
    assert f["analysis"]["contributing_factors"] == ["no period"]
    assert f["lessons"] == [{"lesson": "probe at the period", "application": ""}]
    (rule,) = memory["failure_rules"]
    assert rule["rule"] == "When periodic symptom: sample at the period"
    assert rule["derived_from"] == [f["id"]]


def test_contradictions_are_reasoning_failures_with_their_severity() -> None:
    (f,) = failures(msg("s1", 1, 35, "[C] no", contradiction_with=27, blocks_progress=True))
    assert (f["trigger"], f["failure_type"], f["severity"], f["pattern"]) == ("CONTRADICTION", "REASONING", "FATAL",
                                                                             "CONTRADICTION")


def test_abandoned_approaches() -> None:
    found = failures(msg("s1", 1, 7, "[A]", content={"hypothesis": {"statement": "GC", "status": "ABANDONED"},
                                                     "abandoned": ["random probing"]}))
    assert [(f["trigger"], f["failure_type"], f["description"]) for f in found] == [
        ("APPROACH_ABANDONED", "APPROACH", "Approach abandoned: GC"),
        ("APPROACH_ABANDONED", "APPROACH", "Approach abandoned: random probing")]


def test_quality_controller_rejections_and_only_theirs() -> None:
    (f,) = failures(msg("s1", 1, 52, "[REJECT] no load test", content={"issues": ["no load test"]}))
    assert (f["trigger"], f["pattern"], f["analysis"]["contributing_factors"]) == ("QC_REJECTION", "QC_REJECTION",
                                                                                   ["no load test"])
    assert failures(msg("s1", 1, 35, "[REJECT] says the skeptic")) == []
    assert failures(msg("s1", 1, 52, "[SHIP] fine")) == []


@pytest.mark.parametrize("kind", sorted(SIGNATURES))
def test_every_failure_signature_alert_is_a_failure(kind: str) -> None:
    e = event(ALERTS, alert("s1", kind, "SERIOUS", f"{kind} (SERIOUS): details", source_event_id="m1", at=3,
                            details={"escalation": {"level": 3}, "facts": {"agent_id": 35}}))
    (f,) = failures(e)
    assert (f["trigger"], f["pattern"], f["failure_type"]) == ("ALERT", kind, SIGNATURES[kind][0])
    assert (f["severity"], f["escalation_level"], f["agent_id"]) == ("SERIOUS", 3, 35)
    assert f["pattern_id"] == pattern_id("failure", kind)


def test_omen_critical_alerts_are_failures_and_lesser_alerts_warnings() -> None:
    critical = event(ALERTS, alert("ep", "BUDGET_OVERRUN", "CRITICAL", "over budget", source_event_id="p", at=1))
    high = event(ALERTS, alert("ep", "TOKEN_MISUSE", "HIGH", "write without token", source_event_id="q", at=2), 1)
    warn = event(ALERTS, alert("ep", "TASK_TIMEOUT", "WARNING", "t-1 late", source_event_id="r", at=3), 2)
    info = event(ALERTS, alert("ep", "DEAD_LETTER", "INFO", "bad bytes", source_event_id="s", at=4), 3)
    memory = run(critical, high, warn, info)
    assert [(f["pattern"], f["severity"]) for f in memory["session_failures"]] == [("BUDGET_OVERRUN", "CRITICAL")]
    assert [(w["pattern"], w["severity"]) for w in memory["active_warnings"]] == [("TOKEN_MISUSE", "HIGH"),
                                                                                  ("TASK_TIMEOUT", "MEDIUM")]


def test_rejected_verdicts_are_failures_and_accepted_ones_nothing() -> None:
    rejected = event(VERDICTS, verdict("ep", "p2", "REJECTED", at=1, violations=[
        ("INV-003", "ERROR", "WRITE without token"), ("FSM", "WARNING", "early")]))
    (f,) = failures(rejected)
    assert f["trigger"] == "PACKET_REJECTED"
    assert f["analysis"]["contributing_factors"] == ["INV-003: WRITE without token"]
    accepted = event(VERDICTS, verdict("ep", "p1", "ACCEPTED", at=0))
    assert failure_memory.apply(None, accepted) == failure_memory.empty("ep")


def test_failure_terminations() -> None:
    e = event(TERMINATIONS, termination("s1", "FAILURE", at=9, failure_type="RESOURCE", why_failed="tokens gone",
                                        what_was_learned=["budget first"], recommendation="smaller batches"))
    memory = run(e)
    (f,) = memory["session_failures"]
    assert (f["failure_type"], f["pattern"], f["description"]) == ("PROCESS", "TERMINATION_RESOURCE", "tokens gone")
    assert f["lessons"] == [{"lesson": "budget first", "application": "smaller batches"}]
    assert failures(event(TERMINATIONS, termination("s1", "SUCCESS", at=9, answer="a"))) == []


def test_rules_count_the_failures_they_cover_and_redelivery_adds_nothing() -> None:
    a = msg("s1", 1, 35, "[C] a", contradiction_with=27)
    b = msg("s1", 2, 36, "[C] b", contradiction_with=28)
    memory = run(a, b)
    (rule,) = memory["failure_rules"]
    assert rule["violations_caught"] == 1
    assert len(rule["derived_from"]) == 2
    assert failure_memory.apply(memory, LogEvent(a.topic, 3, 500, a.key, a.record)) is memory


def test_the_session_judge_vocabulary_triggers_failures_too() -> None:
    found = failures(msg("s1", 1, 48, "[A]", content={"hypothesis_abandoned": {"statement": "gc", "reason": "r"}}),
                     msg("s1", 2, 35, "[C]", contradiction_with=27, flag_extras={"contradiction_severity": "FATAL"}))
    assert [(f["trigger"], f["severity"]) for f in found] == [("APPROACH_ABANDONED", None), ("CONTRADICTION", "FATAL")]
