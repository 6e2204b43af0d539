"""How packets change the episode ledger: usage and budgets first (the invariants judge them), then the
rest once a packet is accepted (tokens, open directives, the verification loop, approvals).

The envelope and usage rules are in `omega.packets.ledger`'s docstring. The verification loop (INV-008,
FSM-E3; OMEN.md §10.4 "Verification closure", §15.3): observed evidence is an ObservationPacket with
status OBSERVED, or a SUCCESS TaskResult whose own epistemics are OBSERVED (§15.3 step 6, "TaskResultPacket
(OBSERVED evidence)", has no separate observation). A belief update closes the loop when it names in
`evidence_integration` a packet accepted in the loop, or, once the loop has observed something, carries a
`tool_output` / `user_observation` evidence ref timestamped at or after the VERIFY_FIRST decision: ids in
`evidence_integration` may point outside the stream (raw tool outputs), so they cannot be the only way,
and evidence older than the decision closes nothing.

A TaskDirective re-issuing a task_id that is still open does not wipe the first one's clock (INV-011, "TaskDirective
emitted ... within time_budget_seconds, a TaskResultPacket with matching task_id MUST appear"; its enforcement
keeps open directives as a list, each timed on its own): the task keeps the earlier deadline (with the packet that
set it) and the higher stakes, so one TaskResult answers both and a CRITICAL directive's timeout still escalates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from omega.eventtime import to_ms
from omega.packets.invariants import LEVELS, directive_deadline_ms, is_budget_escalation, is_budget_override
from omega.packets.invariants_evidence import LIVE_EVIDENCE
from omega.packets.ledger import Budgets, EpisodeLedger, OpenDirective, Token, Usage, VerifyLoop
from omega.packets.verdict import VerdictStatus
from omega.records import replace

LAYER_ONE_AUTHORITIES = (1, "Integrity")


def get(data: object, *path: str) -> Any:
    """The value at a dotted path of nested dicts, or None (packets may be schema-invalid)."""
    for key in path:
        if type(data) is not dict and (data is None or not isinstance(data, Mapping)):  # plain dicts first: hot
            return None
        data = data.get(key)
    return data


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _non_negative(value: object) -> float:
    """A finite non-negative JSON number, else 0 (a NaN or infinity must not poison the running sums)."""
    number = _number(value)
    return number if number is not None and math.isfinite(number) and number > 0 else 0.0


def budgets_of(packet: Mapping[str, Any]) -> Budgets | None:
    """The envelope a packet's `mcp.budgets` declares, or None when it declares none."""
    budgets = get(packet, "mcp", "budgets")
    if not isinstance(budgets, Mapping):
        return None

    def integer(key: str) -> int | None:
        value = budgets.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return Budgets(
        tokens=integer("token_budget"),
        tool_calls=integer("tool_call_budget"),
        time_seconds=integer("time_budget_seconds"),
        max_loss=_number(get(budgets, "risk_budget", "max_loss")),
        set_by=str(get(packet, "header", "packet_id")),
    )


def apply_usage(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None) -> EpisodeLedger:
    """Event time, envelope and cumulative usage including `packet` (what INV-005 judges)."""
    return replace(ledger, **usage_changes(ledger, packet, now_ms))


def usage_changes(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None) -> dict[str, Any]:
    """The ledger fields `apply_usage` sets: event times, envelope and usage."""
    last = now_ms if ledger.last_event_ms is None else max(ledger.last_event_ms, now_ms or ledger.last_event_ms)
    header = get(packet, "header")
    packet_type = get(header, "packet_type")
    usage = ledger.usage
    if packet_type == "TaskResultPacket":
        meta = get(packet, "payload", "execution_metadata")
        usage = Usage(usage.tokens + _count(get(meta, "tokens_used")),
                      usage.tool_calls + _count(get(meta, "tool_calls_used")),
                      usage.time_seconds + _non_negative(get(meta, "execution_time_ms")) / 1000,
                      usage.risk + _non_negative(get(meta, "risk_spent")))
    return {"last_event_ms": last, "usage": usage,
            "budgets": _envelope(ledger, packet, packet_type, header, usage)}


