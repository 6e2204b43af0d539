"""One-mutation negative episodes, packet-local rules and sequence rules (INV-001/002/003/004/006/009/010,
FSM-E2/E4/E7, DUPLICATE). Each case: every packet before the mutated one accepted with no ERROR, the mutated
packet REJECTED with the rule among its ERRORs. The episode rules (INV-005/007/008) are in
`test_negative_lifecycle.py`; the cases themselves in `mutations.py`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conformance.omen.episodes import VL, degraded_escalation, verify_loop, write_episode
from tests.conformance.omen.judging import apply, assert_no_errors, assert_rejected_with, describe, index_of, run
from tests.conformance.omen.mutations import (
    Case,
    duplicate,
    fsm,
    inv_001,
    inv_002,
    inv_003,
    inv_004,
    inv_006,
    inv_009,
    inv_010,
    live_claim_from_memory,
)
from tests.conformance.omen.packets import Packet

BASES: dict[str, Callable[[], list[Packet]]] = {
    "a_verify_loop": verify_loop, "b_token_write": write_episode, "c_degraded_escalation": degraded_escalation,
}


def _ids(case: Case) -> str:
    return case.id


def _rejected(case: Case) -> None:
    assert_rejected_with(run(case.packets), case.rejected, case.rule)


@pytest.mark.parametrize("name", list(BASES))
def test_base_episode_is_accepted_with_no_error(name: str) -> None:
    assert_no_errors(run(BASES[name]()))


# --------------------------------------------------------------------------- packet-local invariants
@pytest.mark.parametrize("case", inv_001(), ids=_ids)
def test_consequential_packet_with_incomplete_mcp_is_rejected_inv_001(case: Case) -> None:
    """Includes schema-rejected packets: they carry INV-001 besides SCHEMA."""
    _rejected(case)


@pytest.mark.parametrize("case", inv_002(), ids=_ids)
def test_subpar_act_decision_is_rejected_inv_002(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("case", inv_003(), ids=_ids)
def test_act_at_high_stakes_without_superb_and_verified_assumptions_is_rejected_inv_003(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("case", inv_004(), ids=_ids)
def test_live_claim_without_live_evidence_is_rejected_inv_004(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("change", ["memory_only", "canonical"])
def test_verify_first_decision_is_exempt_from_inv_004(change: str) -> None:
    """VERIFY_FIRST is the remedy INV-004 prescribes: INFERRED + REALTIME + memory-only evidence is accepted."""
    packets = apply(verify_loop(), VL.VERIFY_FIRST, live_claim_from_memory) if change == "memory_only" \
        else verify_loop()
    steps = run(packets)
    assert_no_errors(steps)
    decision = steps[index_of(packets, VL.VERIFY_FIRST)]
    assert "INV-004" not in {v.rule for v in decision.verdict.violations}, describe(steps)


@pytest.mark.parametrize("case", inv_006(), ids=_ids)
def test_arbitrating_decision_failing_a_stage_check_is_rejected_inv_006(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("case", inv_009(), ids=_ids)
def test_escalation_without_two_to_three_complete_options_gaps_and_next_step_is_rejected_inv_009(
        case: Case) -> None:
    """These mutations are schema violations too: INV-009 must be named, not only SCHEMA."""
    _rejected(case)


@pytest.mark.parametrize("case", inv_010(), ids=_ids)
def test_act_with_tools_down_at_high_stakes_is_rejected_inv_010(case: Case) -> None:
    packet = case.rejected_packet
    assert packet["mcp"]["quality"]["quality_tier"] == "SUPERB"
    assert all(a["verified"] for a in packet["payload"]["load_bearing_assumptions"])
    _rejected(case)


# --------------------------------------------------------------------------- FSM rules
CASES_BY_RULE = {rule: [c for c in fsm() if c.rule == rule] for rule in ("FSM-E2", "FSM-E4", "FSM-E6", "FSM-E7")}


@pytest.mark.parametrize("case", CASES_BY_RULE["FSM-E2"], ids=_ids)
def test_task_directive_without_a_preceding_act_decision_is_rejected_fsm_e2(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("case", CASES_BY_RULE["FSM-E4"], ids=_ids)
def test_write_directive_in_an_episode_without_any_token_is_rejected_fsm_e4(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("case", CASES_BY_RULE["FSM-E6"], ids=_ids)
def test_task_result_without_its_directive_is_rejected_fsm_e6(case: Case) -> None:
    """fsm-transitions-v0.7.md "Missing prerequisite -> reject"; OMEN.md §10.3 "You cannot EXECUTE before DECIDE"
    (decision in omega/packets/fsm.py's docstring)."""
    steps = run(case.packets)
    assert_rejected_with(steps, case.rejected, case.rule)
    rejected = steps[case.rejected].verdict
    assert rejected.state_after == rejected.state_before  # a rejected result moves nothing


@pytest.mark.parametrize("case", CASES_BY_RULE["FSM-E7"], ids=_ids)
def test_decision_in_safe_mode_is_rejected_fsm_e7(case: Case) -> None:
    _rejected(case)


@pytest.mark.parametrize("case", CASES_BY_RULE["FSM-E7"], ids=_ids)
def test_critical_alert_with_an_extra_payload_field_is_accepted_and_enters_safe_mode(case: Case) -> None:
    """The designed IntegrityAlertPacket payload is open: one extra key must not let the alert be rejected
    (which would leave the episode running: fail-open on the safety path)."""
    alert_index = case.rejected - 1
    alert = case.packets[alert_index]
    assert alert["payload"]["severity"] == "CRITICAL"
    assert "operator_note" in alert["payload"]
    steps = run(case.packets)
    assert_no_errors(steps[: alert_index + 1])
    assert steps[alert_index].state == "S9_SAFEMODE"
    assert steps[case.rejected].verdict.state_after == "S9_SAFEMODE"


# --------------------------------------------------------------------------- duplicates
@pytest.mark.parametrize("case", duplicate(), ids=_ids)
def test_packet_reusing_an_earlier_packet_id_with_other_content_is_rejected_duplicate(case: Case) -> None:
    _rejected(case)
