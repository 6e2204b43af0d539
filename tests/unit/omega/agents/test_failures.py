"""§4.1 failure signatures: two positive and two negative cases each, severities, recovery choices, §4.4 levels,
alert ids and storm control."""

from __future__ import annotations

import dataclasses

import pytest

from omega.agents import failures as f
from omega.agents.session import replay
from omega.agents.session_state import (
    AlertBook,
    Budget,
    ClaimRef,
    Contradiction,
    Gates,
    IterationStats,
    SessionState,
)
from omega.events import Alert, Escalation
from tests.unit.omega.agents.factories import Builder

B = Builder("sess-f")
MSG = B.msg(1, 3, 0.8)


def state(**changes: object) -> SessionState:
    return dataclasses.replace(SessionState("sess-f"), **changes)  # type: ignore[arg-type]


def closed(iteration: int, **stats: object) -> SessionState:
    return state(closed_through=iteration, current_iteration=iteration,
                 iterations=(IterationStats(iteration, closed=True, **stats),))  # type: ignore[arg-type]


def contradiction(n: int, severity: str) -> Contradiction:
    return Contradiction(f"ctr_{n}", ClaimRef(n, "a"), ClaimRef(n + 20, "b"), "2026-01-26T09:00:00+00:00", severity)


def one(detections: list[f.Detection]) -> f.Detection:
    assert len(detections) == 1
    return detections[0]


# ------------------------------------------------------------------------------------------- circular reasoning
@pytest.mark.parametrize("stalled", [2, 4])
def test_circular_reasoning_after_the_stall_threshold(stalled: int) -> None:
    d = one(f.f1_circular_reasoning(dataclasses.replace(closed(4), stalled_iterations=stalled), MSG))
    assert (d.signature, d.severity, d.action, d.level) == ("CIRCULAR_REASONING", "SERIOUS", "PIVOT", 3)


@pytest.mark.parametrize("stalled", [0, 1])
def test_no_circular_reasoning_below_the_threshold(stalled: int) -> None:
    assert f.f1_circular_reasoning(dataclasses.replace(closed(4), stalled_iterations=stalled), MSG) == []


def test_circular_reasoning_recurring_escalates_and_admits_late() -> None:
    s = dataclasses.replace(closed(5), stalled_iterations=3,
                            alerts=AlertBook(occurrences={"CIRCULAR_REASONING|session": (4,)}))
    d = one(f.f1_circular_reasoning(s, MSG))
    assert (d.action, d.level) == ("ADMIT", 4)
    late = dataclasses.replace(closed(9), stalled_iterations=2)
    assert one(f.f1_circular_reasoning(late, MSG)).action == "ADMIT"


# ------------------------------------------------------------------------------------------- confidence collapse
@pytest.mark.parametrize(("aggregate", "severity", "action", "level"),
                         [(0.25, "SERIOUS", "REVERIFY", 3), (0.1, "CRITICAL", "HALT", 5)])
def test_confidence_collapse(aggregate: float, severity: str, action: str, level: int) -> None:
    d = one(f.f2_confidence_collapse(closed(2, aggregate=aggregate), MSG))
    assert (d.severity, d.action, d.level) == (severity, action, level)


@pytest.mark.parametrize("aggregate", [0.3, None])
def test_no_confidence_collapse_at_or_above_the_threshold_or_unknown(aggregate: float | None) -> None:
    assert f.f2_confidence_collapse(closed(2, aggregate=aggregate), MSG) == []


# ------------------------------------------------------------------------------------------- contradiction cascade
def test_cascade_of_four_fatal_contradictions_is_critical() -> None:
    s = state(current_iteration=3, contradictions_unresolved=tuple(contradiction(i, "FATAL") for i in range(4)))
    d = one(f.f3_contradiction_cascade(s, MSG))
    assert (d.severity, d.action, d.level) == ("CRITICAL", "PHI_JUDGEMENT", 4)
    again = dataclasses.replace(s, alerts=AlertBook(occurrences={"CONTRADICTION_CASCADE|session": (2,)}))
    d = one(f.f3_contradiction_cascade(again, MSG))
    assert (d.action, d.level) == ("PRESENT_TO_USER", 5)


