"""Realistic hand-written episodes (`examples/omen/`): what each one must produce, output by output.

Every file is replayed through `streams.replay.replayer.Replayer` (the embedded pipeline the CLI uses), and the
whole output sequence is pinned: each verdict's packet id, status, violated rule ids and FSM move, and
every alert (kind, severity, source packet), escalation and dead letter, in the order they come out.
`examples/README.md` says the same in prose.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from omega.canonical import canonical_json
from omega.eventtime import to_ms
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import advance, evolve
from omega.packets.verdict import VerdictStatus
from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Emit, Outputs
from streams.stages.packets import PacketStage
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, VERDICTS
from streams.wire.codec import SchemaRegistry

EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"

Described = tuple[Any, ...]


def V(packet_id: str, status: str, rules: tuple[str, ...], before: str | None, after: str | None) -> Described:
    """A verdict: packet id, status, the rule ids of its violations in order, FSM from -> to."""
    return ("verdict", packet_id, status, rules, before, after)


def A(kind: str, severity: str, source: str) -> Described:
    """An alert: kind, severity, the packet it is about."""
    return ("alert", kind, severity, source)


def E(source: str) -> Described:
    """An escalation to Layer 1 about `source`."""
    return ("escalation", "LAYER1", source)


def D(error_class: str, line: int) -> Described:
    """A dead letter: error class, line number in the file."""
    return ("dead_letter", error_class, line)


@cache
def _pipeline() -> PacketStage:
    return PacketStage(Outputs(SchemaRegistry.from_directory()))


@cache
def _replayed(name: str) -> tuple[tuple[Emit, ...], Replayer]:
    replayer = Replayer(_pipeline().outputs)
    emits = [emit for record in read_inputs([EXAMPLES / name]) for emit in replayer.feed(record)]
    return (*emits, *replayer.finish()), replayer


def described(name: str) -> list[Described]:
    """Every output of replaying `examples/omen/<name>`, in order."""
    out: list[Described] = []
    for emit in _replayed(name)[0]:
        r = emit.record
        if emit.topic is VERDICTS:
            out.append(V(r["packet_id"], r["status"], tuple(v["rule"] for v in r["violations"]),
                         r["state_before"], r["state_after"]))
        elif emit.topic is ALERTS:
            out.append(A(r["kind"], r["severity"], r["source_event_id"]))
        elif emit.topic is ESCALATIONS:
            out.append(("escalation", r["level"], r["source_event_id"]))
        else:
            assert emit.topic is DEAD_LETTERS
            out.append(D(r["error_class"], r["source_offset"]))
    return out


def records(name: str, topic: str) -> list[dict[str, Any]]:
    """The output records of one topic (verdicts, alerts, escalations)."""
    return [dict(e.record) for e in _replayed(name)[0] if e.topic.logical == topic]


def verdict(name: str, packet_id: str) -> dict[str, Any]:
    [found] = [r for r in records(name, "verdicts") if r["packet_id"] == packet_id]
    return found


def ledger(name: str) -> EpisodeLedger:
    """The episode ledger at the end of the replay (each of these files is one episode)."""
    [only] = _replayed(name)[1].ledgers().values()
    return only


def packets(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


PINNED: set[str] = set()


def pins(name: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    """Marks a test as the one that pins `examples/omen/<name>` (every file must have one)."""
    PINNED.add(name)
    return lambda test: test


def test_every_example_file_has_a_test_pinning_its_outputs() -> None:
    files = {p.name for p in EXAMPLES.iterdir() if p.suffix in (".json", ".jsonl")}
    assert files == PINNED


# --------------------------------------------------------------------------- clean templates (B, C, D, E, F)
@pins("verify_loop.jsonl")
def test_verify_loop_runs_plan_read_result_observation_and_belief_before_it_acts() -> None:
    assert described("verify_loop.jsonl") == [
        V("pkt_vl_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_vl_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_vl_0003", "ACCEPTED", (), "S2_MODEL", "S4_VERIFY"),  # VERIFY_FIRST
        V("pkt_vl_0004", "ACCEPTED", (), "S4_VERIFY", "S4_VERIFY"),  # plan
        V("pkt_vl_0005", "ACCEPTED", (), "S4_VERIFY", "S4_VERIFY"),  # READ directive
        V("pkt_vl_0006", "ACCEPTED", (), "S4_VERIFY", "S4_VERIFY"),  # SUCCESS
        V("pkt_vl_0007", "ACCEPTED", (), "S4_VERIFY", "S4_VERIFY"),  # OBSERVED
        V("pkt_vl_0008", "ACCEPTED", (), "S4_VERIFY", "S2_MODEL"),  # belief citing the evidence
        V("pkt_vl_0009", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),  # ACT: INV-008 finds the loop complete
    ]
    end = ledger("verify_loop.jsonl")
    assert (end.last_decision, end.decision_count, end.verify) == ("ACT", 2, None)


@pins("write_act.jsonl")
def test_write_act_authorizes_one_write_with_a_token_and_uses_it_once() -> None:
    assert described("write_act.jsonl") == [
        V("pkt_wa_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_wa_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_wa_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_wa_0004", "ACCEPTED", (), "S3_DECIDE", "S5_AUTHORIZE"),
        V("pkt_wa_0005", "ACCEPTED", (), "S5_AUTHORIZE", "S6_EXECUTE"),
        V("pkt_wa_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_wa_0007", "ACCEPTED", (), "S6_EXECUTE", "S7_REVIEW"),
    ]
    token = ledger("write_act.jsonl").tokens["token_wa_0001"]
    assert (token.usage_count, token.max_usage_count, token.revoked) == (1, 1, False)
    assert ledger("write_act.jsonl").open_directives == {}


@pins("escalation.jsonl")
def test_escalation_at_high_stakes_with_contradictory_intel_waits_in_s8() -> None:
    assert described("escalation.jsonl") == [
        V("pkt_es_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_es_0002", "ACCEPTED", (), "S1_SENSE", "S1_SENSE"),
        V("pkt_es_0003", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_es_0004", "ACCEPTED", (), "S2_MODEL", "S8_ESCALATED"),
        V("pkt_es_0005", "ACCEPTED", (), "S8_ESCALATED", "S8_ESCALATED"),
    ]
    assert ledger("escalation.jsonl").escalation_presented


@pins("degraded_tools.jsonl")
def test_degraded_tools_at_medium_stakes_retries_a_failed_read_and_labels_the_gap() -> None:
    assert described("degraded_tools.jsonl") == [
        V("pkt_dt_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_dt_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_dt_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),  # ACT with tools_partial, uncertainty HIGH
        V("pkt_dt_0004", "ACCEPTED", (), "S3_DECIDE", "S6_EXECUTE"),
        # FAILURE, inside its 20 s timeout; OBSERVED REALTIME with no evidence ref, only an absence reason:
        # INV-004 flags it for review (OBSERVED claims, invariants_evidence.py docstring)
        V("pkt_dt_0005", "ACCEPTED_WITH_WARNINGS", ("INV-004",), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_dt_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),  # the retry
        V("pkt_dt_0007", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_dt_0008", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_dt_0009", "ACCEPTED", (), "S6_EXECUTE", "S7_REVIEW"),
        V("pkt_dt_0010", "ACCEPTED", (), "S7_REVIEW", "S7_REVIEW"),  # a WARNING alert: no safe mode
    ]
    assert ledger("degraded_tools.jsonl").tools_state == "tools_partial"


# --------------------------------------------------------------------------- safe mode and budgets
@pins("safe_mode.jsonl")
def test_a_critical_integrity_alert_locks_the_episode_until_integrity_clears_it() -> None:
    assert described("safe_mode.jsonl") == [
        V("pkt_sm_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_sm_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_sm_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_sm_0004", "ACCEPTED", (), "S3_DECIDE", "S5_AUTHORIZE"),
        V("pkt_sm_0005", "ACCEPTED", (), "S5_AUTHORIZE", "S6_EXECUTE"),
        V("pkt_sm_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_sm_0007", "ACCEPTED", (), "S6_EXECUTE", "S9_SAFEMODE"),
        A("SAFE_MODE_ENTERED", "CRITICAL", "pkt_sm_0007"),
        V("pkt_sm_0008", "REJECTED", ("FSM-E7",), "S9_SAFEMODE", "S9_SAFEMODE"),  # lockdown speaks first
        A("SAFE_MODE_VIOLATION", "HIGH", "pkt_sm_0008"),
        V("pkt_sm_0009", "ACCEPTED", (), "S9_SAFEMODE", "S9_SAFEMODE"),  # logging belief update
        V("pkt_sm_0010", "ACCEPTED", (), "S9_SAFEMODE", "S7_REVIEW"),  # safe_mode_clear
    ]
    assert ledger("safe_mode.jsonl").tokens["token_sm_0001"].revoked


@pins("budget_overrun.jsonl")
def test_task_results_pushing_tokens_over_the_envelope_without_approval_halt_the_episode() -> None:
    assert described("budget_overrun.jsonl") == [
        V("pkt_bo_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_bo_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_bo_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),  # the first decision: a 2000-token envelope
        V("pkt_bo_0004", "ACCEPTED", (), "S3_DECIDE", "S6_EXECUTE"),
        V("pkt_bo_0005", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),  # 180 tokens
        V("pkt_bo_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_bo_0007", "REJECTED", ("INV-005",), "S6_EXECUTE", "S9_SAFEMODE"),  # +2460 tokens
        A("BUDGET_OVERRUN", "CRITICAL", "pkt_bo_0007"),
        A("SAFE_MODE_ENTERED", "CRITICAL", "pkt_bo_0007"),
        E("pkt_bo_0007"),
        V("pkt_bo_0008", "REJECTED", ("FSM-E7",), "S9_SAFEMODE", "S9_SAFEMODE"),  # a directive while halted
        A("SAFE_MODE_VIOLATION", "HIGH", "pkt_bo_0008"),
        V("pkt_bo_0009", "ACCEPTED", (), "S9_SAFEMODE", "S7_REVIEW"),  # Layer 1 override + clear
    ]
    overrun = verdict("budget_overrun.jsonl", "pkt_bo_0007")
    [violation] = overrun["violations"]
    assert violation["message"] == "INV-005: budget overrun without approval: tokens: 2640 > 2000"
    assert (overrun["usage"]["tokens_used"], overrun["usage"]["token_budget"]) == (2640, 2000)
    [escalation] = records("budget_overrun.jsonl", "escalations")
    assert escalation["reason"] == "budget overrun without approval: tokens: 2640 > 2000"
    end = ledger("budget_overrun.jsonl")
    # The override's 3000-token envelope replaced the first; it is the approval (a later overrun of it needs one).
    assert (end.state, end.budget_approved, end.budgets and end.budgets.tokens, end.usage.tokens) == (
        "S7_REVIEW", False, 3000, 2640)


def test_the_result_that_overran_the_budget_still_answers_its_directive() -> None:
    """The halt counts the tokens the result reports; the same result closed its task, so no timer may
    later claim the task never answered (its deadline, 16:02:33, passes long before this watermark)."""
    end = ledger("budget_overrun.jsonl")
    assert end.open_directives == {}
    halted = None
    for packet in packets("budget_overrun.jsonl")[:7]:
        halted, _ = evolve(halted, packet)
    assert halted is not None
    assert halted.state == "S9_SAFEMODE"
    assert halted.open_directives == {}
    assert advance(halted, to_ms("2025-12-27T17:00:00+00:00")) == (halted, [])


# --------------------------------------------------------------------------- tokens
@pins("token_expired.jsonl")
def test_a_write_sent_after_its_token_expired_is_rejected_until_a_new_token_is_issued() -> None:
    assert described("token_expired.jsonl") == [
        V("pkt_te_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_te_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_te_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_te_0004", "ACCEPTED", (), "S3_DECIDE", "S5_AUTHORIZE"),  # expires 08:22:11
        V("pkt_te_0005", "REJECTED", ("INV-007",), "S5_AUTHORIZE", "S5_AUTHORIZE"),  # sent 08:23:20
        A("TOKEN_MISUSE", "HIGH", "pkt_te_0005"),
        V("pkt_te_0006", "ACCEPTED", (), "S5_AUTHORIZE", "S5_AUTHORIZE"),  # a fresh token
        V("pkt_te_0007", "ACCEPTED", (), "S5_AUTHORIZE", "S6_EXECUTE"),
        V("pkt_te_0008", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_te_0009", "ACCEPTED", (), "S6_EXECUTE", "S7_REVIEW"),
    ]
    [violation] = verdict("token_expired.jsonl", "pkt_te_0005")["violations"]
    assert violation["message"] == ("INV-007: token token_te_0001 expired at 2025-12-29T08:22:11+00:00 "
                                    "(directive at 2025-12-29T08:23:20+00:00)")
    tokens = ledger("token_expired.jsonl").tokens
    assert (tokens["token_te_0001"].usage_count, tokens["token_te_0002"].usage_count) == (0, 1)


@pins("token_revoked.jsonl")
def test_a_write_quoting_a_token_integrity_revoked_is_rejected_without_safe_mode() -> None:
    assert described("token_revoked.jsonl") == [
        V("pkt_tr_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_tr_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_tr_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_tr_0004", "ACCEPTED", (), "S3_DECIDE", "S5_AUTHORIZE"),
        V("pkt_tr_0005", "ACCEPTED", (), "S5_AUTHORIZE", "S6_EXECUTE"),  # tranche 1
        V("pkt_tr_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_tr_0007", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),  # WARNING revocation
        V("pkt_tr_0008", "REJECTED", ("INV-007",), "S6_EXECUTE", "S6_EXECUTE"),  # tranche 2
        A("TOKEN_MISUSE", "HIGH", "pkt_tr_0008"),
        V("pkt_tr_0009", "ACCEPTED", (), "S6_EXECUTE", "S7_REVIEW"),
    ]
    [violation] = verdict("token_revoked.jsonl", "pkt_tr_0008")["violations"]
    assert violation["message"] == "INV-007: token token_tr_0001 is revoked"
    token = ledger("token_revoked.jsonl").tokens["token_tr_0001"]
    assert (token.revoked, token.usage_count, token.max_usage_count) == (True, 1, 2)  # revoked, not used up


@pins("token_exhausted.jsonl")
def test_a_second_write_on_a_one_use_token_is_rejected_as_exhausted() -> None:
    assert described("token_exhausted.jsonl") == [
        V("pkt_tx_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_tx_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_tx_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_tx_0004", "ACCEPTED", (), "S3_DECIDE", "S5_AUTHORIZE"),
        V("pkt_tx_0005", "ACCEPTED", (), "S5_AUTHORIZE", "S6_EXECUTE"),
        V("pkt_tx_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_tx_0007", "REJECTED", ("INV-007",), "S6_EXECUTE", "S6_EXECUTE"),
        A("TOKEN_MISUSE", "HIGH", "pkt_tx_0007"),
        V("pkt_tx_0008", "ACCEPTED", (), "S6_EXECUTE", "S7_REVIEW"),
    ]
    [violation] = verdict("token_exhausted.jsonl", "pkt_tx_0007")["violations"]
    assert violation["message"] == "INV-007: token token_tx_0001 usage exhausted (1 of 1)"
    [alert] = records("token_exhausted.jsonl", "alerts")
    assert alert["message"] == violation["message"]
    assert ledger("token_exhausted.jsonl").tokens["token_tx_0001"].usage_count == 1  # the reject used nothing


@pins("token_out_of_scope.jsonl")
def test_writes_outside_the_token_tool_scope_or_resource_constraints_are_rejected() -> None:
    assert described("token_out_of_scope.jsonl") == [
        V("pkt_ts_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_ts_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_ts_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_ts_0004", "ACCEPTED", (), "S3_DECIDE", "S5_AUTHORIZE"),
        V("pkt_ts_0005", "REJECTED", ("INV-007",), "S5_AUTHORIZE", "S5_AUTHORIZE"),  # contract_api
        A("TOKEN_MISUSE", "HIGH", "pkt_ts_0005"),
        V("pkt_ts_0006", "REJECTED", ("INV-007",), "S5_AUTHORIZE", "S5_AUTHORIZE"),  # 2.5M > 1M units
        A("TOKEN_MISUSE", "HIGH", "pkt_ts_0006"),
        V("pkt_ts_0007", "ACCEPTED", (), "S5_AUTHORIZE", "S6_EXECUTE"),  # inside the scope
        V("pkt_ts_0008", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_ts_0009", "ACCEPTED", (), "S6_EXECUTE", "S7_REVIEW"),
    ]
    [tool] = verdict("token_out_of_scope.jsonl", "pkt_ts_0005")["violations"]
    assert (tool["field"], tool["message"]) == (
        "payload.execution_method.tool_id",
        "INV-007: tool contract_api not in token token_ts_0001 scope ['market_order_api']")
    [constraint] = verdict("token_out_of_scope.jsonl", "pkt_ts_0006")["violations"]
    assert (constraint["field"], constraint["message"]) == (
        "payload.execution_method.tool_params.quantity",
        "INV-007: tool_params.quantity = 2500000 outside token token_ts_0001 resource constraint 1000000")
    assert ledger("token_out_of_scope.jsonl").tokens["token_ts_0001"].usage_count == 1


# --------------------------------------------------------------------------- degraded tools, dangling work
@pins("degraded_escalation.jsonl")
def test_acting_with_tools_down_at_high_stakes_is_refused_and_the_episode_escalates() -> None:
    assert described("degraded_escalation.jsonl") == [
        V("pkt_de_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),  # tools_down
        V("pkt_de_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_de_0003", "REJECTED", ("INV-010",), "S2_MODEL", "S2_MODEL"),  # SUPERB ACT: INV-003 passes
        A("ESCALATION_REQUIRED", "HIGH", "pkt_de_0003"),
        E("pkt_de_0003"),
        V("pkt_de_0004", "ACCEPTED", (), "S2_MODEL", "S8_ESCALATED"),  # ESCALATE
        V("pkt_de_0005", "ACCEPTED", (), "S8_ESCALATED", "S8_ESCALATED"),  # EscalationPacket
    ]
    [violation] = verdict("degraded_escalation.jsonl", "pkt_de_0003")["violations"]
    assert (violation["field"], violation["message"]) == (
        "payload.decision_outcome", "INV-010: tools_down + HIGH stakes cannot ACT; escalate or cancel")
    end = ledger("degraded_escalation.jsonl")
    assert (end.decision_count, end.last_decision, end.escalation_presented) == (1, "ESCALATE", True)


@pins("dangling_directive.jsonl")
def test_directives_never_answered_time_out_and_the_critical_one_escalates() -> None:
    assert described("dangling_directive.jsonl") == [
        V("pkt_dd_0001", "ACCEPTED", (), "S0_IDLE", "S1_SENSE"),
        V("pkt_dd_0002", "ACCEPTED", (), "S1_SENSE", "S2_MODEL"),
        V("pkt_dd_0003", "ACCEPTED", (), "S2_MODEL", "S3_DECIDE"),
        V("pkt_dd_0004", "ACCEPTED", (), "S3_DECIDE", "S6_EXECUTE"),  # prices, MEDIUM, 30 s
        V("pkt_dd_0005", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),  # timers, CRITICAL, 60 s
        V("pkt_dd_0006", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),  # wallet, answered
        V("pkt_dd_0007", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),
        V("pkt_dd_0008", "ACCEPTED", (), "S6_EXECUTE", "S6_EXECUTE"),  # 21:00:55: past 21:00:40
        A("TASK_TIMEOUT", "MEDIUM", "pkt_dd_0004"),  # OMEN's WARNING on the one scale
        V("pkt_dd_0009", "ACCEPTED_WITH_WARNINGS", ("FSM-E6",), "S6_EXECUTE", "S7_REVIEW"),  # past 21:01:11
        A("TASK_TIMEOUT", "MEDIUM", "pkt_dd_0005"),
        E("pkt_dd_0005"),
    ]
    alerts = records("dangling_directive.jsonl", "alerts")
    assert [(a["event_time"], json.loads(a["details"])["task_id"]) for a in alerts] == [
        ("2025-12-28T21:00:40+00:00", "task_dd_prices_01"), ("2025-12-28T21:01:11+00:00", "task_dd_timers_01")]
    [escalation] = records("dangling_directive.jsonl", "escalations")
    assert json.loads(escalation["details"])["stakes_level"] == "CRITICAL"
    [warning] = verdict("dangling_directive.jsonl", "pkt_dd_0009")["violations"]
    assert warning["message"].endswith("never got a TaskResult: task_dd_prices_01, task_dd_timers_01")


def test_a_live_timer_tick_raises_the_same_timeouts_as_the_late_packets() -> None:
    """Cut the episode after the wallet result: the watermark tick of the live worker (or the end of a
    longer log) raises exactly the alerts and escalation that the late packets raised in-band."""
    quiet = None
    for packet in packets("dangling_directive.jsonl")[:7]:
        quiet, _ = evolve(quiet, packet)
    assert quiet is not None
    _, fired = advance(quiet, to_ms("2025-12-28T21:02:00+00:00"))
    in_band = [*records("dangling_directive.jsonl", "alerts"), *records("dangling_directive.jsonl", "escalations")]
    assert sorted(canonical_json(o.to_dict()) for o in fired) == sorted(canonical_json(o) for o in in_band)


def test_a_redelivered_tick_raises_its_timeouts_again_and_no_other_tick_does() -> None:
    """A worker killed after the ticked ledger reached the changelog but before its alerts reached the broker:
    the tick comes again to a ledger that already timed the directives out. With `again` the very same
    watermark re-raises them (found by tests/integration/test_under_fire); a later watermark, or a packet's
    own advance, raises nothing twice."""
    quiet = None
    for packet in packets("dangling_directive.jsonl")[:7]:
        quiet, _ = evolve(quiet, packet)
    assert quiet is not None
    mark = to_ms("2025-12-28T21:02:00+00:00")
    assert mark is not None
    ticked, fired = advance(quiet, mark)
    assert fired
    assert [d.timed_out_ms for d in ticked.open_directives.values() if d.timed_out] == [mark] * len(
        [o for o in fired if o.topic_kind == "alerts"])
    assert advance(ticked, mark) == (ticked, [])  # replay and packet time: idempotent, nothing twice
    again, refired = advance(ticked, mark, again=True)
    assert again is ticked
    assert refired == fired
    assert advance(ticked, mark + 1000, again=True) == (ticked, [])
    assert EpisodeLedger.from_dict(json.loads(json.dumps(ticked.to_dict()))) == ticked


# --------------------------------------------------------------------------- bad input, a lone packet
@pins("malformed.jsonl")
def test_malformed_lines_become_dead_letters_or_schema_rejects_and_the_replay_goes_on() -> None:
    assert described("malformed.jsonl") == [
        D("JSON_SYNTAX", 1),
        V("pkt_bad_0002", "REJECTED", ("SCHEMA",), "S0_IDLE", "S0_IDLE"),  # attributable: judged (issue 41)
        V("pkt_bad_0003", "REJECTED", ("SCHEMA",), "S0_IDLE", "S0_IDLE"),
        V("pkt_bad_0004", "REJECTED", ("SCHEMA",), "S0_IDLE", "S0_IDLE"),
        D("NOT_AN_OBJECT", 5),
        V("pkt bad 6", "REJECTED", ("SCHEMA", "SCHEMA", "SCHEMA"), "S0_IDLE", "S0_IDLE"),
    ]


@pins("single_packet.json")
def test_a_lone_decision_object_is_judged_without_episode_context() -> None:
    assert described("single_packet.json") == [V("pkt_sp_0001", "ACCEPTED", (), None, None)]
    lone = verdict("single_packet.json", "pkt_sp_0001")
    assert (lone["context"], lone["usage"]) == ("single_packet", None)
    assert _replayed("single_packet.json")[1].episodes == {}
    # The same packet opening an episode draws the FSM's episode warnings (and moves to S4_VERIFY).
    _, [in_episode] = evolve(None, json.loads((EXAMPLES / "single_packet.json").read_text(encoding="utf-8")))
    assert in_episode.status is VerdictStatus.ACCEPTED_WITH_WARNINGS
    assert [v.rule for v in in_episode.violations] == ["FSM-E1", "FSM"]
    assert (in_episode.state_before, in_episode.state_after, in_episode.context) == ("S0_IDLE", "S4_VERIFY", "episode")


# --------------------------------------------------------------------------- the two ways in agree
@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.jsonl") if p.name != "malformed.jsonl"))
def test_the_bare_validator_gives_the_replayed_verdicts_for_every_episode(name: str) -> None:
    """`evolve` + a final `advance`, fed the JSON straight from the file, agree with the replay through
    Avro ingress, output for output (no field is lost or changed on the way through the pipeline)."""
    state: EpisodeLedger | None = None
    outputs: list[dict[str, Any]] = []
    for packet in packets(name):
        state, emitted = evolve(state, packet)
        outputs += [o.to_dict() for o in emitted]
    assert state is not None
    _, late = advance(state, state.last_event_ms)
    outputs += [o.to_dict() for o in late]
    assert outputs == [dict(e.record) for e in _replayed(name)[0]]
