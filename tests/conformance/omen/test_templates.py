"""OMEN.md §11.3 canonical templates A-F and the rows of the FSM transition table (fsm-transitions-v0.7.md).

Each episode is valid: every packet accepted with no ERROR, and the episode walks the states the FSM document
gives. Where the document gives two readings (a DEFER/CANCEL or ESCALATE decision leaves S3_DECIDE at once per
the S3 transition rules, or waits there for the table's next packet), both are allowed for that packet only.
"""

from __future__ import annotations

import pytest

from tests.conformance.omen.episodes import (
    BE,
    DG,
    RO,
    VL,
    WR,
    budget_escalation,
    degraded_escalation,
    escalation_template,
    grounding,
    partial_tools_act,
    read_only_act,
    safe_mode_alert,
    verify_loop,
    write_episode,
)
from tests.conformance.omen.judging import assert_no_errors, index_of, insert_after, run, states
from tests.conformance.omen.packets import CANONICAL_MEDIUM, LOW, MEDIUM, Ep, ref

S1, S2, S3, S4, S5 = "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S4_VERIFY", "S5_AUTHORIZE"
S6, S7, S8, S9 = "S6_EXECUTE", "S7_REVIEW", "S8_ESCALATED", "S9_SAFEMODE"
LEFT_DECIDE_FOR = {"DEFER": S7, "CANCEL": S7, "ESCALATE": S8}


# --------------------------------------------------------------------------- A grounding loop
def test_template_a_grounding_senses_models_and_decides() -> None:
    """Rows S0->S1, S1->S1 (two observations), S1->S2, S2->S2 (two updates), S2->S3."""
    steps = run(grounding())
    assert_no_errors(steps)
    assert states(steps) == [S1, S1, S2, S2, S3]


@pytest.mark.parametrize("outcome", ["DEFER", "CANCEL"])
def test_template_a_deferred_decision_goes_to_review(outcome: str) -> None:
    """Row S3 --BeliefUpdate (after DEFER/CANCEL)--> S7_REVIEW."""
    steps = run(grounding(outcome))
    assert_no_errors(steps)
    assert states(steps)[:4] == [S1, S1, S2, S2]
    assert steps[4].state in (S3, LEFT_DECIDE_FOR[outcome])
    assert steps[5].state == S7


