"""Every worked example of the specs, rebuilt with the kit, is ACCEPTED (no warning) by `evolve`, packet by packet:
OMEN.md §9.2 (the MCP envelope), §15.2 (the canonical DecisionPacket), §15.3 (the verify loop) and the
templates A-F (OMEN.md §11.3, walked through the transition table of fsm-transitions-v0.7.md). Expected states
are the FSM document's.

§15.2 as printed lacks `payload.constraints_satisfied`, which DecisionPacket.schema.json requires: the kit
requires it too (`DecisionPayload`), so the rebuilt example supplies it (all three checks true); nothing else
differs from the printed packet.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from omega.packets.authenticity import AuthKey, AuthPolicy
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve
from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.producer import Episode
from omega.producer.mcp import Budgets, Evidence, EvidenceRef, Intent, RiskBudget
from omega.producer.payloads import BeliefChange, DecisionPayload, ObservationPayload
from tests.unit.omega.producer.builders import (
    ALL_CHECKS,
    CANONICAL_BUDGETS,
    CANONICAL_MEDIUM,
    HIGH,
    HOSTILE_HIGH,
    LOW,
    MEDIUM,
    MEDIUM_UNCERTAIN,
    OPTIONS,
    T0,
    Steps,
    at,
    epistemics,
    quality,
    ref,
    routing,
    stakes,
)

S1, S2, S3, S4, S5 = "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S4_VERIFY", "S5_AUTHORIZE"
S6, S7, S8 = "S6_EXECUTE", "S7_REVIEW", "S8_ESCALATED"
SECTION_15_2 = {  # OMEN.md §15.2 as printed
    "header": {"packet_id": "pkt_0123", "packet_type": "DecisionPacket", "created_at": "2025-12-21T11:32:00-05:00",
               "layer_source": 5, "correlation_id": "corr_77A", "campaign_id": "camp_OMEN_BOOT"},
    "mcp": {
        "intent": {"summary": "Decide whether to verify intel before acting", "scope": "intel_update"},
        "stakes": {"impact": "MEDIUM", "irreversibility": "REVERSIBLE", "uncertainty": "HIGH",
                   "adversariality": "CONTESTED", "stakes_level": "MEDIUM"},
        "quality": {"quality_tier": "PAR", "satisficing_mode": True, "verification_requirement": "VERIFY_ONE",
                    "definition_of_done": {"text": "Have at least one fresh observation for the key unknown",
                                           "checks": ["fresh evidence collected"]}},
        "budgets": {"token_budget": 900, "tool_call_budget": 2, "time_budget_seconds": 90,
                    "risk_budget": {"envelope": "low", "max_loss": "small"}},
        "epistemics": {"status": "HYPOTHESIZED", "confidence": 0.45,
                       "calibration_note": "Uncertainty high; no fresh observation yet",
                       "freshness_class": "OPERATIONAL", "stale_if_older_than_seconds": 1800,
                       "assumptions": ["Local threat level is low enough to proceed"]},
        "evidence": {"evidence_refs": [], "evidence_absent_reason": "No tool read executed yet in this episode"},
        "routing": {"task_class": "VERIFY", "tools_state": "tools_ok"},
    },
    "payload": {"decision_outcome": "VERIFY_FIRST",
                "decision_summary": "Verify the load-bearing assumption with one tool read before any action."},
}


def judge(packets: list[dict[str, Any]], policy: AuthPolicy | None = None) -> list[PacketVerdict]:
    ledger: EpisodeLedger | None = None
    verdicts = []
    for packet in packets:
        ledger, outputs = evolve(ledger, packet, policy)
        verdict = outputs[0]
        assert isinstance(verdict, PacketVerdict)
        verdicts.append(verdict)
    return verdicts


def accepted_states(packets: list[dict[str, Any]], policy: AuthPolicy | None = None) -> list[str | None]:
    """The states after each packet, once every packet is found ACCEPTED with no violation at all."""
    verdicts = judge(packets, policy)
    assert [(v.packet_id, v.status, v.violations) for v in verdicts] == [
        (v.packet_id, VerdictStatus.ACCEPTED, ()) for v in verdicts]
    return [v.state_after for v in verdicts]


# --------------------------------------------------------------------------- §15.2
def canonical_decision(steps: Steps) -> DecisionPayload:
    """§15.2 through the kit, at T0 + 120 s, in `steps`' episode (stakes, PAR tier, §15.2 budgets)."""
    steps.now = at(120)
    return steps.episode.decision(
        DecisionPayload(decision_outcome="VERIFY_FIRST",
                        decision_summary="Verify the load-bearing assumption with one tool read before any action.",
                        # not in the printed example: required by DecisionPacket.schema.json and by the kit
                        constraints_satisfied=ALL_CHECKS.model_copy(update={"verification_check": None})),
        packet_id="pkt_0123",
        intent=Intent(summary="Decide whether to verify intel before acting", scope="intel_update"),
        quality=quality(dod="Have at least one fresh observation for the key unknown",
                        checks=["fresh evidence collected"]),
        epistemics=epistemics("HYPOTHESIZED", 0.45, "Uncertainty high; no fresh observation yet",
                              assumptions=["Local threat level is low enough to proceed"]),
        evidence=Evidence.absent("No tool read executed yet in this episode"), routing=routing("VERIFY"))


