"""Cross-policy invariants INV-001..INV-010, INV-012: one function per rule, judged on single packets and
hand-built ledgers (spec: seeds/omen-cross-policy-invariants-v0.7.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.eventtime import to_ms
from omega.packets.invariants import (
    EPISODE,
    PER_PACKET,
    directive_deadline_ms,
    inv_001_mcp_completeness,
    inv_002_subpar_never_acts,
    inv_003_high_stakes_verify_or_escalate,
    inv_005_budget_overrun_requires_approval,
    inv_006_drive_arbitration_sequence,
    inv_007_write_requires_token_scope,
    inv_008_verification_loop_closure,
    inv_009_escalation_presents_options,
    inv_010_degraded_tools_policy,
    inv_012_stakes_consistency,
    invariants_for,
    is_budget_approval,
    overruns,
)
from omega.packets.invariants_evidence import inv_004_no_live_claim_without_evidence
from omega.packets.ledger import Budgets, EpisodeLedger, Token, Usage, VerifyLoop
from omega.packets.validator import evolve
from omega.packets.verdict import PacketVerdict
from omega.violations import Severity, Violation
from tests.factories import packet as factory_packet
from tests.omen_strategies import JSON_VALUES, mutated_packets, valid_packets

ERROR, WARNING = Severity.ERROR, Severity.WARNING
NOW = "2025-12-21T12:00:00Z"
NOW_MS = 1_766_318_400_000
EMPTY = EpisodeLedger("corr_ep00001")
EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PAYLOADS: dict[str, dict[str, Any]] = {
    "TaskDirectivePacket": {
        "task_id": "task_buy", "task_type": "tool_write",
        "execution_method": {"method": "tool", "tool_id": "market_api",
                             "tool_params": {"operation": "write", "max_isk": 500, "system": "Jita"}},
        "tool_safety_class": "WRITE", "authorization_token_id": "token_a",
    },
    "EscalationPacket": {
        "escalation_trigger": "high_stakes_high_uncertainty",
        "top_options": [
            {"option_id": "a", "description": "wait", "pros": ["safe"], "cons": ["slow"]},
            {"option_id": "b", "description": "buy", "pros": ["fast"], "cons": ["risky"]},
        ],
        "evidence_gaps": [{"gap": "price trend", "impact_if_unknown": "overpay"}],
        "recommended_next_step": {"step": "read market", "rationale": "cheap"},
    },
    "ToolAuthorizationToken": {
        "token_id": "token_a", "authorized_scope": {"tool_ids": ["market_api"], "operation_types": ["write"]},
        "expiry": "2025-12-21T13:00:00Z", "max_usage_count": 1, "issuer_layer": 1,
    },
    "IntegrityAlertPacket": {"alert_type": "budget_overrun", "severity": "WARNING", "description": "over"},
}


# --------------------------------------------------------------------------- builders
def build(packet_type: str = "DecisionPacket", **changes: Any) -> dict[str, Any]:
    """A schema-valid packet of `packet_type` at NOW; `changes` set dotted paths (`__` stands for `.`)."""
    base = factory_packet(3600, 1, packet_type if packet_type in _FACTORY_TYPES else "ObservationPacket")
    base["header"]["packet_type"] = packet_type
    if packet_type in PAYLOADS:
        base["payload"] = copy.deepcopy(PAYLOADS[packet_type])
    for path, value in changes.items():
        put(base, path.replace("__", "."), value)
    return base


_FACTORY_TYPES = ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket")


def put(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    *parents, last = path.split(".")
    for key in parents:
        data = data.setdefault(key, {})
    data[last] = value
    return data


def drop(packet: dict[str, Any], path: str) -> dict[str, Any]:
    *parents, last = path.split(".")
    data = packet
    for key in parents:
        data = data[key]
    del data[last]
    return packet


def token(**changes: Any) -> Token:
    fields: dict[str, Any] = {
        "token_id": "token_a", "packet_id": "pkt_00001_000010", "tool_ids": ("market_api",),
        "operation_types": ("write",), "resource_constraints": None, "expiry": "2025-12-21T13:00:00Z",
        "expiry_ms": to_ms("2025-12-21T13:00:00Z"), "max_usage_count": 2,
    }
    return Token(**{**fields, **changes})


def with_tokens(*tokens: Token) -> EpisodeLedger:
    return EpisodeLedger("corr_ep00001", state="S5_AUTHORIZE", tokens={t.token_id: t for t in tokens})


def rules(violations: list[Violation]) -> list[tuple[str, Severity, str | None]]:
    return [(v.rule, v.severity, v.field) for v in violations]


def test_the_test_clock_is_the_builders_event_time() -> None:
    assert build()["header"]["created_at"] == NOW
    assert to_ms(NOW) == NOW_MS


# --------------------------------------------------------------------------- INV-001
def test_inv001_a_complete_decision_passes() -> None:
    assert inv_001_mcp_completeness(build(), EMPTY, NOW_MS) == []


def test_inv001_non_consequential_packets_are_not_judged_even_without_mcp() -> None:
    bare = build("ObservationPacket")
    del bare["mcp"]
    assert inv_001_mcp_completeness(bare, EMPTY, NOW_MS) == []


def test_inv001_empty_evidence_with_a_reason_passes() -> None:
    pkt = build("EscalationPacket", mcp__evidence={"evidence_refs": [], "evidence_absent_reason": "tools down"})
    assert inv_001_mcp_completeness(pkt, EMPTY, NOW_MS) == []


def test_inv001_reports_one_violation_per_missing_field() -> None:
    pkt = drop(drop(build("TaskDirectivePacket"), "mcp.intent.summary"), "mcp.routing.tools_state")
    found = inv_001_mcp_completeness(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-001", ERROR, "mcp.intent.summary"), ("INV-001", ERROR, "mcp.routing.tools_state")]
    assert "missing required field mcp.intent.summary" in found[0].message


def test_inv001_a_null_field_counts_as_missing() -> None:
    pkt = build("ToolAuthorizationToken", mcp__budgets__risk_budget=None)
    assert rules(inv_001_mcp_completeness(pkt, EMPTY, NOW_MS)) == [("INV-001", ERROR, "mcp.budgets.risk_budget")]


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_inv001_empty_evidence_needs_a_non_blank_absent_reason(reason: str | None) -> None:
    pkt = build(mcp__evidence={"evidence_refs": [], "evidence_absent_reason": reason})
    found = inv_001_mcp_completeness(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-001", ERROR, "mcp.evidence.evidence_absent_reason")]
    assert "evidence_refs is empty" in found[0].message


def test_inv001_without_any_mcp_every_required_path_is_reported() -> None:
    pkt = build()
    del pkt["mcp"]
    found = inv_001_mcp_completeness(pkt, EMPTY, NOW_MS)
    assert len(found) == 24
    assert found[0].field == "mcp.intent.summary"
    assert found[-1].field == "mcp.routing.tools_state"


def read_only(value: Any) -> Any:
    """`value` with every dict turned into a read-only mapping: a Mapping that is not a dict."""
    if isinstance(value, dict):
        return MappingProxyType({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list):
        return [read_only(item) for item in value]
    return value


def test_inv001_an_mcp_made_of_any_mappings_is_complete() -> None:
    """A packet is a Mapping, not necessarily decoded JSON: read-only sections still hold their fields."""
    pkt = build("TaskDirectivePacket")
    pkt["mcp"] = read_only(pkt["mcp"])
    assert isinstance(pkt["mcp"]["quality"], Mapping)
    assert not isinstance(pkt["mcp"]["quality"], dict)
    assert inv_001_mcp_completeness(pkt, EMPTY, NOW_MS) == []


# --------------------------------------------------------------------------- INV-002
def test_inv002_subpar_may_verify_first() -> None:
    pkt = build(mcp__quality__quality_tier="SUBPAR")
    assert inv_002_subpar_never_acts(pkt, EMPTY, NOW_MS) == []


def test_inv002_par_may_act() -> None:
    assert inv_002_subpar_never_acts(build(payload__decision_outcome="ACT"), EMPTY, NOW_MS) == []


def test_inv002_subpar_acting_is_an_error_on_the_outcome() -> None:
    pkt = build(mcp__quality__quality_tier="SUBPAR", payload__decision_outcome="ACT")
    found = inv_002_subpar_never_acts(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-002", ERROR, "payload.decision_outcome")]
    assert "SUBPAR" in found[0].message


def test_inv002_subpar_act_is_rejected_at_any_stakes() -> None:
    pkt = build(mcp__quality__quality_tier="SUBPAR", payload__decision_outcome="ACT", mcp__stakes__stakes_level="LOW")
    assert [v.rule for v in inv_002_subpar_never_acts(pkt, EMPTY, NOW_MS)] == ["INV-002"]


def test_inv002_only_decisions_carry_an_outcome() -> None:
    pkt = build("ObservationPacket", mcp__quality__quality_tier="SUBPAR", payload__decision_outcome="ACT")
    assert inv_002_subpar_never_acts(pkt, EMPTY, NOW_MS) == []


# --------------------------------------------------------------------------- INV-003
def high_act(**changes: Any) -> dict[str, Any]:
    return build(mcp__stakes__stakes_level="HIGH", payload__decision_outcome="ACT", **changes)


def test_inv003_superb_with_every_assumption_verified_may_act() -> None:
    pkt = high_act(mcp__quality__quality_tier="SUPERB", payload__load_bearing_assumptions=[
        {"assumption": "price stable", "verified": True}, {"assumption": "stock", "verified": True}])
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


@pytest.mark.parametrize("outcome", ["VERIFY_FIRST", "ESCALATE", "DEFER", "CANCEL"])
def test_inv003_non_act_outcomes_comply_at_critical_stakes(outcome: str) -> None:
    pkt = build(mcp__stakes__stakes_level="CRITICAL", mcp__quality__quality_tier="SUBPAR",
                payload__decision_outcome=outcome)
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


def test_inv003_medium_stakes_is_not_judged() -> None:
    pkt = build(payload__decision_outcome="ACT")
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


def test_inv003_a_layer1_emergency_override_allows_par_to_act() -> None:
    pkt = high_act(header__layer_source=1, payload__decision_summary="EMERGENCY: hull breach, act now")
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


def test_inv003_the_emergency_may_be_recorded_in_the_chosen_option() -> None:
    pkt = high_act(header__layer_source=1, payload__chosen_option={"option_id": "x", "rationale": "emergency undock"})
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


def test_inv003_the_emergency_may_be_recorded_in_the_payload_rationale() -> None:
    """The module docstring: "emergency" in `decision_summary`, `chosen_option` or a `payload.rationale`."""
    pkt = high_act(header__layer_source=1, payload__decision_summary="Undock now",
                   payload__rationale="Emergency: the station is under siege")
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


def test_inv003_par_acting_at_high_stakes_is_an_error_on_the_tier() -> None:
    found = inv_003_high_stakes_verify_or_escalate(high_act(), EMPTY, NOW_MS)
    assert rules(found) == [("INV-003", ERROR, "mcp.quality.quality_tier")]
    assert "SUPERB" in found[0].message
    assert "PAR" in found[0].message


def test_inv003_the_tier_error_names_the_stakes_the_tier_and_the_override() -> None:
    found = inv_003_high_stakes_verify_or_escalate(high_act(), EMPTY, NOW_MS)
    assert found == [Violation("INV-003", ERROR, "INV-003: ACT at HIGH stakes requires SUPERB tier (got PAR) or a "
                               "Layer 1 emergency override", "mcp.quality.quality_tier")]


def test_inv003_an_assumption_verified_in_any_mapping_counts_as_verified() -> None:
    pkt = high_act(mcp__quality__quality_tier="SUPERB", payload__load_bearing_assumptions=[
        MappingProxyType({"assumption": "price stable", "verified": True})])
    assert inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS) == []


def test_inv003_each_unverified_assumption_is_reported_with_its_text() -> None:
    pkt = build(mcp__stakes__stakes_level="CRITICAL", mcp__quality__quality_tier="SUPERB",
                payload__decision_outcome="ACT", payload__load_bearing_assumptions=[
                    {"assumption": "price stable", "verified": True}, {"assumption": "no gankers", "verified": False},
                    "a bare string proves nothing"])
    found = inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-003", ERROR, "payload.load_bearing_assumptions.1.verified"),
                            ("INV-003", ERROR, "payload.load_bearing_assumptions.2.verified")]
    assert "'no gankers'" in found[0].message


def test_inv003_emergency_words_from_a_non_layer1_source_do_not_override() -> None:
    pkt = high_act(header__layer_source=5, payload__decision_summary="emergency")
    assert [v.rule for v in inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS)] == ["INV-003"]


@pytest.mark.parametrize("layer", [True, "1", "Integrity"])
def test_inv003_only_the_integer_layer1_can_declare_an_emergency(layer: object) -> None:
    pkt = high_act(header__layer_source=layer, payload__decision_summary="emergency")
    assert [v.rule for v in inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS)] == ["INV-003"]


def test_inv003_emergency_must_be_a_whole_word() -> None:
    pkt = high_act(header__layer_source=1, payload__decision_summary="nonemergency maintenance")
    assert [v.rule for v in inv_003_high_stakes_verify_or_escalate(pkt, EMPTY, NOW_MS)] == ["INV-003"]


# --------------------------------------------------------------------------- INV-004
def live_claim(refs: list[dict[str, Any]], status: str = "INFERRED", freshness: str = "REALTIME",
               **changes: Any) -> dict[str, Any]:
    return build("ObservationPacket", mcp__epistemics__status=status, mcp__epistemics__freshness_class=freshness,
                 mcp__evidence__evidence_refs=refs, **changes)


def ref(ref_type: str = "tool_output", timestamp: str = "2025-12-21T11:59:00Z") -> dict[str, Any]:
    return {"ref_type": ref_type, "ref_id": "market:jita", "timestamp": timestamp}


@pytest.mark.parametrize("status", ["DERIVED", "REMEMBERED"])
def test_inv004_grounded_statuses_need_no_live_evidence(status: str) -> None:
    assert inv_004_no_live_claim_without_evidence(live_claim([], status), EMPTY, NOW_MS) == []


# OBSERVED (decision in invariants_evidence.py's docstring): OMEN.md §8.1 core rule "evidence references (or explicit
# absence)" and §8.4 item 4 "cannot claim live truth without tool evidence refs" outrank the pseudo-code's
# "These are grounded". Expected values by hand: no refs + no reason -> one ERROR; no refs + a reason -> one
# WARNING; any ref, or a non-live freshness class -> nothing.
@pytest.mark.parametrize("freshness", ["REALTIME", "OPERATIONAL"])
def test_inv004_an_observed_live_claim_with_no_refs_and_no_absent_reason_is_an_error(freshness: str) -> None:
    pkt = live_claim([], "OBSERVED", freshness, mcp__evidence__evidence_absent_reason=None)
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == [Violation(
        "INV-004", ERROR, f"INV-004: OBSERVED claim about {freshness} state cites no evidence and gives no "
        "evidence_absent_reason: the label alone grounds nothing", "mcp.evidence.evidence_refs")]


@pytest.mark.parametrize("reason", ["", "   ", 7])
def test_inv004_a_blank_or_non_string_absent_reason_is_no_reason(reason: object) -> None:
    pkt = live_claim([], "OBSERVED", mcp__evidence__evidence_absent_reason=reason)
    assert rules(inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS)) == [
        ("INV-004", ERROR, "mcp.evidence.evidence_refs")]


def test_inv004_an_observed_live_claim_explaining_its_absent_evidence_is_only_a_warning() -> None:
    pkt = live_claim([], "OBSERVED", "REALTIME", mcp__evidence__evidence_absent_reason=" The read failed ")
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == [Violation(
        "INV-004", WARNING, "INV-004: OBSERVED claim about REALTIME state cites no evidence (absent because: The "
        "read failed); cite the observed tool output or user observation (raw ref or hash)",
        "mcp.evidence.evidence_refs")]


@pytest.mark.parametrize("evidence", [ref(), ref("memory_item", "2020-01-01T00:00:00Z"), ref("derived_calc")],
                         ids=["tool_output", "old_memory_item", "derived_calc"])
def test_inv004_any_evidence_ref_grounds_an_observed_claim(evidence: dict[str, Any]) -> None:
    """No recency window and no ref type for OBSERVED: the pointer to what was observed is what §8.1 asks."""
    pkt = live_claim([evidence], "OBSERVED", mcp__evidence__evidence_absent_reason=None)
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


@pytest.mark.parametrize("freshness", ["STRATEGIC", "ARCHIVAL"])
def test_inv004_an_observed_claim_that_is_not_live_needs_no_evidence(freshness: str) -> None:
    pkt = live_claim([], "OBSERVED", freshness, mcp__evidence__evidence_absent_reason=None)
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_an_observed_verify_first_decision_is_still_the_exempt_remedy() -> None:
    pkt = build("DecisionPacket", payload__decision_outcome="VERIFY_FIRST", mcp__epistemics__status="OBSERVED",
                mcp__epistemics__freshness_class="REALTIME", mcp__evidence__evidence_refs=[],
                mcp__evidence__evidence_absent_reason=None)
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_an_unevidenced_observation_opening_an_episode_is_rejected_and_does_not_start_sensing() -> None:
    pkt = live_claim([], "OBSERVED", mcp__evidence__evidence_absent_reason=None)
    _, [verdict] = evolve(None, pkt)
    assert verdict.status.value == "REJECTED"
    assert rules(list(verdict.violations)) == [("INV-004", ERROR, "mcp.evidence.evidence_refs")]
    assert (verdict.state_before, verdict.state_after) == ("S0_IDLE", "S0_IDLE")


def test_inv004_an_observation_explaining_its_absent_evidence_is_accepted_with_the_warning() -> None:
    pkt = live_claim([], "OBSERVED", mcp__evidence__evidence_absent_reason="sensor reading relayed by voice")
    _, [verdict] = evolve(None, pkt)
    assert verdict.status.value == "ACCEPTED_WITH_WARNINGS"
    assert rules(list(verdict.violations)) == [("INV-004", WARNING, "mcp.evidence.evidence_refs")]
    assert (verdict.state_before, verdict.state_after) == ("S0_IDLE", "S1_SENSE")


def test_inv004_an_unevidenced_observed_decision_breaks_inv_001_and_inv_004() -> None:
    """A consequential packet: INV-001 wants the absent reason, INV-004 the live evidence; both say so."""
    pkt = build("DecisionPacket", payload__decision_outcome="DEFER", mcp__epistemics__status="OBSERVED",
                mcp__epistemics__freshness_class="OPERATIONAL", mcp__evidence__evidence_refs=[],
                mcp__evidence__evidence_absent_reason=None)
    found = [v for inv in PER_PACKET for v in inv(pkt, EMPTY, NOW_MS) if v.rule in ("INV-001", "INV-004")]
    assert rules(found) == [("INV-001", ERROR, "mcp.evidence.evidence_absent_reason"),
                            ("INV-004", ERROR, "mcp.evidence.evidence_refs")]


def test_inv004_strategic_claims_are_not_live() -> None:
    assert inv_004_no_live_claim_without_evidence(live_claim([], freshness="STRATEGIC"), EMPTY, NOW_MS) == []


def test_inv004_a_minute_old_tool_output_grounds_a_realtime_inference() -> None:
    assert inv_004_no_live_claim_without_evidence(live_claim([ref()]), EMPTY, NOW_MS) == []


def test_inv004_a_user_observation_at_the_window_edge_is_still_recent() -> None:
    pkt = live_claim([ref("user_observation", "2025-12-21T11:55:00Z")], "HYPOTHESIZED")  # exactly 300 s
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_evidence_newer_than_the_packet_counts_as_recent() -> None:
    pkt = live_claim([ref(timestamp="2025-12-21T12:00:05Z")])
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_operational_claims_accept_evidence_up_to_four_hours_old() -> None:
    pkt = live_claim([ref(timestamp="2025-12-21T08:00:00Z")], "UNKNOWN", "OPERATIONAL")
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_stale_if_older_than_seconds_widens_the_window() -> None:
    pkt = live_claim([ref(timestamp="2025-12-21T11:50:00Z")], mcp__epistemics__stale_if_older_than_seconds=900)
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_without_event_time_any_timestamped_tool_evidence_counts() -> None:
    pkt = live_claim([ref(timestamp="2020-01-01T00:00:00Z")])
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, None) == []


def test_inv004_memory_items_do_not_ground_a_live_inference() -> None:
    pkt = live_claim([ref("memory_item"), ref("derived_calc")], "HYPOTHESIZED", "OPERATIONAL")
    found = inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-004", ERROR, "mcp.evidence.evidence_refs")]
    assert "HYPOTHESIZED" in found[0].message
    assert "tool_output or user_observation" in found[0].message


def test_inv004_realtime_evidence_one_second_past_five_minutes_is_stale() -> None:
    found = inv_004_no_live_claim_without_evidence(live_claim([ref(timestamp="2025-12-21T11:54:59Z")]),
                                                   EMPTY, NOW_MS)
    assert rules(found) == [("INV-004", ERROR, "mcp.evidence.evidence_refs")]
    assert "300 s" in found[0].message


def test_inv004_stale_if_older_than_seconds_also_narrows_the_window() -> None:
    pkt = live_claim([ref(timestamp="2025-12-21T11:58:00Z")], freshness="OPERATIONAL",
                     mcp__epistemics__stale_if_older_than_seconds=60)
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS)] == ["INV-004"]


def test_inv004_the_given_window_ends_exactly_at_its_seconds() -> None:
    """With stale_if_older_than_seconds = 3600: a ref 3600 s old is recent, one 3601 s old is not."""
    edge = live_claim([ref(timestamp="2025-12-21T11:00:00Z")], mcp__epistemics__stale_if_older_than_seconds=3600)
    assert inv_004_no_live_claim_without_evidence(edge, EMPTY, NOW_MS) == []
    late = live_claim([ref(timestamp="2025-12-21T10:59:59Z")], mcp__epistemics__stale_if_older_than_seconds=3600)
    assert inv_004_no_live_claim_without_evidence(late, EMPTY, NOW_MS) == [Violation(
        "INV-004", ERROR, "INV-004: INFERRED claim about REALTIME state needs tool_output or user_observation "
        "evidence from the last 3600 s", "mcp.evidence.evidence_refs")]


def test_inv004_a_zero_second_window_accepts_only_evidence_from_the_packets_own_instant() -> None:
    """0 is a given window (not absent): the freshness-class default does not apply."""
    now = live_claim([ref(timestamp=NOW)], mcp__epistemics__stale_if_older_than_seconds=0)
    assert inv_004_no_live_claim_without_evidence(now, EMPTY, NOW_MS) == []
    older = live_claim([ref()], mcp__epistemics__stale_if_older_than_seconds=0)  # a minute old
    assert inv_004_no_live_claim_without_evidence(older, EMPTY, NOW_MS) == [Violation(
        "INV-004", ERROR, "INV-004: INFERRED claim about REALTIME state needs tool_output or user_observation "
        "evidence from the last 0 s", "mcp.evidence.evidence_refs")]


def test_inv004_a_ref_in_any_mapping_grounds_the_claim() -> None:
    pkt = live_claim([MappingProxyType(ref())])
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


def test_inv004_refs_that_are_not_objects_are_skipped_not_raised_on() -> None:
    assert inv_004_no_live_claim_without_evidence(live_claim(["tool_output", None, 7, ref()]), EMPTY, NOW_MS) == []
    found = inv_004_no_live_claim_without_evidence(live_claim(["tool_output", ["tool_output"]]), EMPTY, NOW_MS)
    assert rules(found) == [("INV-004", ERROR, "mcp.evidence.evidence_refs")]


@pytest.mark.parametrize("stamp", ["yesterday", "", 1766318400, None])
def test_inv004_unparseable_timestamps_never_count(stamp: object) -> None:
    pkt = live_claim([{"ref_type": "tool_output", "ref_id": "x", "timestamp": stamp}])
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS)] == ["INV-004"]
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(pkt, EMPTY, None)] == ["INV-004"]


def test_inv004_no_evidence_at_all_is_an_error() -> None:
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(live_claim([]), EMPTY, NOW_MS)] == ["INV-004"]


def unevidenced(packet_type: str, **changes: Any) -> dict[str, Any]:
    """A HYPOTHESIZED claim about OPERATIONAL state with no evidence yet (OMEN.md §15.2's epistemics)."""
    return build(packet_type, mcp__epistemics__status="HYPOTHESIZED", mcp__epistemics__freshness_class="OPERATIONAL",
                 mcp__evidence__evidence_refs=[], **changes)


def test_inv004_a_verify_first_decision_is_the_remedy_and_needs_no_live_evidence() -> None:
    """OMEN.md §15.2: the canonical VERIFY_FIRST decision has no evidence yet, by design."""
    pkt = unevidenced("DecisionPacket", payload__decision_outcome="VERIFY_FIRST")
    assert inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS) == []


