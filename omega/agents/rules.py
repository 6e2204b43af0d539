"""§1.3 deployment rules and §1.3.4 iteration triggers, judged by the session judge (`omega.agents.session`):
one function per rule or trigger, named after its section, each returning `Finding`s; `raise_rule_alerts`
renders them as `omega.events.Alert`s of kind DEPLOYMENT_RULE or ITERATION_TRIGGER.

When they run: every rule and trigger when an iteration closes (where the §4.1 end-of-iteration signatures
run), on the state of the closed iteration; the parallel limit also on every accepted message, so a batch is
reported as soon as it holds more than `Parameters.max_agents_per_batch` (A.3: 10) distinct agents. Triggers
are skipped when the closing iteration ends the session: they recommend another iteration and none follows.

Deployment rules (kind DEPLOYMENT_RULE; the deployment is PHI's, so these are advice to PHI, not failures):
    r_1_3_2_mandatory_agents      MODERATE  Session Memory (53), Progress Monitor (48) or Quality Controller
                                            (52) did not speak in the iteration. Per iteration, because every
                                            §6.4 full cycle needs its continuity record, its progress count and
                                            its quality gate (the §6 conditions read them per iteration).
    r_1_3_2_genesis_diversity     MINOR     fewer than 3 §1.3.1 GENESIS categories among the GENESIS agents
                                            that spoke in the session so far.
    r_1_3_2_verification_present  MODERATE  no VERIFICATION agent spoke in the session so far.
    r_1_3_2_adversary_present     MODERATE  no ADVERSARY agent spoke in the session so far (44 recommended).
    r_1_3_3_parallel_limit        MODERATE  a batch of the iteration holds more than 10 distinct agents.
    r_1_3_3_batch_order           MINOR     a message of an earlier batch ran after a later batch had started.
The three "non-trivial" rules are judged on the session so far, not per iteration: later iterations are
§1.3.4 targeted re-runs and need not redeploy every tier. Every problem is non-trivial unless PHI classifies
it with a class named TRIVIAL (e.g. "TRIVIAL" or "META/TRIVIAL"): §1.1 has no trivial class, so the judge has
no ground to exempt any class of the taxonomy. Missing mandatory, VERIFICATION or ADVERSARY agents and
over-full batches are MODERATE (a mandatory function is absent or the architecture limit is broken);
diversity and order are MINOR (the reasoning still happens, less well).

Batch order (§1.3.3): a message's batch is the existing bookkeeping's (header extra `batch`, else its tier's:
GENESIS 1, BRIDGE 2, VERIFICATION 3, ADVERSARY 4, META 5); its rank is the label's leading number (a label
without one, e.g. "overflow", is unordered and never judged). A message is out of order when a batch of a
higher rank already had a message in the same iteration, except, for a message without an explicit batch:
a GENESIS agent while batch 2 is the latest started ("BRIDGE agents + relevant GENESIS overflow"), and a
VERIFICATION agent once batch 5 has started ("META agents + final VERIFICATION"). MEMORY and PHI run outside
batches and are never out of order. Breaks are recorded as messages arrive (`note_batch_order`) and judged
when the iteration closes.

Iteration triggers (kind ITERATION_TRIGGER, always MINOR: a recommendation, not a failure), judged on the
closed iteration; details give the trigger, the recommended action and agents (or tiers):
    t_1_3_4_new_contradiction  a contradiction detected in the iteration is still unresolved at its end ->
                               REDEPLOY_GENESIS_AND_VERIFICATION (the GENESIS agents party to it, else the
                               iteration's GENESIS agents, and the iteration's VERIFICATION agents).
    t_1_3_4_low_confidence     the iteration's aggregate confidence is below the A.2 "proceed to next tier"
                               threshold (50%) -> DEPLOY_ADDITIONAL_ADVERSARY (the ADVERSARY agents not used).
    t_1_3_4_gap_identified     the latest word of the Gap Detector (31) / Gap Hunter (40) reports critical
                               gaps -> DEPLOY_TARGETED_GENESIS.
    t_1_3_4_outputs_conflict   a contradiction from an earlier iteration is still unresolved, or an active
                               hypothesis is opposed (a §2.2 CONTRADICTS reference) ->
                               DEPLOY_CONFLICT_RESOLVER_THEN_RERUN (50, then the conflicting agents).
    t_1_3_4_qc_rejects         the Quality Controller (52) rejected in the iteration -> RERUN_AFFECTED_TIERS
                               (the batched tiers that ran in it).

Alerts: every finding has a dedupe key (kind, check, iteration, subject such as the batch) kept in the alert
book, so a rule or trigger reports at most once per iteration (and per batch). All findings of one kind at
one message make one alert (severity: the worst; details["rules"] or details["triggers"] list them), because
the alert id derives from (session, source message, kind): source_event_id is the message that closed the
iteration or pushed the batch over. A message raises each kind once; should a second set of findings of a
kind come from the same message, a per-message parallel-limit finding waits for the iteration's close (it is
re-checked there) and a second iteration close by the same message (PHI's END_ITERATION as the only message
of an iteration) loses its findings of the kinds already raised. Escalation level: MINOR 1, MODERATE 2 (the
§4.4 base level of the severity; rules never escalate, never reach 5 and raise no `Escalation`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from omega.agents.failures import LEVEL_NAMES, SESSION, SEVERITIES
from omega.agents.limits import DEFAULTS, Parameters
from omega.agents.message_reading import batch_of
from omega.agents.model import AgentMessage
from omega.agents.roster import AGENTS, GENESIS_CATEGORIES, MANDATORY_AGENTS, STEELMAN_ATTACKER, genesis_category
from omega.agents.session_mapping import with_stats
from omega.agents.session_state import AlertBook, OutOfOrder, SessionState, TimelineEntry
from omega.events import Alert
from omega.records import replace

DEPLOYMENT_RULE = "DEPLOYMENT_RULE"
ITERATION_TRIGGER = "ITERATION_TRIGGER"
KINDS = (DEPLOYMENT_RULE, ITERATION_TRIGGER)
MIN_GENESIS_CATEGORIES = 3
CONFLICT_RESOLVER, QUALITY_CONTROLLER = 50, 52
GAP_AGENTS = (31, 40)
OUTSIDE_BATCHES = ("MEMORY", "PHI")
_LEADING_NUMBER = re.compile(r"^\s*(\d+)")


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule broken or trigger met: which, how bad, in which iteration, and what to do about it."""

    kind: str  # DEPLOYMENT_RULE | ITERATION_TRIGGER
    check: str  # the function that found it, e.g. r_1_3_2_mandatory_agents
    rule: str  # the spec section, e.g. "§1.3.2"
    severity: str
    iteration: int
    summary: str
    action: str
    agents: tuple[int, ...] = ()  # the agents involved (missing, over, out of order) or recommended
    facts: Mapping[str, Any] = field(default_factory=dict)
    subject: str = ""  # what a check may report several times per iteration (a batch), else ""

    @property
    def key(self) -> str:
        """Dedupe key: once per kind, check, iteration and subject."""
        return f"{self.kind}|{self.check}|{self.iteration}|{self.subject}"


