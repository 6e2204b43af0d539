"""Session Memory (§3.1) and sync rule 1: every agent output, and every event a specialised memory records,
is in the timeline; hypotheses, decisions, commitments, evidence and contradictions follow the content."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from projections.memories import session_memory
from projections.memories.combined import EMPTY, REDUCERS, apply_all
from projections.memories.log_events import ALERTS, ESCALATIONS, TERMINATIONS, VERDICTS, LogEvent
from tests.unit.projections.factories import (
    Log,
    alert,
    episode_events,
    escalation,
    event,
    msg,
    session_script,
    termination,
    verdict,
)


def run(*events: LogEvent) -> dict[str, Any]:
    memory: dict[str, Any] | None = None
    for e in events:
        memory = session_memory.apply(memory, e)
    assert memory is not None
    return memory


def test_rule_1_every_agent_output_adds_one_timeline_entry() -> None:
    agents = [1, 21, 27, 35, 48, 53, 54, 57]
    memory = run(*(msg("s1", i + 1, a, f"[OUTPUT] from {a}") for i, a in enumerate(agents)))
    timeline = memory["timeline"]
    assert [e["agent_id"] for e in timeline] == agents
    assert all(e["topic"] == "agent_messages" and e["summary"] == f"[OUTPUT] from {e['agent_id']}" for e in timeline)
    assert memory["started"] == timeline[0]["timestamp"]
    assert memory["last_updated"] == timeline[-1]["timestamp"]


def test_event_types_of_messages() -> None:
    memory = run(
        msg("s1", 1, 57, "[START] go", content={"problem": {"original_statement": "q"}}),  # PHI replying INITIAL
        msg("s1", 2, 57, "[DEPLOY] go", content={"deployment": {"agents": [1]}}, responding_to=48),
        msg("s1", 3, 1, "[X] a"),
        msg("s1", 4, 57, "[DECIDE] d", content={"decision": "ship it"}, responding_to=52),
        msg("s1", 5, 35, "[CONTRADICTS] no", contradiction_with=1),
        msg("s1", 6, 50, "[RESOLVED] ok", responding_to=35),
    )
    assert [e["event_type"] for e in memory["timeline"]] == [
        "QUERY", "DEPLOYMENT", "OUTPUT", "DECISION", "CONTRADICTION", "RESOLUTION"]


def test_other_topics_reach_the_timeline_and_accepted_verdicts_do_not() -> None:
    events = [event(t, r, offset=i) for i, (t, r) in enumerate(episode_events("ep-1"))]
    memory = run(*events)
    assert [e["event_type"] for e in memory["timeline"]] == ["VERDICT", "ALERT", "ALERT"]
    memory = run(event(ESCALATIONS, escalation("s1", "L5", "halt", source_event_id="m", at=1)),
                 event(TERMINATIONS, termination("s1", "PARTIAL", at=2, partial_answer="half")))
    assert [e["event_type"] for e in memory["timeline"]] == ["ESCALATION", "TERMINATION"]
    assert memory["termination"]["status"] == "PARTIAL"


def test_timeline_is_in_event_time_order_whatever_the_consumption_order() -> None:
    late = msg("s1", 5, 1, "[X] late")
    early = event(ALERTS, alert("s1", "AGENT_FAILURE", "SERIOUS", "bad output", source_event_id="m", at=1))
    assert run(late, early)["timeline"] == run(early, late)["timeline"]
    assert run(late, early)["timeline"][0]["topic"] == "alerts"


def test_problem_is_set_by_phi_and_the_original_statement_is_the_first() -> None:
    memory = run(
        msg("s1", 1, 57, "[START]", content={"problem": {"original_statement": "first", "classification": "A"}}),
        msg("s1", 2, 57, "[CLARIFY]", content={"problem": {"original_statement": "second",
                                                           "clarified_statement": "clear", "classification": "B"}}),
        msg("s1", 3, 1, "[X]", content={"problem": {"classification": "C"}}),  # not PHI: ignored
    )
    assert memory["problem"] == {"original_statement": "first", "clarified_statement": "clear", "classification": "B"}


def test_hypothesis_lifecycle_proposed_supported_confirmed() -> None:
    memory = run(
        msg("s1", 1, 1, "[H] h", confidence=0.6, content={"hypothesis": {"id": "H1", "statement": "Quota  Resets"}}),
        msg("s1", 2, 21, "[SUPPORTS] h", content={"hypothesis": {"id": "H1", "status": "SUPPORTED",
                                                                 "statement": "quota resets"}}),
        msg("s1", 3, 35, "[ATTACK] h", references=[{"type": "CONTRADICTS", "source_agent": 1,
                                                    "source_element": "QUOTA resets"}]),
    )
    (active,) = memory["hypotheses"]["active"]
    assert active["ref"] == "H1"
    assert active["supporting_agents"] == [1, 21]
    assert active["opposing_agents"] == [35]
    memory = session_memory.apply(memory, msg("s1", 4, 27, "[VERIFIED] h", confidence=0.9,
                                              content={"hypothesis": {"id": "H1", "status": "CONFIRMED",
                                                                      "basis": "chain holds"}}))
    assert memory["hypotheses"]["active"] == []
    (resolved,) = memory["hypotheses"]["resolved"]
    assert (resolved["id"], resolved["statement"], resolved["resolution"]) == (active["id"], "Quota  Resets",
                                                                               "CONFIRMED")
    assert (resolved["final_confidence"], resolved["resolution_basis"], resolved["resolved_by"]) == (0.9,
                                                                                                    "chain holds", 27)
    again = session_memory.apply(memory, msg("s1", 5, 28, "[VERIFIED] h", content={
        "hypothesis": {"statement": "quota resets", "status": "CONFIRMED"}}))
    assert again["hypotheses"]["resolved"] == memory["hypotheses"]["resolved"]  # confirmed once


def test_hypotheses_abandoned_modified_and_text_items() -> None:
    memory = run(
        msg("s1", 1, 7, "[H]", content={"hypotheses": ["GC pauses", {"statement": "Disk IO", "confidence": 0.4}]}),
        msg("s1", 2, 7, "[ABANDON]", content={"hypothesis": {"statement": "gc pauses", "status": "abandoned",
                                                             "reason": "heap flat"}}),
        msg("s1", 3, 7, "[MOD]", content={"hypothesis": {"statement": "Disk IO", "status": "MODIFIED",
                                                         "new_statement": "Disk IO at the hour"}}),
        msg("s1", 4, 7, "[DROP]", content={"abandoned": {"approach": "random probing", "reason": "no signal"}}),
    )
    hyps = memory["hypotheses"]
    assert [h["statement"] for h in hyps["abandoned"]] == ["GC pauses", "random probing"]
    assert hyps["abandoned"][0]["reason"] == "heap flat"
    assert [(h["statement"], h["resolution"]) for h in hyps["resolved"]] == [("Disk IO", "MODIFIED")]
    assert [h["statement"] for h in hyps["active"]] == ["Disk IO at the hour"]


def test_decisions_commitments_and_evidence() -> None:
    memory = run(
        msg("s1", 1, 1, "[H]", content={"hypothesis": {"id": "H1", "statement": "quota"}}),
        msg("s1", 2, 57, "[D]", basis="verified", content={
            "decisions": [{"id": "D1", "decision": "Focus on quota", "reversible": False}, "Tell the user"],
            "commitments": ["Report limiter settings", "Re-test at noon"]}),
        msg("s1", 3, 57, "[D2]", content={"decision": {"decision": "Patch limiter", "dependent_on": ["D1", "?"]},
                                          "commitment": ["report limiter SETTINGS",
                                                         {"commitment": "Re-test at noon", "still_valid": False}]}),
        msg("s1", 4, 32, "[E]", confidence=0.85, content={"evidence": [
            {"evidence": "spike at reset", "supports": ["H1"], "contradicts": ["unknown"]}, "plain text"]}),
        msg("s1", 5, 52, "[E]", content={"invalidates": "Report limiter settings"}),
    )
    decisions = memory["decisions"]
    assert [d["decision"] for d in decisions] == ["Focus on quota", "Tell the user", "Patch limiter"]
    assert decisions[0]["reversible"] is False
    assert decisions[1]["basis"] == "verified"
    assert decisions[2]["dependent_on"] == [decisions[0]["id"], "?"]
    commitments = memory["commitments"]
    assert [(c["commitment"], c["still_valid"], c["invalidated_by"]) for c in commitments] == [
        ("Report limiter settings", False, 52), ("Re-test at noon", False, 57)]
    hyp = memory["hypotheses"]["active"][0]["id"]
    assert [(e["supports"], e["contradicts"], e["strength"]) for e in memory["evidence"]] == [
        ([hyp], ["unknown"], "STRONG"), ([], [], "STRONG")]


@pytest.mark.parametrize(("flags", "severity"), [
    ({"blocks_progress": True, "requires_resolution": True}, "FATAL"),
    ({"requires_resolution": True}, "SERIOUS"),
    ({}, "MINOR"),
])
def test_contradiction_severity_mapping(flags: dict[str, bool], severity: str) -> None:
    memory = run(msg("s1", 1, 27, "[SUPPORTS] chain holds"),
                 msg("s1", 2, 35, "[CONTRADICTS] it does not", contradiction_with=27, **flags))
    (c,) = memory["contradictions"]["unresolved"]
    assert c["severity"] == severity
    assert c["claim_a"] == {"agent_id": 35, "statement": "[CONTRADICTS] it does not"}
    assert c["claim_b"] == {"agent_id": 27, "statement": "[SUPPORTS] chain holds"}  # its latest output


def _three_contradictions() -> list[LogEvent]:
    return [msg("s1", 1, 35, "[C] a", contradiction_with=27), msg("s1", 2, 36, "[C] b", contradiction_with=28),
            msg("s1", 3, 37, "[C] c", contradiction_with=29, blocks_progress=True)]


def test_conflict_resolver_resolves_what_it_names() -> None:
    first = run(*_three_contradictions())
    target = first["contradictions"]["unresolved"][2]["id"]
    memory = run(*_three_contradictions(), msg("s1", 4, 50, "[RESOLVED] x", responding_to=57,
                                               content={"resolves": [target, 36], "resolution": "both hold"}))
    resolved = memory["contradictions"]["resolved"]
    assert [(r["claim_a"]["agent_id"], r["resolution"], r["resolved_by"]) for r in resolved] == [
        (36, "both hold", 50), (37, "both hold", 50)]
    assert resolved[1]["severity"] == "FATAL"
    assert [c["claim_a"]["agent_id"] for c in memory["contradictions"]["unresolved"]] == [35]


def test_conflict_resolver_resolves_those_of_agents_it_works_on_else_all() -> None:
    memory = run(*_three_contradictions(), msg("s1", 4, 50, "[RESOLVED] x", responding_to=35, inputs_used=(28,)))
    assert [c["claim_a"]["agent_id"] for c in memory["contradictions"]["unresolved"]] == [37]
    memory = run(*_three_contradictions(), msg("s1", 4, 50, "[RESOLVED] all"))
    assert memory["contradictions"]["unresolved"] == []
    assert len(memory["contradictions"]["resolved"]) == 3


@pytest.mark.parametrize("resolver", [
    msg("s1", 4, 50, "[UNRESOLVABLE] cannot"),
    msg("s1", 4, 50, "[CONTRADICTS] new one", contradiction_with=35),
    msg("s1", 4, 51, "[RESOLVED] not the resolver"),
])
def test_only_a_resolving_conflict_resolver_resolves(resolver: LogEvent) -> None:
    memory = run(*_three_contradictions(), resolver)
    assert memory["contradictions"]["resolved"] == []


def test_a_redelivered_event_changes_nothing() -> None:
    first = msg("s1", 1, 1, "[H]", content={"hypothesis": "quota"})
    memory = run(first)
    again = LogEvent(first.topic, 2, 77, first.key, first.record)  # same record at another position
    assert session_memory.apply(memory, again) is memory


def test_irrelevant_events_change_nothing() -> None:
    memory = run(msg("s1", 1, 1, "[X]"))
    assert session_memory.apply(memory, event(VERDICTS, verdict("s1", "p", "ACCEPTED", at=0))) is memory


def test_reducers_are_pure() -> None:
    log = Log()
    log.extend(session_script("s1"))
    log.extend(session_script("s1", iteration=2, start=300, outcome="FAILURE"))
    log.extend(episode_events("s1", at=900))
    memories = EMPTY
    for e in log.events:
        for kind, (reduce, _) in REDUCERS.items():
            before = memories.get(kind)
            frozen = copy.deepcopy(before)
            reduce(before, e)
            assert before == frozen, f"{kind} reducer modified its input on {e.topic}"
        memories = apply_all(memories, e)


def test_odd_but_accepted_messages_still_reach_the_timeline() -> None:
    record = msg("s1", 1, 13, "free text, no tag", content="just prose").record
    sparse = {"session_id": "s1", "message_id": "m-sparse", "header": {"agent_id": 13, "timestamp": "not a time"},
              "summary": {"verdict": "[X] sparse"}}
    memory = run(event("agent_messages", record), event("agent_messages", sparse, offset=1))
    assert [(e["summary"], e["timestamp"] is None) for e in memory["timeline"]] == [
        ("free text, no tag", False), ("[X] sparse", True)]  # untimed entries sort last


def test_the_session_judge_vocabulary_is_read_too() -> None:
    memory = run(
        msg("s1", 1, 57, "[START]", content={"problem": {"statement": "Why?", "classification": "A"}}),
        msg("s1", 2, 47, "[CLARIFY]", content={"clarified_statement": "Why hourly?"}),
        msg("s1", 3, 1, "[H]", content={"hypotheses": ["quota", "gc"]}),
        msg("s1", 4, 21, "[EXT]", references=[{"type": "EXTENDS", "source_agent": 1, "source_element": "quota"}]),
        msg("s1", 5, 27, "[V]", content={"hypothesis_resolved": {"statement": "quota", "resolution": "CONFIRMED",
                                                                 "basis": "verified"}}),
        msg("s1", 6, 48, "[A]", content={"hypothesis_abandoned": {"statement": "gc", "reason": "flat heap"}}),
        msg("s1", 7, 57, "[C]", content={"commitment": "report", "invalidates_commitment": None}),
        msg("s1", 8, 52, "[I]", content={"invalidates_commitment": "Report"}),
        msg("s1", 9, 32, "[E]", confidence=0.7, content={"evidence": "spike at reset"}),
    )
    assert memory["problem"] == {"original_statement": "Why?", "clarified_statement": "Why hourly?",
                                 "classification": "A"}
    hyps = memory["hypotheses"]
    assert [(h["statement"], h["resolution"], h["resolution_basis"]) for h in hyps["resolved"]] == [
        ("quota", "CONFIRMED", "verified")]
    assert [(h["statement"], h["reason"]) for h in hyps["abandoned"]] == [("gc", "flat heap")]
    assert [(c["still_valid"], c["invalidated_by"]) for c in memory["commitments"]] == [(False, 52)]
    assert memory["evidence"][0]["strength"] == "STRONG"


def test_one_contradiction_per_pair_at_the_worse_severity_and_the_severity_extra() -> None:
    memory = run(msg("s1", 1, 35, "[C] a", contradiction_with=27),
                 msg("s1", 2, 27, "[C] b", contradiction_with=35, requires_resolution=True),
                 msg("s1", 3, 35, "[C] c", contradiction_with=27),
                 msg("s1", 4, 36, "[C] d", contradiction_with=27, flag_extras={"contradiction_severity": "fatal"}))
    assert [(c["claim_a"]["agent_id"], c["severity"]) for c in memory["contradictions"]["unresolved"]] == [
        (35, "SERIOUS"), (36, "FATAL")]


@pytest.mark.parametrize(("resolves", "left"), [("ALL", []), ([[27, 36]], [35]), ([35], [36])])
def test_resolves_names_all_pairs_or_agents_and_phi_may_resolve(resolves: object, left: list[int]) -> None:
    memory = run(msg("s1", 1, 35, "[C] a", contradiction_with=27), msg("s1", 2, 36, "[C] b", contradiction_with=27),
                 msg("s1", 3, 57, "[RESOLVED] by PHI", content={"resolves": resolves}))
    assert [c["claim_a"]["agent_id"] for c in memory["contradictions"]["unresolved"]] == left
    assert memory["timeline"][-1]["event_type"] == "RESOLUTION"
    untouched = run(msg("s1", 1, 35, "[C] a", contradiction_with=27),
                    msg("s1", 2, 57, "[RESOLVED] no resolves key"),
                    msg("s1", 3, 50, "[X] cannot", content={"unresolvable": True}))
    assert len(untouched["contradictions"]["unresolved"]) == 1
