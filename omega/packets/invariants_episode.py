"""The cross-policy invariants that need the episode ledger: INV-005 (budgets), INV-007 (tokens), INV-008
(verification loop), with the helpers the validator and the ledger update share (spec:
`seeds/omen-cross-policy-invariants-v0.7.md`). `omega.packets.invariants` re-exports all of it.

What the ledger holds when these run: usage, budgets and event time already include the judged packet;
everything else (state, tokens, verify loop, approvals) is as it was before it.

Decisions where the spec is incomplete or disagrees with itself. The order of authority: the assertions
and the prose, then the spec's worked examples (OMEN.md §15, the FSM document), then the pseudo-code.

* INV-005 envelope and usage: `omega.packets.ledger`'s docstring (the first DecisionPacket's budgets; usage
  as TaskResults report it). Before the first decision there is no envelope and INV-005 is not judged.
* INV-005 approval: the judged packet approves its own overrun when it is an EscalationPacket with
  `escalation_trigger = budget_insufficient`; a Layer 1 packet (`layer_source == 1`) any of whose payload
  strings contains "budget override" (case-insensitive; the spec's `"budget override" in str(payload)`);
  or an IntegrityAlertPacket with a non-empty `override_rationale` or `action_taken =
  budget_override_approved`. An earlier approval is `ledger.budget_approved`. Risk overruns compare the
  summed `risk_spent` with a numeric `risk_budget.max_loss`; the spec's list has risk but its code not.
* INV-007 and FSM-E4 split the token rules: when the ledger holds no token at all, the FSM reports
  E4 (write without any token) and INV-007 reports only a missing `authorization_token_id`. Expiry is
  judged against the packet's event time: `expiry_ms <= now_ms` is expired (see below); an unparseable
  expiry is expired; with no event time only unparseable expiry is judged.
  Scope: the directive's operation is `tool_params.operation` when it is one of the token vocabulary
  read/write/delete/modify (case-insensitive); otherwise (absent, or a domain verb such as "buy") it is
  `write` for WRITE and both `read` and `write` for MIXED. A directive with no `tool_id` is not judged
  on tool scope. Resource constraints, per key K of `resource_constraints` that also appears in
  `tool_params` (an absent K is not judged: producers name constraints freely, e.g. `type_ids` over a
  `type_id` parameter): a number is an upper bound (`tool_params[K]` must be a number <= it), or a
  lower bound when K starts with `min_` (`min_price`); a list is the allowed values
  (`tool_params[K]`, or each item of it when it is a list, must be in it); a string must be equal;
  other constraint values are not judged.
* INV-008 runs on a DecisionPacket arriving while the ledger is in S4_VERIFY or S2_MODEL with a loop open;
  the SUCCESS result is required only when the tools state is tools_ok (the packet's own
  `mcp.routing.tools_state`, else the episode's last known one). What counts as observed evidence and as
  a closing belief update: `omega.packets.episode`. The VerificationPlanPacket is optional: OMEN.md §10.4
  "Verification closure" lists observed evidence, a belief update and a new decision, not a plan, and
  v0.7 publishes no schema for it; the seed's pseudo-code (and FSM E3 item 1) require it, so its absence is
  a WARNING, never a rejection.
* INV-007 token expiry is half-open: a directive at or after `expiry` uses an expired token (the assertion
  "Token expiry MUST be in the future" and FSM E4 "MUST NOT be in the past"; the pseudo-code's `<` is the
  outlier).
* INV-011 deadline (the assertion "Within time_budget_seconds"): the directive's time budget, or its own
  `timeout_seconds` x (1 + `retry_policy.max_retries`) when that is longer (the retries it was allowed); a
  result exactly at the deadline is on time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeGuard

from omega.eventtime import to_iso
from omega.packets.ledger import EpisodeLedger, Token
from omega.violations import Severity, Violation

ERROR, WARNING = Severity.ERROR, Severity.WARNING
WRITE_CLASSES = ("WRITE", "MIXED")
OPERATIONS = ("read", "write", "delete", "modify")  # the token's operation_types vocabulary
_DEFAULT_OPERATIONS = {"WRITE": ("write",), "MIXED": ("read", "write")}
_PARAMS = "payload.execution_method.tool_params"


# --------------------------------------------------------------------------- shared helpers
def field_at(data: object, path: str) -> Any:
    """The value at dotted `path` of nested mappings, or None (packets may be schema-invalid)."""
    steps = _STEPS.get(path)
    if steps is None:
        steps = _steps(path)
    for key in steps:
        # Plain dicts and None first: decoded JSON is plain dicts, and the ABC check is slow on a hot path.
        if type(data) is not dict and (data is None or not isinstance(data, Mapping)):
            return None
        data = data.get(key)
    return data


_STEPS: dict[str, tuple[str, ...]] = {}


def _steps(path: str) -> tuple[str, ...]:
    """`path` split at its dots; remembered for the literal paths of the rules (bounded: a path made from
    packet content is split every time, never stored)."""
    steps = tuple(path.split("."))
    if len(_STEPS) < 1024:
        _STEPS[path] = steps
    return steps


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number; a bool is not one (Python's True == 1 must not pass as a count or a bound)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_layer_one(packet: Mapping[str, Any]) -> bool:
    """The packet was emitted by Layer 1 (`header.layer_source == 1`, a bool does not count)."""
    layer = field_at(packet, "header.layer_source")
    return is_number(layer) and layer == 1


def strings_in(value: object) -> Iterator[str]:
    """Every string value nested in `value` (depth first)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


