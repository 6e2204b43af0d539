"""The INV-005 envelope and usage (`omega.packets.episode`, rule in `omega.packets.ledger`'s docstring): the first
DecisionPacket's budgets, usage as TaskResults report it, and the two ways an approval changes the envelope."""

from __future__ import annotations

from typing import Any

import pytest

from omega.eventtime import to_ms
from omega.packets.episode import apply_accepted, apply_usage
from omega.packets.invariants import inv_005_budget_overrun_requires_approval
from omega.packets.ledger import EpisodeLedger
from tests.factories import packet

Packet = dict[str, Any]


def step(ledger: EpisodeLedger, pkt: Packet, state: str = "S6_EXECUTE") -> EpisodeLedger:
    """`pkt` applied as accepted (usage first, then the rest), at its own event time."""
    now_ms = to_ms(pkt["header"]["created_at"])
    return apply_accepted(apply_usage(ledger, pkt, now_ms), pkt, state, now_ms)


def decision(n: int, tokens: int = 900, outcome: str = "ACT") -> Packet:
    pkt = packet(n, 1, "DecisionPacket")
    pkt["mcp"]["budgets"]["token_budget"] = tokens
    pkt["payload"]["decision_outcome"] = outcome
    return pkt


def result(n: int, tokens: int = 0, time_ms: float = 0, calls: int = 0) -> Packet:
    pkt = packet(n, 1)
    pkt["header"]["packet_type"] = "TaskResultPacket"
    pkt["payload"] = {"task_id": f"task_{n}", "directive_packet_id": "pkt_00001_000009", "result_status": "SUCCESS",
                      "execution_metadata": {"tokens_used": tokens, "execution_time_ms": time_ms,
                                             "tool_calls_used": calls}}
    return pkt


def escalation(n: int) -> Packet:
    pkt = packet(n, 1)
    pkt["header"]["packet_type"] = "EscalationPacket"
    pkt["payload"] = {"escalation_trigger": "budget_insufficient"}
    return pkt


def override(n: int, tokens: int | None) -> Packet:
    pkt = packet(n, 1)
    pkt["header"].update(packet_type="IntegrityAlertPacket", layer_source="Integrity")
    pkt["payload"] = {"alert_type": "override", "severity": "INFO", "description": "more tokens",
                      "override_rationale": "Layer 1 approved the larger summary"}
    if tokens is None:
        del pkt["mcp"]["budgets"]
    else:
        pkt["mcp"]["budgets"]["token_budget"] = tokens
    return pkt


START = EpisodeLedger("corr_ep00001")


def test_results_before_any_decision_are_counted_but_no_envelope_judges_them() -> None:
    ledger = step(START, result(0, tokens=5000))
    assert (ledger.budgets, ledger.usage.tokens) == (None, 5000)
    assert inv_005_budget_overrun_requires_approval(result(1), ledger, None) == []


def test_time_is_the_execution_time_results_report_not_the_wait_between_packets() -> None:
    ledger = step(START, decision(0))
    ledger = step(ledger, result(3000, time_ms=1500.5))  # fifty minutes later: waiting is not budget time
    ledger = step(ledger, result(3001, time_ms=2000))
    assert ledger.usage.time_seconds == pytest.approx(3.5005)
    assert inv_005_budget_overrun_requires_approval(result(3002), ledger, None) == []


def test_nonsense_usage_figures_add_nothing() -> None:
    ledger = step(START, result(0, time_ms=float("nan")))
    ledger = step(ledger, result(1, time_ms=-5, tokens=-3))
    assert (ledger.usage.time_seconds, ledger.usage.tokens) == (0.0, 0)


def test_an_answered_budget_escalation_extends_the_envelope_by_the_answer_s_budgets() -> None:
    ledger = step(step(START, decision(0, tokens=900)), result(1, tokens=1000))
    assert inv_005_budget_overrun_requires_approval(result(2), ledger, None)  # 1000 > 900, no approval yet
    ledger = step(ledger, escalation(2), "S8_ESCALATED")
    assert (ledger.budget_approved, ledger.budget_escalation_open) == (True, True)
    assert inv_005_budget_overrun_requires_approval(result(3), ledger, None) == []  # approved while open
    ledger = step(ledger, decision(4, tokens=500), "S3_DECIDE")  # the answer: 500 more on top of the 1000 spent
    assert ledger.budgets is not None
    assert (ledger.budgets.tokens, ledger.budget_approved, ledger.budget_escalation_open) == (1500, False, False)
    ledger = step(ledger, result(5, tokens=600))
    assert [v.rule for v in inv_005_budget_overrun_requires_approval(result(6), ledger, None)] == ["INV-005"]


def test_a_later_decision_that_answers_no_escalation_leaves_the_envelope_alone() -> None:
    ledger = step(step(START, decision(0, tokens=900)), result(1, tokens=100))
    ledger = step(ledger, decision(2, tokens=50), "S3_DECIDE")
    assert ledger.budgets is not None
    assert ledger.budgets.tokens == 900  # never compared with the 100 spent before it, never a shrink


def test_an_override_with_an_envelope_replaces_it_and_is_itself_the_approval() -> None:
    ledger = step(step(START, decision(0, tokens=900)), result(1, tokens=1000))
    ledger = step(ledger, override(2, tokens=3000))
    assert ledger.budgets is not None
    assert (ledger.budgets.tokens, ledger.budget_approved) == (3000, False)
    ledger = step(ledger, result(3, tokens=2500))
    assert [v.rule for v in inv_005_budget_overrun_requires_approval(result(4), ledger, None)] == ["INV-005"]


def test_an_override_without_an_envelope_approves_the_overrun_as_it_is() -> None:
    ledger = step(step(START, decision(0, tokens=900)), result(1, tokens=1000))
    ledger = step(ledger, override(2, tokens=None))
    assert ledger.budgets is not None
    assert (ledger.budgets.tokens, ledger.budget_approved) == (900, True)
    assert inv_005_budget_overrun_requires_approval(result(3), ledger, None) == []
