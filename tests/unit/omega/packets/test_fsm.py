"""The episode FSM: the normative transition table, the deviation mapping, and rules E1-E7 / FSM."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omega.packets.fsm import (
    FsmStep,
    fsm_e1_no_decision_without_model,
    fsm_e2_no_action_without_decision,
    fsm_e3_verification_loop_order,
    fsm_e4_write_requires_token,
    fsm_e5_escalation_presented_before_leaving,
    fsm_e6_no_dangling_directives,
    fsm_e7_safe_mode_lockdown,
    fsm_step,
    illegal_transition,
)
from omega.packets.fsm_table import STATES
from omega.packets.judgements import Judgements
from omega.packets.ledger import EpisodeLedger, Judgement, OpenDirective, Token, VerifyLoop
from omega.packets.schema import check_schema
from omega.packets.validator import evolve
from omega.packets.verdict import VerdictStatus
from omega.violations import Severity, Violation
from tests.factories import packet

EPISODE = 7
Packet = dict[str, Any]


# --------------------------------------------------------------------------- builders
def _typed(n: int, packet_type: str, payload: dict[str, Any]) -> Packet:
    built = packet(n, EPISODE)
    built["header"]["packet_type"] = packet_type
    built["header"]["layer_source"] = 5
    built["payload"] = payload
    return built


def observation(n: int = 0) -> Packet:
    return packet(n, EPISODE)


def belief(n: int = 0, evidence: list[str] | None = None) -> Packet:
    built = packet(n, EPISODE, "BeliefUpdatePacket")
    if evidence is not None:
        built["payload"]["evidence_integration"] = evidence
    return built


def decision(outcome: str = "ACT", n: int = 0) -> Packet:
    built = packet(n, EPISODE, "DecisionPacket")
    built["payload"]["decision_outcome"] = outcome
    return built


def plan(n: int = 0) -> Packet:
    return _typed(n, "VerificationPlanPacket", {
        "plan_id": "plan_1", "verification_requirement": "VERIFY_ONE",
        "verification_targets": [{"assumption": "price is fresh", "method": "tool_read",
                                  "success_criteria": "one read under 5 minutes old"}]})


def directive(safety: str | None = "READ", n: int = 0, task_id: str = "task_a",
              token_id: str | None = None) -> Packet:
    payload: dict[str, Any] = {"task_id": task_id, "task_type": "tool_read" if safety == "READ" else "tool_write",
                               "execution_method": {"method": "tool", "tool_id": "market_api"}}
    if safety is not None:
        payload["tool_safety_class"] = safety
    if token_id is not None:
        payload["authorization_token_id"] = token_id
    return _typed(n, "TaskDirectivePacket", payload)


def result(n: int = 0, task_id: str = "task_a", status: str = "SUCCESS") -> Packet:
    return _typed(n, "TaskResultPacket", {"task_id": task_id, "directive_packet_id": "pkt_00007_000004",
                                          "result_status": status})


def token(n: int = 0) -> Packet:
    built = _typed(n, "ToolAuthorizationToken", {
        "token_id": "token_w1", "authorized_scope": {"tool_ids": ["market_api"], "operation_types": ["write"]},
        "expiry": "2025-12-21T13:00:00Z", "max_usage_count": 1, "issuer_layer": 1})
    built["header"]["layer_source"] = 1
    return built


def escalation(n: int = 0) -> Packet:
    option = {"description": "wait", "pros": ["safe"], "cons": ["slow"]}
    return _typed(n, "EscalationPacket", {
        "escalation_trigger": "high_stakes_high_uncertainty",
        "top_options": [{"option_id": "a", **option}, {"option_id": "b", **option}],
        "evidence_gaps": [{"gap": "price age", "impact_if_unknown": "loss"}],
        "recommended_next_step": {"step": "ask the user", "rationale": "stakes"}})


def alert(severity: str = "INFO", alert_type: str = "drift_detected", n: int = 0) -> Packet:
    built = _typed(n, "IntegrityAlertPacket", {"alert_type": alert_type, "severity": severity,
                                               "description": "integrity says so"})
    built["header"]["layer_source"] = "Integrity"
    return built


def queue_update(n: int = 0) -> Packet:
    return _typed(n, "QueueUpdatePacket", {"queue_id": "q1", "operation": "enqueue",
                                           "item": {"item_id": "i1", "item_type": "task"}})


BUILDERS: dict[str, Callable[[], Packet]] = {
    "ObservationPacket": observation, "BeliefUpdatePacket": belief, "DecisionPacket": decision,
    "VerificationPlanPacket": plan, "ToolAuthorizationToken": token, "TaskDirectivePacket": directive,
    "TaskResultPacket": result, "EscalationPacket": escalation, "IntegrityAlertPacket": alert,
    "QueueUpdatePacket": queue_update,
}

A_TOKEN = Token("token_w1", "pkt_00007_000003", ("market_api",), ("write",), None, "2025-12-21T13:00:00Z",
                None, 1)


def ledger(state: str = "S2_MODEL", **changes: Any) -> EpisodeLedger:
    """A mid-episode ledger (one belief update already seen, so E1 stays quiet unless asked)."""
    return replace(EpisodeLedger(f"corr_ep{EPISODE:05d}"), state=state, **{"belief_updates": 1, **changes})


def open_directive(task_id: str = "task_a", timed_out: bool = False) -> OpenDirective:
    return OpenDirective(task_id, "pkt_00007_000004", "READ", 0, 90_000, "MEDIUM", timed_out)


def verify_loop(plan_seen: bool = True) -> VerifyLoop:
    return VerifyLoop("pkt_00007_000002", plan=plan_seen)


def rules(step: FsmStep) -> list[str]:
    return [v.rule for v in step.violations]


def only(step: FsmStep, rule: str, severity: Severity) -> None:
    assert rules(step) == [rule], step.violations
    assert step.violations[0].severity is severity
    assert step.violations[0].message.startswith(rule)


def test_the_local_builders_make_schema_valid_packets() -> None:
    for build in BUILDERS.values():
        assert check_schema(build()) == []


def test_states_are_the_ten_canonical_ones_in_order() -> None:
    assert STATES == ("S0_IDLE", "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S4_VERIFY", "S5_AUTHORIZE",
                      "S6_EXECUTE", "S7_REVIEW", "S8_ESCALATED", "S9_SAFEMODE")


# --------------------------------------------------------------------------- the normative table
VERIFYING = {"last_decision": "VERIFY_FIRST", "verify": VerifyLoop("pkt_00007_000002", plan=True)}
ACTING = {"last_decision": "ACT"}
TABLE_ROWS = [
    pytest.param("S0_IDLE", observation(), {}, "S1_SENSE", id="S0-Observation-S1"),
    pytest.param("S1_SENSE", observation(), {}, "S1_SENSE", id="S1-Observation-S1"),
    pytest.param("S1_SENSE", belief(), {}, "S2_MODEL", id="S1-BeliefUpdate-S2"),
    pytest.param("S2_MODEL", belief(), {}, "S2_MODEL", id="S2-BeliefUpdate-S2"),
    pytest.param("S2_MODEL", decision("ACT"), {}, "S3_DECIDE", id="S2-Decision-S3"),
    pytest.param("S3_DECIDE", decision("VERIFY_FIRST"), ACTING, "S4_VERIFY", id="S3-Decision(VERIFY_FIRST)-S4"),
    pytest.param("S3_DECIDE", token(), ACTING, "S5_AUTHORIZE", id="S3-Token-S5"),
    pytest.param("S3_DECIDE", directive("READ"), ACTING, "S6_EXECUTE", id="S3-TaskDirective(READ)-S6"),
    pytest.param("S3_DECIDE", escalation(), {"last_decision": "ESCALATE"}, "S8_ESCALATED", id="S3-Escalation-S8"),
    pytest.param("S3_DECIDE", belief(), {"last_decision": "DEFER"}, "S7_REVIEW", id="S3-BeliefUpdate(DEFER)-S7"),
    pytest.param("S3_DECIDE", belief(), {"last_decision": "CANCEL"}, "S7_REVIEW", id="S3-BeliefUpdate(CANCEL)-S7"),
    pytest.param("S4_VERIFY", plan(), {**VERIFYING, "verify": verify_loop(False)}, "S4_VERIFY",
                 id="S4-VerificationPlan-S4"),
    pytest.param("S4_VERIFY", directive("READ"), VERIFYING, "S4_VERIFY", id="S4-TaskDirective(READ)-S4"),
    pytest.param("S4_VERIFY", result(), {**VERIFYING, "open_directives": {"task_a": open_directive()}}, "S4_VERIFY",
                 id="S4-TaskResult-S4"),
    pytest.param("S4_VERIFY", observation(), VERIFYING, "S4_VERIFY", id="S4-Observation-S4"),
    pytest.param("S4_VERIFY", belief(), VERIFYING, "S2_MODEL", id="S4-BeliefUpdate-S2"),
    pytest.param("S5_AUTHORIZE", token(), {**ACTING, "tokens": {"token_w1": A_TOKEN}}, "S5_AUTHORIZE",
                 id="S5-Token-S5"),
    pytest.param("S5_AUTHORIZE", directive("WRITE", token_id="token_w1"), {**ACTING, "tokens": {"token_w1": A_TOKEN}},
                 "S6_EXECUTE", id="S5-TaskDirective(WRITE)-S6"),
    pytest.param("S6_EXECUTE", directive("READ"), ACTING, "S6_EXECUTE", id="S6-TaskDirective-S6"),
    pytest.param("S6_EXECUTE", result(), {**ACTING, "open_directives": {"task_a": open_directive()}}, "S6_EXECUTE",
                 id="S6-TaskResult-S6"),
    pytest.param("S6_EXECUTE", observation(), ACTING, "S6_EXECUTE", id="S6-Observation-S6"),
    pytest.param("S6_EXECUTE", belief(), ACTING, "S7_REVIEW", id="S6-BeliefUpdate(complete)-S7"),
    pytest.param("S6_EXECUTE", belief(), {**ACTING, "open_directives": {"task_a": open_directive()}}, "S2_MODEL",
                 id="S6-BeliefUpdate(partial)-S2"),
    pytest.param("S7_REVIEW", belief(), {}, "S7_REVIEW", id="S7-BeliefUpdate-S7"),
    pytest.param("S8_ESCALATED", escalation(), {"last_decision": "ESCALATE"}, "S8_ESCALATED",
                 id="S8-Escalation-S8"),
    pytest.param("S8_ESCALATED", decision("ACT"), {"last_decision": "ESCALATE", "escalation_presented": True},
                 "S3_DECIDE", id="S8-Decision(user input)-S3"),
    pytest.param("S2_MODEL", alert("CRITICAL"), {}, "S9_SAFEMODE", id="ANY-IntegrityAlert(CRITICAL)-S9"),
    pytest.param("S9_SAFEMODE", alert("INFO", "safe_mode_clear"), {}, "S7_REVIEW", id="S9-IntegrityAlert(clear)-S7"),
]


@pytest.mark.parametrize(("source", "pkt", "changes", "target"), TABLE_ROWS)
def test_every_row_of_the_normative_table_is_accepted_with_its_target_state(
        source: str, pkt: Packet, changes: dict[str, Any], target: str) -> None:
    step = fsm_step(ledger(source, **changes), pkt)
    assert step == FsmStep(target, ())


@pytest.mark.parametrize(("outcome", "target"), [
    ("VERIFY_FIRST", "S4_VERIFY"), ("ACT", "S3_DECIDE"), ("ESCALATE", "S8_ESCALATED"),
    ("DEFER", "S7_REVIEW"), ("CANCEL", "S7_REVIEW"),
])
def test_a_decision_from_model_lands_where_its_outcome_says(outcome: str, target: str) -> None:
    assert fsm_step(ledger("S2_MODEL"), decision(outcome)) == FsmStep(target, ())


def test_a_new_observation_after_review_starts_a_new_cycle_without_warning() -> None:
    assert fsm_step(ledger("S7_REVIEW"), observation()) == FsmStep("S1_SENSE", ())


def _walk(start: EpisodeLedger, steps: list[tuple[Packet, dict[str, Any]]]) -> list[str]:
    """Thread the ledger by hand as the validator would; every step must be clean."""
    current, states = start, [start.state]
    for pkt, changes in steps:
        step = fsm_step(current, pkt)
        assert step.violations == (), (pkt["header"]["packet_type"], step.violations)
        current = replace(current, state=step.state_after, **changes)
        states.append(step.state_after)
    return states


def test_the_canonical_verify_loop_walks_from_idle_to_decide_with_no_violation() -> None:
    loop = VerifyLoop("pkt_00007_000002")
    states = _walk(EpisodeLedger(f"corr_ep{EPISODE:05d}"), [
        (observation(0), {}),
        (belief(1), {"belief_updates": 1}),
        (decision("VERIFY_FIRST", 2), {"last_decision": "VERIFY_FIRST", "decision_count": 1, "verify": loop}),
        (plan(3), {"verify": replace(loop, plan=True)}),
        (directive("READ", 4), {"open_directives": {"task_a": open_directive()},
                                "verify": replace(loop, plan=True, read_directive=True)}),
        (result(5), {"open_directives": {}}),
        (observation(6), {}),  # the OBSERVED evidence S4 step 4 requires
        (belief(7, ["pkt_00007_000006"]), {"belief_updates": 2}),
        (decision("ACT", 8), {"last_decision": "ACT", "decision_count": 2, "verify": None}),
    ])
    assert states == ["S0_IDLE", "S1_SENSE", "S2_MODEL", "S4_VERIFY", "S4_VERIFY", "S4_VERIFY", "S4_VERIFY",
                      "S4_VERIFY", "S2_MODEL", "S3_DECIDE"]


def test_the_write_template_decide_token_write_result_review_is_clean() -> None:
    states = _walk(ledger("S2_MODEL"), [
        (decision("ACT"), {"last_decision": "ACT"}),
        (token(), {"tokens": {"token_w1": A_TOKEN}}),
        (directive("WRITE", token_id="token_w1"), {"open_directives": {"task_a": open_directive()}}),
        (result(), {"open_directives": {}}),
        (belief(), {}),
    ])
    assert states == ["S2_MODEL", "S3_DECIDE", "S5_AUTHORIZE", "S6_EXECUTE", "S6_EXECUTE", "S7_REVIEW"]


def test_the_escalation_template_presents_then_returns_to_decide_on_user_input() -> None:
    states = _walk(ledger("S2_MODEL"), [
        (decision("ESCALATE"), {"last_decision": "ESCALATE"}),
        (escalation(), {"escalation_presented": True}),
        (decision("ACT"), {"last_decision": "ACT"}),
    ])
    assert states == ["S2_MODEL", "S8_ESCALATED", "S8_ESCALATED", "S3_DECIDE"]


# --------------------------------------------------------------------------- FSM (deviations)
@pytest.mark.parametrize(("source", "pkt", "changes", "target"), [
    pytest.param("S2_MODEL", observation(), {}, "S1_SENSE", id="early-new-cycle-from-model"),
    pytest.param("S3_DECIDE", observation(), ACTING, "S1_SENSE", id="early-new-cycle-from-decide"),
    pytest.param("S0_IDLE", belief(), {}, "S2_MODEL", id="belief-before-any-observation"),
    pytest.param("S3_DECIDE", belief(), ACTING, "S2_MODEL", id="re-modelling-after-act"),
    pytest.param("S8_ESCALATED", belief(), {}, "S2_MODEL", id="belief-while-escalated"),
    pytest.param("S6_EXECUTE", decision("ACT"), ACTING, "S3_DECIDE", id="decision-mid-execution"),
    pytest.param("S7_REVIEW", decision("DEFER"), {}, "S7_REVIEW", id="decision-in-review"),
    pytest.param("S3_DECIDE", decision("ESCALATE"), ACTING, "S8_ESCALATED", id="second-decision-not-verify"),
    pytest.param("S2_MODEL", result(), {**ACTING, "open_directives": {"task_a": open_directive()}}, "S6_EXECUTE",
                 id="late-result-after-model"),
    pytest.param("S7_REVIEW", result(), {**ACTING, "open_directives": {"task_a": open_directive(timed_out=True)}},
                 "S6_EXECUTE", id="late-result-after-review"),
    pytest.param("S2_MODEL", escalation(), {}, "S8_ESCALATED", id="escalation-without-decision"),
    pytest.param("S2_MODEL", plan(), {}, "S4_VERIFY", id="plan-without-verify-first"),
    pytest.param("S5_AUTHORIZE", directive("READ"), ACTING, "S6_EXECUTE", id="read-directive-in-authorize"),
])
def test_a_deviation_is_a_warning_and_moves_where_the_packet_type_leads(
        source: str, pkt: Packet, changes: dict[str, Any], target: str) -> None:
    step = fsm_step(ledger(source, **changes), pkt)
    only(step, "FSM", Severity.WARNING)
    assert step.state_after == target


def test_the_deviation_warning_names_state_type_and_expected_types() -> None:
    [warning] = fsm_step(ledger("S0_IDLE"), belief()).violations
    assert warning.field == "header.packet_type"
    assert "BeliefUpdatePacket in S0_IDLE" in warning.message
    assert "expected: ObservationPacket" in warning.message
    assert "moving to S2_MODEL" in warning.message


def test_the_deviation_warning_lists_every_type_the_table_allows_from_the_state() -> None:
    [warning] = fsm_step(ledger("S5_AUTHORIZE", decision_count=1, **ACTING), observation()).violations
    assert "expected: ToolAuthorizationToken, TaskDirectivePacket (WRITE)" in warning.message


# --------------------------------------------------------------------------- Layer 1 pre-authorization
def test_a_token_as_the_first_packet_is_pre_authorization_s0_to_s5_without_a_warning() -> None:
    assert fsm_step(ledger("S0_IDLE", belief_updates=0), token()) == FsmStep("S5_AUTHORIZE", ())


def test_a_pre_authorized_episode_starts_its_sense_cycle_from_s5_as_from_s0() -> None:
    assert fsm_step(ledger("S5_AUTHORIZE", belief_updates=0), observation()) == FsmStep("S1_SENSE", ())


def test_once_an_episode_has_decided_s5_no_longer_reads_as_idle() -> None:
    only(fsm_step(ledger("S5_AUTHORIZE", decision_count=1, **ACTING), observation()), "FSM", Severity.WARNING)


def test_a_write_directive_after_act_goes_to_execution_when_the_token_was_issued_before_the_decision() -> None:
    """Formerly a deviation warning ("write-directive-skipping-authorize"): Layer 1 pre-authorization is legal."""
    changes = {**ACTING, "decision_count": 1, "tokens": {"token_w1": A_TOKEN}}
    step = fsm_step(ledger("S3_DECIDE", **changes), directive("WRITE", token_id="token_w1"))
    assert step == FsmStep("S6_EXECUTE", ())


def test_a_decision_leaving_verify_is_left_to_inv_008_not_warned() -> None:
    step = fsm_step(ledger("S4_VERIFY", **VERIFYING), decision("ACT"))
    assert step == FsmStep("S3_DECIDE", ())


def test_no_deviation_warning_is_added_to_a_safety_error() -> None:
    step = fsm_step(ledger("S0_IDLE"), directive("READ"))
    assert rules(step) == ["FSM-E2"]


def test_illegal_transition_warns_on_a_write_directive_in_verify_and_sends_it_to_execution() -> None:
    assert illegal_transition(ledger("S4_VERIFY", **VERIFYING), directive("WRITE")) == Violation(
        "FSM", Severity.WARNING,
        "FSM: TaskDirectivePacket in S4_VERIFY is not in the transition table (expected: VerificationPlanPacket, "
        "TaskDirectivePacket (READ), TaskResultPacket, ObservationPacket, BeliefUpdatePacket, DecisionPacket); "
        "moving to S6_EXECUTE", "header.packet_type")


def test_illegal_transition_sends_an_off_table_decision_where_its_outcome_says() -> None:
    violation = illegal_transition(ledger("S1_SENSE"), decision("ESCALATE"))
    assert violation is not None
    assert violation.message.endswith("moving to S8_ESCALATED")


def test_illegal_transition_is_silent_for_table_rows_and_out_of_band_packets() -> None:
    assert illegal_transition(ledger("S1_SENSE"), belief()) is None
    assert illegal_transition(ledger("S1_SENSE"), token()) is None
    assert illegal_transition(ledger("S1_SENSE"), alert()) is None
    assert illegal_transition(ledger("S1_SENSE"), {"header": {}}) is None


# --------------------------------------------------------------------------- E1
def test_e1_warns_on_a_decision_with_no_belief_update_yet() -> None:
    step = fsm_step(ledger("S2_MODEL", belief_updates=0), decision("ACT"))
    only(step, "FSM-E1", Severity.WARNING)
    assert step.state_after == "S3_DECIDE"


def test_e1_is_only_a_warning_even_for_a_verify_first_decision() -> None:
    violation = fsm_e1_no_decision_without_model(ledger("S2_MODEL", belief_updates=0), decision("VERIFY_FIRST"))
    assert violation is not None
    assert violation.severity is Severity.WARNING


def test_e1_is_silent_once_a_belief_update_was_seen() -> None:
    assert fsm_e1_no_decision_without_model(ledger("S2_MODEL", belief_updates=1), decision("ACT")) is None


def test_e1_is_silent_for_packets_other_than_decisions() -> None:
    assert fsm_e1_no_decision_without_model(ledger("S0_IDLE", belief_updates=0), observation()) is None


# --------------------------------------------------------------------------- E2
@pytest.mark.parametrize(("source", "last"), [
    ("S2_MODEL", None), ("S7_REVIEW", "DEFER"), ("S3_DECIDE", "CANCEL"), ("S8_ESCALATED", "ESCALATE"),
])
def test_e2_rejects_a_directive_without_a_preceding_act_decision(source: str, last: str | None) -> None:
    step = fsm_step(ledger(source, last_decision=last), directive("READ"))
    only(step, "FSM-E2", Severity.ERROR)


def test_e2_rejects_a_write_directive_inside_the_verify_loop() -> None:
    step = fsm_step(ledger("S4_VERIFY", **VERIFYING, tokens={"token_w1": A_TOKEN}),
                    directive("WRITE", token_id="token_w1"))
    only(step, "FSM-E2", Severity.ERROR)
    assert step.violations[0].field == "payload.tool_safety_class"


def test_e2_names_the_write_class_when_a_verify_loop_is_asked_to_write() -> None:
    violation = fsm_e2_no_action_without_decision(ledger("S4_VERIFY", **VERIFYING), directive("MIXED"))
    assert violation == Violation(
        "FSM-E2", Severity.ERROR,
        "FSM-E2: WRITE/MIXED TaskDirectivePacket in S4_VERIFY: a verify loop runs READ directives only",
        "payload.tool_safety_class")


@pytest.mark.parametrize(("last", "shown"), [(None, "none"), ("DEFER", "DEFER"), ("VERIFY_FIRST", "VERIFY_FIRST")])
def test_e2_names_the_last_decision_a_directive_came_without_an_act_after(last: str | None, shown: str) -> None:
    # After a VERIFY_FIRST loop's belief update (S4 -> S2), the loop's READ allowance no longer covers a write.
    violation = fsm_e2_no_action_without_decision(ledger("S2_MODEL", last_decision=last), directive("WRITE"))
    assert violation == Violation(
        "FSM-E2", Severity.ERROR,
        f"FSM-E2: TaskDirectivePacket without a preceding ACT decision (last decision: {shown})", "header.packet_type")


def test_e2_allows_a_read_directive_after_act() -> None:
    assert fsm_e2_no_action_without_decision(ledger("S3_DECIDE", **ACTING), directive("READ")) is None


def test_e2_allows_read_directives_inside_a_verify_first_loop() -> None:
    assert fsm_e2_no_action_without_decision(ledger("S4_VERIFY", **VERIFYING), directive("READ")) is None
    # a directive with no safety class is not a write either
    assert fsm_e2_no_action_without_decision(ledger("S4_VERIFY", **VERIFYING), directive(None)) is None


def test_e2_allows_a_write_directive_after_act() -> None:
    changes = {**ACTING, "tokens": {"token_w1": A_TOKEN}}
    assert fsm_e2_no_action_without_decision(ledger("S5_AUTHORIZE", **changes), directive("WRITE")) is None


# --------------------------------------------------------------------------- E3
def test_e3_warns_on_a_verification_plan_after_the_loop_s_directives() -> None:
    loop = replace(verify_loop(False), read_directive=True)
    step = fsm_step(ledger("S4_VERIFY", last_decision="VERIFY_FIRST", verify=loop), plan())
    only(step, "FSM-E3", Severity.WARNING)
    assert "pkt_00007_000002" in step.violations[0].message
    assert step.state_after == "S4_VERIFY"


def test_e3_does_not_require_a_plan_before_a_directive_the_plan_is_optional() -> None:
    """v0.7 publishes no VerificationPlanPacket schema and OMEN.md §10.4 does not list it: a loop without one
    is at most INV-008's warning at the re-decision, never a warning on each directive."""
    for safety in ("READ", None):
        step = fsm_step(ledger("S4_VERIFY", last_decision="VERIFY_FIRST", verify=verify_loop(False)), directive(safety))
        assert step == FsmStep("S4_VERIFY", ())


