"""One-mutation negative episodes for the episode rules INV-005 (budget continuity), INV-007 (token lifecycle)
and INV-008 (verification closure), with the positive cases that pin how each rule reads the episode."""

from __future__ import annotations

import pytest

from tests.conformance.omen.episodes import (
    BE,
    VL,
    WR,
    budget_escalation,
    verify_loop,
    write_episode,
)
from tests.conformance.omen.judging import (
    assert_no_errors,
    assert_rejected_with,
    describe,
    edit,
    index_of,
    replace_packet,
    run,
)
from tests.conformance.omen.mutations import Case, inv_005, inv_007, inv_008
from tests.conformance.omen.packets import CANONICAL_MEDIUM, Ep, at, budgets, plain, ref

S3, S9 = "S3_DECIDE", "S9_SAFEMODE"


def _ids(case: Case) -> str:
    return case.id


# --------------------------------------------------------------------------- INV-005 budget continuity
@pytest.mark.parametrize("case", inv_005(), ids=_ids)
def test_result_overrunning_the_first_decisions_budget_is_rejected_inv_005(case: Case) -> None:
    assert_rejected_with(run(case.packets), case.rejected, case.rule)


@pytest.mark.parametrize("case", inv_005(), ids=_ids)
def test_unapproved_budget_overrun_halts_the_episode_in_safe_mode(case: Case) -> None:
    steps = run(case.packets)
    overrun = steps[case.rejected]
    assert overrun.state == S9, describe(steps)
    assert {"BUDGET_OVERRUN", "SAFE_MODE_ENTERED"} <= set(overrun.alerts), describe(steps)


def test_hours_of_event_time_between_packets_are_not_budget_time() -> None:
    """Three hours pass after the VERIFY_FIRST decision (time budget 90 s); the loop ran 1.5 s of tools."""
    packets = verify_loop(wait=3 * 3600)
    steps = run(packets)
    assert_no_errors(steps)
    assert "BUDGET_OVERRUN" not in [kind for s in steps for kind in s.alerts]
    assert steps[-1].state == S3


def test_budget_on_an_observation_before_the_first_decision_does_not_set_the_envelope() -> None:
    """The observation's tiny budgets (10 tokens, 0 calls, 0 s) are its own cost, not the envelope."""
    packets = verify_loop(obs_budgets=budgets(tokens=10, calls=0, seconds=0))
    steps = run(packets)
    assert_no_errors(steps)
    assert "BUDGET_OVERRUN" not in [kind for s in steps for kind in s.alerts]


def test_budget_on_later_packets_does_not_shrink_the_envelope() -> None:
    """The READ directive and the result declare 50 tokens; usage 120 stays inside the decision's 900."""
    small = plain(budgets(tokens=50, calls=1, seconds=10))
    packets = edit(verify_loop(), VL.READ, mcp__budgets=small)
    packets = edit(packets, VL.RESULT, mcp__budgets=small)
    assert_no_errors(run(packets))


def test_budget_insufficient_escalation_approves_the_overrun() -> None:
    packets = budget_escalation(result_tokens=2000)
    first_decision = packets[index_of(packets, BE.ESCALATE)]
    assert first_decision["mcp"]["budgets"]["token_budget"] < 2000
    steps = run(packets)
    assert_no_errors(steps)
    assert "BUDGET_OVERRUN" not in [kind for s in steps for kind in s.alerts]


# --------------------------------------------------------------------------- INV-007 token lifecycle
@pytest.mark.parametrize("case", inv_007(), ids=_ids)
def test_write_directive_with_an_invalid_token_is_rejected_inv_007(case: Case) -> None:
    assert_rejected_with(run(case.packets), case.rejected, case.rule)


def test_write_directive_one_second_before_expiry_is_accepted() -> None:
    packets = edit(write_episode(), WR.TOKEN, payload__expiry=at(WR.WRITE_AT + 1))
    assert_no_errors(run(packets))


def test_token_with_two_uses_authorizes_a_second_write() -> None:
    """Counter-case of exhaustion: max_usage_count 2 admits the second WRITE directive."""
    packets = edit(write_episode(), WR.TOKEN, payload__max_usage_count=2)
    market = ref("tool_output", f"tool://{WR.OBS}", 0)
    second = Ep(WR.CORR).directive("pkt_wr_write2", 330, task_id="task_wr_sell_order_2", tool_id=WR.TOOL,
                                   safety="WRITE", token_id=WR.TOKEN_ID, params=WR.PARAMS, refs=[market])
    packets.insert(index_of(packets, WR.UPDATE), second)
    assert_no_errors(run(packets))


# --------------------------------------------------------------------------- INV-008 verification closure
@pytest.mark.parametrize("case", inv_008(), ids=_ids)
def test_redecision_before_the_verify_loop_closes_is_rejected_inv_008(case: Case) -> None:
    assert_rejected_with(run(case.packets), case.rejected, case.rule)


def test_belief_with_a_tool_output_ref_newer_than_the_verify_first_decision_closes_the_loop() -> None:
    """No evidence_integration ids: a tool_output ref timestamped after the VERIFY_FIRST decision suffices."""
    ep = Ep(VL.CORR, stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT")
    update = ep.belief(VL.UPDATE, 260, refs=[ref("tool_output", f"tool://{VL.TASK}", 220, 0.95)],
                       update_type="confidence_adjustment")
    assert "evidence_integration" not in update["payload"]
    steps = run(replace_packet(verify_loop(), VL.UPDATE, update))
    assert_no_errors(steps)
    assert steps[-1].state == S3
