"""Success Memory (agent 56, §3.4): the reducer, on the success triggers of §3.5.4.

Which events count is decided in `projections.memories.triggers` (shared with Pattern Memory): breakthroughs flagged by
any agent, hypotheses confirmed with HIGH confidence (>= 0.8), Quality Controller approvals ([SHIP],
[SHIP WITH CAVEATS]) and what PHI marks brilliant.

Document (§3.4 keys; additions marked +):
    session_id +,
    session_successes [{id, success_type, description, occurred_at, agent_id,
                        analysis {key_insight, enabling_conditions, execution_factors},
                        replicability {transferable_elements, context_dependent_elements, required_conditions},
                        pattern +, pattern_id +, trigger +, event_id +}],
    historical_successes [] (across sessions: the store's `successes(pattern=...)` query answers it),
    brilliant_ideas [{id, idea, context, why_brilliant, captured_at, agent_id, filed_to, event_id +}],
    success_heuristics [{id, heuristic (a success's `heuristic` text), derived_from (success ids),
                         applications (how many successes gave it), success_rate (null: not a per-session
                         figure)}].
Time-ordered lists are sorted by (time, id) and heuristics by id; an entry already present is not added again.
"""

from __future__ import annotations

from omega.canonical import derived_id
from projections.memories.documents import Draft, JSONObject, by_time, derive, edited
from projections.memories.log_events import LogEvent, normalise_statement
from projections.memories.pattern_memory import pattern_id
from projections.memories.triggers import BrilliantSignal, SuccessSignal, brilliant, successes

SuccessMemory = JSONObject


def empty(session_id: str) -> SuccessMemory:
    """Success Memory before its first success."""
    return {"session_id": session_id, "session_successes": [], "historical_successes": [], "brilliant_ideas": [],
            "success_heuristics": []}


BY_OCCURRED = by_time("occurred_at")
BY_CAPTURED = by_time("captured_at")


def apply(memory: SuccessMemory | None, event: LogEvent) -> SuccessMemory:
    """Success Memory after `event` (pure; returned as is when the event reports no success)."""
    current = memory if memory is not None else empty(event.session_id)
    return edited(current, (_success, successes(event)), (_idea, brilliant(event)))


def _success(draft: Draft, success: SuccessSignal) -> bool:
    entry = {
        "id": success.id, "success_type": success.success_type, "description": success.description,
        "occurred_at": success.occurred_at, "agent_id": success.agent_id, "analysis": dict(success.analysis),
        "replicability": dict(success.replicability), "pattern": success.pattern,
        "pattern_id": pattern_id("solution", success.pattern), "trigger": success.trigger,
        "event_id": success.event_id,
    }
    if not draft.insert("session_successes", entry, BY_OCCURRED):
        return False
    if success.heuristic:
        heuristic = {"id": derived_id("heur_", normalise_statement(success.heuristic)),
                     "heuristic": success.heuristic, "success_rate": None}
        derive(draft, "success_heuristics", heuristic, success.id, "applications", uncounted=0)
    return True


def _idea(draft: Draft, idea: BrilliantSignal) -> bool:
    entry = {"id": idea.id, "idea": idea.idea, "context": idea.context, "why_brilliant": idea.why_brilliant,
             "captured_at": idea.captured_at, "agent_id": idea.agent_id, "filed_to": idea.filed_to,
             "event_id": idea.event_id}
    return draft.insert("brilliant_ideas", entry, BY_CAPTURED)
