"""The episode state machine (spec/omen/fsm-transitions-v0.7.md): where a packet takes the episode (the table of
`omega.packets.fsm_table`), and the enforcement rules E1-E7 judged on the way.

`fsm_step(ledger, packet)` is pure and never raises: the packet may be schema-invalid. It returns the
state the packet WOULD lead to; the validator keeps the old state when the packet is rejected.

Severity policy (docs/design.md "Errors vs warnings"): E2, E4 and E7 guard safety and are ERRORs, and so is a
TaskResultPacket that answers no directive (E6, below). A packet the transition table does not list,
breaking no safety rule, is a WARNING (rule `FSM`) and still moves the episode where its type naturally
leads (`omega.packets.fsm_table.deviation_target`). E1, E3, E5 and E6's dangling directives are WARNINGs:
their hard parts belong to INV-007 (token validity), INV-008 (verify loop closure), INV-009 (escalation
content) and INV-011 (deadlines), which report them as errors or alerts of their own.

Decisions on off-table packets (order of authority: assertions and prose, then the spec's worked examples,
then pseudo-code):

* Why an off-table packet is in general a WARNING although fsm-transitions-v0.7.md "Failure handling" says
  "Invalid transition -> reject packet" (and OMEN.md §15.4 "illegal FSM transitions rejected"): the same
  document's prose allows more than its table does, so "not in the table" is not "invalid". Its state
  sections list moves with no row (S4_VERIFY "Legal next states: S6_EXECUTE"; S7_REVIEW -> S1_SENSE "if
  triggering new cycle"; S9_SAFEMODE -> S0_IDLE), its S3_DECIDE "Transition rules" send DEFER/CANCEL to
  S7_REVIEW on the decision itself where the table needs a BeliefUpdatePacket, two rows have no packet at
  all ("(episode close)", "(user input)"), and Rule E1 tolerates a decision with no belief update "unless
  episode just started and initial beliefs exist from prior context". What the document makes a MUST with
  a reason - "You cannot EXECUTE before DECIDE" (OMEN.md §10.3), no action without decision (E2), write
  requires token (E4), safe mode lockdown (E7), and a result needs its directive (below) - is an ERROR of
  its own rule; the rest of the table's silence is flagged for review, never silently accepted.
* A DecisionPacket straight from S0_IDLE is a tolerated entry point: the FSM gives it two WARNINGs, FSM-E1
  (no BeliefUpdatePacket before it: Rule E1's own exception "unless episode just started and initial beliefs
  exist from prior context", which the verifier cannot see, so it is flagged, not rejected) and FSM (S0_IDLE
  lists only ObservationPacket). It lands where its outcome says (S3_DECIDE "Transition rules"). Grounds
  beyond E1: OMEN.md §11.3 templates B-E begin with "Decide ..." and §11.4 compiles a template by
  "allocating correlation_id ... emitting packets per steps ... validating each emission (packet validator +
  FSM validator)", so a compiled Read-Only Act (C) opens its episode with its decision; §10.1 episodes
  "can nest" (a sub-episode inherits its parent's model). The safety rules still judge that decision
  (INV-002/003/010), and E2 still requires its ACT before any directive.
* A TaskResultPacket with no TaskDirectivePacket before it is REJECTED (FSM-E6, ERROR), in every state,
  S4_VERIFY and S6_EXECUTE included (where the table's "TaskResultPacket" rows would otherwise let it pass
  silently). A result "has its directive" when its `task_id` is an open directive of the episode (timed
  out or not), or its `directive_packet_id` names a packet of this episode that was not rejected (a second
  result for an answered task, a late result). Grounds: fsm-transitions-v0.7.md "Failure handling":
  "Missing prerequisite (e.g., token) -> reject with specific error"; S6_EXECUTE "Every TaskDirectivePacket
  MUST have corresponding TaskResultPacket" and Rule E6 pair them by task (INV-011: "a TaskResultPacket
  with matching task_id"); OMEN.md §10.3 "You cannot EXECUTE before DECIDE" (a result reports an
  execution, and only a directive after an ACT decision may start one, E2); §10.4 a TaskResult "closes" a
  TaskDirective. The table has TaskResult rows only from S4_VERIFY and S6_EXECUTE, states a directive
  leads to. A result whose directive was rejected (a write refused by INV-007, say) is the worst case: it
  reports an execution the verifier refused. No invariant covers it otherwise: INV-011 judges directives
  left without results, not results without directives (the validator just ignores an unknown task_id).
  Judged in arrival order like every FSM rule: a result arriving before its directive, later than the
  lateness bound lets the shell reorder (`omega.packets.lateness`), is rejected too.

Out of band, in any state and without a warning: ToolAuthorizationToken (Layer 1 issues tokens when it
likes: a token issued before the ACT decision is Layer 1 pre-authorization), IntegrityAlertPacket
(Integrity is an overlay, OMEN.md §12) and QueueUpdatePacket (backlog bookkeeping, outside the cognition
loop). An alert's `severity` and `alert_type` are read case-insensitively: the payload is open (no
published schema), and a "critical" alert that did not enter safe mode would fail open.

E3 item 1 ("VerificationPlanPacket MUST appear before any TaskDirective") is read as an order rule: the plan is
optional (INV-008's docstring), so only a plan that comes after the loop's directives draws the E3 WARNING.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from omega.packets.fsm_table import (
    ALERT,
    AUTHORIZATION,
    BELIEF,
    DECISION,
    DIRECTIVE,
    PLAN,
    RESULT,
    S0,
    S4,
    S6,
    S7,
    S8,
    S9,
    SAFE_MODE_ALLOWED,
    TABLE,
    Row,
    deviation_target,
    in_verify_loop,
    packet_type_of,
    payload_of,
    pending,
    pre_authorized,
    row_for,
    writes,
)
from omega.packets.ledger import EpisodeLedger
from omega.packets.verdict import VerdictStatus
from omega.violations import Severity, Violation


@dataclass(frozen=True, slots=True)
class FsmStep:
    """The state the packet leads to, and the FSM rules it broke on the way."""

    state_after: str
    violations: tuple[Violation, ...]


def _upper(value: object) -> str | None:
    return value.strip().upper() if isinstance(value, str) else None


# --------------------------------------------------------------------------- enforcement rules
def _violation(rule: str, severity: Severity, message: str, field: str | None) -> Violation:
    return Violation(rule, severity, f"{rule}: {message}", field)


def fsm_e1_no_decision_without_model(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E1 (WARNING): a decision with no belief update yet; prior-context beliefs can't be seen, so no ERROR."""
    if ledger.belief_updates > 0 or packet_type_of(packet) != DECISION:  # the ledger first: cheaper
        return None
    return _violation("FSM-E1", Severity.WARNING,
                      "DecisionPacket with no BeliefUpdatePacket before it in the episode", "header.packet_type")


