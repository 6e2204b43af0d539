"""The packet validator's evolve: schema stage, duplicate ids, redelivery, and the ledger it keeps."""

from __future__ import annotations

import copy
import json
import re
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from omega.events import Alert, Escalation
from omega.eventtime import to_ms
from omega.packets.ledger import Budgets, EpisodeLedger, OpenDirective, Usage
from omega.packets.validator import advance, evolve, evolve_single
from omega.packets.verdict import VerdictStatus
from omega.violations import Severity, Violation
from tests.factories import EXAMPLES, episode_packets, packet
from tests.omen_strategies import valid_packets


def test_a_schema_valid_packet_is_accepted_and_recorded() -> None:
    ledger, [verdict] = evolve(None, packet(0, 1))
    assert verdict.status is VerdictStatus.ACCEPTED
    assert verdict.violations == ()
    assert verdict.event_time == "2025-12-21T11:00:00Z"
    assert (ledger.correlation_id, ledger.accepted, ledger.rejected) == ("corr_ep00001", 1, 0)
    assert set(ledger.applied) == {"pkt_00001_000000"}


def test_a_missing_mcp_field_is_a_named_schema_rejection() -> None:
    broken = packet(0, 1)
    del broken["mcp"]["budgets"]["token_budget"]
    ledger, [verdict] = evolve(None, broken)
    assert verdict.status is VerdictStatus.REJECTED
    assert [(v.rule, v.field) for v in verdict.violations] == [("SCHEMA", "mcp.budgets.token_budget")]
    assert ledger.rejected == 1


def test_redelivery_re_emits_the_identical_verdict_and_changes_nothing() -> None:
    broken = packet(0, 1)
    broken["mcp"]["epistemics"]["confidence"] = 7
    ledger, [first] = evolve(None, broken)
    again, [second] = evolve(ledger, copy.deepcopy(broken))
    assert second == first
    assert again is ledger


def test_reusing_a_packet_id_for_other_content_is_rejected_as_duplicate_without_overwriting() -> None:
    original = packet(0, 1)
    ledger, [first] = evolve(None, original)
    impostor = copy.deepcopy(original)
    impostor["payload"]["data"] = {"price": 0}
    after, [verdict] = evolve(ledger, impostor)
    assert verdict.status is VerdictStatus.REJECTED
    assert verdict.violations[0].rule == "DUPLICATE"
    assert verdict.verdict_id != first.verdict_id
    assert after.applied["pkt_00001_000000"] == ledger.applied["pkt_00001_000000"]
    assert (after.state, after.usage, after.accepted, after.rejected) == \
        (ledger.state, ledger.usage, ledger.accepted, ledger.rejected)
    # the original is still recognised as a redelivery afterwards
    _, [replayed] = evolve(after, original)
    assert replayed == first


def test_a_redelivered_impostor_re_emits_its_verdict_even_when_the_episode_moved_on() -> None:
    """After a crash the ledger in the changelog can be ahead of the consumed offsets: the impostor comes
    again once later packets have changed the state and usage. It must get the verdict it got the first time
    (same id, same content), not one describing the later episode (found by tests/integration/test_under_fire)."""
    packets = episode_packets(1, 6)
    impostor = copy.deepcopy(packets[0])
    impostor["payload"]["data"] = {"price": 0}
    ledger, _ = evolve(None, packets[0])
    ledger, [verdict] = evolve(ledger, impostor)
    for p in packets[1:]:
        ledger, _ = evolve(ledger, p)
    assert ledger.state != verdict.state_before
    again, [redelivered] = evolve(ledger, copy.deepcopy(impostor))
    assert redelivered == verdict
    assert again is ledger
    assert EpisodeLedger.from_dict(json.loads(json.dumps(ledger.to_dict()))) == ledger


def test_verdict_ids_depend_only_on_packet_content_and_rule_set() -> None:
    _, [a] = evolve(None, packet(3, 7))
    _, [b] = evolve(EpisodeLedger("corr_ep00007"), packet(3, 7))
    assert a.verdict_id == b.verdict_id
    assert a.verdict_id.startswith("vrd_")


