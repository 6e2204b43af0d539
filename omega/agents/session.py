"""`evolve(state, event) -> (state, outputs)`: the OMEGA-57 session judge, one validated message at a time.

Per message: close the previous iteration if this one starts a higher one (end-of-iteration signatures, then
the §6.4 decision); record the message (the mapping below); per-message signatures and hard failures; then
PHI's END_ITERATION / TERMINATE closes the current iteration. Outputs: `Alert`, `Escalation` (level 5) and
one `TerminationReport`. Event time comes only from message timestamps.

Idempotency: a message id already applied changes nothing and re-emits exactly the outputs it emitted the
first time (stored per message id). After the termination report, messages are still recorded (timeline,
usage, counts) but raise no alert and never terminate again. A quarantined message (`MessageRejected`)
counts as a failure of its agent but never moves the iteration or the clock (its fields are untrusted).

Mapping of messages to §3.1 content ("content" is body.content when it is a mapping; keys are optional):
  problem      PHI (57): content.problem {statement|original_statement, clarified_statement, classification,
               stakes HIGH|MEDIUM|LOW, uncertainty}; on its INITIAL message a missing statement is
               content.query or the verdict. Clarity Optimizer (47): content.clarified_statement. Stakes
               default MEDIUM.
  budget       PHI: content.budget {tokens, seconds}; absent -> `Parameters.default_*_budget`.
  timeline     every message: QUERY (PHI, responding_to INITIAL), CONTRADICTION (contradiction flag),
               RESOLUTION (resolved a contradiction), DECISION (a decision or PHI control action),
               DEPLOYMENT (PHI content.deploy), else OUTPUT; a quarantined message is an OUTPUT entry.
  hypotheses   proposed by content.hypothesis / content.hypotheses (a statement or {statement, confidence});
               id derives from the statement, so re-proposing supports it. A §2.2 reference whose
               source_element is an active hypothesis: SUPPORTS/EXTENDS -> supporting, CONTRADICTS ->
               opposing. Confidence is that of the claim (proposer, statement) under §2.3.
               Resolved by content.hypothesis_resolved {statement|id, resolution CONFIRMED|REJECTED|MODIFIED,
               basis, modified_to} from VERIFICATION, META or PHI; abandoned by content.hypothesis_abandoned
               {statement|id, reason} from META or PHI.
  decisions    content.decision (a string or {decision, basis, reversible, dependent_on}).
  commitments  content.commitment (string or {commitment}); content.invalidates_commitment (statement or id).
  evidence     content.evidence (string or {evidence, supports, contradicts, strength} with hypothesis
               statements or ids); strength defaults from the confidence (>= 0.7 STRONG, >= 0.4 MODERATE).
  contradictions  flags.contradiction_detected opens one per pair of agents (this one and contradiction_with,
               which may be null: the other side's statement is then the producer's contradiction_with
               text, `omega.agents.crossrefs`); a repeat while open keeps it and raises its severity if worse.
               Severity: the flag extra `contradiction_severity` (FATAL|SERIOUS|MINOR) wins, else
               blocks_progress -> FATAL, requires_resolution -> SERIOUS, else MINOR. Resolved by the Conflict
               Resolver (50) or PHI via
               content.resolves: "ALL" or a list of contradiction ids, agent ids or [a, b] pairs; failing
               that, a [RESOLVED] verdict resolves those of the agent it responds to.
  gates        Quality Controller (52): verdict tag [SHIP] / [SHIP WITH CAVEATS] / [REJECT] (or content.
               qc_verdict), caveats in content.caveats; Progress Monitor (48): [CONVERGED] or content.converged,
               content.new_claims overrides the judge's count of new claims; Gap Hunter (40) / Gap Detector
               (31): [NO CRITICAL GAPS] / [COMPLETE] or content.critical_gaps empty -> clear, [GAPS FOUND] /
               [CRITICAL GAPS] or non-empty -> open; Survivor Synthesizer (46): [SURVIVABLE CORE] /
               [SURVIVES] or content.survivable_core; Steelman Attacker (44): content.defeated, else
               [DEFEATED] / [ATTACK SUCCEEDED] or blocks_progress; Falsifier (45): [UNTESTABLE] +
               blocks_progress; any agent: [UNDECIDABLE] / [UNAVAILABLE] / [INTRACTABLE] + blocks_progress;
               Conflict Resolver / PHI: [UNRESOLVABLE] or content.unresolvable. The answer is content.answer
               from META or PHI, else the Synthesis Architect's (51) verdict; content.unanswerable marks it.
  iterations   header.iteration; the first message of a higher iteration closes the open one, as does PHI's
               content.action END_ITERATION (or end_iteration: true); TERMINATE (terminate: true) closes it
               and forces the decision; USER_ABORT (user_abort: true) ends the session at once.
               New claims of an iteration: verdicts (tag and text before " | "), hypotheses and evidence
               never seen before in the session, from any agent but MEMORY, PHI and the Progress Monitor.
               Batches (§1.3.3): header extra `batch`, else GENESIS 1, BRIDGE 2, VERIFICATION 3, ADVERSARY 4,
               META 5 (MEMORY and PHI run throughout, outside batches).
  failures     consecutive failures per agent: +1 per quarantined or sub-usable (< 0.3) output, reset by a
               usable one.

§1.3 rules (`omega.agents.rules`, documented there): when an iteration closes, after the §4.1 signatures and
before any termination report, the deployment rules (mandatory agents per iteration; GENESIS diversity,
VERIFICATION and ADVERSARY on the session so far; parallel limit; batch order) raise one DEPLOYMENT_RULE
alert (MODERATE or MINOR) and, unless the session ends there, the §1.3.4 triggers one ITERATION_TRIGGER
alert (MINOR, a recommendation with its action and agents), both sourced at the closing message. The parallel
limit is also checked after every accepted message, so an over-full batch alerts on the message that made it
so. Batch-order breaks are noted as messages are recorded (the batches started before each one). The rules
never feed the §6 decision: they advise PHI, they do not end sessions.
"""

