"""§4.1 failure detection: the seven signatures of §4.1.1 as one function each, their §4.1.2 severities, the
§4.2 recovery each recommends and the §4.4 escalation level, rendered as `omega.events.Alert`s.

When each runs: circular reasoning, confidence collapse and convergence failure at the end of an iteration
(they are about whole iterations); contradiction cascade, agent failure, resource exhaustion and quality gate
failure on every message (the state they read can change with any message).

Severities (every one reachable):
    CRITICAL  FATAL cascade (> 3 FATAL unresolved); collapse below the A.2 system threshold (0.2);
              tokens or time used up; a no-substitute agent (48, 52, 53, 57) failing 3 times running.
    SERIOUS   cascade forming (> 3 unresolved of any severity); collapse in [0.2, 0.3); circular reasoning;
              convergence failure; quality gate failure; a key agent's failure; any agent failing 3 times.
    MODERATE  a single quarantined output (schema) of a peripheral agent; a key agent's low-confidence
              output; more than 80% of the token, time or iteration budget used.
    MINOR     a peripheral agent's low-confidence output (below the A.2 "usable" 30%).

Escalation level (§4.4: 1 self, 2 peer, 3 tier, 4 PHI, 5 user): MINOR 1, MODERATE 2, SERIOUS 3, CRITICAL 4;
one more when the same signature already alerted for the same subject in an earlier iteration (the recovery
at the lower level failed); only CRITICAL reaches 5, and does whenever its recovery is HALT or
PRESENT_TO_USER (§4.1.2: "HALT, diagnose, report to user"). Level 5 also emits an `Escalation` "L5".

No alert storms: at most one alert per signature, subject (the session, or one agent) and iteration at each
severity; the same condition persisting into a later iteration alerts again, at a higher level.
Ids: the alert's `source_event_id` is the triggering message id and each message raises a signature at most
once, so `Alert.alert_id` (subject, message, kind) is unique, and replays raise identical alerts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from omega.agents.limits import DEFAULTS, Parameters
from omega.agents.model import AgentMessage, MessageRejected, SessionEvent
from omega.agents.roster import AGENTS, MANDATORY_AGENTS
from omega.agents.session_state import AlertBook, SessionState
from omega.events import Alert, Escalation
from omega.records import replace

CIRCULAR_REASONING = "CIRCULAR_REASONING"
CONFIDENCE_COLLAPSE = "CONFIDENCE_COLLAPSE"
CONTRADICTION_CASCADE = "CONTRADICTION_CASCADE"
AGENT_FAILURE = "AGENT_FAILURE"
CONVERGENCE_FAILURE = "CONVERGENCE_FAILURE"
RESOURCE_EXHAUSTION = "RESOURCE_EXHAUSTION"
QUALITY_GATE_FAILURE = "QUALITY_GATE_FAILURE"
SIGNATURES = (CIRCULAR_REASONING, CONFIDENCE_COLLAPSE, CONTRADICTION_CASCADE, AGENT_FAILURE,
              CONVERGENCE_FAILURE, RESOURCE_EXHAUSTION, QUALITY_GATE_FAILURE)
SEVERITIES = ("MINOR", "MODERATE", "SERIOUS", "CRITICAL")
LEVEL_NAMES = {1: "AGENT_SELF_RECOVERY", 2: "PEER_RECOVERY", 3: "TIER_RECOVERY", 4: "PHI_INTERVENTION",
               5: "USER_ESCALATION"}

NO_SUBSTITUTE = frozenset({*MANDATORY_AGENTS, 57})
"""Agents whose function no peer provides (§1.3.2 mandatory agents and PHI): their repeated failure halts."""
KEY_AGENTS = NO_SUBSTITUTE | {40, 44, 46, 50, 51}
"""Agents whose word §6.1 or §4.2.2 depends on (gaps, steelman, survivable core, conflicts, synthesis)."""
SESSION = "session"


@dataclass(frozen=True, slots=True)
class Detection:
    """One signature detected: what, how bad, about whom, and the recovery the spec prescribes."""

    signature: str
    severity: str
    subject: str  # "session" or "agent-<id>"
    iteration: int
    summary: str
    action: str  # the recommended §4.2 recovery option
    level: int  # §4.4 escalation level 1..5
    procedure: str  # the section the recovery comes from
    facts: Mapping[str, Any] = field(default_factory=dict)


Check = Callable[[SessionState, SessionEvent, Parameters], list[Detection]]


def _level(state: SessionState, signature: str, subject: str, iteration: int, severity: str, action: str) -> int:
    base = SEVERITIES.index(severity) + 1
    repeated = any(i < iteration for i in state.alerts.occurrences.get(f"{signature}|{subject}", ()))
    if severity == "CRITICAL":
        return 5 if action in ("HALT", "PRESENT_TO_USER") or repeated else 4
    return min(4, base + repeated)


def _prior(state: SessionState, signature: str, subject: str, iteration: int) -> int:
    return sum(1 for i in state.alerts.occurrences.get(f"{signature}|{subject}", ()) if i < iteration)


def _detection(state: SessionState, signature: str, severity: str, subject: str, iteration: int, summary: str,
               action: str, procedure: str, facts: Mapping[str, Any]) -> Detection:
    level = _level(state, signature, subject, iteration, severity, action)
    return Detection(signature, severity, subject, iteration, summary, action, level, procedure, facts)


def _iteration_of(state: SessionState, event: SessionEvent) -> int:
    if isinstance(event, AgentMessage):
        return event.iteration
    return event.iteration if event.iteration is not None else state.current_iteration


def convergence_recovery(state: SessionState, signature: str, iteration: int, params: Parameters) -> str:
    """§4.2.3 choice: ADMIT when at most one iteration remains; else CONSTRAIN, then DECOMPOSE, then PIVOT as
    the same signature recurs (a reasoning loop starts at PIVOT: constraints do not break a cycle)."""
    if params.max_full_cycles - iteration <= 1:
        return "ADMIT"
    ladder = ("PIVOT", "ADMIT") if signature == CIRCULAR_REASONING else ("CONSTRAIN", "DECOMPOSE", "PIVOT")
    return ladder[min(_prior(state, signature, SESSION, iteration), len(ladder) - 1)]


# ------------------------------------------------------------------------------------------- signatures
def f1_circular_reasoning(state: SessionState, event: SessionEvent, params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: no new claims for `progress_stall_threshold` consecutive iterations (SERIOUS)."""
    iteration = state.closed_through
    if state.stalled_iterations < params.progress_stall_threshold:
        return []
    summary = f"no new claims for {state.stalled_iterations} iterations (through iteration {iteration})"
    return [_detection(state, CIRCULAR_REASONING, "SERIOUS", SESSION, iteration, summary,
                       convergence_recovery(state, CIRCULAR_REASONING, iteration, params), "4.2.3",
                       {"stalled_iterations": state.stalled_iterations})]


