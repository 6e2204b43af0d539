"""The transition table of the episode state machine (spec/omen/fsm-transitions-v0.7.md): its states, the
packet types it moves on, its rows, and where a packet leads from a state, on the table or off it.

A DecisionPacket passes through S3_DECIDE and its outcome moves on at once (the S3 transition rules):
VERIFY_FIRST -> S4_VERIFY, ESCALATE -> S8_ESCALATED, DEFER/CANCEL -> S7_REVIEW; ACT stays in S3_DECIDE
until a ToolAuthorizationToken (-> S5_AUTHORIZE) or a READ TaskDirective (-> S6_EXECUTE) follows.

Pre-authorization (OMEN.md §8.3.6 "explicit authorization token traceable to Layer 1 policy"; §11.1 Layer 1
sets posture before Layer 5 decides): a token as the episode's first packet moves S0 -> S5 legally, and
until the first decision S5 admits what S0 does (the sense cycle starts from there); after an ACT decision a
WRITE/MIXED directive goes S3 -> S6 when a token was issued earlier in the episode (the table's S3 -> S5 ->
S6 route assumes the token comes after the decision).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from omega.packets.ledger import EpisodeLedger

STATES: tuple[str, ...] = (
    "S0_IDLE", "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S4_VERIFY",
    "S5_AUTHORIZE", "S6_EXECUTE", "S7_REVIEW", "S8_ESCALATED", "S9_SAFEMODE",
)
S0, S1, S2, S3, S4, S5, S6, S7, S8, S9 = STATES

OBSERVATION = "ObservationPacket"
BELIEF = "BeliefUpdatePacket"
DECISION = "DecisionPacket"
PLAN = "VerificationPlanPacket"
AUTHORIZATION = "ToolAuthorizationToken"
DIRECTIVE = "TaskDirectivePacket"
RESULT = "TaskResultPacket"
ESCALATION = "EscalationPacket"
ALERT = "IntegrityAlertPacket"

WRITE_CLASSES = ("WRITE", "MIXED")
SAFE_MODE_ALLOWED = (ALERT, BELIEF)
_DECIDED: Mapping[str, str] = {"VERIFY_FIRST": S4, "ACT": S3, "ESCALATE": S8, "DEFER": S7, "CANCEL": S7}


# --------------------------------------------------------------------------- reading a packet defensively
# Exact type checks first: decoded JSON is plain dicts and str, and the ABC checks are slow on a hot path.
def packet_type_of(packet: Mapping[str, Any]) -> str | None:
    """`header.packet_type` when it is a string, else None."""
    header = packet.get("header") if type(packet) is dict or isinstance(packet, Mapping) else None
    kind = header.get("packet_type") if type(header) is dict or isinstance(header, Mapping) else None
    return kind if type(kind) is str or isinstance(kind, str) else None


def payload_of(packet: Mapping[str, Any]) -> Mapping[str, Any]:
    """The payload when it is a mapping, else empty."""
    payload = packet.get("payload") if type(packet) is dict or isinstance(packet, Mapping) else None
    return payload if type(payload) is dict or isinstance(payload, Mapping) else {}


def writes(packet: Mapping[str, Any]) -> bool:
    """A WRITE or MIXED directive; an absent or unknown class is not a write (as INV-007 reads it)."""
    return payload_of(packet).get("tool_safety_class") in WRITE_CLASSES


def _outcome(packet: Mapping[str, Any]) -> str | None:
    outcome = payload_of(packet).get("decision_outcome")
    return outcome if isinstance(outcome, str) else None


def pending(ledger: EpisodeLedger) -> bool:
    """Directives still running; a timed-out one (INV-011 marked it) no longer holds execution open."""
    return any(not d.timed_out for d in ledger.open_directives.values())


def in_verify_loop(ledger: EpisodeLedger) -> bool:
    """Between a VERIFY_FIRST decision and the next decision (the ledger closes the loop on re-decide)."""
    return ledger.last_decision == "VERIFY_FIRST"


# --------------------------------------------------------------------------- the normative table
Guard = Callable[[EpisodeLedger, Mapping[str, Any]], bool]


def _always(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> bool:
    return True


def _after(*outcomes: str) -> Guard:
    return lambda ledger, packet: ledger.last_decision in outcomes


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the transition table; `label` is the spec's "Packet Type" cell."""

    source: str
    packet_type: str
    label: str
    guard: Guard
    target: str