def test_cascade_forming_beyond_the_unresolved_limit_is_serious() -> None:
    mixed = tuple(contradiction(i, sev) for i, sev in enumerate(["FATAL", "SERIOUS", "MINOR", "MINOR"]))
    d = one(f.f3_contradiction_cascade(state(contradictions_unresolved=mixed), MSG))
    assert (d.severity, d.action) == ("SERIOUS", "DEPLOY_CONFLICT_RESOLVER")


@pytest.mark.parametrize("severities", [["FATAL", "FATAL", "FATAL"], ["MINOR"] * 3])
def test_no_cascade_at_three_unresolved(severities: list[str]) -> None:
    s = state(contradictions_unresolved=tuple(contradiction(i, sev) for i, sev in enumerate(severities)))
    assert f.f3_contradiction_cascade(s, MSG) == []


# ------------------------------------------------------------------------------------------- agent failure
def test_a_quarantined_peripheral_output_is_moderate_and_retried() -> None:
    event = B.rejected(13, 2)
    d = one(f.f4_agent_failure(state(consecutive_failures={"13": 1}), event))
    assert (d.severity, d.action, d.subject, d.level) == ("MODERATE", "RETRY", "agent-13", 2)


def test_a_low_confidence_peripheral_output_is_minor_and_skipped_when_peers_covered() -> None:
    event = B.msg(16, 2, 0.2)
    s = state(consecutive_failures={"16": 1}, iterations=(IterationStats(2, agents=(13, 16)),))
    d = one(f.f4_agent_failure(s, event))
    assert (d.severity, d.action, d.level) == ("MINOR", "SKIP", 1)


def test_key_agent_failures_are_serious_and_no_substitute_ones_halt() -> None:
    assert one(f.f4_agent_failure(state(consecutive_failures={"52": 1}), B.rejected(52, 1))).severity == "SERIOUS"
    assert one(f.f4_agent_failure(state(consecutive_failures={"51": 1}), B.msg(51, 1, 0.1))).severity == "MODERATE"
    d = one(f.f4_agent_failure(state(consecutive_failures={"48": 3}), B.rejected(48, 1)))
    assert (d.severity, d.action, d.level) == ("CRITICAL", "HALT", 5)


def test_three_consecutive_failures_substitute_the_agent() -> None:
    d = one(f.f4_agent_failure(state(consecutive_failures={"13": 3}), B.msg(13, 2, 0.1)))
    assert (d.severity, d.action) == ("SERIOUS", "SUBSTITUTE")


@pytest.mark.parametrize("confidence", [0.3, 0.95])
def test_no_agent_failure_for_a_usable_output(confidence: float) -> None:
    assert f.f4_agent_failure(state(), B.msg(13, 1, confidence)) == []


# ------------------------------------------------------------------------------------------- convergence failure
@pytest.mark.parametrize(("expansions", "prior", "action"), [(3, (), "CONSTRAIN"), (4, (3,), "DECOMPOSE")])
def test_convergence_failure_after_three_expansions(expansions: int, prior: tuple[int, ...], action: str) -> None:
    s = dataclasses.replace(closed(4, solution_space=9), expansions=expansions,
                            alerts=AlertBook(occurrences={"CONVERGENCE_FAILURE|session": prior} if prior else {}))
    d = one(f.f5_convergence_failure(s, MSG))
    assert (d.severity, d.action) == ("SERIOUS", action)


@pytest.mark.parametrize("expansions", [0, 2])
def test_no_convergence_failure_for_two_expansions_or_fewer(expansions: int) -> None:
    assert f.f5_convergence_failure(dataclasses.replace(closed(4), expansions=expansions), MSG) == []


# ------------------------------------------------------------------------------------------- resource exhaustion
def test_resource_pressure_above_80_percent_is_moderate() -> None:
    s = state(budget=Budget(1000, 3600), tokens_used=850, current_iteration=2)
    d = one(f.f6_resource_exhaustion(s, MSG))
    assert (d.severity, d.action, d.level) == ("MODERATE", "CONSTRAIN", 2)
    late = state(budget=Budget(1000, 3600), current_iteration=9)
    assert one(f.f6_resource_exhaustion(late, MSG)).facts["iterations"] == 0.9


