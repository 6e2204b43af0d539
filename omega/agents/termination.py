"""§6 termination: the success (§6.1), failure (§6.2) and partial (§6.3) conditions as one function each over
observable session facts, the §6.4 decision order, and the §6.5 report (`TerminationReport`).

Conditions (each returns `(met, why)`; "the iteration" is the one just closed):
    success_convergence   at most one active hypothesis; no new hypothesis or contradiction in the iteration;
                          Progress Monitor (48) confirmed convergence in it ([CONVERGED] / converged: true).
    success_confidence    aggregate confidence of the iteration above the stakes threshold (A.2); no FATAL
                          contradiction unresolved.
    success_completeness  an answer (content.answer, or the Synthesis Architect's verdict) or an explicit
                          `unanswerable`; Gap Hunter (40) / Gap Detector (31) last said no critical gaps;
                          Quality Controller (52) approved in the iteration.
    success_robustness    some ADVERSARY agent ran; none blocked progress in the iteration; Survivor
                          Synthesizer (46) confirmed a survivable core; Steelman Attacker (44) ran and did
                          not defeat the answer.
    success_quality       QC verdict SHIP or SHIP WITH CAVEATS in the iteration; some VERIFICATION agent
                          confirmed a claim and every CONFIRMED hypothesis had VERIFICATION support;
                          the mandatory agents (53, 48, 52) ran and an answer exists (output format complete).
    failure_resource_limits  tokens or time used up, or an iteration beyond the 10th began.
    failure_irrecoverable    a CRITICAL cascade declared unresolvable by the Conflict Resolver (50) or PHI, or
                             still open a full iteration after it was raised; a no-substitute agent failing 3
                             times running; aggregate confidence below 0.2 (iteration end only).
    failure_intractable      Falsifier (45) [UNTESTABLE] with blocks_progress (untestable AND critical), or any
                             [UNDECIDABLE] / [UNAVAILABLE] / [INTRACTABLE] verdict with blocks_progress.
    failure_user_abort       PHI's content says `action: USER_ABORT` (or `user_abort: true`).
    partial_some_progress    an answer, a CONFIRMED hypothesis or a verified claim exists.
    partial_incomplete       some success condition is not met.
    partial_cannot_continue  diminishing returns (stall / divergence), resource pressure (> 80%), a failed
                             quality gate, or PHI stopped the session.

§6.4 order, at every iteration end: user abort (the user's word overrides), resource limits (PARTIAL if some
progress, else FAILURE RESOURCE), success, irrecoverable, intractable, then "stuck": a stall or divergence
signature recurring after its recovery was recommended in an earlier iteration, or confidence not improving
once the quality gate has failed (tried everything) -> PARTIAL / FAILURE IRRECOVERABLE; then the 10-cycle
limit (the 10th cycle may still succeed) and PHI's TERMINATE -> PARTIAL / FAILURE. On every other message only
the hard failures are checked at once: abort, tokens or time used up, a no-substitute agent failing, and a
cascade declared unresolvable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omega.agents.confidence import verifiers_and_attackers
from omega.agents.failures import (
    CIRCULAR_REASONING,
    CONVERGENCE_FAILURE,
    NO_SUBSTITUTE,
    SESSION,
    Detection,
    resource_usage,
)
from omega.agents.limits import DEFAULTS, Parameters
from omega.agents.records import TerminationMetrics, TerminationReport
from omega.agents.roster import AGENTS, MANDATORY_AGENTS
from omega.agents.session_state import SessionState
from omega.canonical import derived_id

# TerminationMetrics and TerminationReport live in omega.agents.records (the session state holds them, and this
# module reads the session state); re-exported here, where callers import them
__all__ = [
    "APPROVALS", "FAILURE", "PARTIAL", "SUCCESS", "SUCCESS_CONDITIONS", "Condition", "Outcome", "TerminationMetrics",
    "TerminationReport", "build_report", "decide", "degradation_level", "failure_intractable", "failure_irrecoverable",
    "failure_resource_limits", "failure_user_abort", "iso_duration", "partial_cannot_continue", "partial_incomplete",
    "partial_some_progress", "success_completeness", "success_confidence", "success_convergence", "success_quality",
    "success_robustness",
]

SUCCESS, PARTIAL, FAILURE = "SUCCESS", "PARTIAL", "FAILURE"
APPROVALS = ("SHIP", "SHIP WITH CAVEATS")
Condition = tuple[bool, str]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A termination decision: status, failure type (FAILURE only) and why."""

    status: str
    reason: str
    failure_type: str | None = None