def test_e3_is_silent_for_a_plan_before_any_directive() -> None:
    assert fsm_e3_verification_loop_order(
        ledger("S4_VERIFY", last_decision="VERIFY_FIRST", verify=verify_loop(False)), plan()) is None


def test_e3_is_silent_once_the_plan_was_seen() -> None:
    assert fsm_e3_verification_loop_order(ledger("S4_VERIFY", **VERIFYING), directive("READ")) is None


def test_e3_is_silent_outside_a_verify_loop() -> None:
    assert fsm_e3_verification_loop_order(ledger("S3_DECIDE", **ACTING), plan()) is None
    # a stale loop record after a later ACT decision does not count
    stale = ledger("S3_DECIDE", last_decision="ACT", verify=replace(verify_loop(False), read_directive=True))
    assert fsm_e3_verification_loop_order(stale, plan()) is None


# --------------------------------------------------------------------------- E4
def test_e4_rejects_a_write_directive_when_the_episode_has_no_token() -> None:
    step = fsm_step(ledger("S5_AUTHORIZE", **ACTING), directive("WRITE", token_id="token_w1"))
    only(step, "FSM-E4", Severity.ERROR)
    assert step.violations[0].field == "payload.authorization_token_id"


def test_e4_rejects_a_mixed_directive_when_the_episode_has_no_token() -> None:
    step = fsm_step(ledger("S6_EXECUTE", **ACTING), directive("MIXED"))
    only(step, "FSM-E4", Severity.ERROR)