from __future__ import annotations

from collections.abc import Callable

from omega.agents.confidence import aggregate_confidence
from omega.agents.failures import CONTRADICTION_CASCADE, END_OF_ITERATION, PER_MESSAGE, Detection, raise_alerts
from omega.agents.limits import DEFAULTS, Parameters
from omega.agents.message_reading import phi_action
from omega.agents.model import AgentMessage, MessageRejected, SessionEvent
from omega.agents.rules import Finding, end_of_iteration, note_batch_order, per_message, raise_rule_alerts
from omega.agents.session_mapping import record, with_stats
from omega.agents.session_state import AuditEntry, Output, SessionState, TimelineEntry
from omega.agents.termination import Outcome, build_report, decide
from omega.events import Alert
from omega.eventtime import to_ms
from omega.records import replace

__all__ = ["SessionState", "evolve", "replay"]


def evolve(state: SessionState | None, event: SessionEvent,
           params: Parameters = DEFAULTS) -> tuple[SessionState, list[Output]]:
    """Judge one message of a session; a redelivered message changes nothing and re-emits its outputs."""
    current = state or SessionState(event.session_id)
    seen = current.applied.get(event.message_id)
    if seen is not None:
        return current, list(seen)
    outputs: list[Output] = []
    if isinstance(event, MessageRejected):
        current = _quarantine(current, event)
    else:
        if current.termination is None and event.iteration > current.current_iteration > current.closed_through:
            current = _run(current, outputs, lambda s: _close_iteration(s, event, params, stop=False))
        before = current.stats(event.iteration).batches
        current = note_batch_order(record(current, event, params), before, event)
    if current.termination is None:
        current = _run(current, outputs, lambda s: _per_message(s, event, params))
    action = phi_action(event) if isinstance(event, AgentMessage) else None
    if current.termination is None and action in ("END_ITERATION", "TERMINATE"):
        stop = action == "TERMINATE"
        if current.current_iteration > current.closed_through:
            current = _run(current, outputs, lambda s: _close_iteration(s, event, params, stop=stop))
        elif stop:
            current = _run(current, outputs, lambda s: _decide(s, event, params, [], iteration_end=True, stop=True))
    if current.termination is None and isinstance(event, AgentMessage):
        # After any close by this message: the close re-checks the parallel limit, so nothing is raised twice.
        current = _run(current, outputs, lambda s: _rules(s, per_message(s, event, params), event))
    return replace(current, applied={**current.applied, event.message_id: tuple(outputs)}), outputs


def replay(events: list[SessionEvent], params: Parameters = DEFAULTS) -> tuple[SessionState | None, list[Output]]:
    """Fold `evolve` over a session's events in order; the final state and every output."""
    state: SessionState | None = None
    outputs: list[Output] = []
    for event in events:
        state, out = evolve(state, event, params)
        outputs += out
    return state, outputs


def _run(state: SessionState, outputs: list[Output],
         step: Callable[[SessionState], tuple[SessionState, list[Output]]]) -> SessionState:
    new_state, new_outputs = step(state)
    outputs += new_outputs
    return new_state


# ------------------------------------------------------------------------------------------- quarantine
def _quarantine(state: SessionState, event: MessageRejected) -> SessionState:
    """A rejected message: QUARANTINED (§4.2.1), counted against its agent, its content never applied."""
    iteration = event.iteration if event.iteration is not None else state.current_iteration
    failures = dict(state.consecutive_failures)
    if event.agent_id is not None:
        failures[str(event.agent_id)] = failures.get(str(event.agent_id), 0) + 1
    stats = state.stats(iteration)
    entry = TimelineEntry(event.timestamp, "OUTPUT", event.agent_id, "QUARANTINED: " + "; ".join(event.reasons)[:200],
                          {"message_id": event.message_id, "quarantined": True, "iteration": iteration})
    return replace(state, consecutive_failures=failures, quarantined=(*state.quarantined, event.message_id),
                   timeline=(*state.timeline, entry),
                   iterations=with_stats(state, replace(stats, rejected=stats.rejected + 1)))


