"""The negative episodes: each is a copy of a valid base episode (`episodes`) with exactly one mutation.

A `Case` names the rule the mutation breaks, the episode, and the index of the packet that must be REJECTED
with that rule among its ERRORs (every packet before it must be accepted with no ERROR). `schema_valid`
says whether the rejected packet still passes its published JSON Schema: most mutations break only the
rule under test, and `test_published_schemas` checks that they do.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from tests.conformance.omen.episodes import (
    DG,
    VL,
    WR,
    degraded_act_decision,
    degraded_escalation,
    safe_mode_alert,
    verify_loop,
    write_episode,
)
from tests.conformance.omen.judging import (
    apply,
    drop,
    drop_field,
    edit,
    index_of,
    insert_after,
    replace_packet,
)
from tests.conformance.omen.packets import CANONICAL_MEDIUM, HIGH, OPTIONS, Ep, Packet, at, plain, ref


@dataclass(frozen=True)
class Case:
    id: str
    rule: str
    packets: list[Packet]
    rejected: int
    schema_valid: bool = True

    @property
    def rejected_packet(self) -> Packet:
        return self.packets[self.rejected]


def case(name: str, rule: str, packets: list[Packet], rejected: str | int, schema_valid: bool = True) -> Case:
    index = rejected if isinstance(rejected, int) else index_of(packets, rejected)
    return Case(f"{rule}:{name}", rule, packets, index, schema_valid)


def _vl_ep() -> Ep:
    return Ep(VL.CORR, stakes=CANONICAL_MEDIUM, campaign="camp_OMEN_BOOT")


MEMORY_ONLY = [ref("memory_item", "memory://tama_usually_quiet", -86400, 0.5)]


def live_claim_from_memory(packet: Packet) -> None:
    """INFERRED, REALTIME, evidence only a memory item (INV-004's mutation)."""
    packet["mcp"]["epistemics"] |= {"status": "INFERRED", "freshness_class": "REALTIME"}
    packet["mcp"]["evidence"]["evidence_refs"] = copy.deepcopy(MEMORY_ONLY)


def live_claim_without_evidence(packet: Packet) -> None:
    packet["mcp"]["epistemics"] |= {"status": "INFERRED", "freshness_class": "REALTIME"}
    packet["mcp"]["evidence"] = {"evidence_refs": [], "evidence_absent_reason": "no tool read was made"}


# --------------------------------------------------------------------------- packet-local rules
def inv_001() -> list[Case]:
    a, b = verify_loop(), write_episode()
    return [
        case("absent_reason_dropped", "INV-001", drop_field(a, VL.VERIFY_FIRST, "mcp.evidence.evidence_absent_reason"),
             VL.VERIFY_FIRST),
        case("absent_reason_null", "INV-001", edit(a, VL.VERIFY_FIRST, mcp__evidence__evidence_absent_reason=None),
             VL.VERIFY_FIRST),
        case("intent_scope_missing", "INV-001", drop_field(a, VL.VERIFY_FIRST, "mcp.intent.scope"), VL.VERIFY_FIRST,
             schema_valid=False),
        case("routing_missing", "INV-001", drop_field(a, VL.VERIFY_FIRST, "mcp.routing"), VL.VERIFY_FIRST,
             schema_valid=False),
        case("directive_risk_budget_missing", "INV-001", drop_field(b, WR.WRITE, "mcp.budgets.risk_budget"),
             WR.WRITE, schema_valid=False),
    ]


def inv_002() -> list[Case]:
    return [
        case("subpar_act", "INV-002", edit(write_episode(), WR.ACT, mcp__quality__quality_tier="SUBPAR"), WR.ACT),
        case("subpar_act_after_verify_loop", "INV-002",
             edit(verify_loop(), VL.REDECIDE, mcp__quality__quality_tier="SUBPAR"), VL.REDECIDE),
    ]


def inv_003() -> list[Case]:
    def high(tier: str, verified: bool) -> list[Packet]:
        def change(p: Packet) -> None:
            p["mcp"]["stakes"] = plain(HIGH)
            p["mcp"]["quality"]["quality_tier"] = tier
            p["payload"]["load_bearing_assumptions"][0]["verified"] = verified
        return apply(write_episode(), WR.ACT, change)
    return [
        case("high_stakes_act_at_par", "INV-003", high("PAR", True), WR.ACT),
        case("high_stakes_superb_act_unverified_assumption", "INV-003", high("SUPERB", False), WR.ACT),
    ]


def inv_004() -> list[Case]:
    b = write_episode()
    return [
        case("act_decision_memory_only", "INV-004", apply(b, WR.ACT, live_claim_from_memory), WR.ACT),
        case("act_decision_no_evidence", "INV-004", apply(b, WR.ACT, live_claim_without_evidence), WR.ACT),
        case("observation_memory_only", "INV-004", apply(b, WR.OBS, live_claim_from_memory), WR.OBS),
        case("belief_update_memory_only", "INV-004", apply(b, WR.BELIEF, live_claim_from_memory), WR.BELIEF),
    ]


def inv_006() -> list[Case]:
    b = write_episode()
    return [
        case("budget_check_false", "INV-006", edit(b, WR.ACT, payload__constraints_satisfied__budget_check=False),
             WR.ACT),
        case("constitutional_check_false", "INV-006",
             edit(b, WR.ACT, payload__constraints_satisfied__constitutional_check=False), WR.ACT),
    ]


def inv_009() -> list[Case]:
    c = degraded_escalation()
    path = "payload__top_options"
    return [
        case("one_option", "INV-009", edit(c, DG.ESCALATION, **{path: [dict(OPTIONS[0])]}), DG.ESCALATION,
             schema_valid=False),
        case("four_options", "INV-009", edit(c, DG.ESCALATION, **{path: [*map(dict, OPTIONS), dict(OPTIONS[0])]}),
             DG.ESCALATION, schema_valid=False),
        case("option_without_cons", "INV-009", drop_field(c, DG.ESCALATION, "payload.top_options.1.cons"),
             DG.ESCALATION, schema_valid=False),
        case("no_evidence_gaps", "INV-009", edit(c, DG.ESCALATION, payload__evidence_gaps=[]), DG.ESCALATION,
             schema_valid=False),
        case("no_recommended_next_step", "INV-009",
             drop_field(c, DG.ESCALATION, "payload.recommended_next_step"), DG.ESCALATION, schema_valid=False),
    ]


def inv_010() -> list[Case]:
    return [case("tools_down_high_stakes_superb_act", "INV-010",
                 replace_packet(degraded_escalation(), DG.ESCALATE, degraded_act_decision()), DG.ESCALATE)]


# --------------------------------------------------------------------------- FSM rules and duplicates
def fsm() -> list[Case]:
    early_read = _vl_ep().directive("pkt_vl_early_read", 0, task_id="task_vl_early",
                                    refs=[ref("tool_output", f"tool://{VL.OBS}", 0)])
    before_any_decision, i = insert_after(verify_loop(), VL.BELIEF, early_read)
    late_read = Ep(DG.CORR, stakes=HIGH, tier="SUPERB", tools="tools_down").directive(
        "pkt_dg_read", 0, task_id="task_dg_read", refs=[ref("user_observation", f"user://{DG.OBS}", 0, 0.6)])
    after_escalation, j = insert_after(degraded_escalation(), DG.ESCALATION, late_read)
    in_safe_mode, k = insert_after(verify_loop(), VL.BELIEF,
                                   safe_mode_alert(VL.CORR, "pkt_vl_safe_mode", 0, operator_note="paged on-call"))
    return [
        case("directive_before_any_decision", "FSM-E2", before_any_decision, i),
        case("directive_after_escalate_decision", "FSM-E2", after_escalation, j),
        case("write_directive_without_any_token", "FSM-E4", drop(write_episode(), WR.TOKEN), WR.WRITE),
        case("decision_after_critical_alert_with_extra_field", "FSM-E7", in_safe_mode, k + 1),
        case("result_without_its_read_directive", "FSM-E6", drop(verify_loop(), VL.READ), VL.RESULT),
        case("result_without_its_write_directive", "FSM-E6", drop(write_episode(), WR.WRITE), WR.RESULT),
    ]


def duplicate() -> list[Case]:
    def reuse(packets: list[Packet], pid: str, earlier: str) -> Case:
        """`pid` (different content) given the id of the earlier packet `earlier`."""
        index = index_of(packets, pid)
        return case(f"{pid}_reuses_{earlier}", "DUPLICATE", edit(packets, pid, header__packet_id=earlier), index)
    return [reuse(verify_loop(), VL.UPDATE, VL.BELIEF), reuse(verify_loop(), VL.REDECIDE, VL.VERIFY_FIRST),
            reuse(write_episode(), WR.RESULT, WR.WRITE)]


# --------------------------------------------------------------------------- episode rules
def inv_005() -> list[Case]:
    a = verify_loop()
    meta = "payload__execution_metadata__"
    return [
        case("tokens_used_over_first_decision_budget", "INV-005", edit(a, VL.RESULT, **{f"{meta}tokens_used": 5000}),
             VL.RESULT),
        case("tool_calls_used_over_budget", "INV-005", edit(a, VL.RESULT, **{f"{meta}tool_calls_used": 3}),
             VL.RESULT),
        case("execution_time_over_budget", "INV-005", edit(a, VL.RESULT, **{f"{meta}execution_time_ms": 91_000}),
             VL.RESULT),
    ]


def _revocation() -> Packet:
    return Ep(WR.CORR).alert("pkt_wr_revoke", 0, severity="WARNING", alert_type="token_revocation",
                             description="Integrity revokes the sell-order token",
                             extra={"action_taken": "token_revoked", "revoked_token_ids": [WR.TOKEN_ID]})


def _second_write() -> Packet:
    market = ref("tool_output", f"tool://{WR.OBS}", 0)
    return Ep(WR.CORR).directive("pkt_wr_write2", 0, task_id="task_wr_sell_order_2", tool_id=WR.TOOL,
                                 safety="WRITE", token_id=WR.TOKEN_ID, params=WR.PARAMS, refs=[market])


def inv_007() -> list[Case]:
    b = write_episode()
    revoked, _ = insert_after(b, WR.TOKEN, _revocation())
    exhausted, i = insert_after(b, WR.RESULT, _second_write())
    return [
        case("unknown_token_id", "INV-007", edit(b, WR.WRITE, payload__authorization_token_id="token_never_issued"),
             WR.WRITE),
        case("directive_exactly_at_expiry", "INV-007", edit(b, WR.TOKEN, payload__expiry=at(WR.WRITE_AT)), WR.WRITE),
        case("directive_after_expiry", "INV-007", edit(b, WR.TOKEN, payload__expiry=at(WR.WRITE_AT - 10)), WR.WRITE),
        case("revoked_by_integrity_alert", "INV-007", revoked, WR.WRITE),
        case("usage_exhausted_by_second_write", "INV-007", exhausted, i),
        case("tool_out_of_scope", "INV-007", edit(b, WR.WRITE, payload__execution_method__tool_id="esi_contracts"),
             WR.WRITE),
        case("no_authorization_token_id", "INV-007", drop_field(b, WR.WRITE, "payload.authorization_token_id"),
             WR.WRITE),
    ]


def inv_008() -> list[Case]:
    a = verify_loop()
    ep = _vl_ep()
    failed = ep.result(VL.RESULT, 220, task_id=VL.TASK, directive_pid=VL.READ, status="FAILURE")
    stale_belief = ep.belief(VL.UPDATE, 260, refs=[ref("tool_output", f"tool://{VL.OBS}", 0)], cites=[VL.OBS])
    return [
        # The read never ran: directive and result both absent (a result without its directive is FSM-E6's).
        case("no_read_directive", "INV-008", drop(a, VL.READ, VL.RESULT), VL.REDECIDE),
        case("no_success_result", "INV-008", replace_packet(a, VL.RESULT, failed), VL.REDECIDE),
        case("no_observed_evidence", "INV-008", edit(a, VL.RESULT, mcp__epistemics__status="DERIVED"), VL.REDECIDE),
        case("no_closing_belief_update", "INV-008", replace_packet(a, VL.UPDATE, stale_belief), VL.REDECIDE),
    ]


PACKET_LOCAL_CASES = [*inv_001(), *inv_002(), *inv_003(), *inv_004(), *inv_006(), *inv_009(), *inv_010()]
SEQUENCE_CASES = [*fsm(), *duplicate()]
EPISODE_CASES = [*inv_005(), *inv_007(), *inv_008()]
ALL_CASES = [*PACKET_LOCAL_CASES, *SEQUENCE_CASES, *EPISODE_CASES]