@pytest.mark.parametrize("outcome", ["ACT", "ESCALATE", "DEFER"])
def test_inv004_other_decisions_still_need_live_evidence(outcome: str) -> None:
    pkt = unevidenced("DecisionPacket", payload__decision_outcome=outcome)
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(pkt, EMPTY, NOW_MS)] == ["INV-004"]


def test_inv004_a_verification_plan_is_the_remedy_too() -> None:
    assert inv_004_no_live_claim_without_evidence(unevidenced("VerificationPlanPacket"), EMPTY, NOW_MS) == []


def test_inv004_a_read_directive_verifies_when_classed_verify_or_inside_an_open_loop() -> None:
    classed = unevidenced("TaskDirectivePacket", payload__tool_safety_class="READ", mcp__routing__task_class="VERIFY")
    assert inv_004_no_live_claim_without_evidence(classed, EMPTY, NOW_MS) == []
    plain = unevidenced("TaskDirectivePacket", payload__tool_safety_class="READ", mcp__routing__task_class="LOOKUP")
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(plain, EMPTY, NOW_MS)] == ["INV-004"]
    looping = EpisodeLedger("corr_ep00001", state="S4_VERIFY", verify=VerifyLoop("pkt_00001_000002"))
    assert inv_004_no_live_claim_without_evidence(plain, looping, NOW_MS) == []