# ------------------------------------------------------------------------------------------- checks
def _event_time(state: SessionState, event: SessionEvent) -> str:
    if isinstance(event, AgentMessage):
        return event.timestamp
    return event.timestamp if to_ms(event.timestamp) is not None and event.timestamp else state.last_updated or ""


def _emit(state: SessionState, detections: list[Detection], event: SessionEvent) -> tuple[SessionState, list[Output]]:
    """Alerts for new detections, recorded in the alert book and the audit trail."""
    when = _event_time(state, event)
    book, raised = raise_alerts(state.alerts, detections, state.session_id, event.message_id, when or None)
    audit = tuple(AuditEntry(when, f"alert {a.kind} {a.severity}") for a in raised if isinstance(a, Alert))
    return replace(state, alerts=book, audit=(*state.audit, *audit)), list(raised)


def _rules(state: SessionState, findings: list[Finding], event: SessionEvent) -> tuple[SessionState, list[Output]]:
    """DEPLOYMENT_RULE / ITERATION_TRIGGER alerts for new §1.3 findings, in the alert book and audit trail."""
    when = _event_time(state, event)
    book, raised = raise_rule_alerts(state.alerts, findings, state.session_id, event.message_id, when or None)
    audit = tuple(AuditEntry(when, f"alert {a.kind} {a.severity}") for a in raised)
    return replace(state, alerts=book, audit=(*state.audit, *audit)), list(raised)


def _per_message(state: SessionState, event: SessionEvent, params: Parameters) -> tuple[SessionState, list[Output]]:
    detections = [d for check in PER_MESSAGE for d in check(state, event, params)]
    state, outputs = _emit(state, detections, event)
    fatal = sum(1 for c in state.contradictions_unresolved if c.severity == "FATAL")
    since = state.alerts.cascade_since
    if fatal <= params.cascade_fatal_limit:
        since = None  # the cascade is over: a later one starts its own clock
    elif since is None and any(d.signature == CONTRADICTION_CASCADE and d.severity == "CRITICAL" for d in detections):
        since = next(d.iteration for d in detections if d.signature == CONTRADICTION_CASCADE)
    state = replace(state, alerts=replace(state.alerts, cascade_since=since))
    state, more = _decide(state, event, params, detections, iteration_end=False, stop=False)
    return state, outputs + more


def _close_iteration(state: SessionState, event: SessionEvent, params: Parameters,
                     *, stop: bool) -> tuple[SessionState, list[Output]]:
    """End of the current iteration: its aggregate and solution space, the stall and divergence counters,
    the end-of-iteration signatures, then the §6.4 decision."""
    it = state.current_iteration
    stats = state.stats(it)
    previous = state.stats(state.closed_through) if state.closed_through else None
    aggregate = aggregate_confidence(state.confidence, it, params)
    if aggregate is None and previous is not None:
        aggregate = previous.aggregate  # nobody claim-bearing spoke: the last known confidence stands
    elif aggregate is not None:
        aggregate = round(aggregate, 6)  # stored and reported: no float noise in the last digits
    space = len(state.hypotheses_active) + len(state.contradictions_unresolved)
    stalled = state.stalled_iterations + 1 if previous is not None and stats.claims_found() == 0 else 0
    grew = previous is not None and previous.solution_space is not None and space > previous.solution_space
    closed = replace(stats, closed=True, aggregate=aggregate, solution_space=space)
    shown = "none" if aggregate is None else f"{aggregate:.2f}"
    entry = AuditEntry(_event_time(state, event), f"iteration {it} closed: confidence {shown}, solution space "
                                                  f"{space}, {closed.claims_found()} new claims")
    state = replace(state, iterations=with_stats(state, closed), closed_through=it, stalled_iterations=stalled,
                    expansions=state.expansions + 1 if grew else 0, audit=(*state.audit, entry))
    detections = [d for check in END_OF_ITERATION for d in check(state, event, params)]
    outcome = decide(state, params, iteration_end=True, detections=detections, stop_requested=stop)
    state, outputs = _emit(state, detections, event)
    # §1.3 rules judge the closed iteration; triggers recommend another one, pointless when the session ends.
    state, advice = _rules(state, end_of_iteration(state, params, triggers=outcome is None), event)
    outputs += advice
    if outcome is not None:
        state, report = _terminate(state, outcome, event, params)
        outputs.append(report)
    return state, outputs


def _decide(state: SessionState, event: SessionEvent, params: Parameters, detections: list[Detection],
            *, iteration_end: bool, stop: bool) -> tuple[SessionState, list[Output]]:
    outcome = decide(state, params, iteration_end=iteration_end, detections=detections, stop_requested=stop)
    if outcome is None:
        return state, []
    state, report = _terminate(state, outcome, event, params)
    return state, [report]


def _terminate(state: SessionState, outcome: Outcome, event: SessionEvent,
               params: Parameters) -> tuple[SessionState, Output]:
    when = _event_time(state, event)
    report = build_report(state, outcome, event.message_id, when, params)
    entry = AuditEntry(when, f"terminated: {outcome.status} ({outcome.reason})")
    return replace(state, termination=report, audit=(*state.audit, entry)), report
