"""How one accepted message changes the session state: the mapping documented in `omega.agents.session`.

`record(state, message)` applies every rule in order: usage, time, iteration and confidence bookkeeping;
novelty of claims; problem and budget; hypotheses; decisions, commitments and evidence; contradictions;
the gates the §6 conditions read (`omega.agents.session_gates`); the timeline entry. No checks run here. The
message is read through `omega.agents.message_reading`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from omega.agents.confidence import apply_message, claim_confidence, claim_key, with_claim
from omega.agents.crossrefs import CONTRADICTION_WITH_RAW
from omega.agents.limits import STAKES, Parameters
from omega.agents.message_reading import (
    CLARITY,
    CONFLICT,
    PHI,
    PROGRESS,
    batch_of,
    content_of,
    items,
    normalise,
    phi_action,
    text_of,
    verdict_core,
    verdict_tag,
)
from omega.agents.model import AgentMessage
from omega.agents.roster import AGENTS, MANDATORY_AGENTS
from omega.agents.session_gates import gates
from omega.agents.session_state import (
    AbandonedHypothesis,
    Budget,
    ClaimRef,
    Commitment,
    Contradiction,
    Decision,
    EvidenceItem,
    Hypothesis,
    IterationStats,
    ResolvedContradiction,
    ResolvedHypothesis,
    SessionState,
    TimelineEntry,
)
from omega.canonical import derived_id
from omega.eventtime import to_ms
from omega.records import replace

SEVERITY_ORDER = ("MINOR", "SERIOUS", "FATAL")


def record(state: SessionState, message: AgentMessage, params: Parameters) -> SessionState:
    """`state` with `message` recorded under every mapping rule."""
    state = usage_and_time(state, message, params)
    state = novelty(state, message)
    state = problem_and_budget(state, message)
    state = hypotheses(state, message, params)
    state = decisions_commitments_evidence(state, message)
    state = contradictions(state, message)
    state = replace(state, gates=gates(state.gates, message))
    return replace(state, timeline=(*state.timeline, timeline_entry(state, message)))


def with_stats(state: SessionState, stats: IterationStats) -> tuple[IterationStats, ...]:
    """The iteration stats of `state` with `stats` replacing (or added as) its iteration's, in order."""
    others = [s for s in state.iterations if s.iteration != stats.iteration]
    return tuple(sorted([*others, stats], key=lambda s: s.iteration))


def _bump(state: SessionState, iteration: int, **counts: int) -> SessionState:
    stats = state.stats(iteration)
    changes = {k: getattr(stats, k) + v for k, v in counts.items()}
    return replace(state, iterations=with_stats(state, replace(stats, **changes)))


def _tier(agent_id: int | None) -> str:
    row = AGENTS.get(agent_id) if agent_id is not None else None
    return row.tier if row is not None else ""


# ------------------------------------------------------------------------------------------- bookkeeping
def usage_and_time(state: SessionState, message: AgentMessage, params: Parameters) -> SessionState:
    """Tokens, event-time bounds, iteration stats, agents, batches, failures and the §2.3 claims."""
    ms = to_ms(message.timestamp)
    first, last, started, updated = state.first_ms, state.last_ms, state.started, state.last_updated
    if ms is not None and (first is None or ms < first):
        first, started = ms, message.timestamp
    if ms is not None and (last is None or ms >= last):
        last, updated = ms, message.timestamp
    stats = state.stats(message.iteration)
    batches = dict(stats.batches)
    batch = batch_of(message)
    if batch is not None:
        batches[batch] = tuple(sorted({*batches.get(batch, ()), message.agent_id}))
    stats = replace(stats, agents=tuple(sorted({*stats.agents, message.agent_id})), batches=batches,
                    messages=stats.messages + 1, tokens=stats.tokens + message.tokens_used)
    failures = dict(state.consecutive_failures)
    low = message.confidence < params.usable_threshold
    failures[str(message.agent_id)] = failures.get(str(message.agent_id), 0) + 1 if low else 0
    return replace(
        state, tokens_used=state.tokens_used + message.tokens_used, first_ms=first, last_ms=last, started=started,
        last_updated=updated, current_iteration=max(state.current_iteration, message.iteration),
        iterations=with_stats(state, stats), agents_seen=tuple(sorted({*state.agents_seen, message.agent_id})),
        mandatory_seen=tuple(sorted({*state.mandatory_seen, message.agent_id} & set(MANDATORY_AGENTS))),
        consecutive_failures=failures,
        budget=state.budget or Budget(params.default_token_budget, params.default_time_budget_seconds),
        confidence=apply_message(state.confidence, message, params))