def test_ledger_survives_its_json_form_unchanged() -> None:
    ledger = None
    broken = packet(9, 2)
    broken["header"]["packet_id"] = "bad id"
    for p in [*episode_packets(2, 5), broken]:
        ledger, _ = evolve(ledger, p)
    assert ledger is not None
    assert EpisodeLedger.from_dict(ledger.to_dict()) == ledger
    assert (ledger.accepted, ledger.rejected) == (5, 1)


def test_ledger_json_form_built_from_the_previous_form_equals_a_fresh_one() -> None:
    ledger, stored = None, None
    for p in episode_packets(4, 12):
        ledger, _ = evolve(ledger, p)
        stored = ledger.to_dict(stored)
        assert stored == ledger.to_dict()


@settings(max_examples=60, deadline=None)
@given(valid_packets())
def test_no_generated_schema_valid_packet_gets_a_schema_violation(p: dict) -> None:  # type: ignore[type-arg]
    _, outputs = evolve(None, p)
    assert not [v for v in outputs[0].violations if v.rule == "SCHEMA"]


def _budget_episode() -> list[dict]:  # type: ignore[type-arg]
    path = Path(__file__).resolve().parents[4] / "examples" / "omen" / "budget_overrun.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _run(packets: list[dict]) -> tuple[EpisodeLedger | None, list[object]]:  # type: ignore[type-arg]
    ledger, outputs = None, []
    for p in packets:
        ledger, out = evolve(ledger, p)
        outputs += out
    return ledger, outputs


def test_a_halted_episode_is_not_alerted_again_for_the_same_overrun_by_logging_packets() -> None:
    packets = _budget_episode()[:7]  # up to the result that overruns: the episode is in safe mode
    log = copy.deepcopy(packets[1])  # a belief update: still admitted in safe mode (logging)
    log["header"]["packet_id"] = "pkt_bo_log"
    log["header"]["created_at"] = "2025-12-21T23:59:00Z"
    ledger, _ = _run(packets)
    assert ledger is not None
    assert ledger.state == "S9_SAFEMODE"
    _, outputs = evolve(ledger, log)
    assert [o.kind for o in outputs if isinstance(o, Alert)] == []
    assert [v.rule for v in outputs[0].violations if v.rule == "INV-005"] == []


def test_a_routine_integrity_alert_does_not_change_the_budget_envelope() -> None:
    ledger, _ = evolve(None, packet(0, 3, "DecisionPacket"))
    alert = packet(1, 3)
    alert["header"].update(packet_type="IntegrityAlertPacket", layer_source="Integrity")
    alert["mcp"]["budgets"]["token_budget"] = 999_999
    alert["payload"] = {"alert_type": "tool_degradation", "severity": "WARNING", "description": "slow tools"}
    after, _ = evolve(ledger, alert)
    assert after.budgets is not None
    assert after.budgets.tokens == 900


def test_packets_before_the_first_decision_set_no_envelope_and_the_first_decision_does() -> None:
    """The envelope is Layer 5's feasibility declaration (OMEN.md §4.3 Stage 2): the first DecisionPacket's."""
    ledger, _ = evolve(None, packet(0, 3))
    ledger, _ = evolve(ledger, packet(1, 3, "BeliefUpdatePacket"))
    assert ledger.budgets is None
    decision = packet(2, 3, "DecisionPacket")
    decision["mcp"]["budgets"]["token_budget"] = 4321
    ledger, _ = evolve(ledger, decision)
    assert ledger.budgets is not None
    assert (ledger.budgets.tokens, ledger.budgets.set_by) == (4321, "pkt_00003_000002")
    later = packet(3, 3, "DecisionPacket")
    later["mcp"]["budgets"]["token_budget"] = 10
    ledger, _ = evolve(ledger, later)
    assert ledger.budgets.tokens == 4321  # a later decision's budget covers its own work, never the envelope