# --------------------------------------------------------------------------- B verification loop
def test_template_b_verification_loop_with_observation_collected_in_verify() -> None:
    """§15.3 plus row S4 --ObservationPacket--> S4 (evidence collected)."""
    tool_read = Ep(VL.CORR, stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT").observation("pkt_vl_seen", 0)
    packets, i = insert_after(verify_loop(), VL.RESULT, tool_read)
    steps = run(packets)
    assert_no_errors(steps)
    assert steps[i].state == S4
    assert states(steps) == [S1, S2, S4, S4, S4, S4, S4, S2, S3]


# --------------------------------------------------------------------------- C read-only act
def test_template_c_read_only_act_executes_and_reviews() -> None:
    """Rows S3 --READ directive--> S6, S6 --result--> S6, S6 --BeliefUpdate--> S7, S7 --BeliefUpdate--> S7."""
    steps = run(read_only_act())
    assert_no_errors(steps)
    assert states(steps) == [S1, S2, S3, S6, S6, S7, S7]


def test_template_c_more_directives_and_observations_stay_in_execute() -> None:
    """Rows S6 --TaskDirective--> S6 and S6 --ObservationPacket--> S6."""
    ep = Ep(RO.CORR, stakes=LOW)
    tool = ref("tool_output", f"tool://{RO.OBS}", 0)
    packets, i = insert_after(read_only_act(), RO.READ,
                              ep.directive("pkt_ro_read2", 0, task_id="task_ro_assets", tool_id="esi_assets",
                                           refs=[tool], task_class="LOOKUP"))
    packets, j = insert_after(packets, RO.RESULT, ep.result("pkt_ro_result2", 0, task_id="task_ro_assets",
                                                            directive_pid="pkt_ro_read2", task_class="LOOKUP"))
    packets, k = insert_after(packets, "pkt_ro_result2", ep.observation("pkt_ro_seen", 0, tool="esi_assets"))
    steps = run(packets)
    assert_no_errors(steps)
    assert [steps[x].state for x in (i, j, k)] == [S6, S6, S6]
    assert states(steps)[-2:] == [S7, S7]


def test_partial_execution_belief_update_returns_to_model() -> None:
    """Row S6 --BeliefUpdate--> S2_MODEL ("execution partial; need re-decision"): a directive is unanswered."""
    ep = Ep(RO.CORR, stakes=LOW)
    pending = ep.directive("pkt_ro_read2", 0, task_id="task_ro_assets", tool_id="esi_assets",
                           refs=[ref("tool_output", f"tool://{RO.OBS}", 0)], task_class="LOOKUP")
    packets, _ = insert_after(read_only_act(), RO.RESULT, pending)
    packets = packets[: index_of(packets, RO.UPDATE) + 1]
    steps = run(packets)
    assert_no_errors(steps)
    assert steps[-1].verdict.state_before == S6
    assert steps[-1].state == S2


# --------------------------------------------------------------------------- D write act
def test_template_d_write_act_authorizes_executes_and_reviews() -> None:
    """Rows S3 --token--> S5, S5 --WRITE directive--> S6, then results and review."""
    steps = run(write_episode())
    assert_no_errors(steps)
    assert states(steps) == [S1, S2, S3, S5, S6, S6, S7]


def test_template_d_second_token_stays_in_authorize() -> None:
    """Row S5 --ToolAuthorizationToken--> S5."""
    spare = Ep(WR.CORR, stakes=MEDIUM).token("pkt_wr_token2", 0, token_id="token_wr_spare", expiry_t=1800,
                                            refs=[ref("tool_output", f"tool://{WR.OBS}", 0)])
    packets, i = insert_after(write_episode(), WR.TOKEN, spare)
    steps = run(packets)
    assert_no_errors(steps)
    assert steps[i].state == S5
    assert steps[i + 1].state == S6


# --------------------------------------------------------------------------- E escalation
def test_template_e_escalation_presents_options() -> None:
    """Rows S3 --EscalationPacket--> S8 and S8 --EscalationPacket--> S8; 2-3 options, gaps, next step."""
    packets = escalation_template()
    for escalation in packets[3:]:
        options = escalation["payload"]["top_options"]
        assert 2 <= len(options) <= 3
        assert all({"option_id", "description", "pros", "cons"} <= set(o) for o in options)
        assert escalation["payload"]["evidence_gaps"]
        assert escalation["payload"]["recommended_next_step"]
    steps = run(packets)
    assert_no_errors(steps)
    assert states(steps)[:2] == [S1, S2]
    assert steps[2].state in (S3, S8)
    assert states(steps)[3:] == [S8, S8]


def test_escalated_episode_returns_to_decide_on_the_pilots_decision() -> None:
    """Row S8 --(user input) DecisionPacket--> S3_DECIDE."""
    packets = budget_escalation()[: index_of(budget_escalation(), BE.ANSWER) + 1]
    steps = run(packets)
    assert_no_errors(steps)
    assert states(steps)[3:] == [S8, S3]


# --------------------------------------------------------------------------- F degraded tools
def test_template_f_tools_down_at_high_stakes_escalates() -> None:
    packets = degraded_escalation()
    assert {p["mcp"]["routing"]["tools_state"] for p in packets} == {"tools_down"}
    assert packets[index_of(packets, DG.ESCALATE)]["mcp"]["stakes"]["stakes_level"] == "HIGH"
    steps = run(packets)
    assert_no_errors(steps)
    assert states(steps)[:2] == [S1, S2]
    assert steps[2].state in (S3, S8)
    assert steps[3].state == S8


def test_template_f_tools_partial_at_medium_acts_with_uncertainty_high() -> None:
    packets = partial_tools_act()
    assert {p["mcp"]["routing"]["tools_state"] for p in packets} == {"tools_partial"}
    steps = run(packets)
    assert_no_errors(steps)
    assert "INV-010" not in steps[2].warnings
    assert states(steps) == [S1, S2, S3, S6, S6, S7, S7]


# --------------------------------------------------------------------------- ANY -> S9 -> S7
def test_critical_alert_enters_safe_mode_from_any_state_and_clearing_leads_to_review() -> None:
    """Rows ANY --IntegrityAlert CRITICAL--> S9, S9 admits BeliefUpdate (logging), S9 --clear--> S7."""
    ep = Ep(VL.CORR, stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT")
    log = ep.belief("pkt_vl_log", 0, refs=[ref("tool_output", f"tool://{VL.OBS}", 0)],
                    update_type="confidence_adjustment")
    clear = ep.alert("pkt_vl_clear", 0, severity="INFO", alert_type="safe_mode_clear",
                     description="Integrity clears safe mode", extra={"action_taken": "safe_mode_cleared"})
    packets, i = insert_after(verify_loop(), VL.BELIEF, safe_mode_alert(VL.CORR, "pkt_vl_safe", 0))
    packets = packets[: i + 1]
    packets, _ = insert_after(packets, "pkt_vl_safe", log)
    packets, _ = insert_after(packets, "pkt_vl_log", clear)
    steps = run(packets)
    assert_no_errors(steps)
    assert states(steps) == [S1, S2, S9, S9, S7]