def _novel(state: SessionState, text: str) -> tuple[SessionState, bool]:
    digest = derived_id("", normalise(text))[:16]
    if digest in state.seen_claims:
        return state, False
    return replace(state, seen_claims=(*state.seen_claims, digest)), True


def novelty(state: SessionState, message: AgentMessage) -> SessionState:
    """A verdict never seen before is a new claim; the Progress Monitor's own count is kept beside it."""
    if message.agent_tier in ("MEMORY", "PHI") or message.agent_id == PROGRESS:
        reported = content_of(message).get("new_claims", content_of(message).get("new_findings"))
        if message.agent_id == PROGRESS and isinstance(reported, int) and not isinstance(reported, bool):
            stats = state.stats(message.iteration)
            return replace(state, iterations=with_stats(state, replace(stats, reported_new_claims=max(0, reported))))
        return state
    state, new = _novel(state, "verdict:" + verdict_core(message.verdict))
    return _bump(state, message.iteration, new_claims=1) if new else state


def problem_and_budget(state: SessionState, message: AgentMessage) -> SessionState:
    """PHI states the problem, stakes and budget; the Clarity Optimizer clarifies the statement."""
    content = content_of(message)
    problem = state.problem
    if message.agent_id == CLARITY and (clarified := text_of(content, "clarified_statement")):
        return replace(state, problem=replace(problem, clarified_statement=clarified))
    if message.agent_id != PHI:
        return state
    raw = content.get("problem")
    given: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    statement = text_of(given, "statement") or text_of(given, "original_statement")
    if statement is None and message.responding_to == "INITIAL" and problem.original_statement is None:
        statement = text_of(content, "query") or message.verdict
    stakes = str(given.get("stakes", "")).strip().upper()
    problem = replace(problem, original_statement=statement or problem.original_statement,
                      clarified_statement=text_of(given, "clarified_statement") or problem.clarified_statement,
                      classification=text_of(given, "classification") or problem.classification,
                      stakes=stakes if stakes in STAKES else problem.stakes,
                      uncertainty=text_of(given, "uncertainty") or problem.uncertainty)
    budget = state.budget
    spec = content.get("budget")
    if isinstance(spec, Mapping) and budget is not None:
        tokens, seconds = spec.get("tokens"), spec.get("seconds")
        budget = Budget(tokens if isinstance(tokens, int) and tokens > 0 else budget.tokens,
                        seconds if isinstance(seconds, int) and seconds > 0 else budget.seconds, message.message_id)
    return replace(state, problem=problem, budget=budget)


# ------------------------------------------------------------------------------------------- hypotheses
def _find(active: Sequence[Hypothesis], ref: str) -> Hypothesis | None:
    key = normalise(ref)
    return next((h for h in active if h.id == ref or normalise(h.statement) == key), None)


def _propose(state: SessionState, message: AgentMessage, item: Any, by: int) -> SessionState:
    statement = text_of(item, "statement")
    if statement is None:
        return state
    hid = derived_id("hyp_", state.session_id, normalise(statement))
    existing = _find(state.hypotheses_active, hid)
    if existing is not None:
        if by != existing.proposed_by and by not in existing.supporting_agents:
            supported = replace(existing, supporting_agents=(*existing.supporting_agents, by))
            return replace(state, hypotheses_active=tuple(supported if h.id == hid else h
                                                          for h in state.hypotheses_active))
        return state
    settled = [h.id for h in state.hypotheses_resolved] + [h.id for h in state.hypotheses_abandoned]
    if hid in settled:
        return state  # a settled hypothesis is not reopened by proposing it again
    given = item.get("confidence") if isinstance(item, Mapping) else None
    confidence = float(given) if isinstance(given, int | float) and 0 <= given <= 1 else message.confidence
    hypothesis = Hypothesis(hid, statement, by, message.timestamp, confidence, iteration=message.iteration)
    book = with_claim(state.confidence, by, _tier(by), statement, confidence, message.iteration)
    state = replace(state, hypotheses_active=(*state.hypotheses_active, hypothesis), confidence=book)
    state, new = _novel(state, "hypothesis:" + statement)
    return _bump(state, message.iteration, new_hypotheses=1, new_claims=1 if new else 0)