def test_inv004_a_write_directive_is_never_a_verification() -> None:
    pkt = unevidenced("TaskDirectivePacket", payload__tool_safety_class="WRITE", mcp__routing__task_class="VERIFY")
    looping = EpisodeLedger("corr_ep00001", state="S4_VERIFY", verify=VerifyLoop("pkt_00001_000002"))
    assert [v.rule for v in inv_004_no_live_claim_without_evidence(pkt, looping, NOW_MS)] == ["INV-004"]


# --------------------------------------------------------------------------- INV-005
def spent(tokens: int = 0, tool_calls: int = 0, time_seconds: float = 0.0, risk: float = 0.0,
          budgets: Budgets | None = None, **changes: Any) -> EpisodeLedger:
    return EpisodeLedger("corr_ep00001", budgets=budgets or Budgets(1200, 3, 120, 50.0, "pkt_00001_000000"),
                         usage=Usage(tokens, tool_calls, time_seconds, risk), **changes)


def test_inv005_usage_within_budgets_passes() -> None:
    assert inv_005_budget_overrun_requires_approval(build(), spent(1200, 3, 120.0, 50.0), NOW_MS) == []


def test_inv005_no_envelope_means_nothing_to_overrun() -> None:
    ledger = EpisodeLedger("corr_ep00001", usage=Usage(10**9, 10**6, 10.0**6, 10.0**6))
    assert inv_005_budget_overrun_requires_approval(build(), ledger, NOW_MS) == []
    assert overruns(ledger) == []