def test_time_used_up_is_critical() -> None:
    s = state(budget=Budget(1000, 60), first_ms=0, last_ms=61_000, current_iteration=1)
    d = one(f.f6_resource_exhaustion(s, MSG))
    assert (d.severity, d.action, d.level) == ("CRITICAL", "HALT", 5)


@pytest.mark.parametrize("tokens", [0, 800])
def test_no_resource_alert_at_or_below_80_percent(tokens: int) -> None:
    s = state(budget=Budget(1000, 3600), tokens_used=tokens, current_iteration=8)
    assert f.f6_resource_exhaustion(s, MSG) == []


# ------------------------------------------------------------------------------------------- quality gate failure
@pytest.mark.parametrize(("rejections", "iteration", "action"),
                         [(3, 3, "RERUN_AFFECTED_TIERS"), (5, 9, "ADMIT")])
def test_quality_gate_failure_after_three_rejections(rejections: int, iteration: int, action: str) -> None:
    s = state(gates=Gates(qc_consecutive_rejections=rejections))
    d = one(f.f7_quality_gate_failure(s, B.msg(52, iteration, 0.8, "[REJECT] no")))
    assert (d.severity, d.action) == ("SERIOUS", action)


@pytest.mark.parametrize("rejections", [0, 2])
def test_no_quality_gate_failure_for_two_rejections(rejections: int) -> None:
    assert f.f7_quality_gate_failure(state(gates=Gates(qc_consecutive_rejections=rejections)), MSG) == []


# ------------------------------------------------------------------------------------------- alerts
def detection(severity: str = "SERIOUS", level: int = 3, iteration: int = 2) -> f.Detection:
    return f.Detection("CIRCULAR_REASONING", severity, "session", iteration, "stuck", "PIVOT", level, "4.2.3")


def test_an_alert_carries_recovery_and_level_and_a_derived_id() -> None:
    book, outputs = f.raise_alerts(AlertBook(), [detection()], "sess-f", "m-1", "2026-01-26T09:00:00+00:00")
    (alert,) = outputs
    assert isinstance(alert, Alert)
    assert alert.details is not None
    assert alert.details["recovery"] == {"procedure": "4.2.3", "action": "PIVOT"}
    assert alert.details["escalation"] == {"level": 3, "path": "TIER_RECOVERY"}
    assert alert.source_event_id == "m-1"
    assert book.occurrences == {"CIRCULAR_REASONING|session": (2,)}
    _, again = f.raise_alerts(AlertBook(), [detection()], "sess-f", "m-1", "2026-01-26T09:00:00+00:00")
    assert again == outputs


def test_the_same_detection_in_the_same_iteration_alerts_once() -> None:
    book, _ = f.raise_alerts(AlertBook(), [detection()], "sess-f", "m-1", None)
    book, outputs = f.raise_alerts(book, [detection()], "sess-f", "m-2", None)
    assert outputs == []
    _, outputs = f.raise_alerts(book, [detection(iteration=3)], "sess-f", "m-3", None)
    assert len(outputs) == 1


def test_level_five_also_escalates_to_the_user() -> None:
    _, outputs = f.raise_alerts(AlertBook(), [detection("CRITICAL", 5)], "sess-f", "m-1", None)
    assert [type(o) for o in outputs] == [Alert, Escalation]
    assert isinstance(outputs[1], Escalation)
    assert outputs[1].level == "L5"