def f2_confidence_collapse(state: SessionState, event: SessionEvent,
                           params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: aggregate confidence of the closed iteration below 0.3; below 0.2 it is CRITICAL and halts."""
    iteration = state.closed_through
    aggregate = state.stats(iteration).aggregate
    if aggregate is None or aggregate >= params.collapse_threshold:
        return []
    critical = aggregate < params.system_concern_threshold
    summary = f"aggregate confidence {aggregate:.2f} < {params.collapse_threshold} in iteration {iteration}"
    # SERIOUS: §1.3.4 "confidence below threshold" -> more VERIFICATION/ADVERSARY on the weakest claims.
    return [_detection(state, CONFIDENCE_COLLAPSE, "CRITICAL" if critical else "SERIOUS", SESSION, iteration,
                       summary, "HALT" if critical else "REVERIFY", "4.1.2" if critical else "1.3.4",
                       {"aggregate": round(aggregate, 4)})]


def f3_contradiction_cascade(state: SessionState, event: SessionEvent,
                             params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: more than 3 FATAL contradictions unresolved (CRITICAL); more than the A.3 limit of unresolved
    contradictions of any severity is a cascade forming (SERIOUS)."""
    iteration = _iteration_of(state, event)
    unresolved = state.contradictions_unresolved
    fatal = sum(1 for c in unresolved if c.severity == "FATAL")
    facts = {"fatal_unresolved": fatal, "unresolved": len(unresolved), "ids": [c.id for c in unresolved]}
    if fatal > params.cascade_fatal_limit:
        # §4.2.2 step 4: Conflict Resolver first (done by the tier), then PHI's call, then the user.
        action = "PRESENT_TO_USER" if _prior(state, CONTRADICTION_CASCADE, SESSION, iteration) else "PHI_JUDGEMENT"
        return [_detection(state, CONTRADICTION_CASCADE, "CRITICAL", SESSION, iteration,
                           f"{fatal} FATAL contradictions unresolved", action, "4.2.2", facts)]
    if len(unresolved) > params.max_unresolved_contradictions:
        return [_detection(state, CONTRADICTION_CASCADE, "SERIOUS", SESSION, iteration,
                           f"{len(unresolved)} contradictions unresolved (A.3 limit "
                           f"{params.max_unresolved_contradictions})", "DEPLOY_CONFLICT_RESOLVER", "4.2.2", facts)]
    return []


def f4_agent_failure(state: SessionState, event: SessionEvent, params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: an output that failed validation (QUARANTINED) or the coherence check (confidence below the
    A.2 usable threshold); severity by the agent's role and its consecutive failures, recovery per §4.2.1."""
    iteration = _iteration_of(state, event)
    if isinstance(event, MessageRejected):
        agent, kind, why = event.agent_id, "QUARANTINED", "; ".join(event.reasons)
    elif event.confidence < params.usable_threshold:
        agent, kind = event.agent_id, "INCOHERENT"
        why = f"confidence {event.confidence:.2f} below the usable threshold {params.usable_threshold}"
    else:
        return []
    subject = f"agent-{agent}" if agent is not None else "agent-unknown"
    failures = state.consecutive_failures.get(str(agent), 1) if agent is not None else 1
    key = agent in KEY_AGENTS
    if failures >= params.max_consecutive_failures:
        severity = "CRITICAL" if agent in NO_SUBSTITUTE else "SERIOUS"
    elif kind == "QUARANTINED":
        severity = "SERIOUS" if key else "MODERATE"
    else:
        severity = "MODERATE" if key else "MINOR"
    action = agent_recovery(state, agent, failures, iteration, params)
    row = AGENTS.get(agent) if agent is not None else None
    name = row.name if row is not None else "unknown agent"
    summary = f"{name} ({agent}) output {kind.lower()}: {why}; {failures} consecutive failure(s)"
    return [_detection(state, AGENT_FAILURE, severity, subject, iteration, summary, action, "4.2.1",
                       {"agent_id": agent, "failure": kind, "consecutive_failures": failures})]


def agent_recovery(state: SessionState, agent: int | None, failures: int, iteration: int, params: Parameters) -> str:
    """§4.2.1 choice: HALT when a no-substitute agent fails systematically; SUBSTITUTE a systematically failing
    agent (A.3: 3 in a row); SKIP a peripheral agent whose tier already gave a usable output this iteration;
    else RETRY (a one-off error)."""
    if failures >= params.max_consecutive_failures:
        return "HALT" if agent in NO_SUBSTITUTE else "SUBSTITUTE"
    if agent is not None and agent in AGENTS and agent not in KEY_AGENTS:
        tier = AGENTS[agent].tier
        peers = [a for a in state.stats(iteration).agents if a != agent and a in AGENTS and AGENTS[a].tier == tier
                 and state.consecutive_failures.get(str(a), 0) == 0]
        if peers:
            return "SKIP"
    return "RETRY"


def f5_convergence_failure(state: SessionState, event: SessionEvent,
                           params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: the solution space (active hypotheses + unresolved contradictions) grew in more than 2
    consecutive iterations (SERIOUS); recovery per §4.2.3."""
    iteration = state.closed_through
    if state.expansions <= params.divergence_iterations:
        return []
    space = state.stats(iteration).solution_space
    summary = f"solution space grew {state.expansions} iterations running (now {space})"
    return [_detection(state, CONVERGENCE_FAILURE, "SERIOUS", SESSION, iteration, summary,
                       convergence_recovery(state, CONVERGENCE_FAILURE, iteration, params), "4.2.3",
                       {"expansions": state.expansions, "solution_space": space})]


def resource_usage(state: SessionState, params: Parameters = DEFAULTS) -> dict[str, float]:
    """Share of each budget used: tokens, time (event time) and iterations (of `max_full_cycles`)."""
    budget = state.budget
    tokens = budget.tokens if budget is not None else params.default_token_budget
    seconds = budget.seconds if budget is not None else params.default_time_budget_seconds
    return {"tokens": state.tokens_used / tokens if tokens > 0 else 0.0,
            "time": state.elapsed_seconds() / seconds if seconds > 0 else 0.0,
            "iterations": state.current_iteration / params.max_full_cycles}


def f6_resource_exhaustion(state: SessionState, event: SessionEvent,
                           params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: usage above 80% of the token, time or iteration budget (MODERATE); tokens or time used up
    (CRITICAL, HALT: §6.2 resource exhaustion)."""
    iteration = _iteration_of(state, event)
    usage = resource_usage(state, params)
    exhausted = sorted(k for k in ("tokens", "time") if usage[k] >= 1.0)
    pressed = sorted(k for k, v in usage.items() if v > params.resource_pressure)
    facts = {k: round(v, 4) for k, v in usage.items()}
    if exhausted:
        return [_detection(state, RESOURCE_EXHAUSTION, "CRITICAL", SESSION, iteration,
                           f"{' and '.join(exhausted)} budget used up", "HALT", "6.2", facts)]
    if pressed:
        # §4.2.3 option A: narrow to what can still be finished, and prepare the §6.3 partial output.
        return [_detection(state, RESOURCE_EXHAUSTION, "MODERATE", SESSION, iteration,
                           f"over {params.resource_pressure:.0%} of the {' and '.join(pressed)} budget used",
                           "CONSTRAIN", "4.2.3", facts)]
    return []


def f7_quality_gate_failure(state: SessionState, event: SessionEvent,
                            params: Parameters = DEFAULTS) -> list[Detection]:
    """§4.1.1: more than 2 consecutive Quality Controller rejections (SERIOUS); §1.3.4 re-runs the affected
    tiers first, then ADMIT (partial answer with caveats) when it recurs or time is short."""
    iteration = _iteration_of(state, event)
    rejections = state.gates.qc_consecutive_rejections
    if rejections <= params.quality_gate_rejections:
        return []
    late = params.max_full_cycles - iteration <= 1 or _prior(state, QUALITY_GATE_FAILURE, SESSION, iteration)
    return [_detection(state, QUALITY_GATE_FAILURE, "SERIOUS", SESSION, iteration,
                       f"{rejections} consecutive Quality Controller rejections",
                       "ADMIT" if late else "RERUN_AFFECTED_TIERS", "1.3.4", {"consecutive_rejections": rejections})]


END_OF_ITERATION: tuple[Check, ...] = (f1_circular_reasoning, f2_confidence_collapse, f5_convergence_failure)
PER_MESSAGE: tuple[Check, ...] = (f3_contradiction_cascade, f4_agent_failure, f6_resource_exhaustion,
                                  f7_quality_gate_failure)


# ------------------------------------------------------------------------------------------- alerts
def dedupe_key(detection: Detection) -> str:
    """One alert per signature, subject and iteration at each severity."""
    return f"{detection.signature}|{detection.subject}|{detection.iteration}|{detection.severity}"


def raise_alerts(book: AlertBook, detections: Sequence[Detection], session_id: str, source_event_id: str,
                 event_time: str | None) -> tuple[AlertBook, list[Alert | Escalation]]:
    """The alerts (and level-5 escalations) of the detections not yet raised, and the book recording them."""
    emitted = list(book.emitted)
    occurrences = dict(book.occurrences)
    outputs: list[Alert | Escalation] = []
    for d in detections:
        key = dedupe_key(d)
        if key in emitted:
            continue
        emitted.append(key)
        occurrence = f"{d.signature}|{d.subject}"
        occurrences[occurrence] = tuple(sorted({*occurrences.get(occurrence, ()), d.iteration}))
        details = {"signature": d.signature, "severity": d.severity, "subject": d.subject, "iteration": d.iteration,
                   "recovery": {"procedure": d.procedure, "action": d.action},
                   "escalation": {"level": d.level, "path": LEVEL_NAMES[d.level]}, "facts": dict(d.facts)}
        message = f"{d.signature} ({d.severity}): {d.summary}; recovery {d.action} (§{d.procedure})"
        outputs.append(Alert(d.signature, d.severity, session_id, message, source_event_id, event_time, details))
        if d.level == 5:
            outputs.append(Escalation("L5", session_id, message, source_event_id, event_time, details))
    return replace(book, emitted=tuple(emitted), occurrences=occurrences), outputs