def test_a_schema_rejected_packet_also_names_the_packet_local_rule_it_breaks() -> None:
    escalation = packet(0, 3)
    escalation["header"]["packet_type"] = "EscalationPacket"
    escalation["payload"] = {
        "escalation_trigger": "budget_insufficient",
        "top_options": [{"option_id": "a", "description": "wait", "pros": ["safe"], "cons": ["slow"]}],
        "evidence_gaps": [{"gap": "price trend", "impact_if_unknown": "overpay"}],
        "recommended_next_step": {"step": "read market", "rationale": "cheap"}}
    ledger, [verdict] = evolve(None, escalation)
    assert verdict.status is VerdictStatus.REJECTED
    assert sorted({v.rule for v in verdict.violations}) == ["INV-009", "SCHEMA"]
    assert (ledger.state, ledger.budgets, ledger.budget_approved) == ("S0_IDLE", None, False)  # nothing applied


def test_a_schema_rejected_packet_carries_only_the_errors_of_the_local_invariants() -> None:
    """INV-012 (a WARNING) is not added to a schema rejection; the disposition is the schema's."""
    broken = packet(0, 3)
    broken["mcp"]["stakes"]["stakes_level"] = "CRITICAL"  # unjustified: INV-012 would warn on a valid packet
    del broken["mcp"]["routing"]
    _, [verdict] = evolve(None, broken)
    assert {v.rule for v in verdict.violations} == {"SCHEMA"}


# --------------------------------------------------------------------------- evolve_single: a lone packet
def _stale_live_claim(n: int = 0) -> dict:  # type: ignore[type-arg]
    """An INFERRED claim about REALTIME state whose only evidence is 10 minutes old at the packet's time
    (11:00:00): INV-004 allows 300 s."""
    claim = packet(n, 1)
    claim["mcp"]["epistemics"].update(status="INFERRED", freshness_class="REALTIME")
    claim["mcp"]["evidence"]["evidence_refs"][0]["timestamp"] = "2025-12-21T10:50:00Z"
    return claim


STALE_CLAIM = Violation("INV-004", Severity.ERROR, "INV-004: INFERRED claim about REALTIME state needs tool_output "
                        "or user_observation evidence from the last 300 s", "mcp.evidence.evidence_refs")


def _read_directive(claim: dict) -> dict:  # type: ignore[type-arg]
    """`claim` turned into a READ TaskDirective that is no verification (task_class LOOKUP, no episode loop)."""
    claim["header"]["packet_type"] = "TaskDirectivePacket"
    claim["payload"] = {"task_id": "task_scan", "task_type": "tool_read", "tool_safety_class": "READ",
                        "execution_method": {"method": "tool", "tool_id": "market_api", "tool_params": {}}}
    return claim


def test_a_lone_packet_is_judged_at_its_own_created_at() -> None:
    """Recency (INV-004) is measured from the packet's event time: the same evidence 10 minutes before it is stale."""
    verdict = evolve_single(_stale_live_claim())
    assert verdict.status is VerdictStatus.REJECTED
    assert verdict.violations == (STALE_CLAIM,)
    assert (verdict.context, verdict.state_before, verdict.state_after, verdict.usage) == \
        ("single_packet", None, None, None)


def test_a_lone_read_directive_is_judged_against_an_empty_episode() -> None:
    """A READ directive is a verification only inside a verify loop: a lone one has none, so INV-004 judges it."""
    verdict = evolve_single(_read_directive(_stale_live_claim()))
    assert verdict.violations == (STALE_CLAIM,)


def test_a_lone_schema_broken_packet_carries_the_schema_error_and_the_local_rule_it_breaks() -> None:
    broken = _read_directive(_stale_live_claim())
    broken["mcp"]["epistemics"]["confidence"] = 7
    verdict = evolve_single(broken)
    assert verdict.status is VerdictStatus.REJECTED
    assert [(v.rule, v.field) for v in verdict.violations] == [
        ("SCHEMA", "mcp.epistemics.confidence"), ("INV-004", "mcp.evidence.evidence_refs")]
    assert verdict.violations[1] == STALE_CLAIM