def fsm_e2_no_action_without_decision(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E2 (ERROR): a directive needs an ACT decision; READ directives of a VERIFY_FIRST loop are allowed."""
    if packet_type_of(packet) != DIRECTIVE:
        return None
    if ledger.state == S4 and writes(packet):
        return _violation("FSM-E2", Severity.ERROR,
                          "WRITE/MIXED TaskDirectivePacket in S4_VERIFY: a verify loop runs READ directives only",
                          "payload.tool_safety_class")
    if ledger.last_decision == "ACT" or (in_verify_loop(ledger) and not writes(packet)):
        return None
    return _violation("FSM-E2", Severity.ERROR,
                      f"TaskDirectivePacket without a preceding ACT decision "
                      f"(last decision: {ledger.last_decision or 'none'})", "header.packet_type")


def fsm_e3_verification_loop_order(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E3 (WARNING): a VerificationPlanPacket, when emitted, comes before the loop's directives."""
    loop = ledger.verify
    if loop is None or not loop.read_directive or not in_verify_loop(ledger) or packet_type_of(packet) != PLAN:
        return None
    return _violation("FSM-E3", Severity.WARNING,
                      f"VerificationPlanPacket after the directives of the verify loop opened by "
                      f"{loop.decision_packet_id}: a plan comes before any TaskDirective", "header.packet_type")


def fsm_e4_write_requires_token(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E4 (ERROR): a WRITE/MIXED directive in an episode with no token at all (validity is INV-007's)."""
    if ledger.tokens or packet_type_of(packet) != DIRECTIVE or not writes(packet):
        return None
    return _violation("FSM-E4", Severity.ERROR,
                      "WRITE/MIXED TaskDirectivePacket with no ToolAuthorizationToken in the episode",
                      "payload.authorization_token_id")


def fsm_e5_escalation_presented_before_leaving(ledger: EpisodeLedger,
                                               packet: Mapping[str, Any]) -> Violation | None:
    """E5 (WARNING): leaving S8_ESCALATED on a decision before any EscalationPacket was presented."""
    if ledger.state != S8 or packet_type_of(packet) != DECISION or ledger.escalation_presented:
        return None
    return _violation("FSM-E5", Severity.WARNING,
                      "DecisionPacket leaves S8_ESCALATED before an EscalationPacket presented the options",
                      "header.packet_type")


def fsm_e6_no_dangling_directives(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E6 (WARNING): a belief update closes execution (S6 -> S7) with directives still unanswered."""
    if ledger.state != S6 or packet_type_of(packet) != BELIEF or not ledger.open_directives or pending(ledger):
        return None  # while some still run, the update is a partial one (S6 -> S2), not a closure
    dangling = ", ".join(sorted(d.task_id for d in ledger.open_directives.values()))
    return _violation("FSM-E6", Severity.WARNING,
                      f"S6_EXECUTE -> S7_REVIEW with directives that never got a TaskResult: {dangling}",
                      "header.packet_type")


def fsm_e6_result_answers_a_directive(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E6 (ERROR): a TaskResultPacket closes a TaskDirectivePacket of this episode; one that answers none
    reports an execution nobody directed (module docstring: "Missing prerequisite -> reject")."""
    if packet_type_of(packet) != RESULT:
        return None
    payload = payload_of(packet)
    task_id, directive_id = payload.get("task_id"), payload.get("directive_packet_id")
    if isinstance(task_id, str) and task_id in ledger.open_directives:
        return None
    judged = ledger.applied.get(directive_id) if isinstance(directive_id, str) else None
    if judged is not None and judged.status is not VerdictStatus.REJECTED:
        return None
    if judged is not None:  # the directive it cites was refused: the result reports a refused execution
        return _violation("FSM-E6", Severity.ERROR,
                          f"TaskResultPacket for task {task_id} answers directive {directive_id}, which was "
                          f"rejected: a refused directive must not be executed", "payload.directive_packet_id")
    return _violation("FSM-E6", Severity.ERROR,
                      f"TaskResultPacket for task {task_id} answers no TaskDirectivePacket of this episode "
                      f"(no open task {task_id}, no directive {directive_id}): a result needs the directive "
                      f"it closes", "payload.task_id")


def fsm_e7_safe_mode_lockdown(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """E7 (ERROR): in S9_SAFEMODE only IntegrityAlertPacket and BeliefUpdatePacket (logging) pass."""
    if ledger.state != S9 or packet_type_of(packet) in SAFE_MODE_ALLOWED:
        return None
    return _violation("FSM-E7", Severity.ERROR,
                      f"{packet_type_of(packet) or 'packet'} in S9_SAFEMODE: only IntegrityAlertPacket and "
                      f"BeliefUpdatePacket are allowed until Integrity clears safe mode", "header.packet_type")


def illegal_transition(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Violation | None:
    """FSM (WARNING): a packet the transition table does not allow from the current state."""
    kind = packet_type_of(packet)
    return _illegal(ledger, packet, kind, row_for(ledger, packet, kind))


def _illegal(ledger: EpisodeLedger, packet: Mapping[str, Any], kind: str | None, row: Row | None) -> Violation | None:
    """`illegal_transition` given the packet's type and its table row (`fsm_step` has both already)."""
    if kind is None or kind in (AUTHORIZATION, ALERT) or ledger.state == S9 or row is not None:
        return None  # untyped: the schema stage rejects it; tokens/alerts: out of band; S9: E7's
    sources = (ledger.state, S0) if pre_authorized(ledger) else (ledger.state,)
    expected = ", ".join(dict.fromkeys(r.label for r in TABLE if r.source in sources)) or "none"
    return _violation("FSM", Severity.WARNING,
                      f"{kind} in {ledger.state} is not in the transition table (expected: {expected}); "
                      f"moving to {deviation_target(ledger, packet, kind)}", "header.packet_type")


_RULES = (
    fsm_e1_no_decision_without_model,
    fsm_e2_no_action_without_decision,
    fsm_e3_verification_loop_order,
    fsm_e4_write_requires_token,
    fsm_e5_escalation_presented_before_leaving,
    fsm_e6_no_dangling_directives,
    fsm_e6_result_answers_a_directive,
)

_JUDGED_TYPE: Mapping[Callable[[EpisodeLedger, Mapping[str, Any]], Violation | None], str] = {
    fsm_e1_no_decision_without_model: DECISION, fsm_e2_no_action_without_decision: DIRECTIVE,
    fsm_e3_verification_loop_order: PLAN, fsm_e4_write_requires_token: DIRECTIVE,
    fsm_e5_escalation_presented_before_leaving: DECISION, fsm_e6_no_dangling_directives: BELIEF,
    fsm_e6_result_answers_a_directive: RESULT,
}
_RULES_FOR = {kind: tuple(r for r in _RULES if _JUDGED_TYPE[r] == kind) for kind in set(_JUDGED_TYPE.values())}
"""`_RULES` by the packet type each rule judges (each answers None for any other type), in `_RULES` order:
`fsm_step` calls only the rules that can fire on the packet."""


# --------------------------------------------------------------------------- the step
def fsm_step(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> FsmStep:
    """The state `packet` leads to from `ledger.state`, with the FSM violations it raises."""
    kind, state = packet_type_of(packet), ledger.state
    if state == S9:
        return _safe_mode_step(ledger, packet)
    if kind == ALERT:
        critical = _upper(payload_of(packet).get("severity")) == "CRITICAL"
        return FsmStep(S9 if critical else state, ())
    if kind == "QueueUpdatePacket":  # queue bookkeeping is not part of the episode's cognition loop
        return FsmStep(state, ())
    if kind == AUTHORIZATION:  # out of band: moves only where the table says (S3 after ACT -> S5)
        row = row_for(ledger, packet, kind)
        return FsmStep(row.target if row else state, ())
    row = row_for(ledger, packet, kind)
    # A decision lands where its outcome says, legal or not; anything else off the table lands naturally.
    target = row.target if row and kind != DECISION else deviation_target(ledger, packet, kind)
    found = []
    for rule in _RULES_FOR.get(kind or "", ()):
        violation = rule(ledger, packet)
        if violation is not None:
            found.append(violation)
    if not found or not any(v.severity is Severity.ERROR for v in found):  # a safety ERROR says it all
        deviation = _illegal(ledger, packet, kind, row)
        found += [deviation] if deviation else []
    return FsmStep(target, tuple(found))


def _safe_mode_step(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> FsmStep:
    """S9: E7 locks everything but alerts and belief logging; a safe_mode_clear alert leads to S7_REVIEW."""
    locked = fsm_e7_safe_mode_lockdown(ledger, packet)
    if locked is not None:
        return FsmStep(S9, (locked,))
    # The clearing alert wins over its severity: Integrity may well mark the clearing itself CRITICAL.
    cleared = packet_type_of(packet) == ALERT and _upper(payload_of(packet).get("alert_type")) == "SAFE_MODE_CLEAR"
    return FsmStep(S7 if cleared else S9, ())