def hypotheses(state: SessionState, message: AgentMessage, params: Parameters) -> SessionState:
    """Proposals, support and opposition by reference, confidence refresh, resolution and abandonment."""
    content = content_of(message)
    for item in (*items(content.get("hypothesis")), *items(content.get("hypotheses"))):
        state = _propose(state, message, item, message.agent_id)
    active = []
    for h in state.hypotheses_active:
        refs = [r for r in message.references if normalise(r.source_element) == normalise(h.statement)]
        pro = {message.agent_id for r in refs if r.type in ("SUPPORTS", "EXTENDS")} - {h.proposed_by}
        con = {message.agent_id for r in refs if r.type == "CONTRADICTS"} - {h.proposed_by}
        key = claim_key(h.proposed_by, h.statement)
        claim = state.confidence.claims.get(key)
        active.append(replace(h, supporting_agents=tuple(sorted({*h.supporting_agents, *pro})),
                              opposing_agents=tuple(sorted({*h.opposing_agents, *con})),
                              confidence=h.confidence if claim is None else round(claim_confidence(claim, params), 6)))
    state = replace(state, hypotheses_active=tuple(active))
    if message.agent_tier in ("VERIFICATION", "META", "PHI"):
        for item in (*items(content.get("hypothesis_resolved")), *items(content.get("resolve_hypothesis"))):
            state = _resolve(state, message, item)
    if message.agent_tier in ("META", "PHI"):
        for item in (*items(content.get("hypothesis_abandoned")), *items(content.get("abandon_hypothesis"))):
            ref = text_of(item, "statement") or text_of(item, "id")
            found = _find(state.hypotheses_active, ref) if ref else None
            if found is not None:
                gone = AbandonedHypothesis(found.id, found.statement, message.timestamp,
                                           text_of(item, "reason") or message.verdict)
                state = replace(state, hypotheses_active=tuple(h for h in state.hypotheses_active if h is not found),
                                hypotheses_abandoned=(*state.hypotheses_abandoned, gone))
    return state


def _resolve(state: SessionState, message: AgentMessage, item: Any) -> SessionState:
    ref = text_of(item, "statement") or text_of(item, "id")
    found = _find(state.hypotheses_active, ref) if ref else None
    resolution = (text_of(item, "resolution") or "").upper()
    if found is None or resolution not in ("CONFIRMED", "REJECTED", "MODIFIED"):
        return state
    verified = message.agent_tier == "VERIFICATION" or any(_tier(a) == "VERIFICATION" for a in found.supporting_agents)
    done = ResolvedHypothesis(found.id, found.statement, resolution, message.timestamp, found.confidence,
                              text_of(item, "basis") or message.verdict, message.agent_id, verified)
    state = replace(state, hypotheses_active=tuple(h for h in state.hypotheses_active if h is not found),
                    hypotheses_resolved=(*state.hypotheses_resolved, done))
    modified = text_of(item, "modified_to") if resolution == "MODIFIED" else None
    return _propose(state, message, modified, message.agent_id) if modified else state


# ------------------------------------------------------------------------------------------- other §3.1 content
def decisions_commitments_evidence(state: SessionState, message: AgentMessage) -> SessionState:
    """Decisions, commitments (and their invalidation) and evidence stated in the content."""
    content, sid, mid = content_of(message), state.session_id, message.message_id
    made = list(state.decisions)
    for i, item in enumerate(items(content.get("decision"))):
        if (text := text_of(item, "decision")) is not None:
            extra = item if isinstance(item, Mapping) else {}
            made.append(Decision(derived_id("dec_", sid, mid, str(i)), text, message.timestamp,
                                 text_of(extra, "basis") or message.verdict, extra.get("reversible") is not False,
                                 tuple(str(d) for d in items(extra.get("dependent_on")))))
    commitments = list(state.commitments)
    for item in items(content.get("commitment")):
        if (text := text_of(item, "commitment")) is not None:
            cid = derived_id("cmt_", sid, normalise(text))
            if all(c.id != cid for c in commitments):
                commitments.append(Commitment(cid, text, message.agent_id, message.timestamp))
    for ref in items(content.get("invalidates_commitment")):
        key = normalise(str(ref))
        commitments = [replace(c, still_valid=False, invalidated_by=message.agent_id)
                       if c.still_valid and (c.id == ref or normalise(c.commitment) == key) else c for c in commitments]
    evidence = list(state.evidence)
    new_claims = 0
    for i, item in enumerate(items(content.get("evidence"))):
        if (text := text_of(item, "evidence")) is None:
            continue
        extra = item if isinstance(item, Mapping) else {}
        strength = str(extra.get("strength", "")).upper()
        if strength not in ("STRONG", "MODERATE", "WEAK"):
            strength = "STRONG" if message.confidence >= 0.7 else "MODERATE" if message.confidence >= 0.4 else "WEAK"
        evidence.append(EvidenceItem(derived_id("evd_", sid, mid, str(i)), text, message.agent_id,
                                     _hypothesis_ids(state, extra.get("supports")),
                                     _hypothesis_ids(state, extra.get("contradicts")), strength))
        state, new = _novel(state, "evidence:" + text)
        new_claims += new
    state = replace(state, decisions=tuple(made), commitments=tuple(commitments), evidence=tuple(evidence))
    return _bump(state, message.iteration, new_claims=new_claims) if new_claims else state