def test_e4_leaves_token_validity_to_inv_007() -> None:
    spent = replace(A_TOKEN, revoked=True, usage_count=1)
    changes = {**ACTING, "tokens": {"token_w1": spent}}
    assert fsm_e4_write_requires_token(ledger("S5_AUTHORIZE", **changes), directive("WRITE")) is None


def test_e4_names_the_missing_token_in_full() -> None:
    violation = fsm_e4_write_requires_token(ledger("S3_DECIDE", **ACTING), directive("WRITE"))
    assert violation == Violation(
        "FSM-E4", Severity.ERROR,
        "FSM-E4: WRITE/MIXED TaskDirectivePacket with no ToolAuthorizationToken in the episode",
        "payload.authorization_token_id")


def test_e4_is_silent_for_read_directives_without_any_token() -> None:
    assert fsm_e4_write_requires_token(ledger("S3_DECIDE", **ACTING), directive("READ")) is None


# --------------------------------------------------------------------------- E5
def test_e5_warns_on_leaving_escalated_before_an_escalation_was_presented() -> None:
    step = fsm_step(ledger("S8_ESCALATED", last_decision="ESCALATE"), decision("ACT"))
    only(step, "FSM-E5", Severity.WARNING)
    assert step.state_after == "S3_DECIDE"