def test_inv005_an_earlier_approval_covers_the_overrun() -> None:
    assert inv_005_budget_overrun_requires_approval(build(), spent(1300, budget_approved=True), NOW_MS) == []


def test_inv005_a_token_overrun_is_an_error_naming_usage_and_budget() -> None:
    found = inv_005_budget_overrun_requires_approval(build(), spent(tokens=1300), NOW_MS)
    assert rules(found) == [("INV-005", ERROR, None)]
    assert "tokens: 1300 > 1200" in found[0].message


def test_inv005_every_overrun_is_listed() -> None:
    ledger = spent(1201, 4, 130.5, 60.0)
    assert overruns(ledger) == ["tokens: 1201 > 1200", "tool_calls: 4 > 3", "time_seconds: 130.5 > 120",
                                "risk: 60 > 50"]
    [violation] = inv_005_budget_overrun_requires_approval(build(), ledger, NOW_MS)
    assert all(item in violation.message for item in overruns(ledger))


def test_inv005_the_overruns_are_joined_by_semicolons_in_one_message() -> None:
    found = inv_005_budget_overrun_requires_approval(build(), spent(1201, 4, 130.5, 60.0), NOW_MS)
    assert found == [Violation("INV-005", ERROR, "INV-005: budget overrun without approval: tokens: 1201 > 1200; "
                               "tool_calls: 4 > 3; time_seconds: 130.5 > 120; risk: 60 > 50")]


def test_inv005_budgets_without_a_value_are_not_judged() -> None:
    ledger = spent(5000, 99, 999.0, 99.0, budgets=Budgets(tokens=None, tool_calls=None, time_seconds=120))
    assert overruns(ledger) == ["time_seconds: 999 > 120"]


def test_inv005_a_budget_escalation_approves_its_own_overrun() -> None:
    pkt = build("EscalationPacket", payload__escalation_trigger="budget_insufficient")
    assert is_budget_approval(pkt)
    assert inv_005_budget_overrun_requires_approval(pkt, spent(tokens=1300), NOW_MS) == []


def test_inv005_a_layer1_budget_override_in_any_payload_text_approves() -> None:
    pkt = build("ToolAuthorizationToken", header__layer_source=1, payload__rationale="Budget Override granted by L1")
    assert is_budget_approval(pkt)
    nested = build("BeliefUpdatePacket", header__layer_source=1)
    nested["payload"]["belief_changes"][0]["new_value"] = {"note": ["layer 1 budget override"]}
    assert is_budget_approval(nested)


@pytest.mark.parametrize("changes", [{"payload__override_rationale": "campaign-critical"},
                                     {"payload__action_taken": "budget_override_approved"}])
def test_inv005_an_integrity_override_approves(changes: dict[str, Any]) -> None:
    pkt = build("IntegrityAlertPacket", header__layer_source="Integrity", **changes)
    assert is_budget_approval(pkt)
    assert inv_005_budget_overrun_requires_approval(pkt, spent(tool_calls=9), NOW_MS) == []


@pytest.mark.parametrize("pkt", [
    build("EscalationPacket"),  # another trigger
    build("ToolAuthorizationToken", header__layer_source=5, payload__rationale="budget override"),
    build("ToolAuthorizationToken", header__layer_source=1, payload__rationale="override of the budget"),
    build("IntegrityAlertPacket", payload__override_rationale="  ", payload__action_taken="none"),
], ids=["escalation-other-trigger", "layer5-text", "layer1-other-words", "integrity-blank-rationale"])
def test_inv005_packets_that_are_not_approvals_leave_the_overrun_an_error(pkt: dict[str, Any]) -> None:
    assert not is_budget_approval(pkt)
    assert [v.rule for v in inv_005_budget_overrun_requires_approval(pkt, spent(tokens=1300), NOW_MS)] == ["INV-005"]


def test_inv005_a_risk_overrun_alone_is_an_error() -> None:
    found = inv_005_budget_overrun_requires_approval(build(), spent(risk=50.5), NOW_MS)
    assert "risk: 50.5 > 50" in found[0].message


# --------------------------------------------------------------------------- INV-007
def directive(**changes: Any) -> dict[str, Any]:
    return build("TaskDirectivePacket", **changes)


def judge7(pkt: dict[str, Any], ledger: EpisodeLedger, now_ms: int | None = NOW_MS) -> list[Violation]:
    return inv_007_write_requires_token_scope(pkt, ledger, now_ms)


def test_inv007_a_write_within_a_live_token_passes() -> None:
    assert judge7(directive(), with_tokens(token())) == []


def test_inv007_read_directives_need_no_token() -> None:
    pkt = directive(payload__tool_safety_class="READ", payload__authorization_token_id=None)
    assert judge7(pkt, EMPTY) == []
    assert judge7(build("TaskDirectivePacket", payload__tool_safety_class=None), EMPTY) == []


def test_inv007_mixed_needs_read_and_write_in_the_token() -> None:
    pkt = directive(payload__tool_safety_class="MIXED", payload__execution_method__tool_params={})
    assert judge7(pkt, with_tokens(token(operation_types=("read", "write")))) == []
    found = judge7(pkt, with_tokens(token()))
    assert rules(found) == [("INV-007", ERROR, "payload.tool_safety_class")]
    assert "operation read not in token token_a" in found[0].message