def _envelope(ledger: EpisodeLedger, packet: Mapping[str, Any], packet_type: object, header: object,
              usage: Usage) -> Budgets | None:
    """The envelope once `packet` is applied (the rule: `omega.packets.ledger`'s docstring). The packet's
    budgets are read only when they could be taken: most packets repeat them, and reading builds a record."""
    budgets = ledger.budgets
    if packet_type == "DecisionPacket":
        if budgets is None:
            return budgets_of(packet) or budgets
        if ledger.budget_escalation_open:  # the answer to a budget escalation: its budgets on top of the spent
            declared = budgets_of(packet)
            return budgets if declared is None else _extended(budgets, declared, usage)
        return budgets
    if get(header, "layer_source") in LAYER_ONE_AUTHORITIES and is_budget_override(packet):
        return budgets_of(packet) or budgets
    return budgets


def _extended(budgets: Budgets, extra: Budgets, usage: Usage) -> Budgets:
    """`budgets` with each limit `extra` declares moved to the usage spent so far plus that amount."""
    def add(limit: Any, spent: float, more: Any) -> Any:  # an integer limit rounds the spent up, never down
        return limit if more is None else (math.ceil(spent) if isinstance(more, int) else spent) + more
    return Budgets(add(budgets.tokens, usage.tokens, extra.tokens),
                   add(budgets.tool_calls, usage.tool_calls, extra.tool_calls),
                   add(budgets.time_seconds, usage.time_seconds, extra.time_seconds),
                   add(budgets.max_loss, usage.risk, extra.max_loss), extra.set_by)


def usage_report(ledger: EpisodeLedger) -> dict[str, Any]:
    """Usage against the envelope, as carried on the verdict (`omega.events.BudgetUsage`)."""
    budgets = ledger.budgets or Budgets()
    return {
        "tokens_used": ledger.usage.tokens, "token_budget": budgets.tokens,
        "tool_calls_used": ledger.usage.tool_calls, "tool_call_budget": budgets.tool_calls,
        "time_elapsed_seconds": ledger.usage.time_seconds, "time_budget_seconds": budgets.time_seconds,
        "risk_spent": ledger.usage.risk, "max_loss": budgets.max_loss,
    }


def apply_accepted(ledger: EpisodeLedger, packet: Mapping[str, Any], state_after: str,
                   now_ms: int | None) -> EpisodeLedger:
    """The ledger after an accepted packet (usage already applied by `apply_usage`)."""
    return replace(ledger, **accepted_changes(ledger, packet, state_after, now_ms))


def accepted_changes(ledger: EpisodeLedger, packet: Mapping[str, Any], state_after: str,
                     now_ms: int | None) -> dict[str, Any]:
    """The ledger fields an accepted packet changes, for `apply_accepted` (the validator applies them in the
    same copy that records the packet's judgement: one ledger copy per packet instead of two)."""
    header, mcp = get(packet, "header"), get(packet, "mcp")
    packet_type = get(header, "packet_type")
    changes: dict[str, Any] = {"state": state_after}
    tools_state, stakes = get(mcp, "routing", "tools_state"), get(mcp, "stakes", "stakes_level")
    if isinstance(tools_state, str):
        changes["tools_state"] = tools_state
    if isinstance(stakes, str):
        changes["stakes_level"] = stakes
    refs = [r.get("ref_id") for r in get(mcp, "evidence", "evidence_refs") or []
            if type(r) is dict or isinstance(r, Mapping)]  # plain dicts first: the ABC check is slow
    new_refs = [r for r in refs if isinstance(r, str) and r not in ledger.evidence_refs]
    if new_refs:
        changes["evidence_refs"] = (*ledger.evidence_refs, *dict.fromkeys(new_refs))
    _approvals(ledger, packet, packet_type, changes)
    verify = ledger.verify
    handler = _HANDLERS.get(str(packet_type))
    if handler is not None:
        verify = handler(ledger, packet, now_ms, changes, verify)
    changes["verify"] = verify
    if state_after == "S9_SAFEMODE" and ledger.state != "S9_SAFEMODE":
        changes["safe_mode_reason"] = str(get(packet, "payload", "description") or "safe mode entered")
    elif state_after != "S9_SAFEMODE":
        changes["safe_mode_reason"] = None
    return changes