def test_a_lone_subpar_act_decision_is_rejected_by_inv002_alone() -> None:
    decision = packet(2, 1, "DecisionPacket")
    decision["mcp"]["quality"]["quality_tier"] = "SUBPAR"
    decision["payload"]["decision_outcome"] = "ACT"
    verdict = evolve_single(decision)
    assert verdict.status is VerdictStatus.REJECTED
    assert verdict.violations == (Violation("INV-002", Severity.ERROR, "INV-002: SUBPAR tier cannot authorize an ACT "
                                            "decision", "payload.decision_outcome"),)


def test_a_lone_packets_verdict_identifies_its_content_as_in_an_episode() -> None:
    first, second = packet(0, 1), packet(1, 1)
    single = evolve_single(first)
    _, [in_episode] = evolve(None, first)
    assert (single.content_hash, single.verdict_id) == (in_episode.content_hash, in_episode.verdict_id)
    assert evolve_single(second).content_hash != single.content_hash


# --------------------------------------------------------------------------- INV-011 timeouts and INV-005 halts
def test_a_critical_directive_past_its_deadline_raises_a_timeout_alert_and_a_layer1_escalation() -> None:
    directive = OpenDirective("task_scan", "pkt_00001_000004", "READ", to_ms("2025-12-21T12:00:00Z"),
                              to_ms("2025-12-21T12:01:30Z"), "CRITICAL")
    ledger = EpisodeLedger("corr_ep00001", state="S6_EXECUTE", open_directives={"task_scan": directive})
    _, outputs = advance(ledger, to_ms("2025-12-21T12:01:31Z"))
    message = "INV-011: task task_scan had no result by its deadline 2025-12-21T12:01:30+00:00"
    details = {"task_id": "task_scan", "directive_packet_id": "pkt_00001_000004", "rule": "INV-011",
               "deadline": "2025-12-21T12:01:30+00:00", "stakes_level": "CRITICAL"}
    assert outputs == [
        Alert("TASK_TIMEOUT", "WARNING", "corr_ep00001", message, "pkt_00001_000004", "2025-12-21T12:01:30+00:00",
              details),
        Escalation("LAYER1", "corr_ep00001", message, "pkt_00001_000004", "2025-12-21T12:01:30+00:00", details),
    ]


def _over_budget_with_open_task() -> EpisodeLedger:
    """Executing, 200 tokens spent of 100, no approval, task_scan (issued 11:00:03) still open."""
    task = OpenDirective("task_scan", "pkt_00001_000003", "READ", to_ms("2025-12-21T11:00:03Z"),
                         to_ms("2025-12-21T11:10:00Z"), "MEDIUM")
    return EpisodeLedger("corr_ep00001", state="S6_EXECUTE", budgets=Budgets(tokens=100), usage=Usage(tokens=200),
                         open_directives={"task_scan": task}, last_decision="ACT")


def test_a_budget_halt_escalates_to_layer1_with_the_episode_state_and_usage() -> None:
    ledger = _over_budget_with_open_task()
    directive = _read_directive(packet(4, 1))  # created 11:00:04
    after, outputs = evolve(ledger, directive)
    usage = {"tokens_used": 200, "token_budget": 100, "tool_calls_used": 0, "tool_call_budget": None,
             "time_elapsed_seconds": 0.0, "time_budget_seconds": None, "risk_spent": 0.0, "max_loss": None}
    assert after.state == "S9_SAFEMODE"
    assert outputs[-1] == Escalation("LAYER1", "corr_ep00001", "budget overrun without approval: tokens: 200 > 100",
                                     "pkt_00001_000004", "2025-12-21T11:00:04Z",
                                     {"state": "S9_SAFEMODE", "usage": usage})