def test_inv007_a_token_expiring_exactly_at_the_directive_time_is_expired() -> None:
    """Half-open: the assertion says "Token expiry MUST be in the future" (the pseudo-code's `<` is the outlier)."""
    found = judge7(directive(), with_tokens(token(expiry=NOW, expiry_ms=NOW_MS)))
    assert rules(found) == [("INV-007", ERROR, "payload.authorization_token_id")]
    assert "expired" in found[0].message


def test_inv007_a_token_one_millisecond_before_expiry_is_valid() -> None:
    assert judge7(directive(), with_tokens(token(expiry=NOW, expiry_ms=NOW_MS + 1))) == []


def test_inv007_a_token_one_millisecond_past_expiry_is_expired() -> None:
    found = judge7(directive(), with_tokens(token(expiry=NOW, expiry_ms=NOW_MS - 1)))
    assert rules(found) == [("INV-007", ERROR, "payload.authorization_token_id")]
    assert "expired" in found[0].message


def test_inv007_an_unparseable_expiry_is_expired_even_without_event_time() -> None:
    found = judge7(directive(), with_tokens(token(expiry="soon", expiry_ms=None)), now_ms=None)
    assert [v.rule for v in found] == ["INV-007"]
    assert "unparseable" in found[0].message


def test_inv007_without_event_time_a_parseable_expiry_is_not_judged() -> None:
    assert judge7(directive(), with_tokens(token(expiry_ms=0)), now_ms=None) == []


def test_inv007_a_write_without_a_token_id_is_an_error_even_in_a_tokenless_episode() -> None:
    pkt = directive(payload__authorization_token_id=None)
    for ledger in (EMPTY, with_tokens(token())):
        found = judge7(pkt, ledger)
        assert rules(found) == [("INV-007", ERROR, "payload.authorization_token_id")]
        assert "no authorization_token_id" in found[0].message


def test_inv007_an_unknown_token_is_fsm_e4s_when_the_episode_has_no_token() -> None:
    assert judge7(directive(), EMPTY) == []


def test_inv007_an_unknown_token_in_an_episode_with_tokens_is_an_error() -> None:
    found = judge7(directive(payload__authorization_token_id="token_other"), with_tokens(token()))
    assert rules(found) == [("INV-007", ERROR, "payload.authorization_token_id")]
    assert "token_other not found" in found[0].message


def test_inv007_a_revoked_token_is_an_error() -> None:
    found = judge7(directive(), with_tokens(token(revoked=True)))
    assert [v.message for v in found] == ["INV-007: token token_a is revoked"]


def test_inv007_an_exhausted_token_is_an_error() -> None:
    assert judge7(directive(), with_tokens(token(usage_count=1, max_usage_count=2))) == []
    found = judge7(directive(), with_tokens(token(usage_count=2, max_usage_count=2)))
    assert "usage exhausted (2 of 2)" in found[0].message


def test_inv007_a_tool_outside_the_token_scope_is_an_error() -> None:
    found = judge7(directive(payload__execution_method__tool_id="wallet_api"), with_tokens(token()))
    assert rules(found) == [("INV-007", ERROR, "payload.execution_method.tool_id")]
    assert "wallet_api not in token token_a scope" in found[0].message


def test_inv007_a_declared_operation_outside_the_token_is_an_error() -> None:
    pkt = directive(payload__execution_method__tool_params__operation="DELETE")
    found = judge7(pkt, with_tokens(token(operation_types=("write", "modify"))))
    assert rules(found) == [("INV-007", ERROR, "payload.execution_method.tool_params.operation")]
    assert "operation delete" in found[0].message


def test_inv007_a_domain_verb_operation_falls_back_to_the_safety_class() -> None:
    pkt = directive(payload__execution_method__tool_params={"operation": "buy"})
    assert judge7(pkt, with_tokens(token())) == []
    found = judge7(pkt, with_tokens(token(operation_types=("read",))))
    assert rules(found) == [("INV-007", ERROR, "payload.tool_safety_class")]
    assert "operation write" in found[0].message


def test_inv007_a_declared_read_operation_fits_a_read_token() -> None:
    pkt = directive(payload__execution_method__tool_params={"operation": "read"})
    assert judge7(pkt, with_tokens(token(operation_types=("read",)))) == []


def test_inv007_numeric_constraints_are_upper_bounds() -> None:
    ledger = with_tokens(token(resource_constraints={"max_isk": 500}))
    assert judge7(directive(), ledger) == []  # 500 <= 500
    found = judge7(directive(payload__execution_method__tool_params__max_isk=500.01), ledger)
    assert rules(found) == [("INV-007", ERROR, "payload.execution_method.tool_params.max_isk")]
    assert "500.01" in found[0].message


def test_inv007_min_prefixed_numeric_constraints_are_lower_bounds() -> None:
    ledger = with_tokens(token(resource_constraints={"min_price": 4.0}))
    assert judge7(directive(payload__execution_method__tool_params__min_price=4.0), ledger) == []
    assert judge7(directive(payload__execution_method__tool_params__min_price=9), ledger) == []
    found = judge7(directive(payload__execution_method__tool_params__min_price=3.99), ledger)
    assert rules(found) == [("INV-007", ERROR, "payload.execution_method.tool_params.min_price")]


@pytest.mark.parametrize("value", ["500", True, None, [1]])
def test_inv007_a_non_number_against_a_numeric_bound_is_an_error(value: object) -> None:
    ledger = with_tokens(token(resource_constraints={"max_isk": 500}))
    assert [v.rule for v in judge7(directive(payload__execution_method__tool_params__max_isk=value), ledger)] == [
        "INV-007"]


def test_inv007_list_constraints_are_the_allowed_values() -> None:
    ledger = with_tokens(token(resource_constraints={"system": ["Jita", "Amarr"]}))
    assert judge7(directive(), ledger) == []
    assert judge7(directive(payload__execution_method__tool_params__system=["Amarr", "Jita"]), ledger) == []
    found = judge7(directive(payload__execution_method__tool_params__system=["Jita", "Rens"]), ledger)
    assert rules(found) == [("INV-007", ERROR, "payload.execution_method.tool_params.system")]


def test_inv007_string_constraints_must_match_exactly() -> None:
    ledger = with_tokens(token(resource_constraints={"system": "Jita"}))
    assert judge7(directive(), ledger) == []
    assert [v.rule for v in judge7(directive(payload__execution_method__tool_params__system="jita"), ledger)] == [
        "INV-007"]


def test_inv007_constraints_on_parameters_the_directive_does_not_set_are_not_judged() -> None:
    ledger = with_tokens(token(resource_constraints={"max_volume": 10, "note": {"free": "form"}}))
    assert judge7(directive(), ledger) == []


def test_inv007_every_broken_condition_is_reported() -> None:
    ledger = with_tokens(token(revoked=True, usage_count=5, expiry_ms=NOW_MS - 1, tool_ids=("other",),
                               resource_constraints={"max_isk": 1}))
    assert len(judge7(directive(), ledger)) == 5


# --------------------------------------------------------------------------- INV-008
def in_verify(loop: VerifyLoop, tools_state: str | None = "tools_ok") -> EpisodeLedger:
    return EpisodeLedger("corr_ep00001", state="S4_VERIFY", verify=loop, tools_state=tools_state,
                         last_decision="VERIFY_FIRST")


COMPLETE = VerifyLoop("pkt_00001_000002", True, True, True, True, True)
OPENED = VerifyLoop("pkt_00001_000002")


def test_inv008_a_complete_loop_allows_the_re_decision() -> None:
    assert inv_008_verification_loop_closure(build(), in_verify(COMPLETE), NOW_MS) == []


def test_inv008_a_re_decision_from_s2_model_after_an_incomplete_loop_is_judged_too() -> None:
    ledger = EpisodeLedger("corr_ep00001", state="S2_MODEL", verify=OPENED)
    found = inv_008_verification_loop_closure(build(), ledger, NOW_MS)
    assert found
    assert {(v.rule, v.severity) for v in found} == {("INV-008", Severity.ERROR), ("INV-008", Severity.WARNING)}


def test_inv008_outside_s2_and_s4_nothing_is_judged() -> None:
    ledger = EpisodeLedger("corr_ep00001", state="S6_EXECUTE", verify=OPENED)
    assert inv_008_verification_loop_closure(build(), ledger, NOW_MS) == []