Rule = Callable[[SessionState, int, Parameters], list[Finding]]


# ------------------------------------------------------------------------------------------- helpers
def _tier(agent_id: int | None) -> str:
    row = AGENTS.get(agent_id) if agent_id is not None else None
    return row.tier if row is not None else ""


def _of_tier(agents: Sequence[int], tier: str) -> tuple[int, ...]:
    return tuple(sorted(a for a in set(agents) if _tier(a) == tier))


def agents_through(state: SessionState, iteration: int) -> tuple[int, ...]:
    """Distinct agents that spoke (accepted messages) in iterations 1..`iteration`."""
    return tuple(sorted({a for s in state.iterations if s.iteration <= iteration for a in s.agents}))


def non_trivial(state: SessionState) -> bool:
    """False only when PHI classified the problem with a class named TRIVIAL (see the module docstring)."""
    parts = (state.problem.classification or "").upper().split("/")
    return "TRIVIAL" not in {p.strip() for p in parts}


def batch_rank(label: str) -> int | None:
    """The order of a batch label: its leading number ("4", "4b" -> 4), None when it has none."""
    found = _LEADING_NUMBER.match(label)
    return int(found.group(1)) if found else None


def _latest(state: SessionState, agents: Sequence[int], iteration: int | None = None) -> TimelineEntry | None:
    return next((e for e in reversed(state.timeline) if e.agent_id in agents and not e.details.get("quarantined")
                 and (iteration is None or e.details.get("iteration") == iteration)), None)


