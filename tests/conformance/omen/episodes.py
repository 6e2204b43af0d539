"""The spec's examples and the valid base episodes, built from `packets`.

Sources: OMEN.md §9.2 (MCP envelope), §15.2 (canonical DecisionPacket), §15.3 (verify loop), §11.3 templates
A-F, and the transition table of fsm-transitions-v0.7.md. Each base episode is valid: every packet must be
accepted with no ERROR; the negative suite mutates exactly one thing in a copy.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tests.conformance.omen.packets import (
    CANONICAL_MEDIUM,
    HIGH,
    HOSTILE_HIGH,
    LOW,
    MEDIUM,
    MEDIUM_UNCERTAIN,
    OPTIONS,
    Ep,
    Packet,
    at,
    budgets,
    ref,
)

# --------------------------------------------------------------------------- OMEN.md §15.2, verbatim
CANONICAL_DECISION_VERBATIM: Packet = {
    "header": {
        "packet_id": "pkt_0123",
        "packet_type": "DecisionPacket",
        "created_at": "2025-12-21T11:32:00-05:00",
        "layer_source": 5,
        "correlation_id": "corr_77A",
        "campaign_id": "camp_OMEN_BOOT",
    },
    "mcp": {
        "intent": {"summary": "Decide whether to verify intel before acting", "scope": "intel_update"},
        "stakes": {"impact": "MEDIUM", "irreversibility": "REVERSIBLE", "uncertainty": "HIGH",
                   "adversariality": "CONTESTED", "stakes_level": "MEDIUM"},
        "quality": {
            "quality_tier": "PAR",
            "satisficing_mode": True,
            "verification_requirement": "VERIFY_ONE",
            "definition_of_done": {"text": "Have at least one fresh observation for the key unknown",
                                   "checks": ["fresh evidence collected"]},
        },
        "budgets": {"token_budget": 900, "tool_call_budget": 2, "time_budget_seconds": 90,
                    "risk_budget": {"envelope": "low", "max_loss": "small"}},
        "epistemics": {
            "status": "HYPOTHESIZED",
            "confidence": 0.45,
            "calibration_note": "Uncertainty high; no fresh observation yet",
            "freshness_class": "OPERATIONAL",
            "stale_if_older_than_seconds": 1800,
            "assumptions": ["Local threat level is low enough to proceed"],
        },
        "evidence": {"evidence_refs": [], "evidence_absent_reason": "No tool read executed yet in this episode"},
        "routing": {"task_class": "VERIFY", "tools_state": "tools_ok"},
    },
    "payload": {
        "decision_outcome": "VERIFY_FIRST",
        "decision_summary": "Verify the load-bearing assumption with one tool read before any action.",
    },
}


def canonical_decision() -> Packet:
    """§15.2 made schema-complete: the example omits payload.constraints_satisfied, which
    DecisionPacket.schema.json requires. Nothing else is changed."""
    packet = copy.deepcopy(CANONICAL_DECISION_VERBATIM)
    # schema-complete: the document elides payload.constraints_satisfied (required by DecisionPacket.schema.json)
    packet["payload"]["constraints_satisfied"] = {"constitutional_check": True, "budget_check": True,
                                                  "tier_check": True}
    return packet


# --------------------------------------------------------------------------- OMEN.md §9.2, instantiated
def section_9_2_mcp(scope: str | dict[str, Any] = "intel_update") -> dict[str, Any]:
    """The §9.2 envelope with its literal numbers (1200/3/120, 0.72, 3600, 0.9, satisficing true) kept and one
    value chosen from each `A|B|C` enum; the "string" placeholders are filled with text."""
    return {
        "intent": {"summary": "Read the current local count in Tama", "scope": scope},
        "stakes": {"impact": "MEDIUM", "irreversibility": "REVERSIBLE", "uncertainty": "MEDIUM",
                   "adversariality": "BENIGN", "stakes_level": "MEDIUM"},
        "quality": {"quality_tier": "PAR", "satisficing_mode": True,
                    "definition_of_done": {"text": "One fresh local count recorded", "checks": ["count recorded"]},
                    "verification_requirement": "VERIFY_ONE"},
        "budgets": {"token_budget": 1200, "tool_call_budget": 3, "time_budget_seconds": 120,
                    "risk_budget": {"envelope": "low", "max_loss": "small"}},
        "epistemics": {"status": "OBSERVED", "confidence": 0.72, "calibration_note": "Single tool read, reliable API",
                       "freshness_class": "REALTIME", "stale_if_older_than_seconds": 3600,
                       "assumptions": ["ESI local endpoint is current"]},
        "evidence": {"evidence_refs": [{"ref_type": "tool_output", "ref_id": "tool://esi_local_intel/tama",
                                        "timestamp": at(0), "reliability_score": 0.9}],
                     "evidence_absent_reason": None},
        "routing": {"task_class": "LOOKUP", "tools_state": "tools_ok"},
    }


def section_9_2_observation(scope: str | dict[str, Any] = "intel_update") -> Packet:
    """An ObservationPacket carrying the §9.2 envelope (the first packet of its episode)."""
    # schema-complete: §9.2 shows the MCP section only; header and payload are completed here
    return {
        "header": {"packet_id": "pkt_mcp92_obs", "packet_type": "ObservationPacket", "created_at": at(0),
                   "layer_source": 6, "correlation_id": "corr_mcp92"},
        "mcp": section_9_2_mcp(scope),
        "payload": {"observation_type": "intel_update", "data": {"system": "Tama", "hostiles_in_local": 0},
                    "source_tool": "esi_local_intel"},
    }


# --------------------------------------------------------------------------- (a) §15.3 verify loop
class VL:
    """Packet ids of the verify loop; the VERIFY_FIRST decision is §15.2's pkt_0123."""

    CORR = "corr_77A"
    OBS, BELIEF, VERIFY_FIRST, PLAN = "pkt_vl_obs", "pkt_vl_belief", "pkt_0123", "pkt_vl_plan"
    READ, RESULT, UPDATE, REDECIDE = "pkt_vl_read", "pkt_vl_result", "pkt_vl_update", "pkt_vl_redecide"
    TASK = "task_vl_local_read"