def _approvals(ledger: EpisodeLedger, packet: Mapping[str, Any], packet_type: object,
               changes: dict[str, Any]) -> None:
    """INV-005 approvals. A budget escalation approves the overrun until a decision answers it (that decision
    extended the envelope in `_envelope`); an override carrying an envelope replaced it (the new envelope is
    the approval, so a later overrun of it needs one again); one without approves the overrun as it is."""
    if is_budget_escalation(packet):
        changes["budget_approved"] = changes["budget_escalation_open"] = True
    elif packet_type == "DecisionPacket" and ledger.budget_escalation_open:
        changes["budget_escalation_open"] = False
        changes["budget_approved"] = budgets_of(packet) is None and ledger.budget_approved
    elif is_budget_override(packet):
        replaced = get(packet, "header", "layer_source") in LAYER_ONE_AUTHORITIES and budgets_of(packet) is not None
        changes["budget_approved"] = not replaced


# A packet type's effect: may add ledger fields to `changes`; returns the verification loop after it.
Handler = Callable[[EpisodeLedger, Mapping[str, Any], int | None, dict[str, Any], VerifyLoop | None],
                   VerifyLoop | None]


def _observation(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
                 changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    if verify is not None and get(packet, "mcp", "epistemics", "status") == "OBSERVED":
        return replace(verify, observed=True)
    return verify


def _belief_update(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
                   changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    changes["belief_updates"] = ledger.belief_updates + 1
    if verify is None or verify.belief_update_with_evidence:
        return verify
    cited = get(packet, "payload", "evidence_integration")
    if isinstance(cited, list) and any(in_verify_loop(ledger, verify, str(packet_id)) for packet_id in cited):
        return replace(verify, belief_update_with_evidence=True)
    if (verify.observed or verify.success_result) and _fresh_live_evidence(packet, verify.opened_ms):
        return replace(verify, belief_update_with_evidence=True)
    return verify


def _fresh_live_evidence(packet: Mapping[str, Any], since_ms: int | None) -> bool:
    """`packet` carries a tool_output / user_observation ref timestamped at or after `since_ms`."""
    refs = get(packet, "mcp", "evidence", "evidence_refs")
    for ref in refs if isinstance(refs, list) else ():
        if (type(ref) is dict or isinstance(ref, Mapping)) and ref.get("ref_type") in LIVE_EVIDENCE:
            stamp = to_ms(ref.get("timestamp"))
            if stamp is not None and (since_ms is None or stamp >= since_ms):
                return True
    return False


def in_verify_loop(ledger: EpisodeLedger, verify: VerifyLoop, packet_id: str) -> bool:
    """Whether `packet_id` is a packet accepted after the loop's decision. Derived from the judgements, not
    listed in the ledger: a long loop's list made each rewrite of the ledger grow with the loop."""
    judged, opened = ledger.applied.sequence(packet_id), ledger.applied.sequence(verify.decision_packet_id)
    if judged is None or opened is None or judged <= opened:
        return False
    judgement = ledger.applied.get(packet_id)
    return judgement is not None and judgement.status is not VerdictStatus.REJECTED


def _decision(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
              changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    outcome = get(packet, "payload", "decision_outcome")
    changes["last_decision"] = outcome if isinstance(outcome, str) else None
    changes["decision_count"] = ledger.decision_count + 1
    # A new decision closes the loop it re-decides; VERIFY_FIRST opens a fresh one.
    if outcome != "VERIFY_FIRST":
        return None
    return VerifyLoop(str(get(packet, "header", "packet_id")), opened_ms=now_ms)


def _plan(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
          changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    return replace(verify, plan=True) if verify is not None else None


def _directive(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
               changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    task_id = get(packet, "payload", "task_id")
    safety = get(packet, "payload", "tool_safety_class")
    if isinstance(task_id, str):
        directive = OpenDirective(
            task_id=task_id, packet_id=str(get(packet, "header", "packet_id")),
            tool_safety_class=safety if isinstance(safety, str) else None, issued_ms=now_ms,
            deadline_ms=directive_deadline_ms(packet, now_ms),
            stakes_level=get(packet, "mcp", "stakes", "stakes_level"),
        )
        earlier = ledger.open_directives.get(task_id)
        if earlier is not None and not earlier.timed_out:
            directive = _reissued(earlier, directive)
        changes["open_directives"] = {**ledger.open_directives, task_id: directive}
    token_id = get(packet, "payload", "authorization_token_id")
    if safety in ("WRITE", "MIXED") and isinstance(token_id, str) and token_id in ledger.tokens:
        token = ledger.tokens[token_id]
        changes["tokens"] = {**ledger.tokens, token_id: replace(token, usage_count=token.usage_count + 1)}
    if verify is not None and safety in ("READ", None):
        return replace(verify, read_directive=True)
    return verify


def _reissued(earlier: OpenDirective, again: OpenDirective) -> OpenDirective:
    """The open directive of a task issued twice: the earlier deadline (and its packet), the higher stakes."""
    def deadline(d: OpenDirective) -> float:
        return math.inf if d.deadline_ms is None else d.deadline_ms
    kept = again if deadline(again) < deadline(earlier) else earlier
    stakes = max((earlier.stakes_level, again.stakes_level), key=lambda level: LEVELS.get(str(level), 0))
    return replace(kept, stakes_level=stakes)


def _result(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
            changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    task_id = get(packet, "payload", "task_id")
    if task_id in ledger.open_directives:
        remaining = dict(ledger.open_directives)  # a C-level copy: dangling directives make this dict long
        del remaining[task_id]
        changes["open_directives"] = remaining
    if verify is not None and get(packet, "payload", "result_status") == "SUCCESS":
        observed = verify.observed or get(packet, "mcp", "epistemics", "status") == "OBSERVED"
        return replace(verify, success_result=True, observed=observed)
    return verify


def _token(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
           changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    payload = get(packet, "payload") or {}
    token_id = payload.get("token_id")
    if isinstance(token_id, str):
        scope = payload.get("authorized_scope") or {}
        constraints = scope.get("resource_constraints")
        changes["tokens"] = {**ledger.tokens, token_id: Token(
            token_id=token_id, packet_id=str(get(packet, "header", "packet_id")),
            tool_ids=tuple(map(str, scope.get("tool_ids") or ())),
            operation_types=tuple(map(str, scope.get("operation_types") or ())),
            resource_constraints=constraints if isinstance(constraints, Mapping) else None,
            expiry=str(payload.get("expiry")), expiry_ms=to_ms(payload.get("expiry")),
            max_usage_count=_count(payload.get("max_usage_count")), usage_count=_count(payload.get("usage_count")),
            revoked=payload.get("revoked") is True, issuer_layer=payload.get("issuer_layer"),
        )}
    return verify


def _integrity(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
               changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    revoked = get(packet, "payload", "revoked_token_ids")
    if isinstance(revoked, list):
        tokens = changes.get("tokens", ledger.tokens)
        changes["tokens"] = {k: replace(t, revoked=True) if k in revoked else t for k, t in tokens.items()}
    return verify


def _escalation(ledger: EpisodeLedger, packet: Mapping[str, Any], now_ms: int | None,
                changes: dict[str, Any], verify: VerifyLoop | None) -> VerifyLoop | None:
    changes["escalation_presented"] = True
    return verify


_HANDLERS: dict[str, Handler] = {
    "ObservationPacket": _observation,
    "BeliefUpdatePacket": _belief_update,
    "DecisionPacket": _decision,
    "VerificationPlanPacket": _plan,
    "TaskDirectivePacket": _directive,
    "TaskResultPacket": _result,
    "ToolAuthorizationToken": _token,
    "IntegrityAlertPacket": _integrity,
    "EscalationPacket": _escalation,
}