def test_section_15_2_rebuilt_is_the_printed_packet_plus_constraints_satisfied() -> None:
    steps = Steps("corr_77A", stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT")
    dump = canonical_decision(steps).to_json()
    assert dump["payload"].pop("constraints_satisfied") == {
        "constitutional_check": True, "budget_check": True, "tier_check": True}
    assert dump == SECTION_15_2


def test_section_15_2_without_constraints_satisfied_is_refused_by_the_kit() -> None:
    with pytest.raises(ValidationError, match="constraints_satisfied"):
        DecisionPayload.model_validate(SECTION_15_2["payload"])


# --------------------------------------------------------------------------- §9.2
@pytest.mark.parametrize("scope", ["intel_update", {"system": "Tama", "domain": "intel_update"}])
def test_section_9_2_envelope_on_an_observation_is_accepted(scope: str | dict[str, str]) -> None:
    """§9.2's literal numbers (1200/3/120, 0.72, 3600, 0.9, satisficing true), one value of each enum."""
    episode = Episode("corr_mcp92", layer_source=6, clock=lambda: T0, stakes=stakes(
        "MEDIUM", "REVERSIBLE", "MEDIUM", "BENIGN", "MEDIUM"), quality=quality(
        dod="One fresh local count recorded", checks=["count recorded"]),
        budgets=Budgets(token_budget=1200, tool_call_budget=3, time_budget_seconds=120,
                        risk_budget=RiskBudget(envelope="low", max_loss="small")), routing=routing("LOOKUP"))
    packet = episode.observation(
        ObservationPayload(observation_type="intel_update", data={"system": "Tama", "hostiles_in_local": 0},
                           source_tool="esi_local_intel"),
        intent=Intent(summary="Read the current local count in Tama", scope=scope),
        epistemics=epistemics("OBSERVED", 0.72, "Single tool read, reliable API", "REALTIME", 3600,
                              ["ESI local endpoint is current"]),
        evidence=Evidence(evidence_refs=[EvidenceRef(ref_type="tool_output", ref_id="tool://esi_local_intel/tama",
                                                     timestamp=T0, reliability_score=0.9)]))
    dump = packet.to_json()
    assert "evidence_absent_reason" not in dump["mcp"]["evidence"]  # §9.2's `null`: left out, never written
    assert dump["mcp"]["budgets"]["token_budget"] == 1200
    assert accepted_states([dump]) == [S1]


# --------------------------------------------------------------------------- §15.3 and template B
def verify_loop(final: str = "ACT", *, observe_in_verify: bool = False) -> list[dict[str, Any]]:
    """§15.3: observation, belief, §15.2's VERIFY_FIRST, plan, READ directive, result (OBSERVED), belief
    citing it, the re-decision `final`; template B adds an observation collected in S4_VERIFY."""
    s = Steps("corr_77A", stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT")
    obs = s.observation(0)
    first = ref("tool_output", f"tool://obs/{0}", 0)
    s.belief(60, refs=[first], cites=[obs.header.packet_id])
    decision = canonical_decision(s)
    s.plan(150, decision_id=decision.header.packet_id, refs=[first])
    read = s.directive(180, task_id="task_vl_local_read", refs=[first])
    result = s.result(220, task_id="task_vl_local_read", directive_id=read.header.packet_id)
    if observe_in_verify:
        s.observation(230)
    fresh = ref("tool_output", "tool://task_vl_local_read", 220, 0.95)
    s.belief(260, refs=[fresh], cites=[result.header.packet_id], update_type="confidence_adjustment")
    s.decision(300, outcome=final, refs=[fresh], extra={"load_bearing_assumptions": [{
        "assumption": "Local threat level is low enough to proceed", "verified": True,
        "verification_packet_id": result.header.packet_id}]})
    return s.packets


def test_section_15_3_verify_loop_is_accepted_and_act_waits_in_decide() -> None:
    packets = verify_loop()
    assert [p["header"]["packet_type"] for p in packets] == [
        "ObservationPacket", "BeliefUpdatePacket", "DecisionPacket", "VerificationPlanPacket",
        "TaskDirectivePacket", "TaskResultPacket", "BeliefUpdatePacket", "DecisionPacket"]
    assert packets[2]["header"]["packet_id"] == "pkt_0123"
    assert accepted_states(packets) == [S1, S2, S4, S4, S4, S4, S2, S3]


def test_section_15_3_verify_loop_closing_with_escalate_is_accepted() -> None:
    assert accepted_states(verify_loop("ESCALATE")) == [S1, S2, S4, S4, S4, S4, S2, S8]


def test_template_b_observation_collected_in_verify_stays_in_verify() -> None:
    assert accepted_states(verify_loop(observe_in_verify=True)) == [S1, S2, S4, S4, S4, S4, S4, S2, S3]


# --------------------------------------------------------------------------- template A
@pytest.mark.parametrize(("outcome", "after"), [("ACT", [S3]), ("DEFER", [S7, S7]), ("CANCEL", [S7, S7])])
def test_template_a_grounding_senses_models_and_decides(outcome: str, after: list[str]) -> None:
    s = Steps("corr_grounding_001", stakes=LOW)
    tool_obs = s.observation(0)
    user_obs = s.observation(30, source="user_observation", data={"note": "quiet evening in Tama"})
    tool, user = ref("tool_output", "tool://obs/0", 0), ref("user_observation", "user://obs/30", 30)
    s.belief(60, refs=[tool], cites=[tool_obs.header.packet_id])
    s.belief(90, refs=[user], cites=[user_obs.header.packet_id], update_type="confidence_adjustment")
    s.decision(120, outcome=outcome, refs=[tool, user], text="Run the planned haul.")
    if outcome != "ACT":
        s.belief(150, refs=[tool], update_type="staleness_refresh")
    assert accepted_states(s.packets) == [S1, S1, S2, S2, *after]


# --------------------------------------------------------------------------- templates C and F (partial tools)
def read_only_act(stakes_: Any = LOW, tools: str = "tools_ok") -> list[dict[str, Any]]:
    s = Steps("corr_readonly_001", stakes=stakes_, tools=tools)
    obs = s.observation(0, kind="character_state", tool="esi_wallet", data={"wallet_isk": 1_200_000})
    wallet = ref("tool_output", "tool://obs/0", 0)
    s.belief(60, refs=[wallet], cites=[obs.header.packet_id])
    s.decision(120, outcome="ACT", refs=[wallet], text="Check the wallet before the purchase.")
    read = s.directive(180, task_id="task_ro_wallet", refs=[wallet], tool="esi_wallet", params={"character": "self"},
                       task_class="LOOKUP")
    result = s.result(240, task_id="task_ro_wallet", directive_id=read.header.packet_id, task_class="LOOKUP")
    read_ref = ref("tool_output", "tool://task_ro_wallet", 240)
    s.belief(300, refs=[read_ref], cites=[result.header.packet_id])
    s.belief(360, refs=[read_ref], update_type="staleness_refresh", change=BeliefChange(
        domain="doctrine", key="check_wallet_before_buy", new_value=True, prior_value=False))
    return s.packets


def test_template_c_read_only_act_executes_and_reviews() -> None:
    assert accepted_states(read_only_act()) == [S1, S2, S3, S6, S6, S7, S7]


def test_template_f_tools_partial_at_medium_acts_with_uncertainty_high() -> None:
    packets = read_only_act(MEDIUM_UNCERTAIN, "tools_partial")
    assert {p["mcp"]["routing"]["tools_state"] for p in packets} == {"tools_partial"}
    assert accepted_states(packets) == [S1, S2, S3, S6, S6, S7, S7]


# --------------------------------------------------------------------------- template D (signed and not)
LAYER1 = AuthPolicy.of({"layer1-governor": AuthKey(b"layer-one-secret-0123", frozenset({"1"}))})


def write_episode(signing: AuthPolicy | None = None) -> list[dict[str, Any]]:
    s = Steps("corr_write_001", stakes=MEDIUM, signing=signing)
    obs = s.observation(0, kind="market_signal", tool="esi_market_prices",
                        data={"type_id": 34, "station_id": "60003760", "best_buy": 5.12})
    market = ref("tool_output", "tool://obs/0", 0)
    s.belief(60, refs=[market], cites=[obs.header.packet_id],
             change=BeliefChange(domain="market", key="jita_buy_34", new_value=5.12, prior_value=4.9))
    s.decision(120, outcome="ACT", refs=[market], text="Safety-first: sell now within a bounded, reversible order.",
               extra={"chosen_option": {"option_id": "opt_sell_now", "expected_value": 25.5},
                      "rejected_alternatives": [{"option_id": "opt_hold", "rejection_reason": "price is falling"}]})
    s.token(180, token_id="token_wr_sell_order", expiry_t=1800, refs=[market])
    write = s.directive(240, task_id="task_wr_sell_order", refs=[market], tool="esi_market_order", safety="WRITE",
                        token_id="token_wr_sell_order", params={"type_id": 34, "quantity": 5, "price": 5.1},
                        task_class="CREATE")
    result = s.result(300, task_id="task_wr_sell_order", directive_id=write.header.packet_id, tokens=80,
                      task_class="CREATE")
    s.belief(360, refs=[ref("tool_output", "tool://task_wr_sell_order", 300)], cites=[result.header.packet_id],
             change=BeliefChange(domain="assets", key="open_sell_orders", new_value=1, prior_value=0))
    return s.packets


def test_template_d_write_act_authorizes_executes_and_reviews() -> None:
    assert accepted_states(write_episode()) == [S1, S2, S3, S5, S6, S6, S7]


def test_template_d_signed_by_layer_1_is_accepted_under_the_policy() -> None:
    packets = write_episode(LAYER1)
    assert [p["header"]["packet_type"] for p in packets if "_auth" in p] == ["ToolAuthorizationToken"]
    assert accepted_states(packets, LAYER1) == [S1, S2, S3, S5, S6, S6, S7]
    unsigned = write_episode()
    assert judge(unsigned, LAYER1)[3].status is VerdictStatus.REJECTED  # the policy does want the signature


# --------------------------------------------------------------------------- templates E and F (tools down)
def test_template_e_escalation_presents_options_twice() -> None:
    s = Steps("corr_escalation_001", stakes=HIGH, tier="SUPERB")
    obs = s.observation(0, data={"system": "Tama", "hostiles_in_local": 14})
    intel = ref("tool_output", "tool://obs/0", 0)
    s.belief(60, refs=[intel], cites=[obs.header.packet_id])
    decision = s.decision(120, outcome="ESCALATE", refs=[intel], text="High stakes and high uncertainty.")
    s.escalation(180, trigger="high_stakes_high_uncertainty", refs=[intel], blocking=decision.header.packet_id,
                 options=OPTIONS)
    s.escalation(240, trigger="high_stakes_high_uncertainty", refs=[intel], blocking=decision.header.packet_id)
    assert accepted_states(s.packets) == [S1, S2, S8, S8, S8]


def test_template_f_tools_down_at_high_stakes_escalates() -> None:
    s = Steps("corr_degraded_001", stakes=HOSTILE_HIGH, tier="SUPERB", tools="tools_down")
    obs = s.observation(0, source="user_observation", data={"report": "gate camp suspected in Tama"})
    pilot = ref("user_observation", "user://obs/0", 0, 0.6)
    s.belief(60, refs=[pilot], cites=[obs.header.packet_id])
    decision = s.decision(120, outcome="ESCALATE", refs=[pilot], text="Tools are down and the stakes are high.")
    s.escalation(180, trigger="tools_degraded_critical", refs=[pilot], blocking=decision.header.packet_id)
    assert {p["mcp"]["routing"]["tools_state"] for p in s.packets} == {"tools_down"}
    assert accepted_states(s.packets) == [S1, S2, S8, S8]


def test_the_canonical_budgets_are_section_15_2s() -> None:
    assert CANONICAL_BUDGETS.to_json() == SECTION_15_2["mcp"]["budgets"]