def test_inv008_only_the_decision_closes_the_loop() -> None:
    assert inv_008_verification_loop_closure(build("ObservationPacket"), in_verify(OPENED), NOW_MS) == []


def test_inv008_no_success_result_is_needed_when_tools_are_degraded() -> None:
    loop = VerifyLoop("pkt_00001_000002", True, True, False, True, True)
    assert inv_008_verification_loop_closure(build(mcp__routing__tools_state="tools_partial"), in_verify(loop),
                                             NOW_MS) == []
    found = inv_008_verification_loop_closure(build(), in_verify(loop), NOW_MS)
    assert "SUCCESS TaskResult" in found[0].message


def test_inv008_without_a_tools_state_on_the_packet_the_episodes_is_used() -> None:
    loop = VerifyLoop("pkt_00001_000002", True, True, False, True, True)
    pkt = drop(build(), "mcp.routing.tools_state")
    assert inv_008_verification_loop_closure(pkt, in_verify(loop, "tools_down"), NOW_MS) == []
    assert len(inv_008_verification_loop_closure(pkt, in_verify(loop, "tools_ok"), NOW_MS)) == 1


def test_inv008_an_empty_loop_reports_each_missing_step_and_the_missing_plan_only_as_a_warning() -> None:
    """The plan is optional (OMEN.md §10.4 does not list it; v0.7 publishes no schema for it)."""
    found = inv_008_verification_loop_closure(build(), in_verify(OPENED), NOW_MS)
    assert [(v.rule, v.severity) for v in found] == [("INV-008", ERROR)] * 4 + [("INV-008", WARNING)]
    assert all("pkt_00001_000002" in v.message for v in found)
    assert ["READ TaskDirective" in found[0].message, "SUCCESS TaskResult" in found[1].message,
            "OBSERVED" in found[2].message, "BeliefUpdate" in found[3].message,
            "VerificationPlanPacket" in found[4].message] == [True] * 5


def test_inv008_a_loop_complete_but_for_its_plan_is_accepted_with_a_warning() -> None:
    loop = VerifyLoop("pkt_00001_000002", False, True, True, True, True)
    found = inv_008_verification_loop_closure(build(), in_verify(loop), NOW_MS)
    assert rules(found) == [("INV-008", WARNING, None)]


def test_inv008_the_missing_plan_warning_says_why_it_is_only_a_warning() -> None:
    loop = VerifyLoop("pkt_00001_000002", False, True, True, True, True)
    assert inv_008_verification_loop_closure(build(), in_verify(loop), NOW_MS) == [Violation(
        "INV-008", WARNING, "INV-008: verification loop of pkt_00001_000002 had no VerificationPlanPacket (optional "
        "in v0.7: OMEN.md §10.4 does not require it)")]


def test_inv008_a_belief_update_without_evidence_is_the_only_gap() -> None:
    loop = VerifyLoop("pkt_00001_000002", True, True, True, True, False)
    found = inv_008_verification_loop_closure(build(), in_verify(loop), NOW_MS)
    assert rules(found) == [("INV-008", ERROR, None)]
    assert found[0].message == (
        "INV-008: verification loop of pkt_00001_000002 has no closing BeliefUpdate citing the verification evidence")


# --------------------------------------------------------------------------- INV-006
def arbitrated(**changes: Any) -> dict[str, Any]:
    defaults = {"payload__decision_outcome": "ACT", "payload__decision_summary": "Buy now: best expected value",
                "payload__chosen_option": {"option_id": "buy"},
                "payload__rejected_alternatives": [{"option_id": "wait", "rejection_reason": "slower"}]}
    return build(**{**defaults, **changes})


def test_inv006_a_documented_arbitration_passes() -> None:
    assert inv_006_drive_arbitration_sequence(arbitrated(), EMPTY, NOW_MS) == []


@pytest.mark.parametrize("summary", ["Safety-first: wait", "RISK ADJUSTED choice", "min-regret pick",
                                     "chosen by risk-adjusted return"])
def test_inv006_each_tradeoff_keyword_documents_stage3(summary: str) -> None:
    assert inv_006_drive_arbitration_sequence(arbitrated(payload__decision_summary=summary), EMPTY, NOW_MS) == []


def test_inv006_a_decision_without_options_is_not_an_arbitration() -> None:
    pkt = build(payload__constraints_satisfied={"constitutional_check": False, "budget_check": False,
                                                "tier_check": True})
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == []


def test_inv006_a_failed_constitutional_check_is_an_error() -> None:
    pkt = arbitrated(payload__constraints_satisfied__constitutional_check=False)
    found = inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-006", ERROR, "payload.constraints_satisfied.constitutional_check")]
    assert "Stage 1" in found[0].message


def test_inv006_a_stage_error_shows_the_value_the_check_had() -> None:
    pkt = arbitrated(payload__constraints_satisfied__constitutional_check=False,
                     payload__constraints_satisfied__budget_check="yes")
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == [
        Violation("INV-006", ERROR, "INV-006: Stage 1 constitutional veto not passed (constitutional_check is False); "
                  "decision invalid", "payload.constraints_satisfied.constitutional_check"),
        Violation("INV-006", ERROR, "INV-006: Stage 2 budget feasibility not passed (budget_check is yes); "
                  "decision invalid", "payload.constraints_satisfied.budget_check")]


def test_inv006_a_failed_budget_check_is_an_error() -> None:
    pkt = arbitrated(payload__constraints_satisfied__budget_check=False)
    found = inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-006", ERROR, "payload.constraints_satisfied.budget_check")]
    assert "Stage 2" in found[0].message


def test_inv006_an_undocumented_stage_check_counts_as_failed() -> None:
    pkt = drop(arbitrated(), "payload.constraints_satisfied.budget_check")
    assert rules(inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)) == [
        ("INV-006", ERROR, "payload.constraints_satisfied.budget_check")]


UNREASONED = [{"option_id": "wait"}]


def test_inv006_no_tradeoff_keyword_and_no_structured_tradeoff_is_a_warning() -> None:
    pkt = arbitrated(payload__decision_summary="Buy the cheaper one", payload__rejected_alternatives=UNREASONED)
    found = inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-006", WARNING, "payload.decision_summary")]


def test_inv006_the_stage3_warning_lists_what_would_have_documented_it() -> None:
    pkt = arbitrated(payload__decision_summary="Buy the cheaper one", payload__rejected_alternatives=UNREASONED)
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == [Violation(
        "INV-006", WARNING, "INV-006: Stage 3 tradeoff policy not documented: no policy (safety, risk-adjusted, "
        "min-regret, expected value) named, no chosen_option.expected_value, no rejection reasons",
        "payload.decision_summary")]


@pytest.mark.parametrize("summary", ["unsafety reigns", "risk adjustedness", "expected values vary"])
def test_inv006_keywords_match_whole_words_only(summary: str) -> None:
    pkt = arbitrated(payload__decision_summary=summary, payload__rejected_alternatives=UNREASONED)
    assert rules(inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)) == [
        ("INV-006", WARNING, "payload.decision_summary")]


def test_inv006_rejected_alternatives_alone_make_it_an_arbitration() -> None:
    pkt = arbitrated(payload__decision_summary="pick", payload__rejected_alternatives=UNREASONED)
    del pkt["payload"]["chosen_option"]
    assert [v.severity for v in inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)] == [WARNING]


def test_inv006_a_chosen_option_alone_makes_it_an_arbitration() -> None:
    pkt = arbitrated(payload__chosen_option={"option_id": "buy", "expected_value": 2},
                     payload__constraints_satisfied__constitutional_check=False)
    del pkt["payload"]["rejected_alternatives"]
    assert rules(inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)) == [
        ("INV-006", ERROR, "payload.constraints_satisfied.constitutional_check")]


def test_inv006_an_empty_rejected_alternatives_list_without_a_chosen_option_is_no_arbitration() -> None:
    pkt = arbitrated(payload__rejected_alternatives=[], payload__constraints_satisfied__constitutional_check=False)
    del pkt["payload"]["chosen_option"]
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == []


def test_inv006_a_numeric_expected_value_on_the_chosen_option_documents_stage_3() -> None:
    pkt = arbitrated(payload__decision_summary="pick", payload__rejected_alternatives=UNREASONED,
                     payload__chosen_option={"option_id": "buy", "expected_value": 1.5})
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == []


