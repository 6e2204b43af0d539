"""How packets change the episode ledger (`omega.packets.episode`): event time, the envelope a budget escalation's
answer extends, the verification loop's fresh live evidence, open directives and the tokens they use."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from omega.eventtime import to_ms
from omega.packets.episode import apply_accepted, apply_usage, get
from omega.packets.ledger import Budgets, EpisodeLedger, OpenDirective, Token, Usage, VerifyLoop
from tests.factories import packet

Packet = dict[str, Any]
EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"
START = EpisodeLedger("corr_ep00001")
T0 = 1_766_314_800_000  # 2025-12-21T11:00:00Z, packet 0's event time in tests.factories


def _example(name: str) -> dict[str, Packet]:
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    return {p["header"]["packet_id"]: p for p in map(json.loads, lines)}


def step(ledger: EpisodeLedger, pkt: Packet, state: str = "S6_EXECUTE") -> EpisodeLedger:
    """`pkt` applied as accepted (usage first, then the rest), at its own event time."""
    now_ms = to_ms(pkt["header"]["created_at"])
    return apply_accepted(apply_usage(ledger, pkt, now_ms), pkt, state, now_ms)


# --------------------------------------------------------------------------- event time and state
def test_usage_moves_the_event_time_to_the_packet_s_time_and_never_back() -> None:
    first = apply_usage(START, packet(0, 1), T0)
    later = apply_usage(first, packet(5, 1), T0 + 5000)
    earlier = apply_usage(later, packet(3, 1), T0 + 3000)  # out of order: the episode's time stays

    assert (first.last_event_ms, later.last_event_ms, earlier.last_event_ms) == (T0, T0 + 5000, T0 + 5000)


def test_an_accepted_packet_moves_the_episode_to_the_state_after_it() -> None:
    assert apply_accepted(START, packet(0, 1), "S1_SENSE", T0).state == "S1_SENSE"


def test_a_verify_first_decision_opens_a_loop_at_the_decision_s_event_time() -> None:
    decision = packet(2, 1, "DecisionPacket")  # VERIFY_FIRST

    opened = apply_accepted(START, decision, "S4_VERIFY", T0 + 2000)

    assert opened.verify == VerifyLoop("pkt_00001_000002", opened_ms=T0 + 2000)


# --------------------------------------------------------------------------- the answer to a budget escalation
def _decision(n: int, budgets: dict[str, Any]) -> Packet:
    pkt = packet(n, 1, "DecisionPacket")
    pkt["payload"]["decision_outcome"] = "ACT"
    pkt["mcp"]["budgets"] = budgets
    return pkt


def _spent_then_escalated() -> EpisodeLedger:
    """A 900-token / 2-call / 90 s / 50-loss envelope, a result spending 1000 tokens, 3 calls, 1.5005 s and 2.5
    risk, then an open `budget_insufficient` escalation."""
    ledger = step(START, _decision(0, {"token_budget": 900, "tool_call_budget": 2, "time_budget_seconds": 90,
                                       "risk_budget": {"envelope": "low", "max_loss": 50.0}}), "S3_DECIDE")
    result = packet(1, 1)
    result["header"]["packet_type"] = "TaskResultPacket"
    result["payload"] = {"task_id": "task_1", "result_status": "SUCCESS", "execution_metadata": {
        "tokens_used": 1000, "tool_calls_used": 3, "execution_time_ms": 1500.5, "risk_spent": 2.5}}
    ledger = step(ledger, result)
    escalation = packet(2, 1)
    escalation["header"]["packet_type"] = "EscalationPacket"
    escalation["payload"] = {"escalation_trigger": "budget_insufficient"}
    ledger = step(ledger, escalation, "S8_ESCALATED")
    assert ledger.budget_escalation_open
    return ledger


def test_the_answer_to_a_budget_escalation_moves_every_limit_it_declares_to_the_spent_plus_that_amount() -> None:
    answer = _decision(3, {"token_budget": 500, "tool_call_budget": 4, "time_budget_seconds": 60,
                           "risk_budget": {"envelope": "low", "max_loss": 10.0}})

    extended = apply_usage(_spent_then_escalated(), answer, T0 + 3000)

    # 1000 + 500 tokens, 3 + 4 calls, ceil(1.5005) + 60 s (an integer limit rounds the spent up), 2.5 + 10.0 loss
    assert extended.budgets == Budgets(1500, 7, 62, 12.5, "pkt_00001_000003")


def test_the_answer_to_a_budget_escalation_keeps_each_limit_it_declares_no_number_for() -> None:
    answer = _decision(3, {"token_budget": "more", "tool_call_budget": None, "time_budget_seconds": 1.5,
                           "risk_budget": {"envelope": "low", "max_loss": "small"}})

    extended = apply_usage(_spent_then_escalated(), answer, T0 + 3000)

    assert extended.budgets == Budgets(900, 2, 90, 50.0, "pkt_00001_000003")


# --------------------------------------------------------------------------- the verification loop's live evidence
FRESH = "2025-12-21T11:00:30Z"  # after the VERIFY_FIRST decision at 11:00:02


def _observed_loop() -> EpisodeLedger:
    """A VERIFY_FIRST loop opened at 11:00:02 that has observed something (nothing cites it yet)."""
    ledger = apply_accepted(START, packet(2, 1, "DecisionPacket"), "S4_VERIFY", T0 + 2000)
    ledger = apply_accepted(ledger, packet(3, 1), "S4_VERIFY", T0 + 3000)  # an OBSERVED ObservationPacket
    assert ledger.verify == VerifyLoop("pkt_00001_000002", observed=True, opened_ms=T0 + 2000)
    return ledger


def _belief(refs: list[Any]) -> Packet:
    belief = packet(4, 1, "BeliefUpdatePacket")
    belief["payload"]["evidence_integration"] = ["raw:tool-output-17"]  # a raw output, not a packet in the loop
    belief["mcp"]["evidence"]["evidence_refs"] = refs
    return belief


def _closes(refs: list[Any]) -> bool:
    after = apply_accepted(_observed_loop(), _belief(refs), "S2_MODEL", T0 + 4000)
    assert after.verify is not None
    return after.verify.belief_update_with_evidence


def test_fresh_evidence_of_a_kind_that_is_not_live_does_not_close_the_loop() -> None:
    assert not _closes([{"ref_type": "document", "ref_id": "doc:manual", "timestamp": FRESH}])


def test_fresh_live_evidence_closes_the_loop_past_refs_that_are_not_objects() -> None:
    assert _closes(["tool_output", {"ref_type": "tool_output", "ref_id": "market:jita", "timestamp": FRESH}])


def test_fresh_live_evidence_in_a_read_only_mapping_closes_the_loop() -> None:
    assert _closes([MappingProxyType({"ref_type": "user_observation", "ref_id": "user:1", "timestamp": FRESH})])


# --------------------------------------------------------------------------- directives and tokens
WRITE_ACT = _example("write_act.jsonl")
TOKEN, DIRECTIVE = WRITE_ACT["pkt_wa_0004"], WRITE_ACT["pkt_wa_0005"]
ISSUED = 1_766_394_914_000  # 2025-12-22T09:15:14Z, the directive's event time
EXPIRY = 1_766_395_511_000  # 2025-12-22T09:25:11Z, the token's expiry


def _issued() -> EpisodeLedger:
    return apply_accepted(START, TOKEN, "S5_AUTHORIZE", ISSUED - 1000)


def test_an_issued_token_is_tracked_with_every_field_of_its_payload() -> None:
    assert _issued().tokens == {"token_wa_0001": Token(
        token_id="token_wa_0001", packet_id="pkt_wa_0004", tool_ids=("market_order_api",),
        operation_types=("write", "modify"),
        resource_constraints={"order_ids": ["ord_5512"], "min_price": 4.0, "max_isk_at_risk": 50000000},
        expiry="2025-12-22T09:25:11+00:00", expiry_ms=EXPIRY, max_usage_count=1, usage_count=0, revoked=False,
        issuer_layer=1)}


def test_a_token_issued_already_used_and_revoked_by_integrity_is_tracked_as_such() -> None:
    token = copy.deepcopy(TOKEN)
    token["payload"].update(max_usage_count=3, usage_count=2, revoked=True, issuer_layer="Integrity")

    tracked = apply_accepted(START, token, "S5_AUTHORIZE", ISSUED - 1000).tokens["token_wa_0001"]

    assert (tracked.max_usage_count, tracked.usage_count, tracked.revoked, tracked.issuer_layer) == (
        3, 2, True, "Integrity")


def test_a_directive_stays_open_with_its_safety_class_issue_time_and_deadline() -> None:
    opened = apply_accepted(_issued(), DIRECTIVE, "S6_EXECUTE", ISSUED)

    # Deadline: issue time + the longer of the 300 s time budget and the 30 s timeout (no retries).
    assert opened.open_directives == {"task_wa_modify_01": OpenDirective(
        task_id="task_wa_modify_01", packet_id="pkt_wa_0005", tool_safety_class="WRITE", issued_ms=ISSUED,
        deadline_ms=ISSUED + 300_000, stakes_level="MEDIUM")}


@pytest.mark.parametrize(("safety", "used"), [("WRITE", 1), ("MIXED", 1), ("READ", 0)])
def test_only_a_write_or_mixed_directive_uses_the_token_it_quotes(safety: str, used: int) -> None:
    directive = copy.deepcopy(DIRECTIVE)
    directive["payload"]["tool_safety_class"] = safety

    after = apply_accepted(_issued(), directive, "S6_EXECUTE", ISSUED)

    assert after.tokens["token_wa_0001"].usage_count == used


def test_a_write_directive_quoting_a_token_never_issued_leaves_the_tokens_alone() -> None:
    directive = copy.deepcopy(DIRECTIVE)
    directive["payload"]["authorization_token_id"] = "token_never_issued"
    issued = _issued()

    after = apply_accepted(issued, directive, "S6_EXECUTE", ISSUED)

    assert after.tokens == issued.tokens


def _reissue(stakes: str) -> dict[str, Any]:
    """The write_act directive sent again under another packet id, at other stakes."""
    again = copy.deepcopy(DIRECTIVE)
    again["header"]["packet_id"] = "pkt_wa_0099"
    again["mcp"]["stakes"]["stakes_level"] = stakes
    return again


def test_a_task_issued_again_while_open_keeps_the_earlier_deadline_and_the_higher_stakes() -> None:
    # INV-011 times every directive emitted: the second directive of task_wa_modify_01 (MEDIUM -> CRITICAL, 60 s
    # later, so a deadline 60 s later) must not wipe the first one's clock; it raises the stakes.
    first = apply_accepted(_issued(), DIRECTIVE, "S6_EXECUTE", ISSUED)
    again = apply_accepted(first, _reissue("CRITICAL"), "S6_EXECUTE", ISSUED + 60_000)

    assert again.open_directives == {"task_wa_modify_01": OpenDirective(
        task_id="task_wa_modify_01", packet_id="pkt_wa_0005", tool_safety_class="WRITE", issued_ms=ISSUED,
        deadline_ms=ISSUED + 300_000, stakes_level="CRITICAL")}


def test_a_task_issued_again_with_an_earlier_deadline_takes_that_deadline() -> None:
    late = copy.deepcopy(DIRECTIVE)
    late["mcp"]["budgets"]["time_budget_seconds"] = 900  # the first directive: due 15 minutes after issue
    first = apply_accepted(_issued(), late, "S6_EXECUTE", ISSUED)
    again = apply_accepted(first, _reissue("LOW"), "S6_EXECUTE", ISSUED + 60_000)

    assert again.open_directives["task_wa_modify_01"] == OpenDirective(
        task_id="task_wa_modify_01", packet_id="pkt_wa_0099", tool_safety_class="WRITE", issued_ms=ISSUED + 60_000,
        deadline_ms=ISSUED + 60_000 + 300_000, stakes_level="MEDIUM")


# --------------------------------------------------------------------------- reading packets defensively
def test_get_reads_a_path_through_plain_dicts_and_read_only_mappings() -> None:
    nested = {"mcp": MappingProxyType({"stakes": {"stakes_level": "HIGH"}})}

    assert get(nested, "mcp", "stakes", "stakes_level") == "HIGH"
    assert get(MappingProxyType({"a": 1}), "a") == 1


@pytest.mark.parametrize("data", [None, "header", ["header"], 7, {"header": "not an object"}, {"header": [1]}])
def test_get_gives_none_once_the_path_leaves_the_objects(data: object) -> None:
    assert get(data, "header", "packet_type") is None


# --------------------------------------------------------------------------- usage
def test_a_result_s_fractions_of_a_millisecond_and_of_a_unit_of_risk_count() -> None:
    result = packet(1, 1)
    result["header"]["packet_type"] = "TaskResultPacket"
    result["payload"] = {"task_id": "task_1", "result_status": "SUCCESS", "execution_metadata": {
        "tokens_used": 0, "tool_calls_used": 1, "execution_time_ms": 0.5, "risk_spent": 0.25}}

    used = apply_usage(START, result, T0).usage

    assert used == Usage(0, 1, 0.0005, 0.25)


# --------------------------------------------------------------------------- what an accepted packet records
def test_an_accepted_packet_records_its_tools_state_and_stakes_level() -> None:
    pkt = packet(0, 1)
    pkt["mcp"]["stakes"]["stakes_level"] = "HIGH"
    pkt["mcp"]["routing"]["tools_state"] = "tools_degraded"

    after = apply_accepted(START, pkt, "S1_SENSE", T0)

    assert (after.stakes_level, after.tools_state) == ("HIGH", "tools_degraded")


def _citing(n: int, refs: list[Any]) -> Packet:
    pkt = packet(n, 1)
    pkt["mcp"]["evidence"]["evidence_refs"] = refs
    return pkt


def test_accepted_packets_add_each_new_evidence_ref_id_once_in_order_of_first_citation() -> None:
    first = _citing(0, [{"ref_type": "tool_output", "ref_id": "market:jita"}, "market:amarr",
                        MappingProxyType({"ref_type": "document", "ref_id": "doc:manual"}),
                        {"ref_type": "tool_output"}, {"ref_type": "tool_output", "ref_id": 17},
                        {"ref_type": "tool_output", "ref_id": "market:jita"}])
    second = _citing(1, [{"ref_type": "tool_output", "ref_id": "doc:manual"},
                         {"ref_type": "user_observation", "ref_id": "user:1"}])

    once = apply_accepted(START, first, "S1_SENSE", T0)
    twice = apply_accepted(once, second, "S1_SENSE", T0 + 1000)

    assert once.evidence_refs == ("market:jita", "doc:manual")
    assert twice.evidence_refs == ("market:jita", "doc:manual", "user:1")


def test_a_belief_update_counts_once() -> None:
    assert apply_accepted(START, packet(1, 1, "BeliefUpdatePacket"), "S2_MODEL", T0).belief_updates == 1


def _alert(n: int, severity: str, alert_type: str, description: str | None) -> Packet:
    pkt = packet(n, 1)
    pkt["header"].update(packet_type="IntegrityAlertPacket", layer_source="Integrity")
    pkt["payload"] = {"alert_type": alert_type, "severity": severity}
    if description is not None:
        pkt["payload"]["description"] = description
    return pkt


@pytest.mark.parametrize(("description", "reason"), [
    ("tool output tampered", "tool output tampered"), (None, "safe mode entered"), ("", "safe mode entered"),
])
def test_entering_safe_mode_records_the_packet_s_description_as_the_reason(description: str | None,
                                                                            reason: str) -> None:
    entered = apply_accepted(START, _alert(0, "CRITICAL", "constitutional_violation", description), "S9_SAFEMODE", T0)

    assert (entered.state, entered.safe_mode_reason) == ("S9_SAFEMODE", reason)


def test_packets_accepted_in_safe_mode_keep_the_reason_it_was_entered_for() -> None:
    entered = apply_accepted(START, _alert(0, "CRITICAL", "constitutional_violation", "first"), "S9_SAFEMODE", T0)

    logged = apply_accepted(entered, _alert(1, "CRITICAL", "drift_detected", "second"), "S9_SAFEMODE", T0 + 1000)

    assert logged.safe_mode_reason == "first"


def test_leaving_safe_mode_clears_the_reason() -> None:
    entered = apply_accepted(START, _alert(0, "CRITICAL", "constitutional_violation", "first"), "S9_SAFEMODE", T0)

    cleared = apply_accepted(entered, _alert(1, "INFO", "safe_mode_clear", "all clear"), "S7_REVIEW", T0 + 1000)

    assert (cleared.state, cleared.safe_mode_reason) == ("S7_REVIEW", None)


def test_a_packet_accepted_outside_safe_mode_records_no_safe_mode_reason() -> None:
    pkt = packet(0, 1)
    pkt["payload"]["description"] = "an observation that happens to carry a description"

    assert apply_accepted(START, pkt, "S1_SENSE", T0).safe_mode_reason is None


def test_a_packet_other_than_a_decision_leaves_an_open_budget_escalation_open_and_approved() -> None:
    escalated = _spent_then_escalated()

    after = step(escalated, packet(3, 1), "S8_ESCALATED")

    assert (after.budget_escalation_open, after.budget_approved) == (True, True)


def _success(n: int, epistemics: str) -> Packet:
    result = packet(n, 1)
    result["header"]["packet_type"] = "TaskResultPacket"
    result["mcp"]["epistemics"]["status"] = epistemics
    result["payload"] = {"task_id": "task_1", "result_status": "SUCCESS"}
    return result


@pytest.mark.parametrize(("observed_before", "epistemics", "observed_after"), [
    (False, "OBSERVED", True), (False, "INFERRED", False), (True, "INFERRED", True), (True, "OBSERVED", True),
])
def test_a_success_result_in_the_loop_counts_as_observed_evidence_when_its_own_epistemics_are_observed(
        observed_before: bool, epistemics: str, observed_after: bool) -> None:
    # OMEN.md §15.3 step 6, "TaskResultPacket (OBSERVED evidence)": the result is the observation.
    loop = VerifyLoop("pkt_00001_000002", observed=observed_before, opened_ms=T0 + 2000)
    ledger = replace(apply_accepted(START, packet(2, 1, "DecisionPacket"), "S4_VERIFY", T0 + 2000), verify=loop)

    after = apply_accepted(ledger, _success(3, epistemics), "S4_VERIFY", T0 + 3000)

    assert after.verify == VerifyLoop("pkt_00001_000002", success_result=True, observed=observed_after,
                                      opened_ms=T0 + 2000)