def test_every_severity_is_reachable_in_one_session() -> None:
    b = Builder("sess-all")
    b.start(tokens=40_000)
    b.msg(16, 1, 0.2)  # MINOR: a peripheral agent's unusable output
    b.rejected(13, 1)  # MODERATE: a peripheral agent's quarantined output
    b.rejected(52, 1)  # SERIOUS: a key agent's quarantined output
    for agent in range(35, 39):  # CRITICAL: four FATAL contradictions
        b.msg(agent, 1, 0.8, "[CONTRADICTS] no", contradiction_detected=True, contradiction_with=agent - 34,
              blocks_progress=True)
    _, outputs = replay(b.events)
    alerts = [o for o in outputs if isinstance(o, Alert)]
    assert [a.severity for a in alerts] == ["MINOR", "MODERATE", "SERIOUS", "CRITICAL"]
    assert len({a.alert_id for a in alerts}) == len(alerts)


# ------------------------------------------------------------------------------------------- whole detections
def test_circular_reasoning_detection_reads_whole() -> None:
    d = one(f.f1_circular_reasoning(dataclasses.replace(closed(4), stalled_iterations=2), MSG))
    assert d == f.Detection("CIRCULAR_REASONING", "SERIOUS", "session", 4,
                            "no new claims for 2 iterations (through iteration 4)", "PIVOT", 3, "4.2.3",
                            {"stalled_iterations": 2})


def test_fatal_cascade_detection_reads_whole() -> None:
    s = state(contradictions_unresolved=tuple(contradiction(n, "FATAL") for n in range(1, 5)))
    d = one(f.f3_contradiction_cascade(s, MSG))
    assert d == f.Detection("CONTRADICTION_CASCADE", "CRITICAL", "session", 3, "4 FATAL contradictions unresolved",
                            "PHI_JUDGEMENT", 4, "4.2.2",
                            {"fatal_unresolved": 4, "unresolved": 4, "ids": ["ctr_1", "ctr_2", "ctr_3", "ctr_4"]})


def test_a_first_quarantine_of_an_agent_with_no_failure_record_reads_whole() -> None:
    """An agent missing from `consecutive_failures` counts as its first failure."""
    event = B.rejected(13, 2)
    d = one(f.f4_agent_failure(state(), event))
    assert d == f.Detection(
        "AGENT_FAILURE", "MODERATE", "agent-13", 2,
        "Creative Wanderer (13) output quarantined: summary.confidence: 1.7 is not in [0, 1]; 1 consecutive failure(s)",
        "RETRY", 2, "4.2.1", {"agent_id": 13, "failure": "QUARANTINED", "consecutive_failures": 1})


def test_a_low_confidence_output_detection_reads_whole() -> None:
    d = one(f.f4_agent_failure(state(consecutive_failures={"13": 2}), B.msg(13, 2, 0.25)))
    assert d == f.Detection(
        "AGENT_FAILURE", "MINOR", "agent-13", 2,
        "Creative Wanderer (13) output incoherent: confidence 0.25 below the usable threshold 0.3; "
        "2 consecutive failure(s)",
        "RETRY", 1, "4.2.1", {"agent_id": 13, "failure": "INCOHERENT", "consecutive_failures": 2})


def test_pressure_on_two_budgets_names_both_in_one_detection() -> None:
    s = state(budget=Budget(1000, 3600), tokens_used=850, current_iteration=9)
    d = one(f.f6_resource_exhaustion(s, MSG))
    assert d == f.Detection("RESOURCE_EXHAUSTION", "MODERATE", "session", 3,
                            "over 80% of the iterations and tokens budget used", "CONSTRAIN", 2, "4.2.3",
                            {"tokens": 0.85, "time": 0.0, "iterations": 0.9})


def test_an_alert_reads_whole() -> None:
    _, outputs = f.raise_alerts(AlertBook(), [detection()], "sess-f", "m-1", "2026-01-26T09:00:00+00:00")
    assert outputs == [Alert(
        "CIRCULAR_REASONING", "SERIOUS", "sess-f", "CIRCULAR_REASONING (SERIOUS): stuck; recovery PIVOT (§4.2.3)",
        "m-1", "2026-01-26T09:00:00+00:00",
        {"signature": "CIRCULAR_REASONING", "severity": "SERIOUS", "subject": "session", "iteration": 2,
         "recovery": {"procedure": "4.2.3", "action": "PIVOT"},
         "escalation": {"level": 3, "path": "TIER_RECOVERY"}, "facts": {}})]