def test_inv006_a_reason_on_every_rejected_alternative_documents_stage_3() -> None:
    reasons = [{"option_id": "wait", "rejection_reason": "slower"}, {"option_id": "skip", "rejection_reason": "loses"}]
    pkt = arbitrated(payload__decision_summary="pick", payload__rejected_alternatives=reasons)
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == []
    reasons[1]["rejection_reason"] = " "
    assert len(inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS)) == 1


def test_inv006_a_policy_named_in_the_chosen_option_documents_stage_3() -> None:
    pkt = arbitrated(payload__decision_summary="pick", payload__rejected_alternatives=UNREASONED,
                     payload__chosen_option={"option_id": "buy", "risk_profile": "min-regret under uncertainty"})
    assert inv_006_drive_arbitration_sequence(pkt, EMPTY, NOW_MS) == []


# --------------------------------------------------------------------------- INV-009
def test_inv009_a_complete_two_option_escalation_passes() -> None:
    assert inv_009_escalation_presents_options(build("EscalationPacket"), EMPTY, NOW_MS) == []


def test_inv009_three_options_pass() -> None:
    pkt = build("EscalationPacket")
    pkt["payload"]["top_options"].append({"option_id": "c", "description": "sell", "pros": [], "cons": []})
    assert inv_009_escalation_presents_options(pkt, EMPTY, NOW_MS) == []


def test_inv009_other_packets_are_not_judged() -> None:
    assert inv_009_escalation_presents_options(build(), EMPTY, NOW_MS) == []


