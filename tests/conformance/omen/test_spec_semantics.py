"""Semantics the spec leaves to reading, pinned on valid episodes: Layer 1 pre-authorization, the INV-011
directive deadline, CONTESTED as a HIGH stakes axis (INV-012), and structured Stage 3 trade-off
documentation (INV-006)."""

from __future__ import annotations

import re

import pytest

from omega.packets.verdict import VerdictStatus
from tests.conformance.omen.episodes import (
    PA,
    RO,
    contested_high_decision,
    pre_authorized_write,
    read_only_act,
)
from tests.conformance.omen.judging import assert_no_errors, describe, index_of, run, states
from tests.conformance.omen.packets import budgets

S1, S2, S3, S5, S6, S7 = "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S5_AUTHORIZE", "S6_EXECUTE", "S7_REVIEW"


# --------------------------------------------------------------------------- Layer 1 pre-authorization
def test_token_issued_before_the_act_decision_is_legal_from_idle() -> None:
    steps = run(pre_authorized_write())
    assert steps[0].verdict.state_before == "S0_IDLE"
    assert steps[0].state == S5
    assert steps[0].verdict.status is VerdictStatus.ACCEPTED, describe(steps)


def test_pre_authorized_write_directive_is_accepted_without_warning_and_executes() -> None:
    packets = pre_authorized_write()
    steps = run(packets)
    assert_no_errors(steps)
    write = steps[index_of(packets, PA.WRITE)]
    assert write.verdict.status is VerdictStatus.ACCEPTED, describe(steps)
    assert write.verdict.violations == ()
    assert write.verdict.state_before == S3
    assert write.state == S6
    assert states(steps) == [S5, S1, S2, S3, S6, S6, S7]


def test_pre_authorized_write_raises_no_token_misuse_alert() -> None:
    steps = run(pre_authorized_write())
    assert not [kind for s in steps for kind in s.alerts]


# --------------------------------------------------------------------------- INV-011 directive deadline
# deadline = created_at + max(mcp.budgets.time_budget_seconds, timeout_seconds x (1 + max_retries))
def _timeouts(result_at: float, *, budget_s: int, timeout: int, retries: int) -> list[str]:
    packets = read_only_act(directive_budgets=budgets(seconds=budget_s), timeout=timeout, retries=retries,
                            result_at=result_at)
    steps = run(packets)
    assert_no_errors(steps)
    return [kind for s in steps for kind in s.alerts if kind == "TASK_TIMEOUT"]


def test_result_exactly_at_retry_deadline_raises_no_task_timeout() -> None:
    # max(30, 20 x (1 + 2)) = 60 s after the directive
    assert _timeouts(RO.READ_AT + 60, budget_s=30, timeout=20, retries=2) == []


def test_result_one_second_after_retry_deadline_raises_task_timeout() -> None:
    assert _timeouts(RO.READ_AT + 61, budget_s=30, timeout=20, retries=2) == ["TASK_TIMEOUT"]


def test_result_exactly_at_time_budget_deadline_raises_no_task_timeout() -> None:
    # max(90, 20 x (1 + 0)) = 90 s after the directive
    assert _timeouts(RO.READ_AT + 90, budget_s=90, timeout=20, retries=0) == []


def test_result_after_time_budget_deadline_raises_task_timeout() -> None:
    assert _timeouts(RO.READ_AT + 91, budget_s=90, timeout=20, retries=0) == ["TASK_TIMEOUT"]


# --------------------------------------------------------------------------- INV-012 stakes consistency
def test_contested_adversariality_counts_as_a_high_axis() -> None:
    """impact MEDIUM, REVERSIBLE, uncertainty HIGH, CONTESTED -> stakes_level HIGH is justified (two HIGH)."""
    packets = contested_high_decision()
    assert packets[-1]["mcp"]["stakes"] == {"impact": "MEDIUM", "irreversibility": "REVERSIBLE",
                                            "uncertainty": "HIGH", "adversariality": "CONTESTED",
                                            "stakes_level": "HIGH"}
    steps = run(packets)
    assert_no_errors(steps)
    assert not [s for s in steps if "INV-012" in s.warnings], describe(steps)
    assert steps[-1].state == "S4_VERIFY"


# --------------------------------------------------------------------------- INV-006 stage 3
POLICY_WORDS = re.compile(r"safety|risk[-\s]?adjusted|min[-\s]?regret|expected[-\s]?value", re.IGNORECASE)
STRUCTURED_ARBITRATION = {
    "chosen_option": {"option_id": "opt_buy_now", "description": "Buy the hull at the quoted price",
                      "expected_value": 1.5, "risk_profile": "low"},
    "rejected_alternatives": [
        {"option_id": "opt_wait", "rejection_reason": "the quote lapses within the hour"},
        {"option_id": "opt_other_hub", "rejection_reason": "eight extra jumps for the same price"},
    ],
}


@pytest.mark.parametrize("text", ["Buy the hull now at the quoted price.", "Proceed with the purchase."])
def test_arbitration_with_expected_value_and_reasons_needs_no_policy_keyword(text: str) -> None:
    assert not POLICY_WORDS.search(text)
    assert not POLICY_WORDS.search(str(STRUCTURED_ARBITRATION))
    packets = read_only_act(act_text=text, act_extra=STRUCTURED_ARBITRATION)
    steps = run(packets)
    assert_no_errors(steps)
    decision = steps[index_of(packets, RO.ACT)]
    assert "INV-006" not in {v.rule for v in decision.verdict.violations}, describe(steps)
    assert decision.state == S3
