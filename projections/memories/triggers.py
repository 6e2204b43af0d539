"""What an event triggers in the specialised memories (§3.5 rules 2-4), decided in one place.

Failure Memory and Pattern Memory both read the failures an event reports (a failure pattern must exist in
Failure Memory, §3.5.5), and Success and Pattern Memory both read its successes: deciding them here, once per
event (`LogEvent.memo`), keeps the two sides from drifting apart and gives both the same entry ids.

Failure Memory (§3.5.3) triggers:
    SELF_REPORTED       a message whose verdict tag is [FAILED]/[FAILURE]/[FAIL], or whose content, extras or
                        flag extras carry a truthy `failure` (an object may give failure_type, description,
                        pattern, analysis fields, lessons, prevention).
    CONTRADICTION       flags.contradiction_detected (severity: flag extra `contradiction_severity`, else
                        blocks_progress -> FATAL, requires_resolution -> SERIOUS, else MINOR).
    APPROACH_ABANDONED  a hypothesis item with status ABANDONED (or content `hypothesis_abandoned`), or
                        content `abandoned` / `abandon`.
    QC_REJECTION        Quality Controller (52) with verdict tag [REJECT]/[REJECTED].
    ALERT               an alert of one of the seven §4.1.1 signatures (any severity), or any CRITICAL alert
                        (OMEN's BUDGET_OVERRUN, SAFE_MODE_ENTERED); other alerts of HIGH/SERIOUS,
                        WARNING/MODERATE or MINOR severity become active warnings; INFO alerts only the timeline.
    PACKET_REJECTED     an OMEN packet verdict with status REJECTED.
    TERMINATION         a termination report with status FAILURE (§4.2.3: archive the approach).
Success Memory (§3.5.4) triggers:
    BREAKTHROUGH        verdict tag [BREAKTHROUGH] or a truthy `breakthrough` signal, from any agent.
    CONFIRMED           a hypothesis item with status CONFIRMED (or `hypothesis_resolved` with resolution
                        CONFIRMED) and confidence >= 0.8 (the item's, else the message's): "confirmed with
                        HIGH confidence".
    QC_APPROVAL         Quality Controller (52) with verdict tag [SHIP] or [SHIP WITH CAVEATS].
    BRILLIANT           PHI (57) with verdict tag [BRILLIANT] or a truthy `brilliant` signal -> brilliant_ideas.
Escalations only reach the timeline: each OMEGA-57 escalation accompanies an alert that already logs the
failure with its §4.4 level, and OMEN's LAYER1 escalations accompany their HIGH alert.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.canonical import derived_id
from projections.memories.content import (
    analysis,
    contradiction_severity,
    lessons,
    object_hypothesis_items,
    object_of,
    prevention,
    statement_of,
    status_of,
    strings,
)
from projections.memories.log_events import (
    AGENT_MESSAGES,
    ALERTS,
    PHI,
    QUALITY_CONTROLLER,
    TERMINATIONS,
    VERDICTS,
    LogEvent,
    MessageView,
    number,
    read_json,
    text_of,
)

FAILURE_TYPES = ("APPROACH", "REASONING", "PROCESS", "PREDICTION")
SUCCESS_TYPES = ("BREAKTHROUGH", "APPROACH", "INSIGHT", "EFFICIENCY")
HIGH_CONFIDENCE = 0.8
MATCH_THRESHOLD = 0.7
FAILED_TAGS = frozenset({"FAILED", "FAILURE", "FAIL"})
REJECT_TAGS = frozenset({"REJECT", "REJECTED"})
SHIP_TAGS = frozenset({"SHIP", "SHIP WITH CAVEATS"})

# §4.1.1 signature -> (failure type, warning sign, typical cause, prevention condition, prevention action);
# the actions are the §4.2 / §4.3 / §4.4 recovery each signature calls for.
SIGNATURES: Mapping[str, tuple[str, str, str, str, str]] = {
    "CIRCULAR_REASONING": ("REASONING", "Same conclusions cycling without new evidence",
                           "Agents restate claims without new evidence", "no new claims for 2 iterations",
                           "Constrain, decompose or pivot the approach (§4.2.3)"),
    "CONFIDENCE_COLLAPSE": ("REASONING", "Aggregate confidence below 0.3 across agents",
                            "Premises too weak to carry the conclusions", "aggregate confidence below 0.3",
                            "Re-verify the weakest premises before deploying more agents"),
    "CONTRADICTION_CASCADE": ("REASONING", "More than 3 FATAL contradictions unresolved",
                              "Contradictions left unresolved while deploying more agents",
                              "more than 3 FATAL contradictions unresolved",
                              "Halt deployments and deploy the Conflict Resolver (50) (§4.2.2)"),
    "AGENT_FAILURE": ("PROCESS", "Output fails schema validation or coherence check",
                      "An agent produced garbage or a hallucination", "an agent output fails validation",
                      "Quarantine it; retry, substitute or skip the agent (§4.2.1)"),
    "CONVERGENCE_FAILURE": ("APPROACH", "Solution space expands for more than 2 iterations",
                            "The framing lets the solution space grow", "solution space expands for 2 iterations",
                            "Constrain, decompose, pivot or admit intractability (§4.2.3)"),
    "RESOURCE_EXHAUSTION": ("PROCESS", "Usage above 80% of allocated resources",
                            "Token or time limits approached", "usage above 80% of the allocation",
                            "Degrade gracefully to a partial answer (§4.3)"),
    "QUALITY_GATE_FAILURE": ("PROCESS", "More than 2 consecutive Quality Controller rejections",
                             "Output repeatedly fails the quality gate", "more than 2 consecutive QC rejections",
                             "Escalate to PHI judgement (§4.4)"),
}
TERMINATION_FAILURE_TYPES = {"RESOURCE": "PROCESS", "IRRECOVERABLE": "REASONING", "INTRACTABLE": "APPROACH",
                             "ABORT": "PROCESS"}
# the spec labels below CRITICAL on the alerts' one scale (omega.events.SPEC_SEVERITY): they make warnings
WARNING_SEVERITY = {"HIGH": "HIGH", "SERIOUS": "HIGH", "WARNING": "MEDIUM", "MODERATE": "MEDIUM", "MINOR": "LOW"}


@dataclass(frozen=True, slots=True)
class FailureSignal:
    """One failure an event reports: the Failure Memory entry and the failure pattern it belongs to."""

    id: str
    event_id: str
    trigger: str
    failure_type: str
    pattern: str
    description: str
    agent_id: int | None
    occurred_at: str | None
    severity: str | None
    analysis: Mapping[str, Any]
    lessons: tuple[Mapping[str, str], ...]
    prevention: tuple[Mapping[str, str], ...]
    warning_signs: tuple[str, ...]
    typical_cause: str
    escalation_level: int | None = None


@dataclass(frozen=True, slots=True)
class WarningSignal:
    """An alert below the failure bar: a Failure Memory active warning."""

    id: str
    event_id: str
    pattern: str
    warning_sign: str
    detected_at: str | None
    severity: str
    recommended_action: str


@dataclass(frozen=True, slots=True)
class SuccessSignal:
    """One success an event reports: the Success Memory entry and the solution pattern it belongs to."""

    id: str
    event_id: str
    trigger: str
    success_type: str
    pattern: str
    description: str
    agent_id: int | None
    occurred_at: str | None
    analysis: Mapping[str, Any]
    replicability: Mapping[str, Any]
    heuristic: str | None
    steps: tuple[str, ...]
    applicable_when: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BrilliantSignal:
    """Something PHI marked brilliant: a Success Memory brilliant idea ("if it's brilliant, it's a file")."""

    id: str
    event_id: str
    idea: str
    context: str
    why_brilliant: str
    captured_at: str | None
    agent_id: int
    filed_to: str | None


# ------------------------------------------------------------------------------------------- failures
def failures(event: LogEvent) -> tuple[FailureSignal, ...]:
    """The failures the event reports (Failure Memory session_failures), computed once per event."""
    return event.memo("failures", _failures)


def _failures(event: LogEvent) -> tuple[FailureSignal, ...]:
    if not event.relevant:
        return ()
    if event.topic == AGENT_MESSAGES and event.message is not None:
        return tuple(_message_failures(event, event.message))
    if event.topic == ALERTS:
        return _alert_failure(event)
    if event.topic == VERDICTS:
        return (_verdict_failure(event),)
    if event.topic == TERMINATIONS and event.record.get("status") == "FAILURE":
        return (_termination_failure(event),)
    return ()


def _fid(event: LogEvent, trigger: str, index: int) -> str:
    return derived_id("fail_", event.event_id, trigger, str(index))


def _message_failures(event: LogEvent, view: MessageView) -> list[FailureSignal]:
    out: list[FailureSignal] = []
    at, agent = view.timestamp, view.agent_id
    reported = view.signal("failure")
    if reported is not None or view.tag in FAILED_TAGS:
        obj = object_of(reported)
        kind = text_of(obj.get("failure_type", obj.get("type")), "PROCESS").upper()
        description = statement_of(obj, "description") if obj else text_of(reported, view.verdict)
        description = description if description and reported is not True else view.verdict
        out.append(FailureSignal(
            _fid(event, "SELF_REPORTED", 0), event.event_id, "SELF_REPORTED",
            kind if kind in FAILURE_TYPES else "PROCESS", text_of(obj.get("pattern"), "SELF_REPORTED_FAILURE"),
            description, agent, at, None, analysis(obj, view.verdict), lessons(obj.get("lessons")),
            prevention(obj.get("prevention"), description),
            strings(obj.get("warning_signs")) or ("Agent reports its own failure",),
            text_of(obj.get("root_cause"), "Reported by the failing agent")))
    if view.contradiction_detected:
        severity = contradiction_severity(view)
        other = "another agent" if view.contradiction_with is None else f"agent {view.contradiction_with}"
        out.append(FailureSignal(
            _fid(event, "CONTRADICTION", 0), event.event_id, "CONTRADICTION", "REASONING", "CONTRADICTION",
            f"Agent {agent} contradicts {other}: {view.verdict}", agent, at, severity,
            analysis({}, view.verdict), (),
            ({"condition": "contradiction detected", "action": "Deploy the Conflict Resolver (50) (§4.2.2)"},),
            ("Agents report incompatible claims",), "Agents reached incompatible conclusions"))
    abandoned = [statement_of(h, "statement") or text_of(h.get("id")) for h in object_hypothesis_items(view)
                 if status_of(h) == "ABANDONED"]
    abandoned += [statement_of(a, "statement", "approach", "hypothesis") for a in view.items("abandoned", "abandon")]
    reasons = [text_of(object_of(a).get("reason"), view.verdict) for a in object_hypothesis_items(view)
               if status_of(a) == "ABANDONED"]
    reasons += [text_of(object_of(a).get("reason"), view.verdict) for a in view.items("abandoned", "abandon")]
    for index, (statement, reason) in enumerate(zip(abandoned, reasons, strict=True)):
        out.append(FailureSignal(
            _fid(event, "APPROACH_ABANDONED", index), event.event_id, "APPROACH_ABANDONED", "APPROACH",
            "APPROACH_ABANDONED", f"Approach abandoned: {statement}", agent, at, None, analysis({}, reason), (),
            (), ("Approach abandoned before reaching a result",), "The approach did not lead to a result"))
    if agent == QUALITY_CONTROLLER and view.tag in REJECT_TAGS:
        issues = strings(view.get("issues")) or strings(view.get("reasons"))
        out.append(FailureSignal(
            _fid(event, "QC_REJECTION", 0), event.event_id, "QC_REJECTION", "PROCESS", "QC_REJECTION",
            view.verdict, agent, at, None, analysis({}, view.verdict, issues), (), (),
            ("Quality Controller rejected the output",), "Output below the quality bar"))
    return out


def _alert_failure(event: LogEvent) -> tuple[FailureSignal, ...]:
    record = event.record
    # the spec's own label (alerts before issue 23 carry only `severity`, which was that label)
    kind, severity = str(record.get("kind", "")), str(record.get("spec_severity") or record.get("severity", ""))
    if kind not in SIGNATURES and severity != "CRITICAL":
        return ()
    details = object_of(read_json(record.get("details")))
    message = str(record.get("message", ""))
    # A kind outside the table gets a fixed sign and cause, so its failure pattern does not grow a new sign with
    # each alert text (the text itself is the failure's description).
    failure_type, sign, cause, condition, action = SIGNATURES.get(
        kind, ("PROCESS", f"{kind} alert", f"{kind} alert", kind.replace("_", " ").lower(), f"Investigate {kind}"))
    facts = object_of(details.get("facts"))
    level = object_of(details.get("escalation")).get("level")
    agent = facts.get("agent_id")
    return (FailureSignal(
        _fid(event, "ALERT", 0), event.event_id, "ALERT", failure_type, kind, message,
        agent if isinstance(agent, int) and not isinstance(agent, bool) else None, event.timestamp, severity,
        analysis({}, message, tuple(f"{k}: {text_of(v)}" for k, v in sorted(facts.items())), None, True), (),
        ({"condition": condition, "action": action},), (sign,), cause,
        level if isinstance(level, int) and not isinstance(level, bool) else None),)


def _verdict_failure(event: LogEvent) -> FailureSignal:
    record = event.record
    errors = [v for v in record.get("violations") or () if isinstance(v, dict) and v.get("severity") == "ERROR"]
    factors = tuple(f"{v.get('rule')}: {v.get('message')}" for v in errors)
    what = f"{record.get('packet_type')} {record.get('packet_id')} rejected"
    return FailureSignal(
        _fid(event, "PACKET_REJECTED", 0), event.event_id, "PACKET_REJECTED", "PROCESS", "PACKET_REJECTED",
        f"{what}: {'; '.join(factors)}" if factors else what, None, event.timestamp, "ERROR",
        analysis({}, factors[0] if factors else what, factors, None, True), (),
        tuple({"condition": str(v.get("rule")), "action": "Fix the packet before it is sent"} for v in errors[:1]),
        ("Packet breaks a safety invariant or the schema",), "A producer emitted a packet the validator rejects")


def _termination_failure(event: LogEvent) -> FailureSignal:
    record = event.record
    ftype = str(record.get("failure_type") or "UNKNOWN")
    why = text_of(record.get("why_failed"), "session failed")
    recommendation = text_of(record.get("recommendation"))
    return FailureSignal(
        _fid(event, "TERMINATION", 0), event.event_id, "TERMINATION", TERMINATION_FAILURE_TYPES.get(ftype, "PROCESS"),
        f"TERMINATION_{ftype}", why, None, event.timestamp, "CRITICAL",
        analysis({}, why, strings(record.get("what_was_attempted")), why),
        lessons(record.get("what_was_learned"), recommendation),
        ({"condition": f"{ftype.lower()} failure", "action": recommendation},) if recommendation else (),
        (f"Session terminated with failure {ftype}",), why)


def warnings(event: LogEvent) -> tuple[WarningSignal, ...]:
    """Alerts below the failure bar (Failure Memory active_warnings), computed once per event."""
    return event.memo("warnings", _warnings)


def _warnings(event: LogEvent) -> tuple[WarningSignal, ...]:
    if event.topic != ALERTS or _alert_failure(event):
        return ()
    record = event.record
    severity = WARNING_SEVERITY.get(str(record.get("spec_severity") or record.get("severity", "")))
    if severity is None:
        return ()
    details = object_of(read_json(record.get("details")))
    action = object_of(details.get("recovery")).get("action")
    kind = str(record.get("kind", ""))
    return (WarningSignal(derived_id("warn_", event.event_id), event.event_id, kind,
                          str(record.get("message", "")), event.timestamp, severity,
                          text_of(action, f"Investigate {kind}")),)


# ------------------------------------------------------------------------------------------- successes
def successes(event: LogEvent) -> tuple[SuccessSignal, ...]:
    """The successes the event reports (Success Memory session_successes), computed once per event."""
    return event.memo("successes", _successes)


def _sid(event: LogEvent, trigger: str, index: int) -> str:
    return derived_id("succ_", event.event_id, trigger, str(index))


def _successes(event: LogEvent) -> tuple[SuccessSignal, ...]:
    view = event.message
    if view is None:
        return ()
    out: list[SuccessSignal] = []
    flagged = view.signal("breakthrough")
    if flagged is not None or view.tag == "BREAKTHROUGH":
        obj = object_of(flagged)
        kind = text_of(obj.get("success_type", obj.get("type")), "BREAKTHROUGH").upper()
        description = statement_of(obj, "description", "insight") if obj else text_of(flagged, "")
        description = description if description and flagged is not True else view.verdict
        out.append(_success(event, "BREAKTHROUGH", 0, kind if kind in SUCCESS_TYPES else "BREAKTHROUGH",
                            text_of(obj.get("pattern"), "BREAKTHROUGH"), description, obj,
                            text_of(obj.get("key_insight"), description)))
    confirmed = 0
    for item in object_hypothesis_items(view):
        confidence = number(item.get("confidence"))
        confidence = view.confidence if confidence is None else confidence
        if status_of(item) == "CONFIRMED" and confidence is not None and confidence >= HIGH_CONFIDENCE:
            statement = statement_of(item, "statement") or text_of(item.get("id"))  # named by id only
            out.append(_success(event, "CONFIRMED", confirmed, "INSIGHT", "CONFIRMED_HYPOTHESIS",
                                f"Hypothesis confirmed at {confidence:.2f}: {statement}", item, statement))
            confirmed += 1
    if view.agent_id == QUALITY_CONTROLLER and view.tag in SHIP_TAGS:
        caveats = strings(view.get("caveats"))
        out.append(_success(event, "QC_APPROVAL", 0, "APPROACH", "QC_APPROVAL", view.verdict,
                            {"context_dependent_elements": list(caveats)}, view.verdict))
    return tuple(out)


def _success(event: LogEvent, trigger: str, index: int, kind: str, pattern: str, description: str,
             obj: Mapping[str, Any], insight: str) -> SuccessSignal:
    view = event.message
    assert view is not None  # only messages report successes
    nested = object_of(obj.get("analysis"))
    repl = object_of(obj.get("replicability"))

    def pick(block: Mapping[str, Any], name: str) -> list[str]:
        return list(strings(obj.get(name, block.get(name))))

    heuristic = obj.get("heuristic")
    return SuccessSignal(
        _sid(event, trigger, index), event.event_id, trigger, kind, pattern, description, view.agent_id,
        view.timestamp,
        {"key_insight": insight, "enabling_conditions": pick(nested, "enabling_conditions"),
         "execution_factors": pick(nested, "execution_factors")},
        {"transferable_elements": pick(repl, "transferable_elements"),
         "context_dependent_elements": pick(repl, "context_dependent_elements"),
         "required_conditions": pick(repl, "required_conditions")},
        None if heuristic is None else text_of(heuristic), strings(obj.get("steps")),
        strings(obj.get("applicable_when")))


def brilliant(event: LogEvent) -> tuple[BrilliantSignal, ...]:
    """What PHI marked brilliant in this event (Success Memory brilliant_ideas)."""
    view = event.message
    if view is None or view.agent_id != PHI:
        return ()
    marked = view.signal("brilliant")
    if marked is None and view.tag != "BRILLIANT":
        return ()
    obj = object_of(marked)
    idea = statement_of(obj, "idea", "description") if obj else text_of(marked, "")
    idea = idea if idea and marked is not True else view.verdict
    filed = obj.get("filed_to")
    return (BrilliantSignal(
        derived_id("idea_", event.event_id), event.event_id, idea, text_of(obj.get("context"), view.verdict),
        text_of(obj.get("why_brilliant", obj.get("why")), view.confidence_basis), view.timestamp, view.agent_id,
        filed if isinstance(filed, str) else None),)