def test_e5_warns_whatever_the_new_decision_is() -> None:
    step = fsm_step(ledger("S8_ESCALATED", last_decision="ESCALATE"), decision("VERIFY_FIRST"))
    only(step, "FSM-E5", Severity.WARNING)
    assert step.state_after == "S4_VERIFY"


def test_e5_is_silent_when_the_escalation_was_presented() -> None:
    assert fsm_e5_escalation_presented_before_leaving(
        ledger("S8_ESCALATED", escalation_presented=True), decision("ACT")) is None


def test_e5_is_silent_outside_escalated() -> None:
    assert fsm_e5_escalation_presented_before_leaving(ledger("S2_MODEL"), decision("ACT")) is None
    assert fsm_e5_escalation_presented_before_leaving(ledger("S8_ESCALATED"), escalation()) is None


# --------------------------------------------------------------------------- E6
def test_e6_warns_when_review_begins_with_a_timed_out_directive_unanswered() -> None:
    step = fsm_step(ledger("S6_EXECUTE", **ACTING, open_directives={"task_a": open_directive(timed_out=True)}),
                    belief())
    only(step, "FSM-E6", Severity.WARNING)
    assert step.state_after == "S7_REVIEW"
    assert "task_a" in step.violations[0].message


def test_e6_names_every_dangling_task_id_in_order() -> None:
    dangling = {t: open_directive(t, timed_out=True) for t in ("task_z", "task_b")}
    violation = fsm_e6_no_dangling_directives(ledger("S6_EXECUTE", open_directives=dangling), belief())
    assert violation is not None
    assert violation.message.endswith("task_b, task_z")