def test_a_budget_halt_closes_no_directive_unless_it_is_the_task_result() -> None:
    """Only a TaskResult answers its directive: a halted directive re-using an open task id leaves it open."""
    ledger = _over_budget_with_open_task()
    after, _ = evolve(ledger, _read_directive(packet(4, 1)))
    assert after.state == "S9_SAFEMODE"
    assert after.open_directives == ledger.open_directives


def test_a_budget_halt_over_two_budgets_names_both_and_records_the_reason_on_the_ledger() -> None:
    """INV-005 halt: the BUDGET_OVERRUN and SAFE_MODE_ENTERED alerts and the Layer 1 escalation all carry the
    reason (every overrun, `; `-separated), the packet's event time and the halted episode's state and usage."""
    ledger = replace(_over_budget_with_open_task(), budgets=Budgets(tokens=100, tool_calls=2),
                     usage=Usage(tokens=200, tool_calls=3))
    after, outputs = evolve(ledger, _read_directive(packet(4, 1)))  # created 11:00:04
    reason = "budget overrun without approval: tokens: 200 > 100; tool_calls: 3 > 2"
    usage = {"tokens_used": 200, "token_budget": 100, "tool_calls_used": 3, "tool_call_budget": 2,
             "time_elapsed_seconds": 0.0, "time_budget_seconds": None, "risk_spent": 0.0, "max_loss": None}
    details = {"state": "S9_SAFEMODE", "usage": usage}
    assert outputs[0].violations == (Violation("INV-005", Severity.ERROR, f"INV-005: {reason}"),)
    assert outputs[1:] == [
        Alert("BUDGET_OVERRUN", "CRITICAL", "corr_ep00001", reason, "pkt_00001_000004", "2025-12-21T11:00:04Z",
              details),
        Alert("SAFE_MODE_ENTERED", "CRITICAL", "corr_ep00001", f"safe mode: {reason}", "pkt_00001_000004",
              "2025-12-21T11:00:04Z", details),
        Escalation("LAYER1", "corr_ep00001", reason, "pkt_00001_000004", "2025-12-21T11:00:04Z", details),
    ]
    assert (after.state, after.safe_mode_reason) == ("S9_SAFEMODE", reason)


# --------------------------------------------------------------------------- INV-011 deadlines in `advance`
def _directive(task_id: str, deadline: str | None) -> OpenDirective:
    return OpenDirective(task_id, f"pkt_{task_id}", "READ", to_ms("2025-12-21T12:00:00Z"),
                         to_ms(deadline) if deadline else None, "MEDIUM")


def test_a_directive_is_not_timed_out_exactly_at_its_deadline_only_after_it() -> None:
    """INV-011 "Within time_budget_seconds": a result exactly at the deadline is on time, so the watermark at the
    deadline raises nothing and a millisecond later raises the timeout."""
    ledger = EpisodeLedger("corr_ep00001", state="S6_EXECUTE",
                           open_directives={"task_scan": _directive("task_scan", "2025-12-21T12:01:30Z")})
    at_deadline = to_ms("2025-12-21T12:01:30Z")
    assert at_deadline is not None
    assert advance(ledger, at_deadline) == (ledger, [])
    after, outputs = advance(ledger, at_deadline + 1)
    assert [(o.kind, o.source_event_id) for o in outputs if isinstance(o, Alert)] == [("TASK_TIMEOUT", "pkt_task_scan")]
    assert after.open_directives["task_scan"].timed_out


def test_every_overdue_directive_times_out_whatever_the_directives_before_it() -> None:
    """A directive without a deadline or not yet due does not stop the ones after it from timing out."""
    ledger = EpisodeLedger("corr_ep00001", state="S6_EXECUTE", open_directives={
        "task_open": _directive("task_open", None), "task_later": _directive("task_later", "2025-12-21T13:00:00Z"),
        "task_due": _directive("task_due", "2025-12-21T12:01:00Z"),
        "task_also_due": _directive("task_also_due", "2025-12-21T12:02:00Z")})
    after, outputs = advance(ledger, to_ms("2025-12-21T12:30:00Z"))
    assert [o.source_event_id for o in outputs] == ["pkt_task_due", "pkt_task_also_due"]
    assert {k for k, d in after.open_directives.items() if d.timed_out} == {"task_due", "task_also_due"}


