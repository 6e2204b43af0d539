"""Failure Memory (agent 55, §3.3): the reducer, on the failure triggers of §3.5.3.

Which events count is decided in `projections.memories.triggers` (shared with Pattern Memory): self-reported failures,
contradictions detected, approaches abandoned, Quality Controller rejections, the seven OMEGA-57 failure
signature alerts and every CRITICAL alert, REJECTED OMEN packet verdicts and FAILURE terminations; alerts
below that bar become active warnings.

Document (§3.3 keys; additions marked +):
    session_id +,
    session_failures [{id, failure_type, description, occurred_at, agent_id,
                       analysis {immediate_cause, contributing_factors, root_cause, predictable,
                                 warning_signs_missed},
                       lessons [{lesson, application}], prevention [{condition, action}],
                       pattern +, pattern_id +, trigger +, severity +, escalation_level +, event_id +}],
    historical_failures [] (across sessions: the store's `failures(pattern=...)` query answers it),
    active_warnings [{id +, pattern_id, pattern +, warning_sign, detected_at, severity, recommended_action,
                      event_id +}],
    failure_rules [{id, rule ("When <condition>: <action>", one per distinct prevention item),
                    derived_from (failure ids), violations_caught (failures after the first that the rule
                    covers)}].
Time-ordered lists are sorted by (time, id) and rules by id, so the document does not depend on the order in
which topics are consumed; an entry already present (a redelivered event) is not added again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omega.canonical import derived_id
from projections.memories.documents import Draft, JSONObject, find_sorted, insert_sorted, union_sorted
from projections.memories.log_events import LogEvent, normalise_statement, time_key
from projections.memories.pattern_memory import pattern_id
from projections.memories.triggers import FailureSignal, WarningSignal, failures, warnings

FailureMemory = JSONObject


def empty(session_id: str) -> FailureMemory:
    """Failure Memory before its first failure."""
    return {"session_id": session_id, "session_failures": [], "historical_failures": [], "active_warnings": [],
            "failure_rules": []}


def _by_time(name: str) -> Any:
    def key(entry: Mapping[str, Any]) -> tuple[str, str]:
        return time_key(entry[name]), entry["id"]
    return key


BY_OCCURRED = _by_time("occurred_at")
BY_DETECTED = _by_time("detected_at")


def _by_id(entry: Mapping[str, Any]) -> tuple[str, str]:
    return entry["id"], ""


def apply(memory: FailureMemory | None, event: LogEvent) -> FailureMemory:
    """Failure Memory after `event` (pure; returned as is when the event reports no failure)."""
    current = memory if memory is not None else empty(event.session_id)
    found, warned = failures(event), warnings(event)
    if not found and not warned:
        return current
    draft = Draft(current)
    changed = False
    for failure in found:
        changed |= _failure(draft, failure)
    for warning in warned:
        changed |= _warning(draft, warning)
    return draft.doc if changed else current


def _failure(draft: Draft, failure: FailureSignal) -> bool:
    entry = {
        "id": failure.id, "failure_type": failure.failure_type, "description": failure.description,
        "occurred_at": failure.occurred_at, "agent_id": failure.agent_id, "analysis": dict(failure.analysis),
        "lessons": [dict(x) for x in failure.lessons], "prevention": [dict(x) for x in failure.prevention],
        "pattern": failure.pattern, "pattern_id": pattern_id("failure", failure.pattern),
        "trigger": failure.trigger, "severity": failure.severity, "escalation_level": failure.escalation_level,
        "event_id": failure.event_id,
    }
    grown = insert_sorted(draft.read("session_failures"), entry, BY_OCCURRED)
    if grown is None:
        return False
    draft.doc["session_failures"] = grown
    for item in failure.prevention:
        if item["action"]:
            _rule(draft, f"When {item['condition']}: {item['action']}", failure.id)
    return True


def _rule(draft: Draft, text: str, failure_id: str) -> None:
    rule_id = derived_id("rule_", normalise_statement(text))
    rules = draft.list("failure_rules")
    index, present = find_sorted(rules, (rule_id, ""), _by_id)
    if present:
        derived = union_sorted(rules[index]["derived_from"], failure_id)
        rules[index] = {**rules[index], "derived_from": derived, "violations_caught": len(derived) - 1}
    else:
        rules.insert(index, {"id": rule_id, "rule": text, "derived_from": [failure_id], "violations_caught": 0})


def _warning(draft: Draft, warning: WarningSignal) -> bool:
    entry = {"id": warning.id, "pattern_id": pattern_id("failure", warning.pattern), "pattern": warning.pattern,
             "warning_sign": warning.warning_sign, "detected_at": warning.detected_at, "severity": warning.severity,
             "recommended_action": warning.recommended_action, "event_id": warning.event_id}
    grown = insert_sorted(draft.read("active_warnings"), entry, BY_DETECTED)
    if grown is None:
        return False
    draft.doc["active_warnings"] = grown
    return True