def test_e6_is_silent_while_directives_still_run_and_the_update_is_partial() -> None:
    step = fsm_step(ledger("S6_EXECUTE", **ACTING, open_directives={"task_a": open_directive()}), belief())
    assert step == FsmStep("S2_MODEL", ())


def test_e6_is_silent_when_every_directive_has_its_result() -> None:
    assert fsm_e6_no_dangling_directives(ledger("S6_EXECUTE", **ACTING), belief()) is None


def test_e6_is_silent_outside_execute() -> None:
    stale = {"task_a": open_directive(timed_out=True)}
    assert fsm_e6_no_dangling_directives(ledger("S4_VERIFY", **VERIFYING, open_directives=stale), belief()) is None


# --------------------------------------------------------------------------- E6: a result needs its directive
# Decision in fsm.py's docstring: fsm-transitions-v0.7.md "Failure handling: Missing prerequisite (e.g., token)
# -> reject with specific error", S6_EXECUTE "Every TaskDirectivePacket MUST have corresponding TaskResultPacket",
# OMEN.md §10.3 "You cannot EXECUTE before DECIDE". Expected by hand: an ERROR in every state but S9 (E7's).
ORPHAN_MESSAGE = ("FSM-E6: TaskResultPacket for task task_a answers no TaskDirectivePacket of this episode (no open "
                  "task task_a, no directive pkt_00007_000004): a result needs the directive it closes")


