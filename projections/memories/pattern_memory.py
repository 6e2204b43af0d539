"""Pattern Memory (agent 54, §3.2): the reducer, on the pattern detection triggers of §3.5.2.

Document (§3.2 keys; additions marked +):
    session_id +, classification + (the session's current problem class), outcome + (termination status),
    problem_patterns [{id, name, description, signature [{indicator, weight}], typical_trajectory,
                       success_rate, recommended_agents, recommended_approach, anti_patterns,
                       examples [{problem, outcome, event_id +}], event_ids +}],
    solution_patterns [{id, name, description, applicable_when, steps, success_rate, failure_modes,
                        derived_from + (success ids), event_ids +}],
    reasoning_patterns [] (no input names one yet),
    failure_patterns [{id, name, signature, typical_cause, prevention, derived_from + (failure and warning
                       ids), event_ids +}],
    current_matches [{pattern_id, pattern +, match_strength, evidence, implications, matched_by +,
                      matched_at +, event_id +}],
    queries + [{id, query, asked_by, asked_at, matches (problem pattern ids), event_id}].

Triggers and mapping:
- New problem classification: PHI (57) content `problem.classification` different from the current one ->
  `classification`, and the problem pattern of that name (created if new) gains an example {problem: the
  problem statement given, else the verdict; outcome: the session outcome once known}.
- Match strength > 0.7: content `pattern_match`/`pattern_matches` ({pattern|name, strength|match_strength,
  evidence, implications}) from any agent -> the current match for that pattern (the latest replaces it) and
  the pattern's signature gains the evidence as indicators weighted by the strength. 0.7 itself is no match.
- Explicit pattern query: PHI content `pattern_query` (text or {pattern|query}) -> a query entry listing
  the problem patterns whose name contains the query text (case-folded).
- Every failure and active warning of the event (`projections.memories.triggers`) -> the failure pattern of its name;
  every success -> the solution pattern of its name (§3.5.5: these exist in Failure / Success Memory).
- A termination report -> `outcome`; every example takes it, and problem patterns' success_rate becomes this
  session's score (SUCCESS 1.0, PARTIAL 0.5, FAILURE 0.0; null before). Rates across sessions are the
  store's queries, not a per-session reducer's business.
Pattern ids derive from the pattern kind and case-folded name (`pat_`), so the same pattern has one id in every
session; what feeds a pattern is kept as sorted sets, so the result does not depend on the order in which
topics are consumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omega.canonical import derived_id
from projections.memories.content import strings
from projections.memories.documents import Draft, JSONObject, by_id, insert_sorted, union_sorted
from projections.memories.log_events import (
    PHI,
    TERMINATIONS,
    LogEvent,
    MessageView,
    normalise_statement,
    number,
    text_of,
)
from projections.memories.triggers import MATCH_THRESHOLD, failures, successes, warnings

PatternMemory = JSONObject
OUTCOME_SCORE = {"SUCCESS": 1.0, "PARTIAL": 0.5, "FAILURE": 0.0}


def empty(session_id: str) -> PatternMemory:
    """Pattern Memory before its first trigger."""
    return {"session_id": session_id, "classification": None, "outcome": None, "problem_patterns": [],
            "solution_patterns": [], "reasoning_patterns": [], "failure_patterns": [], "current_matches": [],
            "queries": []}


def pattern_id(kind: str, name: str) -> str:
    """The id of a pattern: its kind (problem, solution, failure) and case-folded name, the same everywhere."""
    return derived_id("pat_", kind, normalise_statement(name))


def _by_pattern(entry: Mapping[str, Any]) -> tuple[str, str]:
    return entry["pattern_id"], ""


def apply(memory: PatternMemory | None, event: LogEvent) -> PatternMemory:
    """Pattern Memory after `event` (pure; returned as is when no trigger fires)."""
    current = memory if memory is not None else empty(event.session_id)
    if not event.relevant:
        return current
    draft = Draft(current)
    changed = False
    view = event.message
    if view is not None:
        changed |= _classification(draft, event, view)
        changed |= _matches(draft, event, view)
        changed |= _query(draft, event, view)
    for failure in failures(event):
        changed |= _feed(draft, "failure_patterns", pattern_id("failure", failure.pattern), failure.pattern,
                         failure.id, event.event_id, {"signature": list(failure.warning_signs),
                                                      "typical_cause": failure.typical_cause,
                                                      "prevention": [p["action"] for p in failure.prevention]})
    for warning in warnings(event):
        changed |= _feed(draft, "failure_patterns", pattern_id("failure", warning.pattern), warning.pattern,
                         warning.id, event.event_id, {"signature": [f"{warning.pattern} alert"],
                                                      "typical_cause": f"{warning.pattern} alert",
                                                      "prevention": [warning.recommended_action]})
    for success in successes(event):
        changed |= _feed(draft, "solution_patterns", pattern_id("solution", success.pattern), success.pattern,
                         success.id, event.event_id, {"description": success.description,
                                                      "applicable_when": list(success.applicable_when),
                                                      "steps": list(success.steps)})
    if event.topic == TERMINATIONS:
        changed |= _outcome(draft, str(event.record.get("status", "")))
    return draft.doc if changed else current


# ------------------------------------------------------------------------------------------- problem patterns
def _problem_pattern(draft: Draft, name: str) -> tuple[int, JSONObject]:
    """Index and a fresh copy of the problem pattern `name` (a new one at its sorted place when unknown)."""
    pid = pattern_id("problem", name)
    patterns = draft.list("problem_patterns")
    for index, entry in enumerate(patterns):
        if entry["id"] == pid:
            return index, dict(entry)
    entry = {"id": pid, "name": name, "description": "", "signature": [], "typical_trajectory": "",
             "success_rate": OUTCOME_SCORE.get(draft.read("outcome") or ""), "recommended_agents": [],
             "recommended_approach": "", "anti_patterns": [], "examples": [], "event_ids": []}
    grown = insert_sorted(patterns, entry, by_id)
    assert grown is not None  # the id was not there
    patterns[:] = grown
    return grown.index(entry), dict(entry)


def _classification(draft: Draft, event: LogEvent, view: MessageView) -> bool:
    problem = view.get("problem")
    if view.agent_id != PHI or not isinstance(problem, dict) or problem.get("classification") is None:
        return False
    name = text_of(problem["classification"])
    if not name or name == draft.read("classification"):
        return False  # only a NEW classification triggers (§3.5.2)
    draft.doc["classification"] = name
    index, entry = _problem_pattern(draft, name)
    statement = problem.get("clarified_statement") or problem.get("original_statement") or view.verdict
    if not entry["description"]:
        entry["description"] = text_of(problem.get("description"), f"Problems classified as {name}")
    agents = problem.get("recommended_agents") or []
    entry["recommended_agents"] = union_sorted(
        entry["recommended_agents"], *(a for a in agents if isinstance(a, int) and not isinstance(a, bool)))
    if problem.get("recommended_approach") is not None:
        entry["recommended_approach"] = text_of(problem["recommended_approach"])
    if all(e["event_id"] != event.event_id for e in entry["examples"]):
        entry["examples"] = [*entry["examples"], {"problem": text_of(statement), "outcome": draft.read("outcome"),
                                                  "event_id": event.event_id}]
    entry["event_ids"] = union_sorted(entry["event_ids"], event.event_id)
    draft.list("problem_patterns")[index] = entry
    return True


def _matches(draft: Draft, event: LogEvent, view: MessageView) -> bool:
    changed = False
    for item in view.items("pattern_match", "pattern_matches"):
        if not isinstance(item, dict):
            continue
        name = text_of(item.get("pattern", item.get("name")))
        strength = number(item.get("strength", item.get("match_strength")))
        if not name or strength is None or strength <= MATCH_THRESHOLD:
            continue
        evidence = list(strings(item.get("evidence")))
        index, entry = _problem_pattern(draft, name)
        signature = {s["indicator"]: s for s in entry["signature"]}
        for indicator in evidence:
            signature[indicator] = {"indicator": indicator, "weight": strength}
        entry["signature"] = [signature[k] for k in sorted(signature)]
        entry["event_ids"] = union_sorted(entry["event_ids"], event.event_id)
        draft.list("problem_patterns")[index] = entry
        match = {"pattern_id": entry["id"], "pattern": name, "match_strength": strength, "evidence": evidence,
                 "implications": list(strings(item.get("implications"))), "matched_by": view.agent_id,
                 "matched_at": view.timestamp, "event_id": event.event_id}
        matches = draft.list("current_matches")
        kept = [m for m in matches if m["pattern_id"] != entry["id"]]
        grown = insert_sorted(kept, match, _by_pattern)
        assert grown is not None  # the pattern's previous match was just removed
        matches[:] = grown
        changed = True
    return changed


def _query(draft: Draft, event: LogEvent, view: MessageView) -> bool:
    asked = view.get("pattern_query")
    if view.agent_id != PHI or asked is None:
        return False
    text = text_of(asked.get("pattern", asked.get("query"))) if isinstance(asked, dict) else text_of(asked)
    folded = normalise_statement(text)
    found = [p["id"] for p in draft.read("problem_patterns") if folded and folded in normalise_statement(p["name"])]
    entry = {"id": derived_id("pq_", event.event_id), "query": text, "asked_by": view.agent_id,
             "asked_at": view.timestamp, "matches": sorted(found), "event_id": event.event_id}
    return draft.insert("queries", entry, by_id)


# ------------------------------------------------------------------------------------------- fed patterns
def _feed(draft: Draft, collection: str, pid: str, name: str, source_id: str, event_id: str,
          facts: Mapping[str, Any]) -> bool:
    """Add one failure (or success) to the pattern of its name; order-independent, idempotent."""
    patterns = draft.read(collection)
    index = next((i for i, p in enumerate(patterns) if p["id"] == pid), None)
    if index is not None and source_id in patterns[index]["derived_from"]:
        return False
    entry = _new_fed(collection, pid, name) if index is None else dict(patterns[index])
    entry["derived_from"] = union_sorted(entry["derived_from"], source_id)
    entry["event_ids"] = union_sorted(entry["event_ids"], event_id)
    if collection == "failure_patterns":
        entry["signature"] = union_sorted(entry["signature"], *facts["signature"])
        causes = [c for c in (entry["typical_cause"], facts["typical_cause"]) if c]
        entry["typical_cause"] = min(causes) if causes else ""  # min: the same whichever came first
        entry["prevention"] = "; ".join(union_sorted(
            [p for p in entry["prevention"].split("; ") if p], *(p for p in facts["prevention"] if p)))
    else:
        # Successes come from agent messages only (one partition, fixed order): first given wins.
        entry["description"] = entry["description"] or facts["description"]
        entry["applicable_when"] = union_sorted(entry["applicable_when"], *facts["applicable_when"])
        entry["steps"] = entry["steps"] or facts["steps"]
    target = draft.list(collection)
    if index is None:
        grown = insert_sorted(target, entry, by_id)
        assert grown is not None
        target[:] = grown
    else:
        target[index] = entry
    return True


def _new_fed(collection: str, pid: str, name: str) -> JSONObject:
    if collection == "failure_patterns":
        return {"id": pid, "name": name, "signature": [], "typical_cause": "", "prevention": "",
                "derived_from": [], "event_ids": []}
    return {"id": pid, "name": name, "description": "", "applicable_when": [], "steps": [], "success_rate": None,
            "failure_modes": [], "derived_from": [], "event_ids": []}


def _outcome(draft: Draft, status: str) -> bool:
    if not status or draft.read("outcome") == status:
        return False
    draft.doc["outcome"] = status
    score = OUTCOME_SCORE.get(status)
    patterns = draft.list("problem_patterns")
    for index, entry in enumerate(patterns):
        patterns[index] = {**entry, "success_rate": score,
                           "examples": [{**e, "outcome": status} for e in entry["examples"]]}
    return True