# ------------------------------------------------------------------------------------------- §6.1 success
def _closing(state: SessionState) -> int:
    return state.closed_through


def success_convergence(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.1.1: narrowed to an actionable answer, nothing new and significant, Progress Monitor confirms."""
    it = _closing(state)
    stats = state.stats(it)
    if len(state.hypotheses_active) > 1:
        return False, f"{len(state.hypotheses_active)} hypotheses still active"
    if stats.new_hypotheses or stats.new_contradictions:
        return False, f"iteration {it} raised {stats.new_hypotheses} hypotheses, {stats.new_contradictions} " \
                      "contradictions"
    if state.gates.converged_iteration != it:
        return False, f"Progress Monitor did not confirm convergence in iteration {it}"
    return True, "converged"


def success_confidence(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.1.2: overall confidence above the stakes threshold and no FATAL contradiction unresolved."""
    aggregate = state.stats(_closing(state)).aggregate
    threshold = params.threshold_for(state.problem.stakes)
    if aggregate is None or aggregate <= threshold:
        shown = "unknown" if aggregate is None else f"{aggregate:.2f}"
        return False, f"confidence {shown} not above {threshold:.2f} ({state.problem.stakes} stakes)"
    fatal = [c.id for c in state.contradictions_unresolved if c.severity == "FATAL"]
    if fatal:
        return False, f"{len(fatal)} FATAL contradictions unresolved"
    return True, f"confidence {aggregate:.2f} > {threshold:.2f}"


def success_completeness(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.1.3: question answered (or marked unanswerable), no critical gaps, Quality Controller approves."""
    gates = state.gates
    if gates.answer is None and not gates.unanswerable:
        return False, "the question has no answer yet"
    if gates.gaps_clear is not True:
        return False, "Gap Hunter has not confirmed that no critical gaps remain"
    if gates.qc_verdict not in APPROVALS or gates.qc_iteration != _closing(state):
        return False, "Quality Controller has not approved in this iteration"
    return True, "complete"


def success_robustness(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.1.4: survived ADVERSARY testing, Survivor Synthesizer confirms a core, Steelman could not defeat."""
    gates = state.gates
    if not any(AGENTS[a].tier == "ADVERSARY" for a in state.agents_seen if a in AGENTS):
        return False, "no ADVERSARY testing"
    if gates.blocking_attack_iteration == _closing(state):
        return False, "an ADVERSARY attack blocks progress"
    if gates.survivable_core is not True:
        return False, "Survivor Synthesizer has not confirmed a survivable core"
    if gates.steelman_defeated is not False:
        return False, "Steelman Attacker " + ("defeated the answer" if gates.steelman_defeated else "has not run")
    return True, "robust"


def success_quality(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.1.5: QC says SHIP (WITH CAVEATS), critical findings verified, output format complete."""
    gates = state.gates
    if gates.qc_verdict not in APPROVALS or gates.qc_iteration != _closing(state):
        return False, f"Quality Controller verdict is {gates.qc_verdict or 'missing'}"
    verified, _ = verifiers_and_attackers(state.confidence)
    if not verified:
        return False, "no VERIFICATION agent confirmed a claim"
    unverified = [h.statement for h in state.hypotheses_resolved if h.resolution == "CONFIRMED" and not h.verified]
    if unverified:
        return False, f"{len(unverified)} confirmed hypotheses lack VERIFICATION support"
    missing = [a for a in MANDATORY_AGENTS if a not in state.mandatory_seen]
    if missing or (gates.answer is None and not gates.unanswerable):
        return False, f"output incomplete (mandatory agents missing: {missing})"
    return True, "quality approved"


SUCCESS_CONDITIONS = (success_convergence, success_confidence, success_completeness, success_robustness,
                      success_quality)


# ------------------------------------------------------------------------------------------- §6.2 failure
def failure_resource_limits(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.2.1: token or time budget used up, or an iteration beyond `max_full_cycles` began."""
    usage = resource_usage(state, params)
    spent = [k for k in ("tokens", "time") if usage[k] >= 1.0]
    if spent:
        return True, f"{' and '.join(spent)} budget used up"
    if state.current_iteration > params.max_full_cycles:
        return True, f"iteration {state.current_iteration} beyond the limit of {params.max_full_cycles}"
    return False, "within resources"


def failure_irrecoverable(state: SessionState, params: Parameters = DEFAULTS, *,
                          iteration_end: bool = True) -> Condition:
    """§6.2.2: unresolvable cascade, a no-substitute agent failing systematically, or (at an iteration end)
    aggregate confidence below the A.2 system threshold."""
    since = state.alerts.cascade_since
    if since is not None and state.contradictions_unresolved:
        if state.gates.unresolvable_declared is not None and state.gates.unresolvable_declared >= since:
            return True, "contradiction cascade declared unresolvable"
        if iteration_end and state.closed_through > since:
            return True, f"contradiction cascade raised in iteration {since} still unresolved"
    down = sorted(a for a in NO_SUBSTITUTE if state.consecutive_failures.get(str(a), 0)
                  >= params.max_consecutive_failures)
    if down:
        return True, f"agent {down[0]} ({AGENTS[down[0]].name}) failed repeatedly and has no substitute"
    aggregate = state.stats(_closing(state)).aggregate
    if iteration_end and aggregate is not None and aggregate < params.system_concern_threshold:
        return True, f"confidence collapsed to {aggregate:.2f}"
    return False, "recoverable"


def failure_intractable(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.2.3: a critical claim is untestable (Falsifier), or the problem is undecidable / unanswerable."""
    found = state.gates.untestable_critical or state.gates.intractable
    return (True, f"intractable: {found}") if found else (False, "tractable")


def failure_user_abort(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.2.4: the user terminated the session (relayed by PHI)."""
    return (True, "user aborted") if state.gates.phi_action == "USER_ABORT" else (False, "no abort")


# ------------------------------------------------------------------------------------------- §6.3 partial
def partial_some_progress(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.3.1: something was answered, confirmed or verified."""
    verified, _ = verifiers_and_attackers(state.confidence)
    confirmed = [h for h in state.hypotheses_resolved if h.resolution == "CONFIRMED"]
    if state.gates.answer is None and not confirmed and not verified:
        return False, "nothing answered, confirmed or verified"
    return True, "some progress"


def partial_incomplete(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.3.2: some success condition is unmet."""
    unmet = [why for check in SUCCESS_CONDITIONS for met, why in [check(state, params)] if not met]
    return (True, "; ".join(unmet)) if unmet else (False, "complete")


def partial_cannot_continue(state: SessionState, params: Parameters = DEFAULTS) -> Condition:
    """§6.3.3: diminishing returns, resource pressure, or no clear path (quality gate failed, PHI stopped)."""
    if state.stalled_iterations >= params.progress_stall_threshold or \
            state.expansions > params.divergence_iterations:
        return True, "diminishing returns"
    if any(v > params.resource_pressure for v in resource_usage(state, params).values()):
        return True, "resource pressure"
    if state.gates.qc_consecutive_rejections > params.quality_gate_rejections:
        return True, "no clear path: the quality gate keeps failing"
    if state.gates.phi_action == "TERMINATE":
        return True, "no clear path: PHI stopped the session"
    return False, "can continue"


# ------------------------------------------------------------------------------------------- §6.4 decision
def _partial_or(state: SessionState, params: Parameters, failure_type: str, why: str) -> Outcome:
    """§6.3: PARTIAL when some progress was made and the session cannot continue, else FAILURE. (Every caller
    stops for a §6.3.3 reason, and success was ruled out or is moot, so §6.3.2 holds.)"""
    progress, _ = partial_some_progress(state, params)
    stuck, _ = partial_cannot_continue(state, params)
    return Outcome(PARTIAL, why) if progress and stuck else Outcome(FAILURE, why, failure_type)


def decide(state: SessionState, params: Parameters = DEFAULTS, *, iteration_end: bool,
           detections: Sequence[Detection] = (), stop_requested: bool = False) -> Outcome | None:
    """The §6.4 decision on `state` (see the module docstring for the order); None means continue."""
    aborted, why = failure_user_abort(state, params)
    if aborted:
        return Outcome(FAILURE, why, "ABORT")
    limited, why = failure_resource_limits(state, params)
    if limited:
        return _partial_or(state, params, "RESOURCE", why)
    if not iteration_end:
        lost, why = failure_irrecoverable(state, params, iteration_end=False)
        return Outcome(FAILURE, why, "IRRECOVERABLE") if lost else None
    results = [check(state, params) for check in SUCCESS_CONDITIONS]
    if all(met for met, _ in results):
        return Outcome(SUCCESS, "all success conditions met")
    for check, failure_type in ((failure_irrecoverable, "IRRECOVERABLE"), (failure_intractable, "INTRACTABLE")):
        failed, why = check(state, params)
        if failed:
            return Outcome(FAILURE, why, failure_type)
    it = _closing(state)
    for d in detections:
        earlier = [i for i in state.alerts.occurrences.get(f"{d.signature}|{SESSION}", ()) if i < it]
        if d.signature in (CIRCULAR_REASONING, CONVERGENCE_FAILURE) and earlier:
            return _partial_or(state, params, "IRRECOVERABLE",
                               f"{d.signature.lower()} persisted after recovery in iteration {earlier[-1]}")
    previous = state.stats(it - 1).aggregate
    current = state.stats(it).aggregate
    not_improving = previous is not None and current is not None and current <= previous
    if not_improving and state.gates.qc_consecutive_rejections > params.quality_gate_rejections:
        return _partial_or(state, params, "IRRECOVERABLE",
                           "confidence not improving after repeated quality gate failures")
    if it >= params.max_full_cycles:
        return _partial_or(state, params, "RESOURCE", f"iteration limit of {params.max_full_cycles} reached")
    if stop_requested:
        return _partial_or(state, params, "IRRECOVERABLE", "PHI terminated the session")
    return None


# ------------------------------------------------------------------------------------------- §6.5 report
def iso_duration(seconds: float) -> str:
    """ISO-8601 duration of a non-negative number of seconds, e.g. PT1H2M3S (PT0S for zero)."""
    total_ms = max(0, round(seconds * 1000))
    hours, rest = divmod(total_ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    text = "PT" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if secs or ms or text == "PT":
        text += f"{secs}.{ms:03d}".rstrip("0").rstrip(".") + "S"
    return text


def degradation_level(state: SessionState, outcome: Outcome, params: Parameters = DEFAULTS) -> int:
    """§4.3: SUCCESS 0 (1 with caveats or agent failures); PARTIAL 1..3 by confidence (above the stakes
    threshold, at least the A.2 usable threshold, below it); FAILURE 4 if the problem was clarified, else 5."""
    aggregate = state.stats(state.closed_through).aggregate or 0.0
    if outcome.status == SUCCESS:
        degraded = state.gates.qc_verdict == "SHIP WITH CAVEATS" or any(
            k.startswith("AGENT_FAILURE|") for k in state.alerts.occurrences)
        return 1 if degraded else 0
    if outcome.status == PARTIAL:
        if aggregate > params.threshold_for(state.problem.stakes):
            return 1
        return 2 if aggregate >= params.usable_threshold else 3
    return 4 if state.problem.clarified_statement else 5


_RECOMMENDATIONS = {
    "RESOURCE": "raise the budget or narrow the question (CONSTRAIN), then resume from Session Memory",
    "IRRECOVERABLE": "restart with a different GENESIS selection (PIVOT) after resolving the root contradiction",
    "INTRACTABLE": "reframe the question so its critical claims are testable, or accept a partial answer (ADMIT)",
    "ABORT": "resume from the recorded session state if the user asks",
}


def build_report(state: SessionState, outcome: Outcome, source_event_id: str, event_time: str,
                 params: Parameters = DEFAULTS) -> TerminationReport:
    """The §6.5 report of `outcome`; its id derives from the session and the message that ended it."""
    aggregate = state.stats(state.closed_through).aggregate
    if aggregate is None:
        aggregate = state.stats(state.current_iteration).aggregate
    confidence = None if aggregate is None else round(aggregate, 4)
    verified, attackers = verifiers_and_attackers(state.confidence)
    audit = (*((a.timestamp, a.event) for a in state.audit),
             (event_time, f"terminated: {outcome.status} ({outcome.reason})"))
    metrics = TerminationMetrics(state.current_iteration, len(state.agents_seen), state.tokens_used,
                                 iso_duration(state.elapsed_seconds()))
    common: dict[str, Any] = {
        "report_id": derived_id("trm_", state.session_id, source_event_id), "session_id": state.session_id,
        "event_time": event_time, "status": outcome.status, "metrics": metrics, "audit_trail": audit,
        "degradation_level": degradation_level(state, outcome, params),
    }
    answered = tuple(h.statement for h in state.hypotheses_resolved if h.resolution == "CONFIRMED")
    if outcome.status == SUCCESS:
        minor = tuple(f"unresolved minor contradiction {c.id}" for c in state.contradictions_unresolved)
        evidence = tuple(e.evidence for e in state.evidence if e.strength != "WEAK")
        return TerminationReport(**common, answer=state.gates.answer or "", confidence=confidence,
                                 caveats=(*state.gates.qc_caveats, *minor), supporting_evidence=evidence,
                                 verified_by=verified, survived_attacks_from=attackers)
    if outcome.status == PARTIAL:
        unanswered = (*(h.statement for h in state.hypotheses_active),
                      *(f"contradiction {c.claim_a.agent_id} vs {c.claim_b.agent_id} ({c.severity})"
                        for c in state.contradictions_unresolved))
        _, missing = partial_incomplete(state, params)
        return TerminationReport(**common, partial_answer=state.gates.answer or "", confidence=confidence,
                                 answered=answered, unanswered=unanswered, why_stopped=outcome.reason,
                                 what_would_complete=missing)
    attempted = tuple(f"iteration {s.iteration}: {len(s.agents)} agents, {s.messages} messages, "
                      f"{s.rejected} quarantined" for s in state.iterations)
    learned = (*(f"{h.resolution}: {h.statement}" for h in state.hypotheses_resolved),
               *(f"ABANDONED: {h.statement} ({h.reason})" for h in state.hypotheses_abandoned),
               *(f"alert {k.split('|')[0]}" for k in state.alerts.occurrences))
    failure_type = outcome.failure_type or "IRRECOVERABLE"
    return TerminationReport(**common, failure_type=failure_type, what_was_attempted=attempted,
                             why_failed=outcome.reason, what_was_learned=learned,
                             recommendation=_RECOMMENDATIONS[failure_type])
