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

from omega.canonical import derived_id
from projections.memories.documents import Draft, JSONObject, by_time, derive, edited
from projections.memories.log_events import LogEvent, normalise_statement
from projections.memories.pattern_memory import pattern_id
from projections.memories.triggers import FailureSignal, WarningSignal, failures, warnings

FailureMemory = JSONObject


def empty(session_id: str) -> FailureMemory:
    """Failure Memory before its first failure."""
    return {"session_id": session_id, "session_failures": [], "historical_failures": [], "active_warnings": [],
            "failure_rules": []}


BY_OCCURRED = by_time("occurred_at")
BY_DETECTED = by_time("detected_at")


def apply(memory: FailureMemory | None, event: LogEvent) -> FailureMemory:
    """Failure Memory after `event` (pure; returned as is when the event reports no failure)."""
    current = memory if memory is not None else empty(event.session_id)
    return edited(current, (_failure, failures(event)), (_warning, warnings(event)))


def _failure(draft: Draft, failure: FailureSignal) -> bool:
    entry = {
        "id": failure.id, "failure_type": failure.failure_type, "description": failure.description,
        "occurred_at": failure.occurred_at, "agent_id": failure.agent_id, "analysis": dict(failure.analysis),
        "lessons": [dict(x) for x in failure.lessons], "prevention": [dict(x) for x in failure.prevention],
        "pattern": failure.pattern, "pattern_id": pattern_id("failure", failure.pattern),
        "trigger": failure.trigger, "severity": failure.severity, "escalation_level": failure.escalation_level,
        "event_id": failure.event_id,
    }
    if not draft.insert("session_failures", entry, BY_OCCURRED):
        return False
    for item in failure.prevention:
        if item["action"]:
            text = f"When {item['condition']}: {item['action']}"
            rule = {"id": derived_id("rule_", normalise_statement(text)), "rule": text}
            # the first failure a rule is drawn from is not a violation it caught
            derive(draft, "failure_rules", rule, failure.id, "violations_caught", uncounted=1)
    return True


def _warning(draft: Draft, warning: WarningSignal) -> bool:
    entry = {"id": warning.id, "pattern_id": pattern_id("failure", warning.pattern), "pattern": warning.pattern,
             "warning_sign": warning.warning_sign, "detected_at": warning.detected_at, "severity": warning.severity,
             "recommended_action": warning.recommended_action, "event_id": warning.event_id}
    return draft.insert("active_warnings", entry, BY_DETECTED)
