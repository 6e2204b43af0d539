"""Session Memory's hypotheses (§3.1 `hypotheses`): proposed, supported or opposed, resolved (CONFIRMED, REJECTED,
MODIFIED) and abandoned, by a message's content items and its references (see `session_memory`'s docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omega.canonical import derived_id
from projections.memories.content import hypothesis_items, statement_of, status_of
from projections.memories.documents import Draft, union_sorted
from projections.memories.log_events import LogEvent, MessageView, normalise_statement, number, text_of

RESOLVING = ("CONFIRMED", "REJECTED", "MODIFIED")


def _matches(entry: Mapping[str, Any], ref: str | None, folded: str) -> bool:
    return (ref is not None and entry.get("ref") == ref) or normalise_statement(entry["statement"]) == folded


def _find(entries: list[Any], ref: str | None, folded: str) -> int | None:
    for index in range(len(entries) - 1, -1, -1):  # the latest of equal statements is the live one
        if _matches(entries[index], ref, folded):
            return index
    return None


def hypotheses(draft: Draft, event: LogEvent, view: MessageView) -> None:
    """The hypotheses `view` proposes, supports, opposes, resolves or abandons, applied to the draft's."""
    at, agent = view.timestamp, view.agent_id
    for index, item in enumerate(hypothesis_items(view)):
        obj = item if isinstance(item, dict) else {}
        ref = text_of(obj["id"]) if obj.get("id") is not None else None
        statement = statement_of(item, "statement")
        folded = normalise_statement(statement)
        found = _find(draft.read("hypotheses", "active"), ref, folded)
        if not statement:
            if found is None:
                continue  # names nothing known and states nothing
            statement = draft.read("hypotheses", "active")[found]["statement"]  # named by its producer id only
        status = status_of(obj)
        given = number(obj.get("confidence"))
        confidence = view.confidence if given is None else given
        basis = text_of(obj.get("basis", obj.get("resolution_basis", obj.get("reason"))), view.confidence_basis)
        new_id = derived_id("hyp_", event.event_id, str(index))
        if status in RESOLVING and found is None:
            done = _find(draft.read("hypotheses", "resolved"), ref, folded)
            if done is not None and draft.read("hypotheses", "resolved")[done]["resolution"] == status:
                continue  # a second agent confirming a resolved hypothesis resolves nothing new
        if status in RESOLVING or status == "ABANDONED":
            if found is not None:
                old = draft.list("hypotheses", "active").pop(found)
                hyp_id, statement = old["id"], old["statement"]
            else:
                hyp_id = new_id
            if status == "ABANDONED":
                draft.list("hypotheses", "abandoned").append(
                    {"id": hyp_id, "statement": statement, "abandoned_at": at, "reason": basis})
                continue
            draft.list("hypotheses", "resolved").append(
                {"id": hyp_id, "statement": statement, "resolution": status, "resolved_at": at,
                 "final_confidence": confidence, "resolution_basis": basis, "resolved_by": agent})
            replacement = obj.get("new_statement", obj.get("modified_to"))
            if status == "MODIFIED" and replacement is not None:
                _propose(draft, derived_id("hyp_", event.event_id, str(index), "modified"), None,
                         text_of(replacement), agent, at, confidence, "ACTIVE")
        elif found is None:
            _propose(draft, new_id, ref, statement, agent, at, confidence, status)
        else:
            _support(draft, found, agent, status, given)
    for ref_ in view.references:
        if ref_.type in ("SUPPORTS", "EXTENDS", "CONTRADICTS") and ref_.source_element:
            found = _find(draft.read("hypotheses", "active"), None, normalise_statement(ref_.source_element))
            if found is not None:
                _support(draft, found, agent, "OPPOSED" if ref_.type == "CONTRADICTS" else "SUPPORTED", None)
    _abandon(draft, event, view)


def _abandon(draft: Draft, event: LogEvent, view: MessageView) -> None:
    """Content `abandoned`/`abandon`: an active hypothesis, or an approach that never was one."""
    at = view.timestamp
    for index, item in enumerate(view.items("abandoned", "abandon")):
        statement = statement_of(item, "statement", "approach", "hypothesis")
        if not statement:
            continue
        reason = text_of(item.get("reason"), view.verdict) if isinstance(item, dict) else view.verdict
        found = _find(draft.read("hypotheses", "active"), None, normalise_statement(statement))
        hyp_id = derived_id("hyp_", event.event_id, "abandoned", str(index))
        if found is not None:
            old = draft.list("hypotheses", "active").pop(found)
            hyp_id, statement = old["id"], old["statement"]
        draft.list("hypotheses", "abandoned").append(
            {"id": hyp_id, "statement": statement, "abandoned_at": at, "reason": reason})


def _propose(draft: Draft, hyp_id: str, ref: str | None, statement: str, agent: int, at: str | None,
             confidence: float | None, status: str) -> None:
    draft.list("hypotheses", "active").append(
        {"id": hyp_id, "ref": ref, "statement": statement, "proposed_by": agent, "proposed_at": at,
         "confidence": confidence, "supporting_agents": [agent] if status != "OPPOSED" else [],
         "opposing_agents": [agent] if status == "OPPOSED" else []})


def _support(draft: Draft, index: int, agent: int, status: str, confidence: float | None) -> None:
    active = draft.list("hypotheses", "active")
    entry = dict(active[index])
    side = "opposing_agents" if status == "OPPOSED" else "supporting_agents"
    if agent not in entry[side]:
        entry[side] = union_sorted(entry[side], agent)
    if confidence is not None:
        entry["confidence"] = confidence
    if entry != active[index]:
        active[index] = entry