@pytest.mark.parametrize("count", [0, 1, 4])
def test_inv009_the_option_count_must_be_two_or_three(count: int) -> None:
    option = {"option_id": "a", "description": "wait", "pros": ["safe"], "cons": ["slow"]}
    pkt = build("EscalationPacket", payload__top_options=[option] * count)
    found = inv_009_escalation_presents_options(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-009", ERROR, "payload.top_options")]
    assert f"has {count}" in found[0].message


def test_inv009_each_missing_option_field_is_reported() -> None:
    pkt = build("EscalationPacket")
    del pkt["payload"]["top_options"][1]["cons"]
    pkt["payload"]["top_options"][0]["option_id"] = None
    assert inv_009_escalation_presents_options(pkt, EMPTY, NOW_MS) == [
        Violation("INV-009", ERROR, "INV-009: option 0 lacks option_id", "payload.top_options.0.option_id"),
        Violation("INV-009", ERROR, "INV-009: option 1 lacks cons", "payload.top_options.1.cons")]


def test_inv009_gaps_and_next_step_are_required() -> None:
    pkt = build("EscalationPacket", payload__evidence_gaps=[])
    del pkt["payload"]["recommended_next_step"]
    assert inv_009_escalation_presents_options(pkt, EMPTY, NOW_MS) == [
        Violation("INV-009", ERROR, "INV-009: evidence_gaps must be non-empty", "payload.evidence_gaps"),
        Violation("INV-009", ERROR, "INV-009: recommended_next_step is required", "payload.recommended_next_step")]


def test_inv009_an_empty_payload_reports_everything_without_raising() -> None:
    pkt = build("EscalationPacket", payload=[])
    assert [v.field for v in inv_009_escalation_presents_options(pkt, EMPTY, NOW_MS)] == [
        "payload.top_options", "payload.evidence_gaps", "payload.recommended_next_step"]


# --------------------------------------------------------------------------- INV-010
def degraded(tools: str, stakes: str, outcome: str = "ACT", uncertainty: str = "HIGH") -> dict[str, Any]:
    return build(mcp__routing__tools_state=tools, mcp__stakes__stakes_level=stakes,
                 mcp__stakes__uncertainty=uncertainty, payload__decision_outcome=outcome)


@pytest.mark.parametrize("outcome", ["ESCALATE", "CANCEL", "VERIFY_FIRST", "DEFER"])
def test_inv010_tools_down_at_high_stakes_may_do_anything_but_act(outcome: str) -> None:
    assert inv_010_degraded_tools_policy(degraded("tools_down", "HIGH", outcome), EMPTY, NOW_MS) == []


def test_inv010_acting_with_tools_ok_or_at_lower_stakes_is_not_its_concern() -> None:
    assert inv_010_degraded_tools_policy(degraded("tools_ok", "CRITICAL"), EMPTY, NOW_MS) == []
    assert inv_010_degraded_tools_policy(degraded("tools_down", "LOW"), EMPTY, NOW_MS) == []


def test_inv010_tools_partial_at_medium_with_high_uncertainty_passes() -> None:
    assert inv_010_degraded_tools_policy(degraded("tools_partial", "MEDIUM"), EMPTY, NOW_MS) == []


@pytest.mark.parametrize("stakes", ["HIGH", "CRITICAL"])
def test_inv010_acting_with_tools_down_at_high_stakes_is_an_error(stakes: str) -> None:
    found = inv_010_degraded_tools_policy(degraded("tools_down", stakes), EMPTY, NOW_MS)
    assert rules(found) == [("INV-010", ERROR, "payload.decision_outcome")]
    assert f"tools_down + {stakes}" in found[0].message


@pytest.mark.parametrize("outcome", ["ACT", "DEFER"])
def test_inv010_tools_partial_at_medium_without_high_uncertainty_warns(outcome: str) -> None:
    found = inv_010_degraded_tools_policy(degraded("tools_partial", "MEDIUM", outcome, "LOW"), EMPTY, NOW_MS)
    assert rules(found) == [("INV-010", WARNING, "mcp.stakes.uncertainty")]
    assert "(is LOW)" in found[0].message


def test_inv010_only_decisions_are_judged() -> None:
    pkt = build("ObservationPacket", mcp__routing__tools_state="tools_partial", mcp__stakes__uncertainty="LOW")
    assert inv_010_degraded_tools_policy(pkt, EMPTY, NOW_MS) == []


# --------------------------------------------------------------------------- INV-012
def stakes(level: str, impact: str = "LOW", irreversibility: str = "REVERSIBLE", uncertainty: str = "LOW",
           adversariality: str = "BENIGN") -> dict[str, Any]:
    return build("ObservationPacket", mcp__stakes={
        "impact": impact, "irreversibility": irreversibility, "uncertainty": uncertainty,
        "adversariality": adversariality, "stakes_level": level})


@pytest.mark.parametrize("pkt", [
    stakes("CRITICAL", impact="CRITICAL"),
    stakes("CRITICAL", impact="HIGH", irreversibility="IRREVERSIBLE", uncertainty="HIGH"),
    stakes("HIGH", irreversibility="IRREVERSIBLE", adversariality="HOSTILE"),
    stakes("HIGH", impact="CRITICAL"),
    stakes("MEDIUM", adversariality="CONTESTED"),
    stakes("MEDIUM", uncertainty="HIGH"),
    stakes("LOW"),
    stakes("LOW", irreversibility="PARTIAL"),
    stakes("HIGH", uncertainty="HIGH", adversariality="CONTESTED"),
], ids=["crit-axis", "crit-triple", "high-two", "high-crit", "med-contested", "med-high", "low-all", "low-one-med",
        "high-contested-counts-as-high"])
def test_inv012_levels_justified_by_their_axes_pass(pkt: dict[str, Any]) -> None:
    assert inv_012_stakes_consistency(pkt, EMPTY, NOW_MS) == []


def test_inv012_the_factory_default_stakes_are_consistent() -> None:
    assert inv_012_stakes_consistency(build(), EMPTY, NOW_MS) == []


@pytest.mark.parametrize("pkt", [
    stakes("CRITICAL", impact="HIGH", irreversibility="IRREVERSIBLE", uncertainty="MEDIUM"),
    stakes("HIGH", impact="HIGH", uncertainty="MEDIUM"),
    stakes("MEDIUM"),
    stakes("MEDIUM", impact="CRITICAL"),
    stakes("LOW", irreversibility="PARTIAL", adversariality="CONTESTED"),
    stakes("LOW", adversariality="HOSTILE"),
    stakes("LOW", adversariality="CONTESTED"),
], ids=["crit-needs-high-uncertainty", "high-one-axis", "med-all-low", "med-only-critical", "low-two-med",
        "low-hostile", "low-contested-is-high"])
def test_inv012_unjustified_levels_warn(pkt: dict[str, Any]) -> None:
    found = inv_012_stakes_consistency(pkt, EMPTY, NOW_MS)
    assert rules(found) == [("INV-012", WARNING, "mcp.stakes.stakes_level")]
    level = pkt["mcp"]["stakes"]["stakes_level"]
    assert f"stakes_level {level} not justified" in found[0].message
    assert f"impact={pkt['mcp']['stakes']['impact']}" in found[0].message


def test_inv012_low_stakes_allow_one_medium_axis_but_not_two() -> None:
    """LOW allows no axis above MEDIUM and at most one MEDIUM (module docstring)."""
    assert inv_012_stakes_consistency(stakes("LOW", impact="MEDIUM"), EMPTY, NOW_MS) == []
    found = inv_012_stakes_consistency(stakes("LOW", impact="MEDIUM", irreversibility="PARTIAL"), EMPTY, NOW_MS)
    assert found == [Violation("INV-012", WARNING, "INV-012: stakes_level LOW not justified by axes (impact=MEDIUM, "
                               "irreversibility=PARTIAL, uncertainty=LOW, adversariality=BENIGN)",
                               "mcp.stakes.stakes_level")]


@pytest.mark.parametrize("change", [{"impact": "HUGE"}, {"stakes_level": "EXTREME"}, {"uncertainty": ["HIGH"]},
                                    {"stakes_level": ["LOW"]}])
def test_inv012_unknown_values_are_not_judged(change: dict[str, Any]) -> None:
    pkt = stakes("LOW", adversariality="HOSTILE")
    pkt["mcp"]["stakes"].update(change)
    assert inv_012_stakes_consistency(pkt, EMPTY, NOW_MS) == []


# --------------------------------------------------------------------------- INV-011 helper
def test_deadline_is_the_time_budget_when_the_directive_timeout_is_shorter() -> None:
    """The assertion: a result "within time_budget_seconds" (90 s here) is on time."""
    assert directive_deadline_ms(directive(payload__timeout_seconds=30), NOW_MS) == NOW_MS + 90_000


def test_deadline_is_the_directive_timeout_times_its_attempts_when_that_is_longer() -> None:
    pkt = directive(payload__timeout_seconds=40, payload__retry_policy={"max_retries": 2})
    assert directive_deadline_ms(pkt, NOW_MS) == NOW_MS + 120_000
    pkt = directive(payload__timeout_seconds=100)
    assert directive_deadline_ms(pkt, NOW_MS) == NOW_MS + 100_000


def test_a_deadline_past_the_last_iso_year_is_no_deadline() -> None:
    pkt = directive(payload__timeout_seconds=10**12, payload__retry_policy={"max_retries": 10**9})
    assert directive_deadline_ms(pkt, NOW_MS) is None


def test_deadline_falls_back_to_the_time_budget() -> None:
    assert directive_deadline_ms(directive(), NOW_MS) == NOW_MS + 90_000
    assert directive_deadline_ms(directive(payload__timeout_seconds=True), NOW_MS) == NOW_MS + 90_000


def test_deadline_is_unknown_without_issue_time_or_any_duration() -> None:
    assert directive_deadline_ms(directive(), None) is None
    assert directive_deadline_ms(drop(directive(), "mcp.budgets"), NOW_MS) is None


# --------------------------------------------------------------------------- the collections
def test_per_packet_and_episode_invariants_are_listed_in_id_order() -> None:
    assert [f.__name__[:7] for f in PER_PACKET] == [f"inv_{n:03d}" for n in (1, 2, 3, 4, 6, 9, 10, 12)]
    assert [f.__name__[:7] for f in EPISODE] == ["inv_005", "inv_007", "inv_008"]


@pytest.mark.parametrize("packet_type", ["ThoughtPacket", "", 7, None, ["DecisionPacket"]])
def test_an_unknown_or_non_string_packet_type_gets_every_invariant(packet_type: object) -> None:
    assert invariants_for(packet_type) == (*PER_PACKET, *EPISODE)


def test_a_known_packet_type_gets_only_the_invariants_that_can_fire_on_it() -> None:
    assert [f.__name__[:7] for f in invariants_for("EscalationPacket")] == [
        "inv_001", "inv_004", "inv_009", "inv_012", "inv_005"]


def test_a_clean_factory_episode_raises_no_invariant() -> None:
    for n, kind in enumerate(("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket")):
        pkt = factory_packet(n, 1, kind)
        assert [v for inv in (*PER_PACKET, *EPISODE) for v in inv(pkt, EMPTY, to_ms(pkt["header"]["created_at"]))] \
            == []


def test_the_bundled_example_episodes_break_no_invariant() -> None:
    """Realistic producers (examples/omen) break no invariant except where a packet's `_validation_notes`
    says the break is deliberate (the token, budget and degraded-tools examples)."""
    found: list[tuple[str, str]] = []
    assert len(list(EXAMPLES.glob("*.jsonl"))) >= 5
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        ledgers: dict[str, EpisodeLedger] = {}
        for line in path.read_text().splitlines():
            try:
                pkt = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(pkt, dict) or not isinstance(pkt.get("header"), dict):
                continue
            cid = str(pkt["header"].get("correlation_id"))
            ledgers[cid], outputs = evolve(ledgers.get(cid), pkt)
            if str(pkt.get("_validation_notes", "")).startswith("Deliberate"):
                continue
            found += [(path.name, v.rule) for o in outputs if isinstance(o, PacketVerdict)
                      for v in o.violations if v.rule.startswith("INV-")]
    # pkt_dt_0005: a FAILURE result labelled OBSERVED REALTIME with no evidence ref, only an absence reason
    # ("The read failed; no data to cite"): INV-004's WARNING for OBSERVED claims (invariants_evidence.py docstring).
    assert found == [("degraded_tools.jsonl", "INV-004")]


# --------------------------------------------------------------------------- never raise
RICH = EpisodeLedger("corr_ep00001", state="S4_VERIFY", verify=OPENED, tools_state="tools_ok",
                     budgets=Budgets(1, 1, 1, 1.0), usage=Usage(5, 5, 5.0, 5.0),
                     tokens={"token_a": token(resource_constraints={"max_isk": 1, "system": ["Jita"], "s": "x"})})
ALL = (*PER_PACKET, *EPISODE)


@pytest.mark.parametrize("pkt", [
    {}, {"header": None}, {"header": [], "mcp": "x", "payload": 3},
    {"header": {"packet_type": "DecisionPacket", "layer_source": 1}, "mcp": {"stakes": []}, "payload": {}},
    {"header": {"packet_type": "TaskDirectivePacket"}, "payload": {"tool_safety_class": "WRITE",
                                                                 "authorization_token_id": "token_a",
                                                                 "execution_method": {"tool_params": []}}},
    {"header": {"packet_type": "EscalationPacket"}, "payload": {"top_options": "abc", "evidence_gaps": {}}},
    {"header": {"packet_type": ["DecisionPacket"]}, "mcp": {"epistemics": {"status": ["INFERRED"],
                                                                           "freshness_class": {}}}},
])
def test_malformed_packets_never_raise(pkt: dict[str, Any]) -> None:
    for invariant in ALL:
        for ledger in (EMPTY, RICH):
            assert isinstance(invariant(pkt, ledger, NOW_MS), list)


@PROPERTY
@given(valid_packets(), st.sampled_from([None, NOW_MS]))
def test_valid_packets_never_raise(pkt: dict[str, Any], now_ms: int | None) -> None:
    for invariant in ALL:
        for violation in invariant(pkt, RICH, now_ms):
            assert violation.rule.startswith("INV-0")
            assert violation.message.startswith(violation.rule)


@PROPERTY
@given(mutated_packets())
def test_schema_broken_packets_never_raise(mutation: Any) -> None:
    for invariant in ALL:
        invariant(mutation.packet, RICH, NOW_MS)


@PROPERTY
@given(st.sampled_from(["DecisionPacket", "TaskDirectivePacket", "EscalationPacket", "IntegrityAlertPacket"]),
       JSON_VALUES, JSON_VALUES)
def test_arbitrary_json_in_mcp_and_payload_never_raises(packet_type: str, mcp: Any, payload: Any) -> None:
    pkt = {"header": {"packet_type": packet_type, "layer_source": 1}, "mcp": mcp, "payload": payload}
    for invariant in ALL:
        invariant(pkt, RICH, NOW_MS)