@pytest.mark.parametrize("state", [s for s in STATES if s != "S9_SAFEMODE"])
def test_e6_rejects_a_result_that_answers_no_directive_in_every_state(state: str) -> None:
    step = fsm_step(ledger(state, **ACTING), result())
    assert step.violations == (Violation("FSM-E6", Severity.ERROR, ORPHAN_MESSAGE, "payload.task_id"),)


def test_e6_rejects_a_result_as_the_first_packet_of_an_episode() -> None:
    """Through the validator: REJECTED, and the episode stays idle (not moved to S6_EXECUTE as before)."""
    _, [verdict] = evolve(None, result(1))
    assert verdict.status is VerdictStatus.REJECTED
    assert [(v.rule, v.severity, v.field) for v in verdict.violations] == [
        ("FSM-E6", Severity.ERROR, "payload.task_id")]
    assert (verdict.state_before, verdict.state_after) == ("S0_IDLE", "S0_IDLE")


def test_e6_rejects_a_result_for_another_task_inside_a_verify_loop() -> None:
    step = fsm_step(ledger("S4_VERIFY", **VERIFYING, open_directives={"task_b": open_directive("task_b")}),
                    result())
    assert rules(step) == ["FSM-E6"]


def test_e6_accepts_the_result_of_an_open_directive_even_once_it_timed_out() -> None:
    stale = {"task_a": open_directive(timed_out=True)}
    assert fsm_step(ledger("S6_EXECUTE", **ACTING, open_directives=stale), result()) == FsmStep("S6_EXECUTE", ())


def _judged(status: VerdictStatus) -> Judgements[Judgement]:
    return Judgements({"pkt_00007_000004": Judgement("hash", status, (), "S3_DECIDE", "S6_EXECUTE")})