def _finding(kind: str, check: str, rule: str, severity: str, iteration: int, summary: str, action: str,
             agents: Sequence[int] = (), subject: str = "", **facts: Any) -> list[Finding]:
    return [Finding(kind, check, rule, severity, iteration, summary, action, tuple(agents), facts, subject)]


# ------------------------------------------------------------------------------------------- §1.3.2
def r_1_3_2_mandatory_agents(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.2: Session Memory (53), Progress Monitor (48) and Quality Controller (52) in every iteration
    (MODERATE per iteration missing any)."""
    missing = [a for a in MANDATORY_AGENTS if a not in state.stats(iteration).agents]
    if not missing:
        return []
    names = ", ".join(f"{AGENTS[a].name} ({a})" for a in missing)
    return _finding(DEPLOYMENT_RULE, "r_1_3_2_mandatory_agents", "§1.3.2", "MODERATE", iteration,
                    f"mandatory agents missing in iteration {iteration}: {names}", "DEPLOY_MANDATORY_AGENTS",
                    missing, missing=missing, required=list(MANDATORY_AGENTS))


def r_1_3_2_genesis_diversity(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.2: a non-trivial problem gets GENESIS agents from at least 3 §1.3.1 categories (MINOR; judged on
    the session so far)."""
    if not non_trivial(state):
        return []
    genesis = _of_tier(agents_through(state, iteration), "GENESIS")
    categories = sorted({genesis_category(a).key for a in genesis})
    if len(categories) >= MIN_GENESIS_CATEGORIES:
        return []
    unused = [c.key for c in GENESIS_CATEGORIES if c.key not in categories]
    return _finding(DEPLOYMENT_RULE, "r_1_3_2_genesis_diversity", "§1.3.2", "MINOR", iteration,
                    f"GENESIS agents from {len(categories)} categories through iteration {iteration} (at least "
                    f"{MIN_GENESIS_CATEGORIES} required)", "DEPLOY_DIVERSE_GENESIS", genesis,
                    categories=categories, required=MIN_GENESIS_CATEGORIES, missing=MIN_GENESIS_CATEGORIES -
                    len(categories), unused_categories=unused)


def _tier_present(state: SessionState, iteration: int, tier: str, check: str, recommended: Sequence[int],
                  action: str) -> list[Finding]:
    if not non_trivial(state) or _of_tier(agents_through(state, iteration), tier):
        return []
    return _finding(DEPLOYMENT_RULE, check, "§1.3.2", "MODERATE", iteration,
                    f"no {tier} agent deployed through iteration {iteration} (at least 1 required)", action,
                    recommended, missing=tier, required=1)


def r_1_3_2_verification_present(state: SessionState, iteration: int,
                                 params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.2: a non-trivial problem gets at least one VERIFICATION agent (MODERATE; session so far)."""
    return _tier_present(state, iteration, "VERIFICATION", "r_1_3_2_verification_present", (),
                         "DEPLOY_VERIFICATION")


def r_1_3_2_adversary_present(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.2: a non-trivial problem gets at least one ADVERSARY agent, usually the Steelman Attacker (44)
    (MODERATE; session so far)."""
    return _tier_present(state, iteration, "ADVERSARY", "r_1_3_2_adversary_present", (STEELMAN_ATTACKER,),
                         "DEPLOY_ADVERSARY")


# ------------------------------------------------------------------------------------------- §1.3.3
def r_1_3_3_parallel_limit(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.3 / A.3: no batch of the iteration holds more than `max_agents_per_batch` distinct agents
    (MODERATE, once per batch and iteration)."""
    stats = state.stats(iteration)
    over = stats.over_batch_limit(params.max_agents_per_batch)
    return [f for batch, count in sorted(over.items()) for f in _finding(
        DEPLOYMENT_RULE, "r_1_3_3_parallel_limit", "§1.3.3", "MODERATE", iteration,
        f"batch {batch} of iteration {iteration} ran {count} agents (A.3 limit {params.max_agents_per_batch})",
        "SPLIT_BATCH", stats.batches[batch], subject=batch, batch=batch, count=count,
        limit=params.max_agents_per_batch, over=count - params.max_agents_per_batch)]


def batch_order_break(batches_before: Mapping[str, Sequence[int]], message: AgentMessage) -> OutOfOrder | None:
    """The §1.3.3 order break `message` makes, given its iteration's batches before it (module docstring)."""
    batch = batch_of(message)
    if message.agent_tier in OUTSIDE_BATCHES or batch is None or (rank := batch_rank(batch)) is None:
        return None
    started = [(r, b) for b in batches_before if (r := batch_rank(b)) is not None]
    if not started:
        return None
    latest_rank, latest = max(started)
    implicit = "batch" not in message.extras.get("header", {})
    if rank >= latest_rank:
        return None
    if implicit and message.agent_tier == "GENESIS" and latest_rank == 2:
        return None  # "BRIDGE agents + relevant GENESIS overflow"
    if implicit and message.agent_tier == "VERIFICATION" and latest_rank == 5:
        return None  # "META agents + final VERIFICATION"
    return OutOfOrder(message.message_id, message.agent_id, batch, latest)


def note_batch_order(state: SessionState, batches_before: Mapping[str, Sequence[int]],
                     message: AgentMessage) -> SessionState:
    """`state` with the order break of `message` (if any) kept in its iteration's stats, for the close."""
    found = batch_order_break(batches_before, message)
    if found is None:
        return state
    stats = state.stats(message.iteration)
    return replace(state, iterations=with_stats(state, replace(stats, out_of_order=(*stats.out_of_order, found))))


def r_1_3_3_batch_order(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.3: batches run in order within an iteration (MINOR when any message ran after a later batch)."""
    breaks = state.stats(iteration).out_of_order
    if not breaks:
        return []
    shown = "; ".join(f"agent {b.agent_id} (batch {b.batch}) after batch {b.after}" for b in breaks[:5])
    more = f" and {len(breaks) - 5} more" if len(breaks) > 5 else ""
    return _finding(DEPLOYMENT_RULE, "r_1_3_3_batch_order", "§1.3.3", "MINOR", iteration,
                    f"{len(breaks)} message(s) out of batch order in iteration {iteration}: {shown}{more}",
                    "FOLLOW_BATCH_SEQUENCE", sorted({b.agent_id for b in breaks}),
                    out_of_order=[{"message_id": b.message_id, "agent_id": b.agent_id, "batch": b.batch,
                                   "after": b.after} for b in breaks])


# ------------------------------------------------------------------------------------------- §1.3.4
def _trigger(check: str, iteration: int, summary: str, action: str, agents: Sequence[int], tiers: Sequence[str],
             **facts: Any) -> list[Finding]:
    return _finding(ITERATION_TRIGGER, check, "§1.3.4", "MINOR", iteration, summary, action, agents,
                    tiers=list(tiers), **facts)


def t_1_3_4_new_contradiction(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.4 "new contradiction discovered": one detected in the iteration is unresolved at its end ->
    re-deploy the relevant GENESIS agents and VERIFICATION."""
    new = [c for c in state.contradictions_unresolved if c.iteration == iteration]
    if not new:
        return []
    agents = state.stats(iteration).agents
    parties = {a for c in new for a in (c.claim_a.agent_id, c.claim_b.agent_id) if a is not None}
    genesis = _of_tier(list(parties), "GENESIS") or _of_tier(agents, "GENESIS")
    verification = _of_tier([*parties, *agents], "VERIFICATION")
    return _trigger("t_1_3_4_new_contradiction", iteration,
                    f"{len(new)} contradiction(s) found in iteration {iteration} still unresolved",
                    "REDEPLOY_GENESIS_AND_VERIFICATION", (*genesis, *verification), ("GENESIS", "VERIFICATION"),
                    contradictions=[c.id for c in new], genesis=list(genesis), verification=list(verification),
                    pairs=[[c.claim_a.agent_id, c.claim_b.agent_id] for c in new])


def t_1_3_4_low_confidence(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.4 "confidence below threshold": the iteration's aggregate is below the A.2 "proceed to next tier"
    threshold -> deploy additional ADVERSARY agents."""
    aggregate = state.stats(iteration).aggregate
    if aggregate is None or aggregate >= params.proceed_threshold:
        return []
    used = _of_tier(state.stats(iteration).agents, "ADVERSARY")
    unused = tuple(a for a in sorted(AGENTS) if AGENTS[a].tier == "ADVERSARY" and a not in used)
    return _trigger("t_1_3_4_low_confidence", iteration,
                    f"aggregate confidence {aggregate:.2f} below {params.proceed_threshold:.2f} in iteration "
                    f"{iteration}", "DEPLOY_ADDITIONAL_ADVERSARY", unused, ("ADVERSARY",),
                    aggregate=aggregate, threshold=params.proceed_threshold, adversaries_used=list(used))


def t_1_3_4_gap_identified(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.4 "gap identified": the latest word of the Gap Detector (31) / Gap Hunter (40) reports critical
    gaps at the iteration's end -> deploy targeted GENESIS agents."""
    if state.gates.gaps_clear is not False:
        return []
    report = _latest(state, GAP_AGENTS)
    reporter = report.agent_id if report is not None else None
    summary = report.summary if report is not None else ""
    return _trigger("t_1_3_4_gap_identified", iteration, f"critical gaps open at the end of iteration {iteration}"
                    + (f" (agent {reporter})" if reporter is not None else ""), "DEPLOY_TARGETED_GENESIS", (),
                    ("GENESIS",), reported_by=reporter, report=summary)


def t_1_3_4_outputs_conflict(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.4 "agent outputs conflict": a contradiction of an earlier iteration still unresolved, or an active
    hypothesis opposed by an agent -> the Conflict Resolver (50), then targeted re-runs."""
    older = [c for c in state.contradictions_unresolved if c.iteration < iteration]
    disputed = [h for h in state.hypotheses_active if h.opposing_agents]
    if not older and not disputed:
        return []
    parties = sorted({a for c in older for a in (c.claim_a.agent_id, c.claim_b.agent_id) if a is not None} |
                     {a for h in disputed for a in (h.proposed_by, *h.opposing_agents)})
    return _trigger("t_1_3_4_outputs_conflict", iteration,
                    f"{len(older)} older contradiction(s) unresolved and {len(disputed)} hypothesis(es) opposed "
                    f"at the end of iteration {iteration}", "DEPLOY_CONFLICT_RESOLVER_THEN_RERUN",
                    (CONFLICT_RESOLVER, *(a for a in parties if a != CONFLICT_RESOLVER)), ("META",),
                    contradictions=[c.id for c in older], hypotheses=[h.id for h in disputed], rerun=parties)


def t_1_3_4_qc_rejects(state: SessionState, iteration: int, params: Parameters = DEFAULTS) -> list[Finding]:
    """§1.3.4 "Quality Controller rejects": a [REJECT] in the iteration -> address the failures and re-run
    the affected tiers (those that ran in the iteration)."""
    gates = state.gates
    if gates.qc_verdict != "REJECT" or gates.qc_iteration != iteration:
        return []
    report = _latest(state, (QUALITY_CONTROLLER,), iteration)
    tiers = sorted({_tier(a) for a in state.stats(iteration).agents} - {*OUTSIDE_BATCHES, ""},
                   key=("GENESIS", "BRIDGE", "VERIFICATION", "ADVERSARY", "META").index)
    return _trigger("t_1_3_4_qc_rejects", iteration, f"Quality Controller rejected in iteration {iteration}",
                    "RERUN_AFFECTED_TIERS", (), tiers, report=report.summary if report is not None else "",
                    consecutive_rejections=gates.qc_consecutive_rejections)


END_OF_ITERATION_RULES: tuple[Rule, ...] = (r_1_3_2_mandatory_agents, r_1_3_2_genesis_diversity,
                                            r_1_3_2_verification_present, r_1_3_2_adversary_present,
                                            r_1_3_3_parallel_limit, r_1_3_3_batch_order)
TRIGGERS: tuple[Rule, ...] = (t_1_3_4_new_contradiction, t_1_3_4_low_confidence, t_1_3_4_gap_identified,
                              t_1_3_4_outputs_conflict, t_1_3_4_qc_rejects)


def end_of_iteration(state: SessionState, params: Parameters = DEFAULTS, *, triggers: bool = True) -> list[Finding]:
    """Every rule (and, unless the session ends here, every trigger) on the last closed iteration."""
    checks = END_OF_ITERATION_RULES + (TRIGGERS if triggers else ())
    return [f for check in checks for f in check(state, state.closed_through, params)]


def per_message(state: SessionState, message: AgentMessage, params: Parameters = DEFAULTS) -> list[Finding]:
    """The rules judged on every accepted message: the parallel limit of the message's iteration."""
    return r_1_3_3_parallel_limit(state, message.iteration, params)


# ------------------------------------------------------------------------------------------- alerts
def _marker(kind: str, source_event_id: str) -> str:
    return f"{kind}@{source_event_id}"


def raise_rule_alerts(book: AlertBook, findings: Sequence[Finding], session_id: str, source_event_id: str,
                      event_time: str | None) -> tuple[AlertBook, list[Alert]]:
    """One alert per kind for the findings not yet reported (see the module docstring), and the book
    recording their dedupe keys and the kinds this message raised."""
    emitted = list(book.emitted)
    alerts: list[Alert] = []
    for kind in KINDS:
        fresh = list({f.key: f for f in findings if f.kind == kind and f.key not in emitted}.values())
        if not fresh or _marker(kind, source_event_id) in emitted:
            continue
        emitted += [f.key for f in fresh] + [_marker(kind, source_event_id)]
        worst = max(fresh, key=lambda f: SEVERITIES.index(f.severity))
        level = SEVERITIES.index(worst.severity) + 1
        listed = [{"check": f.check, "rule": f.rule, "severity": f.severity, "summary": f.summary,
                   "action": f.action, "agents": list(f.agents), **f.facts} for f in fresh]
        details = {"signature": kind, "severity": worst.severity, "subject": SESSION, "iteration": worst.iteration,
                   "recovery": {"procedure": worst.rule.lstrip("§"), "action": worst.action},
                   "escalation": {"level": level, "path": LEVEL_NAMES[level]},
                   "rules" if kind == DEPLOYMENT_RULE else "triggers": listed}
        message = f"{kind} ({worst.severity}): " + "; ".join(f"{f.rule} {f.summary}" for f in fresh)
        alerts.append(Alert(kind, worst.severity, session_id, message, source_event_id, event_time, details))
    return replace(book, emitted=tuple(emitted)), alerts