def verify_loop(*, plan: bool = True, final: str = "ACT", wait: int = 0, obs_budgets: Mapping[str, Any] | None = None,
                tokens: int = 120) -> list[Packet]:
    """§15.3: Observation, BeliefUpdate, Decision VERIFY_FIRST (§15.2), VerificationPlan, READ directive,
    TaskResult (OBSERVED, SUCCESS), BeliefUpdate citing the result, Decision `final`.
    `wait` seconds of event time pass after the VERIFY_FIRST decision (not budget time)."""
    ep = Ep(VL.CORR, stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT")
    obs_ref = ref("tool_output", f"tool://{VL.OBS}", 0)
    w = wait
    # After a long wait the loop cites the pilot's fresh report instead of the then stale first read (INV-004).
    fresh = obs_ref if not w else ref("user_observation", "user://pilot_back_at_keyboard", w + 140)
    obs_kw: dict[str, Any] = {"budgets": obs_budgets} if obs_budgets else {}
    packets = [
        ep.observation(VL.OBS, 0, **obs_kw),
        ep.belief(VL.BELIEF, 60, refs=[obs_ref], cites=[VL.OBS]),
        canonical_decision(),  # at 120 s
        ep.plan(VL.PLAN, w + 150, decision_pid=VL.VERIFY_FIRST, refs=[fresh]),
        ep.directive(VL.READ, w + 180, task_id=VL.TASK, refs=[fresh]),
        ep.result(VL.RESULT, w + 220, task_id=VL.TASK, directive_pid=VL.READ, tokens=tokens),
        ep.belief(VL.UPDATE, w + 260, refs=[ref("tool_output", f"tool://{VL.TASK}", w + 220, 0.95)],
                  cites=[VL.RESULT], update_type="confidence_adjustment", confidence=0.85),
        ep.decision(VL.REDECIDE, w + 300, outcome=final,
                    refs=[ref("tool_output", f"tool://{VL.TASK}", w + 220, 0.95)],
                    text="The verified local count supports the plan." if final == "ACT" else
                    "Hand the call to the pilot with the verified picture.",
                    extra={"load_bearing_assumptions": [{"assumption": "Local threat level is low enough to proceed",
                                                         "verified": True, "verification_packet_id": VL.RESULT}]}),
    ]
    return [p for p in packets if plan or p["header"]["packet_id"] != VL.PLAN]


# --------------------------------------------------------------------------- (b) token-authorised write
class WR:
    CORR = "corr_write_001"
    OBS, BELIEF, ACT, TOKEN = "pkt_wr_obs", "pkt_wr_belief", "pkt_wr_act", "pkt_wr_token"
    WRITE, RESULT, UPDATE = "pkt_wr_write", "pkt_wr_result", "pkt_wr_update"
    TOKEN_ID, TASK, TOOL = "token_wr_sell_order", "task_wr_sell_order", "esi_market_order"
    WRITE_AT, EXPIRY_AT = 240, 1800
    PARAMS = {"operation": "write", "type_id": 34, "quantity": 5, "price": 5.1, "station_id": "60003760"}
    ARBITRATION = {
        "chosen_option": {"option_id": "opt_sell_now", "description": "Sell 5 units at Jita 4-4",
                          "expected_value": 25.5, "risk_profile": "low, reversible within the order window"},
        "rejected_alternatives": [{"option_id": "opt_hold", "rejection_reason": "price trend is falling"}],
        "load_bearing_assumptions": [{"assumption": "Jita buy price is at least 5.0", "verified": True,
                                      "verification_packet_id": "pkt_wr_obs"}],
        "failure_modes": [{"mode": "price drops before fill", "mitigation": "order can be cancelled"}],
    }


def market_observation(ep: Ep, pid: str, t: float) -> Packet:
    return ep.observation(pid, t, observation_type="market_signal", tool="esi_market_prices",
                          data={"type_id": 34, "station_id": "60003760", "best_buy": 5.12},
                          summary="Record the Jita price")


def write_episode() -> list[Packet]:
    """Obs, belief, ACT decision (arbitrating, safety-first), Layer 1 token (write scope, future expiry,
    max_usage_count 1), WRITE directive quoting it, TaskResult SUCCESS, closing belief update."""
    ep = Ep(WR.CORR, stakes=MEDIUM)
    market = ref("tool_output", f"tool://{WR.OBS}", 0)
    return [
        market_observation(ep, WR.OBS, 0),
        ep.belief(WR.BELIEF, 60, refs=[market], cites=[WR.OBS],
                  changes=[{"domain": "market", "key": "jita_buy_34", "new_value": 5.12, "prior_value": 4.9}]),
        ep.decision(WR.ACT, 120, outcome="ACT", refs=[market], extra=WR.ARBITRATION,
                    text="Safety-first: sell now within a bounded, reversible order."),
        ep.token(WR.TOKEN, 180, token_id=WR.TOKEN_ID, expiry_t=WR.EXPIRY_AT, refs=[market]),
        ep.directive(WR.WRITE, WR.WRITE_AT, task_id=WR.TASK, tool_id=WR.TOOL, safety="WRITE",
                     token_id=WR.TOKEN_ID, params=WR.PARAMS, refs=[market]),
        ep.result(WR.RESULT, 300, task_id=WR.TASK, directive_pid=WR.WRITE, tokens=80, task_class="CREATE"),
        ep.belief(WR.UPDATE, 360, refs=[ref("tool_output", f"tool://{WR.TASK}", 300)], cites=[WR.RESULT],
                  changes=[{"domain": "assets", "key": "open_sell_orders", "new_value": 1, "prior_value": 0}]),
    ]


# --------------------------------------------------------------------------- (c) degraded tools escalation
class DG:
    CORR = "corr_degraded_001"
    OBS, BELIEF, ESCALATE, ESCALATION = "pkt_dg_obs", "pkt_dg_belief", "pkt_dg_escalate", "pkt_dg_escalation"


def degraded_ep() -> Ep:
    return Ep(DG.CORR, stakes=HOSTILE_HIGH, tier="SUPERB", tools="tools_down")


def degraded_escalation() -> list[Packet]:
    """tools_down at HIGH stakes: a pilot report, a belief, an ESCALATE decision and its EscalationPacket."""
    ep = degraded_ep()
    pilot = ref("user_observation", f"user://{DG.OBS}", 0, 0.6)
    return [
        ep.observation(DG.OBS, 0, source="user_observation", data={"report": "gate camp suspected in Tama"}),
        ep.belief(DG.BELIEF, 60, refs=[pilot], cites=[DG.OBS], confidence=0.4),
        ep.decision(DG.ESCALATE, 120, outcome="ESCALATE", refs=[pilot],
                    text="Tools are down and the stakes are high: the pilot decides."),
        ep.escalation(DG.ESCALATION, 180, trigger="tools_degraded_critical", refs=[pilot], blocking=DG.ESCALATE),
    ]


def degraded_act_decision() -> Packet:
    """The INV-010 mutant of (c)'s decision: ACT, SUPERB, every load-bearing assumption verified (INV-003 met)."""
    return degraded_ep().decision(
        DG.ESCALATE, 120, outcome="ACT", refs=[ref("user_observation", f"user://{DG.OBS}", 0, 0.6)],
        text="Jump through now.",
        extra={"load_bearing_assumptions": [{"assumption": "Gate is clear", "verified": True,
                                             "verification_packet_id": DG.OBS}]})


# --------------------------------------------------------------------------- §11.3 templates A, C, E, F
def grounding(outcome: str = "ACT") -> list[Packet]:
    """A: Sense -> Model -> Decide (two observations, two belief updates, a LOW-stakes decision)."""
    ep = Ep("corr_grounding_001", stakes=LOW)
    tool, user = ref("tool_output", "tool://pkt_gr_obs1", 0), ref("user_observation", "user://pkt_gr_obs2", 30)
    packets = [
        ep.observation("pkt_gr_obs1", 0),
        ep.observation("pkt_gr_obs2", 30, source="user_observation", data={"note": "quiet evening in Tama"}),
        ep.belief("pkt_gr_belief1", 60, refs=[tool], cites=["pkt_gr_obs1"]),
        ep.belief("pkt_gr_belief2", 90, refs=[user], cites=["pkt_gr_obs2"], update_type="confidence_adjustment"),
        ep.decision("pkt_gr_decide", 120, outcome=outcome, refs=[tool, user], text="Run the planned haul."),
    ]
    if outcome in ("DEFER", "CANCEL"):
        packets.append(ep.belief("pkt_gr_review", 150, refs=[tool], update_type="staleness_refresh"))
    return packets


class RO:
    CORR = "corr_readonly_001"
    OBS, BELIEF, ACT, READ, RESULT = "pkt_ro_obs", "pkt_ro_belief", "pkt_ro_act", "pkt_ro_read", "pkt_ro_result"
    UPDATE, DOCTRINE, TASK = "pkt_ro_update", "pkt_ro_doctrine", "task_ro_wallet"
    READ_AT = 180


def read_only_act(*, stakes: Mapping[str, str] = LOW, tools: str = "tools_ok", result_at: float = 240,
                  directive_budgets: Mapping[str, Any] | None = None, timeout: int = 30, retries: int = 1,
                  act_text: str = "Check the wallet before the purchase.",
                  act_extra: dict[str, Any] | None = None) -> list[Packet]:
    """C: ACT decision -> READ directive -> result -> belief integration (S7_REVIEW) -> doctrine update."""
    ep = Ep(RO.CORR, stakes=stakes, tools=tools)
    tool = ref("tool_output", f"tool://{RO.OBS}", 0)
    directive_kw: dict[str, Any] = {"budgets": directive_budgets} if directive_budgets else {}
    return [
        ep.observation(RO.OBS, 0, observation_type="character_state", tool="esi_wallet",
                       data={"wallet_isk": 1_200_000}),
        ep.belief(RO.BELIEF, 60, refs=[tool], cites=[RO.OBS]),
        ep.decision(RO.ACT, 120, outcome="ACT", refs=[tool], text=act_text, extra=act_extra),
        ep.directive(RO.READ, RO.READ_AT, task_id=RO.TASK, tool_id="esi_wallet", refs=[tool],
                     params={"character": "self"}, timeout=timeout, retries=retries, task_class="LOOKUP",
                     **directive_kw),
        ep.result(RO.RESULT, result_at, task_id=RO.TASK, directive_pid=RO.READ, task_class="LOOKUP"),
        ep.belief(RO.UPDATE, result_at + 60, refs=[ref("tool_output", f"tool://{RO.TASK}", result_at)],
                  cites=[RO.RESULT]),
        ep.belief(RO.DOCTRINE, result_at + 120, refs=[ref("tool_output", f"tool://{RO.TASK}", result_at)],
                  update_type="staleness_refresh",
                  changes=[{"domain": "doctrine", "key": "check_wallet_before_buy", "new_value": True,
                            "prior_value": None}]),
    ]


def escalation_template() -> list[Packet]:
    """E: ESCALATE decision at HIGH stakes + HIGH uncertainty, then the options (presented twice: S8 -> S8)."""
    ep = Ep("corr_escalation_001", stakes=HIGH, tier="SUPERB")
    intel = ref("tool_output", "tool://pkt_es_obs", 0)
    return [
        ep.observation("pkt_es_obs", 0, data={"system": "Tama", "hostiles_in_local": 14}),
        ep.belief("pkt_es_belief", 60, refs=[intel], cites=["pkt_es_obs"], confidence=0.5),
        ep.decision("pkt_es_escalate", 120, outcome="ESCALATE", refs=[intel],
                    text="High stakes and high uncertainty: present options."),
        ep.escalation("pkt_es_escalation", 180, trigger="high_stakes_high_uncertainty", refs=[intel],
                      blocking="pkt_es_escalate", options=OPTIONS),
        ep.escalation("pkt_es_escalation2", 240, trigger="high_stakes_high_uncertainty", refs=[intel],
                      blocking="pkt_es_escalate", options=OPTIONS[:2]),
    ]


def partial_tools_act() -> list[Packet]:
    """F (tools_partial, MEDIUM): act with limited scope and uncertainty labelled HIGH."""
    return read_only_act(stakes=MEDIUM_UNCERTAIN, tools="tools_partial")


# --------------------------------------------------------------------------- Part 1 semantics episodes
class PA:
    CORR = "corr_preauth_001"
    TOKEN, OBS, BELIEF, ACT = "pkt_pa_token", "pkt_pa_obs", "pkt_pa_belief", "pkt_pa_act"
    WRITE, RESULT, UPDATE = "pkt_pa_write", "pkt_pa_result", "pkt_pa_update"


def pre_authorized_write() -> list[Packet]:
    """Layer 1 pre-authorization: the token is the episode's first packet (S0 -> S5), then obs, belief,
    ACT decision and the WRITE directive quoting it."""
    ep = Ep(PA.CORR, stakes=MEDIUM)
    market = ref("tool_output", f"tool://{PA.OBS}", 60)
    standing = ref("memory_item", "memory://standing_order_34", -3600)
    return [
        ep.token(PA.TOKEN, 0, token_id="token_pa_standing", expiry_t=1800, refs=[standing],
                 status="REMEMBERED", note="Standing Layer 1 policy for bounded sell orders"),
        market_observation(ep, PA.OBS, 60),
        ep.belief(PA.BELIEF, 120, refs=[market], cites=[PA.OBS]),
        ep.decision(PA.ACT, 180, outcome="ACT", refs=[market], text="Place the pre-authorized sell order."),
        ep.directive(PA.WRITE, 240, task_id="task_pa_sell", tool_id=WR.TOOL, safety="WRITE",
                     token_id="token_pa_standing", params=WR.PARAMS, refs=[market]),
        ep.result(PA.RESULT, 300, task_id="task_pa_sell", directive_pid=PA.WRITE, task_class="CREATE"),
        ep.belief(PA.UPDATE, 360, refs=[ref("tool_output", "tool://task_pa_sell", 300)], cites=[PA.RESULT]),
    ]


class BE:
    CORR = "corr_budget_001"
    OBS, BELIEF, ESCALATE, ESCALATION = "pkt_be_obs", "pkt_be_belief", "pkt_be_escalate", "pkt_be_escalation"
    ANSWER, READ, RESULT, TASK = "pkt_be_answer", "pkt_be_read", "pkt_be_result", "task_be_scan"


def budget_escalation(result_tokens: int = 2000) -> list[Packet]:
    """The first decision (budgets 900 tokens) escalates budget_insufficient; the pilot's answer (S8 -> S3)
    grants a larger follow-up budget; the result then reports more tokens than the first envelope."""
    ep = Ep(BE.CORR, stakes=MEDIUM)
    intel = ref("tool_output", f"tool://{BE.OBS}", 0)
    return [
        ep.observation(BE.OBS, 0),
        ep.belief(BE.BELIEF, 60, refs=[intel], cites=[BE.OBS]),
        ep.decision(BE.ESCALATE, 120, outcome="ESCALATE", refs=[intel],
                    text="A full regional scan needs more tokens than the envelope holds."),
        ep.escalation(BE.ESCALATION, 180, trigger="budget_insufficient", refs=[intel], blocking=BE.ESCALATE),
        ep.decision(BE.ANSWER, 240, outcome="ACT", refs=[intel], budgets=budgets(tokens=3000),
                    text="Pilot approved the larger scan."),
        ep.directive(BE.READ, 300, task_id=BE.TASK, refs=[intel], task_class="SEARCH"),
        ep.result(BE.RESULT, 340, task_id=BE.TASK, directive_pid=BE.READ, tokens=result_tokens),
    ]


def contested_high_decision() -> list[Packet]:
    """impact MEDIUM, REVERSIBLE, uncertainty HIGH, CONTESTED, stakes_level HIGH (CONTESTED counts as HIGH)."""
    contested = {"impact": "MEDIUM", "irreversibility": "REVERSIBLE", "uncertainty": "HIGH",
                 "adversariality": "CONTESTED", "stakes_level": "HIGH"}
    ep = Ep("corr_contested_001", stakes=contested, tier="SUPERB")
    intel = ref("tool_output", "tool://pkt_ct_obs", 0)
    return [
        ep.observation("pkt_ct_obs", 0),
        ep.belief("pkt_ct_belief", 60, refs=[intel], cites=["pkt_ct_obs"]),
        ep.decision("pkt_ct_decide", 120, outcome="VERIFY_FIRST", refs=[intel],
                    text="Contested space: verify the gate before committing."),
    ]


def safe_mode_alert(ep_corr: str, pid: str, t: float, **extra: Any) -> Packet:
    """A CRITICAL IntegrityAlertPacket entering safe mode; `extra` adds payload keys (the payload is open)."""
    return Ep(ep_corr).alert(pid, t, severity="CRITICAL", alert_type="safe_mode_entry",
                             description="Integrity forces safe mode: drift detected",
                             extra={"action_taken": "safe_mode_entered", **extra})