def test_e6_accepts_a_second_result_for_an_answered_directive() -> None:
    """The task is closed, but `directive_packet_id` names a directive this episode accepted."""
    step = fsm_step(ledger("S6_EXECUTE", **ACTING, applied=_judged(VerdictStatus.ACCEPTED)), result())
    assert step == FsmStep("S6_EXECUTE", ())


def test_e6_rejects_the_result_of_a_rejected_directive_naming_it() -> None:
    step = fsm_step(ledger("S6_EXECUTE", **ACTING, applied=_judged(VerdictStatus.REJECTED)), result())
    assert step.violations == (Violation(
        "FSM-E6", Severity.ERROR, "FSM-E6: TaskResultPacket for task task_a answers directive pkt_00007_000004, "
        "which was rejected: a refused directive must not be executed", "payload.directive_packet_id"),)


def test_e6_rejects_the_result_of_a_write_the_validator_refused() -> None:
    """End to end: ACT, then a WRITE directive with no token (FSM-E4 rejects it), then its result."""
    episode = [observation(0), belief(1), decision("ACT", 2), directive("WRITE", 3, token_id="token_w1"), result(4)]
    episode[4]["payload"]["directive_packet_id"] = episode[3]["header"]["packet_id"]
    current, verdicts = None, []
    for pkt in episode:
        current, outputs = evolve(current, pkt)
        verdicts.append(outputs[0])
    assert [(v.status, tuple(x.rule for x in v.violations if x.severity is Severity.ERROR)) for v in verdicts][3:] == [
        (VerdictStatus.REJECTED, ("FSM-E4",)), (VerdictStatus.REJECTED, ("FSM-E6",))]
    assert verdicts[4].violations[0].field == "payload.directive_packet_id"
    assert verdicts[4].state_after == "S3_DECIDE"


def test_e6_a_late_result_of_an_open_directive_is_only_the_table_warning() -> None:
    """The general rule is kept: a result off the table, with its directive, is a WARNING (rule FSM)."""
    step = fsm_step(ledger("S7_REVIEW", **ACTING, open_directives={"task_a": open_directive()}), result())
    only(step, "FSM", Severity.WARNING)


def test_e6_never_raises_on_unhashable_ids() -> None:
    pkt = result()
    pkt["payload"].update(task_id=["task_a"], directive_packet_id={"pkt": 1})
    assert rules(fsm_step(ledger("S6_EXECUTE", **ACTING), pkt)) == ["FSM-E6"]


# --------------------------------------------------------------------------- a decision straight from S0_IDLE
# Decision in fsm.py's docstring: a tolerated entry point (Rule E1 "unless episode just started and initial beliefs
# exist from prior context"; OMEN.md §11.3 templates B-E begin with "Decide"). Expected by hand: ACCEPTED with
# FSM-E1 (no belief update) and FSM (S0_IDLE lists only ObservationPacket), landing where the outcome says.
@pytest.mark.parametrize(("outcome", "target"), [
    ("VERIFY_FIRST", "S4_VERIFY"), ("ACT", "S3_DECIDE"), ("ESCALATE", "S8_ESCALATED"),
    ("DEFER", "S7_REVIEW"), ("CANCEL", "S7_REVIEW"),
])
def test_a_decision_straight_from_idle_is_two_warnings_and_lands_where_its_outcome_says(
        outcome: str, target: str) -> None:
    step = fsm_step(replace(EpisodeLedger(f"corr_ep{EPISODE:05d}")), decision(outcome))
    assert step.state_after == target
    assert [(v.rule, v.severity) for v in step.violations] == [
        ("FSM-E1", Severity.WARNING), ("FSM", Severity.WARNING)]
    assert step.violations[1].message == (
        f"FSM: DecisionPacket in S0_IDLE is not in the transition table (expected: ObservationPacket, "
        f"ToolAuthorizationToken (Layer 1 pre-authorization)); moving to {target}")


def test_a_decision_opening_an_episode_is_accepted_with_warnings_and_its_act_admits_a_read() -> None:
    current, [first] = evolve(None, decision("ACT", 0))
    assert first.status is VerdictStatus.ACCEPTED_WITH_WARNINGS
    assert [v.rule for v in first.violations] == ["FSM-E1", "FSM"]
    assert (first.state_before, first.state_after) == ("S0_IDLE", "S3_DECIDE")
    _, [read] = evolve(current, directive("READ", 1))
    assert read.status is VerdictStatus.ACCEPTED
    assert (read.state_before, read.state_after) == ("S3_DECIDE", "S6_EXECUTE")


# --------------------------------------------------------------------------- E7 and safe mode
LOCKED_OUT = [t for t in BUILDERS if t not in ("IntegrityAlertPacket", "BeliefUpdatePacket")]


@pytest.mark.parametrize("packet_type", LOCKED_OUT)
def test_e7_rejects_everything_but_alerts_and_beliefs_in_safe_mode(packet_type: str) -> None:
    step = fsm_step(ledger("S9_SAFEMODE", **ACTING, tokens={"token_w1": A_TOKEN}), BUILDERS[packet_type]())
    only(step, "FSM-E7", Severity.ERROR)
    assert step.state_after == "S9_SAFEMODE"
    assert packet_type in step.violations[0].message


def test_e7_rejects_an_untyped_packet_in_safe_mode() -> None:
    violation = fsm_e7_safe_mode_lockdown(ledger("S9_SAFEMODE"), {"header": {"packet_type": 3}})
    assert violation is not None
    assert violation.severity is Severity.ERROR