# --------------------------------------------------------------------------- duplicate ids
def test_a_duplicate_id_verdict_shows_the_unchanged_episode_and_only_the_duplicate_error() -> None:
    """A re-used id with other, schema-valid content: the verdict names DUPLICATE alone, and shows the episode
    as it stands (the state before and after it are the current one, the usage the current usage)."""
    ledger, [first] = evolve(None, packet(0, 1))
    impostor = packet(0, 1)
    impostor["payload"]["data"] = {"price": 0}
    after, [verdict] = evolve(ledger, impostor)
    assert verdict.violations == (Violation(
        "DUPLICATE", Severity.ERROR, "packet_id pkt_00001_000000 was already used in this episode for a different "
        "packet", "header.packet_id"),)
    assert (verdict.state_before, verdict.state_after, verdict.usage) == (ledger.state, ledger.state, first.usage)
    assert verdict.usage is not None
    assert after.state == ledger.state


def test_a_schema_broken_duplicate_names_the_duplicate_then_its_schema_errors() -> None:
    ledger, _ = evolve(None, packet(0, 1))
    impostor = packet(0, 1)
    impostor["mcp"]["epistemics"]["confidence"] = 7
    _, [verdict] = evolve(ledger, impostor)
    assert [(v.rule, v.field) for v in verdict.violations] == [
        ("DUPLICATE", "header.packet_id"), ("SCHEMA", "mcp.epistemics.confidence")]


# --------------------------------------------------------------------------- the episode's own record
def test_the_ledger_keeps_the_latest_event_time_of_its_accepted_packets() -> None:
    ledger, _ = evolve(None, packet(0, 1))
    assert ledger.last_event_ms == to_ms("2025-12-21T11:00:00Z")
    ledger, _ = evolve(ledger, packet(5, 1, "BeliefUpdatePacket"))
    assert ledger.last_event_ms == to_ms("2025-12-21T11:00:05Z")
    ledger, _ = evolve(ledger, packet(2, 1, "DecisionPacket"))  # late: event time never goes back
    assert ledger.last_event_ms == to_ms("2025-12-21T11:00:05Z")


def test_a_schema_broken_packet_in_an_episode_also_names_the_stale_claim_it_makes() -> None:
    """As for a lone packet: a READ directive outside a verify loop is no verification, so its stale REALTIME
    claim breaks INV-004, judged at the packet's own time, and the verdict names it beside the schema error."""
    broken = _read_directive(_stale_live_claim())
    broken["mcp"]["epistemics"]["confidence"] = 7
    ledger, [verdict] = evolve(None, broken)
    assert verdict.status is VerdictStatus.REJECTED
    assert [(v.rule, v.field) for v in verdict.violations] == [
        ("SCHEMA", "mcp.epistemics.confidence"), ("INV-004", "mcp.evidence.evidence_refs")]
    assert verdict.violations[1] == STALE_CLAIM
    assert ledger.state == "S0_IDLE"


# --------------------------------------------------------------------------- safe mode
def _safe_mode_episode() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXAMPLES / "safe_mode.jsonl").read_text().splitlines() if line]