def _show(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# --------------------------------------------------------------------------- INV-005 / INV-011 helpers
def directive_deadline_ms(packet: Mapping[str, Any], issued_ms: int | None) -> int | None:
    """INV-011 deadline: issue time + the longer of `mcp.budgets.time_budget_seconds` (the assertion's
    "within time_budget_seconds") and `payload.timeout_seconds` x (1 + `retry_policy.max_retries`) (the
    directive's own attempts); None when neither is given."""
    if issued_ms is None:
        return None
    allowed = []
    budget = field_at(packet, "mcp.budgets.time_budget_seconds")
    if is_number(budget) and budget >= 0:
        allowed.append(budget)
    timeout = field_at(packet, "payload.timeout_seconds")
    if is_number(timeout) and timeout >= 0:
        retries = field_at(packet, "payload.retry_policy.max_retries")
        allowed.append(timeout * (1 + (retries if is_number(retries) and retries > 0 else 0)))
    if not allowed or not max(allowed) < _LATEST_MS / 1000:  # NaN, inf and beyond year 9999: no deadline
        return None
    deadline = issued_ms + int(max(allowed) * 1000)
    return deadline if deadline < _LATEST_MS else None


_LATEST_MS = 253_402_300_799_000  # 9999-12-31T23:59:59Z, the last instant an ISO timestamp can show


def is_budget_escalation(packet: Mapping[str, Any]) -> bool:
    """INV-005 form 1: an EscalationPacket with `escalation_trigger = budget_insufficient`."""
    return bool(field_at(packet, "header.packet_type") == "EscalationPacket"
                and field_at(packet, "payload.escalation_trigger") == "budget_insufficient")


def is_budget_override(packet: Mapping[str, Any]) -> bool:
    """INV-005 form 2: a Layer 1 packet naming a "budget override", or an Integrity override
    (`override_rationale`, or `action_taken = budget_override_approved`)."""
    if is_layer_one(packet) and any("budget override" in s.lower() for s in strings_in(field_at(packet, "payload"))):
        return True
    if field_at(packet, "header.packet_type") == "IntegrityAlertPacket":
        rationale = field_at(packet, "payload.override_rationale")
        if isinstance(rationale, str) and rationale.strip():
            return True
        return bool(field_at(packet, "payload.action_taken") == "budget_override_approved")
    return False


def is_budget_approval(packet: Mapping[str, Any]) -> bool:
    """INV-005: this packet approves a budget overrun (budget escalation, Layer 1 override, Integrity)."""
    return is_budget_escalation(packet) or is_budget_override(packet)


def overruns(ledger: EpisodeLedger) -> list[str]:
    """Each budget the episode's cumulative usage exceeds, as `name: used > budget`."""
    budgets, usage = ledger.budgets, ledger.usage
    if budgets is None:
        return []
    pairs = (("tokens", usage.tokens, budgets.tokens), ("tool_calls", usage.tool_calls, budgets.tool_calls),
             ("time_seconds", usage.time_seconds, budgets.time_seconds), ("risk", usage.risk, budgets.max_loss))
    return [f"{name}: {_show(used)} > {_show(limit)}" for name, used, limit in pairs
            if limit is not None and used > limit]


def inv_005_budget_overrun_requires_approval(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                             now_ms: int | None) -> list[Violation]:
    """INV-005 (Q-POL): cumulative usage over the envelope needs an approval, earlier or this packet.

    Once the overrun has halted the episode (S9_SAFEMODE), the halt is the answer: the logging packets
    safe mode still admits are not rejected and alerted again, which would only flood on-call."""
    over = overruns(ledger)  # no envelope before the first decision: nothing to overrun
    if not over or ledger.budget_approved or is_budget_approval(packet) or ledger.state == "S9_SAFEMODE":
        return []
    return [Violation("INV-005", ERROR, "INV-005: budget overrun without approval: " + "; ".join(over))]


# --------------------------------------------------------------------------- INV-007
def inv_007_write_requires_token_scope(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                       now_ms: int | None) -> list[Violation]:
    """INV-007 (C-POL, FSM E4): a WRITE/MIXED directive names a live, unexhausted token whose scope holds it."""
    safety = field_at(packet, "payload.tool_safety_class")
    if field_at(packet, "header.packet_type") != "TaskDirectivePacket" or safety not in WRITE_CLASSES:
        return []
    token_id = field_at(packet, "payload.authorization_token_id")
    if not isinstance(token_id, str) or not token_id:
        return [_inv_007(f"{safety} directive has no authorization_token_id", "payload.authorization_token_id")]
    token = ledger.tokens.get(token_id)
    if token is None:
        # With no token at all in the episode, FSM-E4 already reports the write; do not say it twice.
        return [] if not ledger.tokens else [
            _inv_007(f"token {token_id} not found in episode", "payload.authorization_token_id")]
    return [*_token_validity(token, now_ms), *_scope(token, packet, str(safety))]


def _inv_007(message: str, field: str | None) -> Violation:
    return Violation("INV-007", ERROR, f"INV-007: {message}", field)


def _token_validity(token: Token, now_ms: int | None) -> list[Violation]:
    where = "payload.authorization_token_id"
    out: list[Violation] = []
    if token.revoked:
        out.append(_inv_007(f"token {token.token_id} is revoked", where))
    if token.usage_count >= token.max_usage_count:
        out.append(_inv_007(f"token {token.token_id} usage exhausted "
                            f"({token.usage_count} of {token.max_usage_count})", where))
    if token.expiry_ms is None:
        out.append(_inv_007(f"token {token.token_id} expiry {token.expiry!r} is unparseable (treated as expired)",
                            where))
    elif now_ms is not None and token.expiry_ms <= now_ms:  # half-open: "expiry MUST be in the future"
        out.append(_inv_007(f"token {token.token_id} expired at {token.expiry} "
                            f"(directive at {to_iso(now_ms)})", where))
    return out


def _scope(token: Token, packet: Mapping[str, Any], safety: str) -> list[Violation]:
    out: list[Violation] = []
    tool_id = field_at(packet, "payload.execution_method.tool_id")
    if isinstance(tool_id, str) and tool_id not in token.tool_ids:
        out.append(_inv_007(f"tool {tool_id} not in token {token.token_id} scope {list(token.tool_ids)}",
                            "payload.execution_method.tool_id"))
    params = field_at(packet, _PARAMS)
    params = params if type(params) is dict or isinstance(params, Mapping) else {}
    declared = params.get("operation")
    declared = declared.lower() if isinstance(declared, str) and declared.lower() in OPERATIONS else None
    operations = (declared,) if declared else _DEFAULT_OPERATIONS[safety]
    missing = [op for op in operations if op not in token.operation_types]
    if missing:
        field = f"{_PARAMS}.operation" if declared else "payload.tool_safety_class"
        out.append(_inv_007(f"operation {', '.join(missing)} not in token {token.token_id} operation_types "
                            f"{list(token.operation_types)}", field))
    constraints = token.resource_constraints if isinstance(token.resource_constraints, Mapping) else {}
    for key, bound in constraints.items():
        if key in params and not _within(key, params[key], bound):
            out.append(_inv_007(f"tool_params.{key} = {params[key]!r} outside token {token.token_id} "
                                f"resource constraint {bound!r}", f"{_PARAMS}.{key}"))
    return out


def _within(key: str, value: object, bound: object) -> bool:
    """Resource constraint semantics: number = upper bound (lower for `min_*`), list = allowed values,
    string = exact value."""
    if is_number(bound):
        return is_number(value) and (value >= bound if key.startswith("min_") else value <= bound)
    if isinstance(bound, list):
        items = value if isinstance(value, list) else [value]
        return all(item in bound for item in items)
    if isinstance(bound, str):
        return value == bound
    return True  # any other constraint shape has no stated meaning: not judged


# --------------------------------------------------------------------------- INV-008
_LOOP_ITEMS = (
    ("read_directive", "READ TaskDirective"),
    ("success_result", "SUCCESS TaskResult (tools_ok)"),
    ("observed", "OBSERVED evidence (an OBSERVED ObservationPacket or TaskResult)"),
    ("belief_update_with_evidence", "closing BeliefUpdate citing the verification evidence"),
)


def inv_008_verification_loop_closure(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                      now_ms: int | None) -> list[Violation]:
    """INV-008 (E-POL/Q-POL, FSM E3): re-deciding after VERIFY_FIRST needs a READ directive, a SUCCESS result
    (tools_ok), observed evidence and a closing belief update; a missing VerificationPlanPacket is a WARNING."""
    loop = ledger.verify
    # The loop is judged wherever the re-decision comes from: straight out of S4_VERIFY, or via the
    # belief update that took it to S2_MODEL (the usual route, which a skipped read must not escape).
    if (field_at(packet, "header.packet_type") != "DecisionPacket" or loop is None
            or ledger.state not in ("S4_VERIFY", "S2_MODEL")):
        return []
    tools_state = field_at(packet, "mcp.routing.tools_state")
    tools_state = tools_state if isinstance(tools_state, str) else ledger.tools_state
    out = [
        Violation("INV-008", ERROR, f"INV-008: verification loop of {loop.decision_packet_id} has no {what}")
        for item, what in _LOOP_ITEMS
        if not getattr(loop, item) and (item != "success_result" or tools_state == "tools_ok")
    ]
    if not loop.plan:
        out.append(Violation("INV-008", WARNING, f"INV-008: verification loop of {loop.decision_packet_id} had "
                             "no VerificationPlanPacket (optional in v0.7: OMEN.md §10.4 does not require it)"))
    return out