@pytest.mark.parametrize(("pkt", "named"), [(decision("ACT"), "DecisionPacket"), ({"header": {}}, "packet")])
def test_e7_names_the_locked_out_packet_type_in_full(pkt: Packet, named: str) -> None:
    assert fsm_e7_safe_mode_lockdown(ledger("S9_SAFEMODE"), pkt) == Violation(
        "FSM-E7", Severity.ERROR,
        f"FSM-E7: {named} in S9_SAFEMODE: only IntegrityAlertPacket and BeliefUpdatePacket are allowed until "
        "Integrity clears safe mode", "header.packet_type")


def test_e7_lets_belief_logging_through_and_stays_in_safe_mode() -> None:
    assert fsm_step(ledger("S9_SAFEMODE"), belief()) == FsmStep("S9_SAFEMODE", ())


def test_e7_lets_integrity_alerts_through_and_stays_in_safe_mode() -> None:
    assert fsm_step(ledger("S9_SAFEMODE"), alert("WARNING", "tool_degradation")) == FsmStep("S9_SAFEMODE", ())
    assert fsm_step(ledger("S9_SAFEMODE"), alert("CRITICAL")) == FsmStep("S9_SAFEMODE", ())


def test_e7_is_silent_outside_safe_mode() -> None:
    assert fsm_e7_safe_mode_lockdown(ledger("S6_EXECUTE"), decision("ACT")) is None


@pytest.mark.parametrize("state", STATES)
def test_a_critical_integrity_alert_enters_safe_mode_from_any_state(state: str) -> None:
    assert fsm_step(ledger(state), alert("CRITICAL", "constitutional_violation")) == FsmStep("S9_SAFEMODE", ())


@pytest.mark.parametrize("severity", ["CRITICAL", "INFO"])
def test_a_safe_mode_clear_alert_leads_from_safe_mode_to_review(severity: str) -> None:
    assert fsm_step(ledger("S9_SAFEMODE"), alert(severity, "safe_mode_clear")) == FsmStep("S7_REVIEW", ())


def test_a_clear_alert_outside_safe_mode_changes_nothing() -> None:
    assert fsm_step(ledger("S6_EXECUTE"), alert("INFO", "safe_mode_clear")) == FsmStep("S6_EXECUTE", ())


# --------------------------------------------------------------------------- out of band
@pytest.mark.parametrize("state", [s for s in STATES if s != "S9_SAFEMODE"])
@pytest.mark.parametrize("severity", ["INFO", "WARNING"])
def test_a_non_critical_alert_is_out_of_band_in_every_state(state: str, severity: str) -> None:
    assert fsm_step(ledger(state), alert(severity)) == FsmStep(state, ())


@pytest.mark.parametrize("state", [s for s in STATES if s != "S9_SAFEMODE"])
@pytest.mark.parametrize("last", [None, "ACT", "VERIFY_FIRST", "DEFER"])
def test_a_token_is_out_of_band_in_every_state_and_moves_only_decide_after_act(state: str, last: str | None) -> None:
    """Out of band everywhere; it moves S3 -> S5 after ACT (the table) and S0 -> S5 (pre-authorization)."""
    step = fsm_step(ledger(state, last_decision=last), token())
    assert step.violations == ()
    moves = (state, last) == ("S3_DECIDE", "ACT") or state == "S0_IDLE"
    assert step.state_after == ("S5_AUTHORIZE" if moves else state)


def test_a_token_in_safe_mode_is_locked_out_by_e7() -> None:
    only(fsm_step(ledger("S9_SAFEMODE"), token()), "FSM-E7", Severity.ERROR)


# --------------------------------------------------------------------------- robustness
BROKEN: list[Any] = [
    {}, {"header": None}, {"header": {"packet_type": None}}, {"header": {"packet_type": "Nonsense"}},
    {"header": {"packet_type": "DecisionPacket"}, "payload": None},
    {"header": {"packet_type": "DecisionPacket"}, "payload": {"decision_outcome": 7}},
    {"header": {"packet_type": "TaskDirectivePacket"}, "payload": ["READ"]},
    {"header": {"packet_type": "IntegrityAlertPacket"}, "payload": {"severity": ["CRITICAL"]}},
    {"header": {"packet_type": "TaskDirectivePacket"}, "payload": {"tool_safety_class": {"WRITE": 1}}},
]


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("broken", BROKEN)
def test_a_schema_invalid_packet_never_raises(state: str, broken: Any) -> None:
    step = fsm_step(ledger(state), copy.deepcopy(broken))
    assert step.state_after in STATES


def test_an_untyped_packet_outside_safe_mode_changes_nothing_and_is_left_to_the_schema_stage() -> None:
    assert fsm_step(ledger("S2_MODEL"), {"header": {}}) == FsmStep("S2_MODEL", ())


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=10)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(STATES), st.sampled_from([*BUILDERS, "Nonsense"]), JSON, st.sampled_from([None, "ACT", "X"]))
def test_any_payload_in_any_state_gives_a_known_state(state: str, packet_type: str, payload: Any,
                                                      last: str | None) -> None:
    step = fsm_step(ledger(state, last_decision=last), {"header": {"packet_type": packet_type}, "payload": payload})
    assert step.state_after in STATES


@pytest.mark.parametrize("state", ["S0_IDLE", "S3_DECIDE", "S6_EXECUTE", "S7_REVIEW"])
def test_a_queue_update_is_out_of_band_bookkeeping_with_no_warning_and_no_move(state: str) -> None:
    step = fsm_step(replace(EpisodeLedger("corr_q"), state=state), queue_update())
    assert (step.state_after, step.violations) == (state, ())