def test_safe_mode_entry_and_a_packet_refused_in_safe_mode_raise_alerts_with_state_and_usage() -> None:
    """safe_mode.jsonl: the CRITICAL integrity alert (pkt_sm_0007) halts the episode, alerted with its description;
    the WRITE directive after it (pkt_sm_0008) is refused (FSM-E7) and alerted naming its packet type."""
    packets = _safe_mode_episode()
    ledger, _ = _run(packets[:6])
    ledger, entered = evolve(ledger, packets[6])
    ledger, refused = evolve(ledger, packets[7])
    # Usage: pkt_sm_0006 reports 410 tokens, 1 tool call, 1810 ms; the envelope is pkt_sm_0003's budgets.
    usage = {"tokens_used": 410, "token_budget": 3000, "tool_calls_used": 1, "tool_call_budget": 4,
             "time_elapsed_seconds": 1.81, "time_budget_seconds": 600, "risk_spent": 0.0, "max_loss": 120000000.0}
    details = {"state": "S9_SAFEMODE", "usage": usage}
    description = packets[6]["payload"]["description"]
    assert entered[1:] == [Alert("SAFE_MODE_ENTERED", "CRITICAL", "corr_safe_mode_0001", f"safe mode: {description}",
                                 "pkt_sm_0007", "2025-12-26T03:40:16-08:00", details)]
    assert [v.rule for v in refused[0].violations] == ["FSM-E7"]
    assert refused[1:] == [Alert("SAFE_MODE_VIOLATION", "HIGH", "corr_safe_mode_0001",
                                 "TaskDirectivePacket attempted in safe mode", "pkt_sm_0008",
                                 "2025-12-26T03:40:18-08:00", details)]


# --------------------------------------------------------------------------- token misuse
def _write_act() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXAMPLES / "write_act.jsonl").read_text().splitlines() if line]


def test_a_write_breaking_its_token_twice_raises_one_token_misuse_alert_naming_both() -> None:
    """write_act.jsonl's token allows market_order_api with max_isk_at_risk 50000000: a directive to another tool
    risking 60000000 breaks INV-007 twice, and the TOKEN_MISUSE alert joins both messages with `; `."""
    packets = _write_act()
    ledger, _ = _run(packets[:4])
    write = packets[4]
    write["payload"]["execution_method"]["tool_id"] = "other_api"
    write["payload"]["execution_method"]["tool_params"]["max_isk_at_risk"] = 60000000
    _, outputs = evolve(ledger, write)
    out_of_scope = "INV-007: tool other_api not in token token_wa_0001 scope ['market_order_api']"
    too_risky = ("INV-007: tool_params.max_isk_at_risk = 60000000 outside token token_wa_0001 resource constraint "
                 "50000000")
    assert [v.message for v in outputs[0].violations if v.rule == "INV-007"] == [out_of_scope, too_risky]
    assert [(o.kind, o.severity, o.message) for o in outputs[1:] if isinstance(o, Alert)] == [
        ("TOKEN_MISUSE", "HIGH", f"{out_of_scope}; {too_risky}")]


# --------------------------------------------------------------------------- packet identity
IDENTITY = {"packet_id": "pkt_1", "packet_type": "ObservationPacket", "correlation_id": "corr_1"}
NO_IDENTITY = "packet lacks the identity fields packet_id, packet_type, correlation_id"


@pytest.mark.parametrize("header", [
    None, [], "pkt_1",
    {k: v for k, v in IDENTITY.items() if k != "packet_id"},
    {k: v for k, v in IDENTITY.items() if k != "packet_type"},
    {k: v for k, v in IDENTITY.items() if k != "correlation_id"},
    {**IDENTITY, "packet_id": 1}, {**IDENTITY, "packet_type": None}, {**IDENTITY, "correlation_id": ["corr_1"]},
])
def test_a_packet_without_string_identity_fields_is_refused_with_one_clear_error(header: object) -> None:
    broken = packet(0, 1)
    broken["header"] = header
    with pytest.raises(ValueError, match=f"^{re.escape(NO_IDENTITY)}$"):
        evolve(None, broken)
    with pytest.raises(ValueError, match=f"^{re.escape(NO_IDENTITY)}$"):
        evolve_single(broken)


def test_a_packet_decoded_into_dict_subclasses_is_judged_like_the_plain_one() -> None:
    """`json.loads(..., object_pairs_hook=OrderedDict)` gives a header that is a Mapping but not a plain dict."""
    plain = packet(0, 1)
    ordered = json.loads(json.dumps(plain), object_pairs_hook=OrderedDict)
    assert evolve(None, ordered) == evolve(None, plain)
    assert evolve_single(ordered) == evolve_single(plain)
