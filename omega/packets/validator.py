"""`evolve(ledger, packet) -> (ledger, outputs)`: the validator stages, in the order the spec gives.

Per packet (invariants spec, "Validator Integration"): schema -> authenticity (only with an `AuthPolicy`,
issue 9) -> FSM transition -> invariants -> ledger update. A schema rejection does not hide the rule broken:
it also carries the ERRORs of the packet-local invariants (`PACKET_LOCAL`), with the schema's disposition
(no FSM move, no ledger change; a safety rule among them still raises its alert). Schema, AUTH and FSM
errors reject at once;
invariant ERRORs reject; WARNINGs ride on the verdict and the packet is accepted. A null on an optional field
is a schema WARNING (`omega.packets.schema`): the stages after the schema judge the packet without it, while its
content hash and signature stay the raw packet's. Time is event time:
`created_at` drives token expiry, recency and deadlines, and `advance(ledger, watermark)` raises task
timeouts when an episode goes quiet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from omega import RULESET_VERSION
from omega.canonical import content_hash
from omega.events import Alert, Escalation
from omega.eventtime import to_iso, to_ms
from omega.packets.authenticity import AuthPolicy, auth_001_authority_requires_signature
from omega.packets.episode import accepted_changes, apply_usage, get, usage_changes, usage_report
from omega.packets.fsm import fsm_step
from omega.packets.invariants import PACKET_LOCAL, PER_PACKET, invariants_for, overruns
from omega.packets.ledger import EpisodeLedger, Judgement, OpenDirective
from omega.packets.schema import check_schema, read_nulls_as_absent
from omega.packets.verdict import EPISODE as EPISODE_CONTEXT
from omega.packets.verdict import SINGLE_PACKET, PacketVerdict, VerdictStatus, status_of, verdict_id_for
from omega.records import constructor, copy_with, finish, replace
from omega.violations import Severity, Violation

Output = PacketVerdict | Alert | Escalation
SAFE_MODE = "S9_SAFEMODE"
_TOKEN_RULES = ("INV-007", "FSM-E4")
_ESCALATING_RULES = {"INV-003": "high stakes decided without verification", "INV-010": "acting with tools down"}


def evolve(ledger: EpisodeLedger | None, packet: Mapping[str, Any],
           policy: AuthPolicy | None = None, late: bool = False) -> tuple[EpisodeLedger, list[Output]]:
    """Judge one packet of an episode; a redelivered packet changes nothing and re-emits its outputs.
    With `policy`, packets claiming Layer 1 / Integrity authority must be validly signed (rule AUTH); `late`
    marks a verdict judged after packets of its episode created later (the shell's lateness bound)."""
    header = _header(packet)
    packet_id = str(header["packet_id"])
    current = ledger or EpisodeLedger(str(header["correlation_id"]))
    digest = content_hash(packet)
    seen = current.applied.get(packet_id)
    if seen is not None and seen.content_hash == digest:
        return current, _replayed(header, digest, seen)
    now_ms = to_ms(header.get("created_at"))
    if seen is not None:  # a conflicting re-use of an id must not overwrite what was judged first
        # ...but is remembered under its own key, so that a redelivery of it (the ledger may already be ahead
        # of the consumed offsets after a crash) re-emits this very verdict, not one with the later state.
        key = conflict_key(packet_id, digest)
        again = current.applied.get(key)
        if again is not None and again.content_hash == digest:
            return current, _replayed(header, digest, again)
        conflict = (duplicate_packet_id(packet_id), *check_schema(packet))
        verdict = _verdict(header, digest, conflict, current.state, current.state, usage_report(current),
                           late=late)
        return replace(current, applied=current.applied.with_(key, Judgement.of(verdict))), [verdict]

    # Deadlines passed by this packet's time fire first, so a late result still raises its timeout.
    current, timeouts = advance(current, now_ms)
    violations: list[Violation] = list(check_schema(packet))
    raw = packet  # the signature and content hash are the raw packet's
    if violations:  # (a valid packet, the common case, makes no call here or below)
        packet = _judged(packet, violations)
    # This call's own copy, with the packet's usage: what the invariants judge. An accepted packet's ledger is
    # this very copy, finished in place below (no one else has seen it), so the ledger is copied once.
    projected = copy_with(current, usage_changes(current, packet, now_ms))
    if violations and status_of(violations) is VerdictStatus.REJECTED:
        violations += _local_errors(packet, projected, now_ms)
    else:  # after schema, before FSM: an unauthentic packet must not move the episode
        violations += auth_001_authority_requires_signature(raw, policy)
    state_after = current.state
    if not violations or status_of(violations) is not VerdictStatus.REJECTED:
        step = fsm_step(current, packet)
        violations += step.violations
        state_after = step.state_after
        if status_of(step.violations) is not VerdictStatus.REJECTED:  # an FSM ERROR rejects at once
            # Only the invariants that can fire on this packet type (the others would answer []).
            for invariant in invariants_for(header["packet_type"]):
                violations += invariant(packet, projected, now_ms)
    status = status_of(violations)
    outputs: list[Output] = []
    changes: dict[str, Any] | None = None
    if status is VerdictStatus.REJECTED:
        new_ledger, state_after = _after_rejection(current, projected, violations, packet, outputs)
    else:
        # The accepted packet's changes are set below, with its judgement; they leave usage and budgets as
        # `projected` has them, which is all the verdict and the alert read.
        new_ledger, changes = projected, accepted_changes(projected, packet, state_after, now_ms)
        if state_after == SAFE_MODE and current.state != SAFE_MODE:
            outputs.append(_alert_of("SAFE_MODE_ENTERED", "CRITICAL", projected, state_after, packet,
                                     f"safe mode: {changes['safe_mode_reason']}"))
    verdict = _verdict(header, digest, tuple(violations), current.state, state_after,
                       usage_report(new_ledger), status, late)
    # No second `advance`: the one above covered every earlier directive at this time, and a directive this
    # packet opens has a deadline at or after it.
    # The alerts and escalations: `_after_rejection`, the safe mode alert and `advance` make no verdicts.
    extra = cast(tuple[Alert | Escalation, ...], (*outputs, *timeouts))
    if changes is None:
        return new_ledger.with_judgement(packet_id, verdict, extra), [verdict, *extra]
    changes.update(projected.judgement_changes(packet_id, verdict, extra))
    return finish(projected, changes), [verdict, *extra]


def evolve_single(packet: Mapping[str, Any], policy: AuthPolicy | None = None) -> PacketVerdict:
    """A lone packet with no episode context: schema, authenticity (with `policy`) and per-packet invariants."""
    header = _header(packet)
    now_ms = to_ms(header.get("created_at"))
    violations = list(check_schema(packet))
    raw, packet = packet, _judged(packet, violations)  # the signature and content hash are the raw packet's
    ledger = apply_usage(EpisodeLedger(str(header["correlation_id"])), packet, now_ms)
    if status_of(violations) is VerdictStatus.REJECTED:
        violations += _local_errors(packet, ledger, now_ms)
    else:
        violations += auth_001_authority_requires_signature(raw, policy)
    if status_of(violations) is not VerdictStatus.REJECTED:
        for invariant in PER_PACKET:
            violations += invariant(packet, ledger, now_ms)
    verdict = _verdict(header, content_hash(raw), tuple(violations), None, None, None)
    return replace(verdict, context=SINGLE_PACKET)


def _judged(packet: Mapping[str, Any], violations: list[Violation]) -> Mapping[str, Any]:
    """The packet the stages after the schema judge: nulls on optional fields read as absent (the schema has
    warned about each: its only WARNINGs). A packet without such a warning (the common case) is judged as it is."""
    if any(v.severity is Severity.WARNING for v in violations):
        return cast(Mapping[str, Any], read_nulls_as_absent(packet))
    return packet


def _local_errors(packet: Mapping[str, Any], ledger: EpisodeLedger, now_ms: int | None) -> list[Violation]:
    """The ERRORs of the packet-local invariants, for a packet the schema already rejects: the disposition is
    the schema's (REJECTED, no FSM move, no ledger change), but the rule it breaks is named too."""
    return [v for inv in PACKET_LOCAL for v in inv(packet, ledger, now_ms) if v.severity is Severity.ERROR]


def advance(ledger: EpisodeLedger, watermark_ms: int | None,
            again: bool = False) -> tuple[EpisodeLedger, list[Output]]:
    """INV-011: directives past their deadline at `watermark_ms` raise one TASK_TIMEOUT alert each
    (WARNING), and an escalation when the stakes are CRITICAL. Idempotent for the same watermark; with
    `again` (a redelivered watermark tick) the directives this very watermark timed out raise their outputs
    again, since the ledger may already hold the tick while its outputs were lost (a crash between the two)."""
    if watermark_ms is None:
        return ledger, []
    outputs: list[Output] = []
    directives: dict[str, OpenDirective] | None = None  # copied at the first timeout: most packets have none
    for task_id, directive in ledger.open_directives.items():
        if directive.deadline_ms is None or directive.deadline_ms >= watermark_ms:
            continue
        if directive.timed_out and not (again and directive.timed_out_ms == watermark_ms):
            continue
        if not directive.timed_out:
            if directives is None:
                directives = dict(ledger.open_directives)
            directives[task_id] = replace(directive, timed_out=True, timed_out_ms=watermark_ms)
        outputs += _timeout_outputs(ledger, task_id, directive)
    if directives is None:
        return ledger, outputs
    return replace(ledger, open_directives=directives), outputs


def _timeout_outputs(ledger: EpisodeLedger, task_id: str, directive: OpenDirective) -> list[Output]:
    # The content depends only on the directive, never on when the timeout was noticed, so the live
    # timer, a late result and the end of a replay all raise the identical alert.
    deadline = to_iso(directive.deadline_ms)
    message = f"INV-011: task {task_id} had no result by its deadline {deadline}"
    details = {"task_id": task_id, "directive_packet_id": directive.packet_id, "rule": "INV-011",
               "deadline": deadline, "stakes_level": directive.stakes_level}
    outputs: list[Output] = [Alert("TASK_TIMEOUT", "WARNING", ledger.correlation_id, message, directive.packet_id,
                                   deadline, details)]
    if directive.stakes_level == "CRITICAL":
        outputs.append(Escalation("LAYER1", ledger.correlation_id, message, directive.packet_id, deadline, details))
    return outputs


def conflict_key(packet_id: str, digest: str) -> str:
    """Where the ledger's `applied` keeps the judgement of a packet re-using `packet_id` with other content
    (NUL cannot be confused with a packet id's own characters)."""
    return f"{packet_id}\x00{digest}"


def duplicate_packet_id(packet_id: str) -> Violation:
    """DUPLICATE: the id was already used in this episode by a packet with different content."""
    return Violation("DUPLICATE", Severity.ERROR,
                     f"packet_id {packet_id} was already used in this episode for a different packet",
                     "header.packet_id")


def _after_rejection(current: EpisodeLedger, projected: EpisodeLedger, violations: list[Violation],
                     packet: Mapping[str, Any], outputs: list[Output]) -> tuple[EpisodeLedger, str]:
    """A rejected packet changes nothing, except that a budget overrun halts the episode (INV-005) with the
    usage the packet reports (and, for a TaskResult, the directive it answers closed)."""
    rules = {v.rule for v in violations if v.severity is Severity.ERROR}
    if "INV-005" in rules:
        reason = "budget overrun without approval: " + "; ".join(overruns(projected))
        # The halt counts what the packet reports it spent; a TaskResult reporting it also answers its
        # directive, which must not later raise a TASK_TIMEOUT as if no result had come.
        halted = replace(projected, state=SAFE_MODE, safe_mode_reason=reason,
                         open_directives=_answered(projected, packet))
        outputs.append(_alert("BUDGET_OVERRUN", "CRITICAL", halted, packet, reason))
        if current.state != SAFE_MODE:
            outputs.append(_alert("SAFE_MODE_ENTERED", "CRITICAL", halted, packet, f"safe mode: {reason}"))
        outputs.append(_escalation(halted, packet, reason))
        return halted, SAFE_MODE
    if rules & set(_TOKEN_RULES):
        misuse = "; ".join(v.message for v in violations if v.rule in _TOKEN_RULES)
        outputs.append(_alert("TOKEN_MISUSE", "HIGH", current, packet, misuse))
    for rule, why in _ESCALATING_RULES.items():
        if rule in rules:
            outputs.append(_alert("ESCALATION_REQUIRED", "HIGH", current, packet, f"{rule}: {why}"))
            outputs.append(_escalation(current, packet, f"{rule}: {why}; verify first or escalate"))
    if "AUTH" in rules:  # a forged or unsigned authority claim is a governance bypass attempt (OMEN.md §13)
        outputs.append(_alert("AUTH_REJECTED", "HIGH", current, packet,
                              "; ".join(v.message for v in violations if v.rule == "AUTH")))
    if "FSM-E7" in rules:
        outputs.append(_alert("SAFE_MODE_VIOLATION", "HIGH", current, packet,
                              f"{get(packet, 'header', 'packet_type')} attempted in safe mode"))
    return current, current.state


def _answered(ledger: EpisodeLedger, packet: Mapping[str, Any]) -> Mapping[str, OpenDirective]:
    """The open directives once `packet`, if it is a TaskResult, has answered its own."""
    task_id = get(packet, "payload", "task_id")
    if get(packet, "header", "packet_type") != "TaskResultPacket" or not isinstance(task_id, str) \
            or task_id not in ledger.open_directives:
        return ledger.open_directives
    return {k: v for k, v in ledger.open_directives.items() if k != task_id}


def _alert(kind: str, severity: str, ledger: EpisodeLedger, packet: Mapping[str, Any], message: str) -> Alert:
    return _alert_of(kind, severity, ledger, ledger.state, packet, message)


def _alert_of(kind: str, severity: str, ledger: EpisodeLedger, state: str, packet: Mapping[str, Any],
              message: str) -> Alert:
    """An alert about `packet` showing the episode in `state`, with the usage of `ledger`."""
    return Alert(kind, severity, ledger.correlation_id, message, str(get(packet, "header", "packet_id")),
                 _event_time(packet), {"state": state, "usage": usage_report(ledger)})


def _escalation(ledger: EpisodeLedger, packet: Mapping[str, Any], reason: str) -> Escalation:
    return Escalation("LAYER1", ledger.correlation_id, reason, str(get(packet, "header", "packet_id")),
                      _event_time(packet), {"state": ledger.state, "usage": usage_report(ledger)})


def _replayed(header: Mapping[str, Any], digest: str, seen: Judgement) -> list[Output]:
    """What a redelivered packet re-emits: its verdict rebuilt from the packet and the judgement, and
    the alerts and escalations it raised the first time."""
    verdict = _verdict(header, digest, seen.violations, seen.state_before, seen.state_after, seen.usage,
                       late=seen.late)
    return [verdict, *seen.outputs]


def _verdict(header: Mapping[str, Any], digest: str, violations: tuple[Violation, ...], before: str | None,
             after: str | None, usage: Mapping[str, Any] | None,
             status: VerdictStatus | None = None, late: bool = False) -> PacketVerdict:
    packet_id = str(header["packet_id"])
    return _new_verdict(
        verdict_id=verdict_id_for(packet_id, digest), packet_id=packet_id,
        correlation_id=str(header["correlation_id"]), packet_type=str(header["packet_type"]),
        status=status_of(violations) if status is None else status, violations=violations,
        event_time=_time_of(header), content_hash=digest, ruleset_version=RULESET_VERSION,
        state_before=before, state_after=after, usage=usage, context=EPISODE_CONTEXT, late=late,
    )


_new_verdict = constructor(PacketVerdict)  # one verdict per packet: the faster constructor (omega.records)


def _header(packet: Mapping[str, Any]) -> Mapping[str, Any]:
    header = packet.get("header")
    if not (type(header) is dict or isinstance(header, Mapping)) or not (
        isinstance(header.get("packet_id"), str) and isinstance(header.get("packet_type"), str)
        and isinstance(header.get("correlation_id"), str)
    ):
        raise ValueError("packet lacks the identity fields packet_id, packet_type, correlation_id")
    return header


def _time_of(header: Mapping[str, Any]) -> str | None:
    created = header.get("created_at")
    return created if isinstance(created, str) else None


def _event_time(packet: Mapping[str, Any]) -> str | None:
    return _time_of(packet.get("header") or {})
