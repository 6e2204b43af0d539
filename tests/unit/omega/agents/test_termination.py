"""§6 termination: two positive and two negative cases per condition, the §6.4 order, and the §6.5 report."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any

import fastavro
import pytest
from fastavro.schema import load_schema

from omega.agents import termination as t
from omega.agents.confidence import ConfidenceBook, apply_message
from omega.agents.failures import Detection
from omega.agents.session_state import (
    AbandonedHypothesis,
    AlertBook,
    Budget,
    ClaimRef,
    Contradiction,
    Gates,
    Hypothesis,
    IterationStats,
    ResolvedHypothesis,
    SessionState,
)
from tests.unit.omega.agents.factories import Builder, ref

SCHEMA = Path(__file__).resolve().parents[4] / "schemas_avro" / "omega.agents.TerminationReport.avsc"
B = Builder("sess-t")
VERIFIED = apply_message(apply_message(ConfidenceBook(), B.msg(1, 2, 0.8)),
                         B.msg(27, 2, 0.9, refs=[ref("SUPPORTS", 1)]))
APPROVED = Gates(qc_verdict="SHIP", qc_iteration=2, converged_iteration=2, gaps_clear=True, survivable_core=True,
                 steelman_defeated=False, answer="Migrate in two phases", answer_by=51)


def good(**changes: Any) -> SessionState:
    """A session whose iteration 2 just closed with every success condition met."""
    base = SessionState(
        "sess-t", current_iteration=2, closed_through=2, budget=Budget(100_000, 3600), tokens_used=20_000,
        iterations=(IterationStats(1, closed=True, aggregate=0.6, solution_space=2),
                    IterationStats(2, closed=True, aggregate=0.75, solution_space=1)),
        agents_seen=(1, 27, 44, 46, 48, 52, 53), mandatory_seen=(48, 52, 53), gates=APPROVED, confidence=VERIFIED)
    return dataclasses.replace(base, **changes)


def stats2(**changes: Any) -> tuple[IterationStats, ...]:
    return (IterationStats(1, closed=True, aggregate=0.6), IterationStats(2, closed=True, **changes))


def gates(**changes: Any) -> Gates:
    return dataclasses.replace(APPROVED, **changes)


def hypothesis(n: int) -> Hypothesis:
    return Hypothesis(f"h{n}", f"statement {n}", 1, "2026-01-26T09:00:00+00:00", 0.7)


def fatal(n: int) -> Contradiction:
    return Contradiction(f"c{n}", ClaimRef(n, "a"), ClaimRef(n + 1, "b"), "2026-01-26T09:00:00+00:00", "FATAL", 2)


CASES: dict[str, tuple[list[SessionState], list[SessionState]]] = {
    # condition: ([states where it holds], [states where it does not])
    "success_convergence": (
        [good(), good(hypotheses_active=(hypothesis(1),))],
        [good(hypotheses_active=(hypothesis(1), hypothesis(2))), good(gates=gates(converged_iteration=1)),
         good(iterations=stats2(aggregate=0.75, new_contradictions=1))],
    ),
    "success_confidence": (
        [good(), good(iterations=stats2(aggregate=0.9), problem=dataclasses.replace(good().problem, stakes="HIGH"))],
        [good(iterations=stats2(aggregate=0.6)), good(contradictions_unresolved=(fatal(1),)),
         good(iterations=stats2(aggregate=0.75), problem=dataclasses.replace(good().problem, stakes="HIGH"))],
    ),
    "success_completeness": (
        [good(), good(gates=gates(answer=None, unanswerable=True))],
        [good(gates=gates(answer=None)), good(gates=gates(gaps_clear=False)), good(gates=gates(qc_iteration=1))],
    ),
    "success_robustness": (
        [good(), good(gates=gates(blocking_attack_iteration=1))],
        [good(agents_seen=(1, 27, 48, 52, 53)), good(gates=gates(steelman_defeated=None)),
         good(gates=gates(survivable_core=False)), good(gates=gates(blocking_attack_iteration=2))],
    ),
    "success_quality": (
        [good(), good(gates=gates(qc_verdict="SHIP WITH CAVEATS"))],
        [good(gates=gates(qc_verdict="REJECT")), good(confidence=ConfidenceBook()), good(mandatory_seen=(48, 52)),
         good(hypotheses_resolved=(ResolvedHypothesis("h", "s", "CONFIRMED", "t", 0.8, "b", 51, False),))],
    ),
    "failure_resource_limits": (
        [good(tokens_used=100_000), good(current_iteration=11), good(first_ms=0, last_ms=3_600_000)],
        [good(), good(tokens_used=99_999, current_iteration=10)],
    ),
    "failure_irrecoverable": (
        [good(iterations=stats2(aggregate=0.1)), good(consecutive_failures={"52": 3}),
         good(contradictions_unresolved=(fatal(1),), alerts=AlertBook(cascade_since=1)),
         good(contradictions_unresolved=(fatal(1),), alerts=AlertBook(cascade_since=2),
              gates=gates(unresolvable_declared=2))],
        [good(), good(consecutive_failures={"13": 5}, iterations=stats2(aggregate=0.2)),
         good(contradictions_unresolved=(fatal(1),), alerts=AlertBook(cascade_since=2))],
    ),
    "failure_intractable": (
        [good(gates=gates(untestable_critical="[UNTESTABLE] the core claim")),
         good(gates=gates(intractable="[UNDECIDABLE] halting"))],
        [good(), good(gates=gates(qc_verdict="REJECT"))],
    ),
    "failure_user_abort": (
        [good(gates=gates(phi_action="USER_ABORT")), SessionState("x", gates=Gates(phi_action="USER_ABORT"))],
        [good(), good(gates=gates(phi_action="TERMINATE"))],
    ),
    "partial_some_progress": (
        [good(), good(gates=gates(answer=None))],
        [good(gates=gates(answer=None), confidence=ConfidenceBook()), SessionState("x")],
    ),
    "partial_incomplete": (
        [good(gates=gates(qc_verdict="REJECT")), good(iterations=stats2(aggregate=0.5))],
        [good(), good(gates=gates(qc_verdict="SHIP WITH CAVEATS"))],
    ),
    "partial_cannot_continue": (
        [good(stalled_iterations=2), good(tokens_used=90_000), good(gates=gates(qc_consecutive_rejections=3)),
         good(gates=gates(phi_action="TERMINATE")), good(expansions=3)],
        [good(), good(stalled_iterations=1, expansions=2, gates=gates(qc_consecutive_rejections=2))],
    ),
}


@pytest.mark.parametrize(("name", "index"), [(n, i) for n, (pos, _) in CASES.items() for i in range(len(pos))])
def test_condition_holds(name: str, index: int) -> None:
    met, why = getattr(t, name)(CASES[name][0][index])
    assert met, why


@pytest.mark.parametrize(("name", "index"), [(n, i) for n, (_, neg) in CASES.items() for i in range(len(neg))])
def test_condition_does_not_hold(name: str, index: int) -> None:
    met, why = getattr(t, name)(CASES[name][1][index])
    assert not met, why


def test_every_condition_has_two_positive_and_two_negative_cases() -> None:
    assert all(len(pos) >= 2 and len(neg) >= 2 for pos, neg in CASES.values())


# ------------------------------------------------------------------------------------------- §6.4 order
def test_success_at_iteration_end() -> None:
    assert t.decide(good(), iteration_end=True) == t.Outcome("SUCCESS", "all success conditions met")


def test_mid_iteration_only_hard_failures_terminate() -> None:
    assert t.decide(good(), iteration_end=False) is None
    assert t.decide(good(consecutive_failures={"53": 3}), iteration_end=False) == t.Outcome(
        "FAILURE", "agent 53 (Session Memory) failed repeatedly and has no substitute", "IRRECOVERABLE")


def test_abort_wins_over_everything_and_resources_come_before_success() -> None:
    outcome = t.decide(good(gates=gates(phi_action="USER_ABORT"), tokens_used=10**9), iteration_end=True)
    assert outcome is not None
    assert (outcome.status, outcome.failure_type) == ("FAILURE", "ABORT")
    outcome = t.decide(good(tokens_used=100_000), iteration_end=True)
    assert outcome is not None
    assert outcome.status == "PARTIAL"
    bare = SessionState("x", budget=Budget(10, 10), tokens_used=10)
    outcome = t.decide(bare, iteration_end=False)
    assert outcome is not None
    assert (outcome.status, outcome.failure_type) == ("FAILURE", "RESOURCE")


def test_stuck_after_recovery_is_partial() -> None:
    stuck = good(gates=gates(qc_verdict="REJECT"), stalled_iterations=2,
                 alerts=AlertBook(occurrences={"CIRCULAR_REASONING|session": (1,)}))
    detection = Detection("CIRCULAR_REASONING", "SERIOUS", "session", 2, "stuck", "ADMIT", 4, "4.2.3")
    assert t.decide(stuck, iteration_end=True) is None
    outcome = t.decide(stuck, iteration_end=True, detections=[detection])
    assert outcome is not None
    assert outcome.status == "PARTIAL"


def test_iteration_limit_and_phi_stop() -> None:
    unfinished = good(gates=gates(qc_verdict="REJECT"))
    assert t.decide(unfinished, iteration_end=True) is None
    tenth = dataclasses.replace(unfinished, closed_through=10, current_iteration=10,
                                iterations=(IterationStats(10, closed=True, aggregate=0.7),))
    outcome = t.decide(tenth, iteration_end=True)
    assert outcome is not None
    assert outcome.status == "PARTIAL"
    stopped = good(gates=gates(qc_verdict="REJECT", phi_action="TERMINATE"))
    outcome = t.decide(stopped, iteration_end=True, stop_requested=True)
    assert outcome is not None
    assert (outcome.status, outcome.reason) == ("PARTIAL", "PHI terminated the session")


# ------------------------------------------------------------------------------------------- §6.5 report
def avro_round_trip(record: dict[str, Any]) -> dict[str, Any]:
    schema = load_schema(str(SCHEMA))
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, schema, record)
    buf.seek(0)
    out = fastavro.schemaless_reader(buf, schema, schema)
    assert isinstance(out, dict)
    return out


@pytest.mark.parametrize("outcome", [t.Outcome("SUCCESS", "ok"), t.Outcome("PARTIAL", "stalled"),
                                     t.Outcome("FAILURE", "abort", "ABORT")])
def test_report_matches_the_avro_record_exactly(outcome: t.Outcome) -> None:
    report = t.build_report(good(first_ms=0, last_ms=2_527_000), outcome, "m-9", "2026-01-26T09:42:07+00:00")
    record = report.to_dict()
    schema_fields = [f["name"] for f in load_schema(str(SCHEMA))["fields"]]
    assert list(record) == schema_fields
    assert avro_round_trip(record) == record
    assert record["status"] == outcome.status
    assert record["metrics"]["time_elapsed"] == "PT42M7S"
    assert report.report_id == t.build_report(good(), outcome, "m-9", "x").report_id


def test_branch_fields_are_set_only_for_their_status() -> None:
    success = t.build_report(good(), t.Outcome("SUCCESS", "ok"), "m", "t").to_dict()
    assert success["answer"] == "Migrate in two phases"
    assert success["verified_by"] == [27]
    assert success["partial_answer"] is None
    assert success["failure_type"] is None
    failure = t.build_report(good(), t.Outcome("FAILURE", "x", "INTRACTABLE"), "m", "t").to_dict()
    assert failure["answer"] is None
    assert failure["recommendation"]
    assert failure["degradation_level"] == 5


@pytest.mark.parametrize(("seconds", "text"), [(0, "PT0S"), (7, "PT7S"), (3600, "PT1H"), (3727.5, "PT1H2M7.5S")])
def test_iso_duration(seconds: float, text: str) -> None:
    assert t.iso_duration(seconds) == text


def test_degradation_levels() -> None:
    assert t.degradation_level(good(), t.Outcome("SUCCESS", "")) == 0
    assert t.degradation_level(good(gates=gates(qc_verdict="SHIP WITH CAVEATS")), t.Outcome("SUCCESS", "")) == 1
    assert t.degradation_level(good(iterations=stats2(aggregate=0.4)), t.Outcome("PARTIAL", "")) == 2
    assert t.degradation_level(good(iterations=stats2(aggregate=0.1)), t.Outcome("PARTIAL", "")) == 3
    clarified = good(problem=dataclasses.replace(good().problem, clarified_statement="what we mean"))
    assert t.degradation_level(clarified, t.Outcome("FAILURE", "", "RESOURCE")) == 4


# ------------------------------------------------------------------------------------------- whole reasons
@pytest.mark.parametrize(("state", "expected"), [
    (good(), (True, "robust")),
    (good(agents_seen=(1, 27, 48, 52, 53)), (False, "no ADVERSARY testing")),
    (good(gates=gates(blocking_attack_iteration=2)), (False, "an ADVERSARY attack blocks progress")),
    (good(gates=gates(survivable_core=None)), (False, "Survivor Synthesizer has not confirmed a survivable core")),
    (good(gates=gates(steelman_defeated=None)), (False, "Steelman Attacker has not run")),
    (good(gates=gates(steelman_defeated=True)), (False, "Steelman Attacker defeated the answer")),
])
def test_robustness_reads_whole(state: SessionState, expected: tuple[bool, str]) -> None:
    assert t.success_robustness(state) == expected


@pytest.mark.parametrize(("state", "expected"), [
    (good(), (False, "can continue")),
    (good(stalled_iterations=2), (True, "diminishing returns")),
    (good(expansions=3), (True, "diminishing returns")),
    (good(tokens_used=80_000), (False, "can continue")),  # exactly 80% is not over the pressure line
    (good(tokens_used=80_001), (True, "resource pressure")),
    (good(gates=gates(qc_consecutive_rejections=3)), (True, "no clear path: the quality gate keeps failing")),
    (good(gates=gates(phi_action="TERMINATE")), (True, "no clear path: PHI stopped the session")),
])
def test_cannot_continue_reads_whole(state: SessionState, expected: tuple[bool, str]) -> None:
    assert t.partial_cannot_continue(state) == expected


def test_mid_iteration_ignores_a_collapse_and_an_old_cascade_that_only_iteration_ends_judge() -> None:
    assert t.decide(good(iterations=stats2(aggregate=0.1)), iteration_end=False) is None
    old_cascade = good(contradictions_unresolved=(fatal(1),), alerts=AlertBook(cascade_since=1))
    assert t.decide(old_cascade, iteration_end=False) is None
    assert t.decide(old_cascade, iteration_end=True) == t.Outcome(
        "FAILURE", "contradiction cascade raised in iteration 1 still unresolved", "IRRECOVERABLE")


def test_stuck_after_recovery_names_the_signature_and_the_recovery_iteration() -> None:
    stuck = good(gates=gates(qc_verdict="REJECT"), stalled_iterations=2,
                 alerts=AlertBook(occurrences={"CIRCULAR_REASONING|session": (1,)}))
    detection = Detection("CIRCULAR_REASONING", "SERIOUS", "session", 2, "stuck", "ADMIT", 4, "4.2.3")
    assert t.decide(stuck, iteration_end=True, detections=[detection]) == t.Outcome(
        "PARTIAL", "circular_reasoning persisted after recovery in iteration 1")


@pytest.mark.parametrize(("aggregate", "level"), [(0.61, 1), (0.6, 2), (0.3, 2), (0.29, 3)])
def test_partial_degradation_level_by_confidence_band(aggregate: float, level: int) -> None:
    """§4.3: above the MEDIUM threshold 1; at least the usable 0.30 (inclusive) 2; below it 3."""
    assert t.degradation_level(good(iterations=stats2(aggregate=aggregate)), t.Outcome("PARTIAL", "")) == level


def test_failure_report_reads_whole() -> None:
    state = good(
        iterations=(IterationStats(1, agents=(1, 8), messages=3, rejected=1, closed=True, aggregate=0.6),
                    IterationStats(2, agents=(27,), messages=1, closed=True, aggregate=0.75)),
        hypotheses_resolved=(ResolvedHypothesis("h1", "billing is stable", "CONFIRMED", "t", 0.8, "b", 51, True),),
        hypotheses_abandoned=(AbandonedHypothesis("h2", "rewrite it", "t", "too costly"),),
        alerts=AlertBook(occurrences={"CIRCULAR_REASONING|session": (1,)}))
    record = t.build_report(state, t.Outcome("FAILURE", "intractable: x", "INTRACTABLE"), "m", "t").to_dict()
    assert {k: record[k] for k in ("status", "failure_type", "what_was_attempted", "why_failed",
                                   "what_was_learned", "recommendation", "answer", "partial_answer")} == {
        "status": "FAILURE", "failure_type": "INTRACTABLE",
        "what_was_attempted": ["iteration 1: 2 agents, 3 messages, 1 quarantined",
                               "iteration 2: 1 agents, 1 messages, 0 quarantined"],
        "why_failed": "intractable: x",
        "what_was_learned": ["CONFIRMED: billing is stable", "ABANDONED: rewrite it (too costly)",
                             "alert CIRCULAR_REASONING"],
        "recommendation": "reframe the question so its critical claims are testable, or accept a partial answer "
                          "(ADMIT)",
        "answer": None, "partial_answer": None}
    untyped = t.build_report(state, t.Outcome("FAILURE", "lost"), "m", "t").to_dict()
    assert (untyped["failure_type"], untyped["why_failed"]) == ("IRRECOVERABLE", "lost")
