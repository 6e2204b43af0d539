"""Session Memory (agent 53, §3.1): the reducer. It updates on EVERY agent output (§3.5.1) and on every other
event a specialised memory records, so each of those appears in the timeline (§3.5.5).

Document (§3.1 keys; additions marked +):
    session_id, started, last_updated (earliest and latest event time, normalised UTC),
    problem {original_statement, clarified_statement, classification},
    timeline [{id (+ the event id), timestamp, event_type, agent_id, summary, details, topic +}],
    hypotheses {active [{id, ref +, statement, proposed_by, proposed_at, confidence, supporting_agents,
                opposing_agents}], resolved [{id, statement, resolution, resolved_at, final_confidence,
                resolution_basis, resolved_by +}], abandoned [{id, statement, abandoned_at, reason}]},
    decisions [{id, decision, made_at, basis, reversible, dependent_on, made_by +}],
    commitments [{id, commitment, made_by, made_at, still_valid, invalidated_by}],
    contradictions {unresolved [{id, claim_a, claim_b, detected_at, severity}],
                    resolved [{id, claim_a +, claim_b +, resolution, resolved_by, resolved_at, severity +}]},
    evidence [{id, evidence, source, supports, contradicts, strength}],
    termination + (null, or {report_id, status, at, degradation_level, confidence}).

Mapping of a message (body.content keys are read when the content is a JSON object). The vocabulary is the
one the monitor's session judge reads (`omega.agents.session`), so both see the same session; a few aliases
(`status` in hypothesis items, `abandoned`, `invalidates`, `deployment`) are accepted besides.
- timeline: one entry per message; event_type CONTRADICTION (flagged) > RESOLUTION (it resolved a
  contradiction) > DECISION (content has decisions) > DEPLOYMENT (PHI content `deploy`/`deployment`) > QUERY
  (PHI replying to INITIAL, or content `query`/`pattern_query`) > OUTPUT. Alerts, REJECTED verdicts,
  escalations and terminations add ALERT, VERDICT, ESCALATION and TERMINATION entries (+ event types).
- problem: PHI (57) content `problem` {original_statement|statement (the first one is kept),
  clarified_statement, classification}; Clarity Optimizer (47) content `clarified_statement`.
- hypotheses: content `hypothesis`/`hypotheses` (text or {id, statement, confidence, status, basis, reason}),
  `hypothesis_resolved` {statement|id, resolution, basis, modified_to} and `hypothesis_abandoned`
  {statement|id, reason}. An item names an earlier hypothesis by its producer id (`ref`) or its case/space-
  folded statement. CONFIRMED/REJECTED/MODIFIED resolve it (MODIFIED with a new statement proposes that),
  ABANDONED abandons it, SUPPORTED/OPPOSED add the speaker to its supporters/opponents, anything else proposes
  it (or, when known, updates its confidence and support). §2.2 references SUPPORTS/EXTENDS (CONTRADICTS)
  whose source_element names an active hypothesis add the speaker as supporter (opponent). Content
  `abandoned`/`abandon` (text or {statement, reason}) abandons a hypothesis or records an abandoned approach.
- decisions: `decision`/`decisions` (text or {decision, basis, reversible, dependent_on}); basis defaults to
  the summary's confidence_basis.
- commitments: `commitment`/`commitments` (text or {commitment, still_valid}); still_valid false, or content
  `invalidates_commitment`/`invalidates` naming it, invalidates a live one (invalidated_by = the speaker).
- evidence: `evidence` (text or {evidence, supports, contradicts, strength}); supports/contradicts name
  hypotheses as above (unknown names are kept as given); strength defaults from the message confidence
  (>= 0.7 STRONG, >= 0.4 MODERATE, else WEAK).
- contradictions: flags.contradiction_detected opens one per pair of agents (a repeat while open keeps it at
  the worse severity): claim_a is the speaker's verdict (or content `contradiction.claim_a`), claim_b the
  contradicted agent's latest output summary (or `contradiction.claim_b`); severity is the flag extra
  `contradiction_severity`, else blocks_progress -> FATAL, requires_resolution -> SERIOUS, else MINOR.
- resolution: a Conflict Resolver (50) message, or a PHI one with content `resolves`, that flags no
  contradiction, is not tagged [UNRESOLVABLE]/[UNRESOLVED] and has no truthy `unresolvable`, resolves the
  contradictions named in `resolves` ("ALL", contradiction ids, agent ids or [a, b] pairs); without that,
  those involving an agent it responds to, used as input or references; with no such hint, every unresolved
  one. Resolution text: content `resolution`, else the verdict.
Idempotent: an event whose id is already in the timeline changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omega.agents.session_mapping import SEVERITY_ORDER
from omega.canonical import derived_id
from projections.memories.content import contradiction_severity, statement_of
from projections.memories.documents import Draft, JSONObject, find_sorted
from projections.memories.log_events import (
    AGENT_MESSAGES,
    ALERTS,
    CONFLICT_RESOLVER,
    ESCALATIONS,
    PHI,
    TERMINATIONS,
    VERDICTS,
    LogEvent,
    MessageView,
    normalise_statement,
    number,
    read_json,
    text_of,
    time_key,
    truthy,
)
from projections.memories.session_hypotheses import hypotheses

SessionMemory = JSONObject
UNRESOLVED_TAGS = frozenset({"UNRESOLVABLE", "UNRESOLVED"})
CLARITY_OPTIMIZER = 47


def empty(session_id: str) -> SessionMemory:
    """Session Memory before its first event."""
    return {
        "session_id": session_id, "started": None, "last_updated": None,
        "problem": {"original_statement": None, "clarified_statement": None, "classification": None},
        "timeline": [], "hypotheses": {"active": [], "resolved": [], "abandoned": []},
        "decisions": [], "commitments": [], "contradictions": {"unresolved": [], "resolved": []},
        "evidence": [], "termination": None,
    }


def timeline_key(entry: Mapping[str, Any]) -> tuple[str, str]:
    """Timeline order: event time, then id (order across topics never depends on consumption order)."""
    return time_key(entry["timestamp"]), entry["id"]


def apply(memory: SessionMemory | None, event: LogEvent) -> SessionMemory:
    """Session Memory after `event` (pure: `memory` is not modified; returned as is when nothing changes)."""
    current = memory if memory is not None else empty(event.session_id)
    if not event.relevant:
        return current
    index, present = find_sorted(current["timeline"], (time_key(event.timestamp), event.event_id), timeline_key)
    if present:
        return current
    draft = Draft(current)
    if event.topic == AGENT_MESSAGES and event.message is not None:
        entry = _message(draft, event, event.message)
    elif event.topic == ALERTS:
        entry = _alert_entry(event)
    elif event.topic == TERMINATIONS:
        entry = _termination(draft, event)
    elif event.topic == VERDICTS:
        entry = _verdict_entry(event)
    elif event.topic == ESCALATIONS:
        entry = _escalation_entry(event)
    else:
        return current
    draft.list("timeline").insert(index, entry)
    at = event.timestamp
    if at is not None:
        if current["started"] is None or at < current["started"]:
            draft.doc["started"] = at
        if current["last_updated"] is None or at > current["last_updated"]:
            draft.doc["last_updated"] = at
    return draft.doc


def _entry(event: LogEvent, event_type: str, agent_id: int | None, summary: str,
           details: Mapping[str, Any]) -> JSONObject:
    return {"id": event.event_id, "timestamp": event.timestamp, "event_type": event_type, "agent_id": agent_id,
            "summary": summary, "details": dict(details), "topic": event.topic}


# ------------------------------------------------------------------------------------------- other topics
def _alert_entry(event: LogEvent) -> JSONObject:
    record = event.record
    details = read_json(record.get("details"))
    facts = details.get("facts") if isinstance(details, dict) else None
    agent = facts.get("agent_id") if isinstance(facts, dict) else None
    return _entry(event, "ALERT", agent if isinstance(agent, int) and not isinstance(agent, bool) else None,
                  str(record.get("message", "")),
                  {"alert_id": record.get("alert_id"), "kind": record.get("kind"),
                   # the spec's own label (an alert written before issue 23 has only `severity`, that label)
                   "severity": record.get("spec_severity") or record.get("severity"),
                   "source_event_id": record.get("source_event_id")})


def _termination(draft: Draft, event: LogEvent) -> JSONObject:
    record = event.record
    status = str(record.get("status", ""))
    outcome = record.get("answer") or record.get("partial_answer") or record.get("why_failed") or ""
    info = {"report_id": record.get("report_id"), "status": status, "at": event.timestamp,
            "degradation_level": record.get("degradation_level"), "confidence": number(record.get("confidence"))}
    draft.doc["termination"] = info
    return _entry(event, "TERMINATION", None, f"{status}: {text_of(outcome)}".rstrip(": "),
                  {**info, "failure_type": record.get("failure_type")})


def _verdict_entry(event: LogEvent) -> JSONObject:
    record = event.record
    rules = sorted({str(v.get("rule")) for v in record.get("violations") or ()
                    if isinstance(v, dict) and v.get("severity") == "ERROR"})
    return _entry(event, "VERDICT", None,
                  f"{record.get('packet_type')} {record.get('packet_id')} REJECTED: {', '.join(rules)}",
                  {"verdict_id": record.get("verdict_id"), "packet_id": record.get("packet_id"),
                   "packet_type": record.get("packet_type"), "rules": rules})


def _escalation_entry(event: LogEvent) -> JSONObject:
    record = event.record
    return _entry(event, "ESCALATION", None, str(record.get("reason", "")),
                  {"escalation_id": record.get("escalation_id"), "level": record.get("level"),
                   "source_event_id": record.get("source_event_id")})


# ------------------------------------------------------------------------------------------- messages
def _message(draft: Draft, event: LogEvent, view: MessageView) -> JSONObject:
    if view.agent_id in (PHI, CLARITY_OPTIMIZER):
        _problem(draft, view)
    hypotheses(draft, event, view)
    decided = _decisions(draft, event, view)
    _commitments(draft, event, view)
    _evidence(draft, event, view)
    resolved = 0
    if view.contradiction_detected:
        _contradiction(draft, event, view)
    elif (view.agent_id == CONFLICT_RESOLVER or (view.agent_id == PHI and view.get("resolves") is not None)) \
            and view.tag not in UNRESOLVED_TAGS and not truthy(view.get("unresolvable")):
        resolved = _resolve(draft, view)
    if view.contradiction_detected:
        event_type = "CONTRADICTION"
    elif resolved:
        event_type = "RESOLUTION"
    elif decided:
        event_type = "DECISION"
    elif view.agent_id == PHI and (view.get("deploy") is not None or view.get("deployment") is not None):
        event_type = "DEPLOYMENT"
    elif view.agent_id == PHI and (view.responding_to == "INITIAL" or view.get("query") is not None
                                   or view.get("pattern_query") is not None):
        event_type = "QUERY"
    else:
        event_type = "OUTPUT"
    flags = [name for name, on in (("contradiction_detected", view.contradiction_detected),
                                   ("requires_resolution", view.requires_resolution),
                                   ("blocks_progress", view.blocks_progress),
                                   ("confidence_critical", view.confidence_critical)) if on]
    return _entry(event, event_type, view.agent_id, view.verdict,
                  {"message_id": view.message_id, "iteration": view.iteration, "confidence": view.confidence,
                   "tier": view.tier, "tag": view.tag, "flags": flags, "responding_to": view.responding_to})


def _problem(draft: Draft, view: MessageView) -> None:
    problem = view.get("problem")
    if view.agent_id == CLARITY_OPTIMIZER:
        problem = {"clarified_statement": view.get("clarified_statement")}
    if not isinstance(problem, dict):
        return
    current = draft.read("problem")
    if problem.get("original_statement") is None and problem.get("statement") is not None:
        problem = {**problem, "original_statement": problem["statement"]}
    updates = {name: text_of(problem[name]) for name in ("original_statement", "clarified_statement",
                                                         "classification") if problem.get(name) is not None}
    if current["original_statement"] is not None:
        updates.pop("original_statement", None)  # the original statement is the first one given
    if any(current[k] != v for k, v in updates.items()):
        draft.obj("problem").update(updates)


def _decisions(draft: Draft, event: LogEvent, view: MessageView) -> int:
    made = 0
    for index, item in enumerate(view.items("decision", "decisions")):
        text = statement_of(item, "decision", "statement")
        if not text:
            continue
        obj = item if isinstance(item, dict) else {}
        known = draft.read("decisions")
        depends: list[str] = []
        for name in obj.get("dependent_on") or ():
            folded = normalise_statement(text_of(name))
            match = next((d["id"] for d in known if d.get("ref") == text_of(name)
                          or normalise_statement(d["decision"]) == folded), text_of(name))
            depends.append(match)
        reversible = obj.get("reversible")
        draft.list("decisions").append(
            {"id": derived_id("dec_", event.event_id, str(index)),
             "ref": text_of(obj["id"]) if obj.get("id") is not None else None, "decision": text,
             "made_at": view.timestamp, "basis": text_of(obj.get("basis"), view.confidence_basis),
             "reversible": reversible if isinstance(reversible, bool) else True, "dependent_on": depends,
             "made_by": view.agent_id})
        made += 1
    return made


def _commitments(draft: Draft, event: LogEvent, view: MessageView) -> None:
    invalidated = [statement_of(i, "commitment", "statement")
                   for i in view.items("invalidates") + view.items("invalidates_commitment")]
    for index, item in enumerate(view.items("commitment", "commitments")):
        text = statement_of(item, "commitment", "statement")
        if not text:
            continue
        if isinstance(item, dict) and item.get("still_valid") is False:
            invalidated.append(text)
            continue
        folded = normalise_statement(text)
        if any(c["still_valid"] and normalise_statement(c["commitment"]) == folded
               for c in draft.read("commitments")):
            continue  # restating a live commitment is not a new one
        draft.list("commitments").append(
            {"id": derived_id("com_", event.event_id, str(index)), "commitment": text, "made_by": view.agent_id,
             "made_at": view.timestamp, "still_valid": True, "invalidated_by": None})
    for text in invalidated:
        folded = normalise_statement(text)
        for position, entry in enumerate(draft.read("commitments")):
            if entry["still_valid"] and normalise_statement(entry["commitment"]) == folded:
                draft.list("commitments")[position] = {**entry, "still_valid": False,
                                                       "invalidated_by": view.agent_id}


def _hypothesis_ids(draft: Draft, names: Any) -> list[str]:
    out: list[str] = []
    pools = (draft.read("hypotheses", "active"), draft.read("hypotheses", "resolved"))
    for name in names if isinstance(names, list) else ([] if names is None else [names]):
        text = text_of(name)
        folded = normalise_statement(text)
        found = next((h["id"] for pool in pools for h in pool
                      if h.get("ref") == text or normalise_statement(h["statement"]) == folded or h["id"] == text),
                     text)
        out.append(found)
    return out


def _evidence(draft: Draft, event: LogEvent, view: MessageView) -> None:
    for index, item in enumerate(view.items("evidence")):
        text = statement_of(item, "evidence", "statement")
        if not text:
            continue
        obj = item if isinstance(item, dict) else {}
        strength = text_of(obj.get("strength")).upper()
        if strength not in ("STRONG", "MODERATE", "WEAK"):
            conf = view.confidence or 0.0
            strength = "STRONG" if conf >= 0.7 else "MODERATE" if conf >= 0.4 else "WEAK"
        draft.list("evidence").append(
            {"id": derived_id("evd_", event.event_id, str(index)), "evidence": text, "source": view.agent_id,
             "supports": _hypothesis_ids(draft, obj.get("supports")),
             "contradicts": _hypothesis_ids(draft, obj.get("contradicts")), "strength": strength})


def _latest_output(draft: Draft, agent: int | None) -> str:
    if agent is None:
        return ""
    for entry in reversed(draft.read("timeline")):
        if entry["agent_id"] == agent and entry["topic"] == AGENT_MESSAGES:
            return str(entry["summary"])
    return ""


def _contradiction(draft: Draft, event: LogEvent, view: MessageView) -> None:
    given = view.get("contradiction")
    given = given if isinstance(given, dict) else {}
    severity = contradiction_severity(view)
    pair = {view.agent_id, view.contradiction_with}
    unresolved = draft.read("contradictions", "unresolved")
    for index, open_ in enumerate(unresolved):
        if {open_["claim_a"]["agent_id"], open_["claim_b"]["agent_id"]} == pair:
            # The same two agents again while it is open: one contradiction, at the worse severity.
            if SEVERITY_ORDER.index(severity) > SEVERITY_ORDER.index(open_["severity"]):
                draft.list("contradictions", "unresolved")[index] = {**open_, "severity": severity}
            return
    draft.list("contradictions", "unresolved").append(
        {"id": derived_id("con_", event.event_id),
         "claim_a": {"agent_id": view.agent_id, "statement": text_of(given.get("claim_a"), view.verdict)},
         "claim_b": {"agent_id": view.contradiction_with,
                     "statement": text_of(given.get("claim_b"), _latest_output(draft, view.contradiction_with))},
         "detected_at": view.timestamp, "severity": severity})


def _resolve(draft: Draft, view: MessageView) -> int:
    unresolved = draft.read("contradictions", "unresolved")
    if not unresolved:
        return 0
    named = view.items("resolves")
    pairs: list[set[Any]] = [set(n) for n in named if isinstance(n, list) and all(isinstance(a, int) for a in n)]
    if any(isinstance(n, str) and n.strip().upper() == "ALL" for n in named):
        named, ids, agents = [], set(), set()
    elif named:
        ids = {n for n in named if isinstance(n, str)}
        agents = {n for n in named if isinstance(n, int) and not isinstance(n, bool)}
    else:
        ids = set()
        agents = {*view.inputs_used, *(r.source_agent for r in view.references)}
        if isinstance(view.responding_to, int):
            agents.add(view.responding_to)
    everything = not named and not agents
    chosen = [c for c in unresolved if everything or c["id"] in ids
              or c["claim_a"]["agent_id"] in agents or c["claim_b"]["agent_id"] in agents
              or {c["claim_a"]["agent_id"], c["claim_b"]["agent_id"]} in pairs]
    if not chosen:
        return 0
    resolution = view.get("resolution")
    text = statement_of(resolution, "resolution", "summary") if resolution is not None else view.verdict
    keep = [c for c in unresolved if c not in chosen]
    draft.obj("contradictions")["unresolved"] = keep
    resolved = draft.list("contradictions", "resolved")
    for c in chosen:
        resolved.append({"id": c["id"], "claim_a": c["claim_a"], "claim_b": c["claim_b"],
                         "resolution": text or view.verdict, "resolved_by": view.agent_id,
                         "resolved_at": view.timestamp, "severity": c["severity"]})
    return len(chosen)