def _hypothesis_ids(state: SessionState, refs: Any) -> tuple[str, ...]:
    known = [(h.id, h.statement) for h in state.hypotheses_active] + \
        [(h.id, h.statement) for h in state.hypotheses_resolved] + \
        [(h.id, h.statement) for h in state.hypotheses_abandoned]
    found = [hid for r in items(refs) for hid, text in known if hid == r or normalise(text) == normalise(str(r))]
    return tuple(dict.fromkeys(found))


def contradiction_severity(message: AgentMessage) -> str:
    """FATAL|SERIOUS|MINOR: the `contradiction_severity` flag extra, else from blocks_progress and
    requires_resolution."""
    given = str(message.flags.extras.get("contradiction_severity", "")).strip().upper()
    if given in SEVERITY_ORDER:
        return given
    return "FATAL" if message.flags.blocks_progress else "SERIOUS" if message.flags.requires_resolution else "MINOR"


def contradictions(state: SessionState, message: AgentMessage) -> SessionState:
    """Resolutions by the Conflict Resolver or PHI first, then a contradiction this message flags."""
    if message.agent_id in (CONFLICT, PHI):
        state = _resolutions(state, message)
    flags = message.flags
    if not flags.contradiction_detected:
        return state
    pair = {message.agent_id, flags.contradiction_with}
    severity = contradiction_severity(message)
    open_ = list(state.contradictions_unresolved)
    for i, c in enumerate(open_):
        if {c.claim_a.agent_id, c.claim_b.agent_id} == pair:
            if SEVERITY_ORDER.index(severity) > SEVERITY_ORDER.index(c.severity):
                open_[i] = replace(c, severity=severity)
            return replace(state, contradictions_unresolved=tuple(open_))
    other = flags.contradiction_with
    element = next((r.source_element for r in message.references
                    if r.type == "CONTRADICTS" and r.source_agent == other), None)
    if element is None and other is None:
        # contradiction_with named no single agent: the producer's text is the best statement of the other side
        said = flags.extras.get(CONTRADICTION_WITH_RAW)
        element = said.strip() if isinstance(said, str) and said.strip() else None
    new = Contradiction(derived_id("ctr_", state.session_id, message.message_id),
                        ClaimRef(other, element or f"output of agent {other}"),
                        ClaimRef(message.agent_id, message.verdict), message.timestamp, severity,
                        message.iteration, message.message_id)
    state = replace(state, contradictions_unresolved=(*open_, new))
    return _bump(state, message.iteration, new_contradictions=1)


def _resolutions(state: SessionState, message: AgentMessage) -> SessionState:
    content = content_of(message)
    targets = content.get("resolves", content.get("resolved_contradictions"))
    open_ = state.contradictions_unresolved

    def hit(c: Contradiction) -> bool:
        agents = {c.claim_a.agent_id, c.claim_b.agent_id}
        if targets is None:
            return verdict_tag(message.verdict) == "RESOLVED" and message.responding_to in agents
        if isinstance(targets, str) and targets.strip().upper() == "ALL":
            return True
        for t in items(targets):
            if t == c.id or (isinstance(t, int) and t in agents) or \
                    (isinstance(t, list | tuple) and {*t} == agents):
                return True
        return False

    done = [c for c in open_ if hit(c)]
    if not done:
        return state
    why = text_of(content, "resolution") or message.verdict
    resolved = tuple(ResolvedContradiction(c.id, why, message.agent_id, message.timestamp, c.severity) for c in done)
    return replace(state, contradictions_unresolved=tuple(c for c in open_ if c not in done),
                   contradictions_resolved=(*state.contradictions_resolved, *resolved))


def timeline_entry(state: SessionState, message: AgentMessage) -> TimelineEntry:
    """The §3.1 timeline entry of a message (event type per the session module docstring)."""
    content = content_of(message)
    resolved = any(r.resolved_by == message.agent_id and r.resolved_at == message.timestamp
                   for r in state.contradictions_resolved)
    if message.agent_id == PHI and message.responding_to == "INITIAL":
        kind = "QUERY"
    elif message.flags.contradiction_detected:
        kind = "CONTRADICTION"
    elif resolved:
        kind = "RESOLUTION"
    elif "decision" in content or phi_action(message) is not None:
        kind = "DECISION"
    elif message.agent_id == PHI and "deploy" in content:
        kind = "DEPLOYMENT"
    else:
        kind = "OUTPUT"
    details = {"message_id": message.message_id, "iteration": message.iteration,
               "confidence": message.confidence, "tokens_used": message.tokens_used}
    return TimelineEntry(message.timestamp, kind, message.agent_id, message.verdict, details)