TABLE: tuple[Row, ...] = (
    Row(S0, OBSERVATION, "ObservationPacket", _always, S1),
    Row(S0, AUTHORIZATION, "ToolAuthorizationToken (Layer 1 pre-authorization)", _always, S5),
    Row(S1, OBSERVATION, "ObservationPacket", _always, S1),
    Row(S1, BELIEF, "BeliefUpdatePacket", _always, S2),
    Row(S2, BELIEF, "BeliefUpdatePacket", _always, S2),
    Row(S2, DECISION, "DecisionPacket", _always, S3),
    Row(S3, DECISION, "DecisionPacket (VERIFY_FIRST)", lambda lg, p: _outcome(p) == "VERIFY_FIRST", S4),
    Row(S3, AUTHORIZATION, "ToolAuthorizationToken", _after("ACT"), S5),
    Row(S3, DIRECTIVE, "TaskDirectivePacket (READ)", lambda lg, p: lg.last_decision == "ACT" and not writes(p), S6),
    Row(S3, DIRECTIVE, "TaskDirectivePacket (WRITE, token issued before the decision)",
        lambda lg, p: lg.last_decision == "ACT" and writes(p) and bool(lg.tokens), S6),
    Row(S3, ESCALATION, "EscalationPacket", _after("ESCALATE"), S8),
    Row(S3, BELIEF, "BeliefUpdatePacket", _after("DEFER", "CANCEL"), S7),
    Row(S4, PLAN, "VerificationPlanPacket", _always, S4),
    Row(S4, DIRECTIVE, "TaskDirectivePacket (READ)", lambda lg, p: not writes(p), S4),
    Row(S4, RESULT, "TaskResultPacket", _always, S4),
    Row(S4, OBSERVATION, "ObservationPacket", _always, S4),
    Row(S4, BELIEF, "BeliefUpdatePacket", _always, S2),
    # S3 entry "from S4_VERIFY: re-deciding after verification complete"; completeness is INV-008's ERROR.
    Row(S4, DECISION, "DecisionPacket", _always, S3),
    Row(S5, AUTHORIZATION, "ToolAuthorizationToken", _always, S5),
    Row(S5, DIRECTIVE, "TaskDirectivePacket (WRITE)", lambda lg, p: writes(p), S6),
    Row(S6, DIRECTIVE, "TaskDirectivePacket", _always, S6),
    Row(S6, RESULT, "TaskResultPacket", _always, S6),
    Row(S6, OBSERVATION, "ObservationPacket", _always, S6),
    # "Execution complete" vs "partial; need re-decision": told apart by directives still running.
    Row(S6, BELIEF, "BeliefUpdatePacket", lambda lg, p: not pending(lg), S7),
    Row(S6, BELIEF, "BeliefUpdatePacket", lambda lg, p: pending(lg), S2),
    Row(S7, BELIEF, "BeliefUpdatePacket", _always, S7),
    # Not a table row, but S7's legal next states and S1's entry conditions: a new sense cycle.
    Row(S7, OBSERVATION, "ObservationPacket", _always, S1),
    Row(S8, ESCALATION, "EscalationPacket", _always, S8),
    Row(S8, DECISION, "DecisionPacket (user input)", _always, S3),
)
"""The legal transitions. A DecisionPacket's row only makes it legal: its outcome sets the target (`_decided`).
IntegrityAlertPacket rows and episode close are handled out of band, in `omega.packets.fsm.fsm_step`."""


_ROWS: dict[tuple[str, str], tuple[Row, ...]] = {}
for _r in TABLE:
    _ROWS[_r.source, _r.packet_type] = (*_ROWS.get((_r.source, _r.packet_type), ()), _r)


def pre_authorized(ledger: EpisodeLedger) -> bool:
    """S5 reached by a token before any decision: the episode has not started its cognition loop yet."""
    return ledger.state == S5 and ledger.decision_count == 0


def _rows_from(ledger: EpisodeLedger, kind: str) -> tuple[Row, ...]:
    rows = _ROWS.get((ledger.state, kind), ())
    return (*rows, *_ROWS.get((S0, kind), ())) if pre_authorized(ledger) else rows


def row_for(ledger: EpisodeLedger, packet: Mapping[str, Any], kind: str | None) -> Row | None:
    """The first table row from the ledger's state for a packet of type `kind` whose guard holds."""
    if kind is None:
        return None
    for row in _rows_from(ledger, kind):
        if row.guard(ledger, packet):
            return row
    return None


def deviation_target(ledger: EpisodeLedger, packet: Mapping[str, Any], kind: str | None) -> str:
    """Where a packet the table does not allow still leads: the state its type naturally belongs to."""
    state = ledger.state
    if kind == OBSERVATION:  # extra evidence inside verify/execute; elsewhere a new sense cycle
        return state if state in (S4, S6) else S1
    if kind == BELIEF:  # S4, S6, S7 and S3 after DEFER/CANCEL are table rows; elsewhere: re-model
        return S2
    if kind == DECISION:
        return _decided(packet)
    if kind == DIRECTIVE:
        return S4 if state == S4 and not writes(packet) else S6
    if kind == RESULT:
        return state if state in (S4, S6) else S6
    if kind == ESCALATION:
        return S8
    if kind == PLAN:
        return S4
    return state  # QueueUpdatePacket and unknown types: bookkeeping, no move


def _decided(packet: Mapping[str, Any]) -> str:
    """Where a decision leaves S3_DECIDE; ACT (or an unreadable outcome) waits there for token/directive."""
    return _DECIDED.get(_outcome(packet) or "", S3)
