"""Pattern Memory (§3.2) and sync rule 2: new classifications, matches stronger than 0.7, PHI's pattern
queries; failure and solution patterns fed by the failures and successes of the same events."""

from __future__ import annotations

from typing import Any

from projections.memories import pattern_memory
from projections.memories.log_events import ALERTS, TERMINATIONS, LogEvent
from projections.memories.pattern_memory import pattern_id
from tests.unit.projections.factories import alert, event, msg, termination


def run(*events: LogEvent) -> dict[str, Any]:
    memory: dict[str, Any] | None = None
    for e in events:
        memory = pattern_memory.apply(memory, e)
    assert memory is not None
    return memory


def classify(seq: int, name: str, agent: int = 57) -> LogEvent:
    return msg("s1", seq, agent, "[CLASSIFY]", content={"problem": {
        "original_statement": "Why the spikes?", "classification": name, "recommended_agents": [1, 27]}})


def test_a_new_classification_creates_its_problem_pattern_with_an_example() -> None:
    memory = run(classify(1, "CAUSAL_INFERENCE"))
    (p,) = memory["problem_patterns"]
    assert (p["id"], p["name"], p["recommended_agents"]) == (pattern_id("problem", "causal_inference"),
                                                             "CAUSAL_INFERENCE", [1, 27])
    assert p["examples"] == [{"problem": "Why the spikes?", "outcome": None, "event_id": p["event_ids"][0]}]
    assert memory["classification"] == "CAUSAL_INFERENCE"


def test_a_repeated_classification_is_not_new_and_only_phi_classifies() -> None:
    memory = run(classify(1, "A"))
    assert pattern_memory.apply(memory, classify(2, "A")) is memory
    assert pattern_memory.apply(memory, classify(3, "B", agent=10)) is memory
    memory = run(classify(1, "A"), classify(2, "B"), classify(3, "A"))
    assert memory["classification"] == "A"
    assert sorted(len(p["examples"]) for p in memory["problem_patterns"]) == [1, 2]


def test_only_matches_stronger_than_0_7_count() -> None:
    weak = msg("s1", 1, 10, "[P]", content={"pattern_match": {"pattern": "contention", "strength": 0.7}})
    assert run(weak) == pattern_memory.empty("s1")
    memory = run(msg("s1", 2, 10, "[P]", content={"pattern_matches": [
        {"pattern": "contention", "strength": 0.71, "evidence": ["periodic"], "implications": ["find limiter"]},
        {"name": "thundering-herd", "match_strength": "90%"}]}))
    assert sorted((m["pattern"], m["match_strength"]) for m in memory["current_matches"]) == [
        ("contention", 0.71), ("thundering-herd", 0.9)]
    contention = next(p for p in memory["problem_patterns"] if p["name"] == "contention")
    assert contention["signature"] == [{"indicator": "periodic", "weight": 0.71}]


def test_a_later_match_replaces_the_current_one() -> None:
    memory = run(msg("s1", 1, 10, "[P]", content={"pattern_match": {"pattern": "c", "strength": 0.8}}),
                 msg("s1", 2, 54, "[P]", content={"pattern_match": {"pattern": "C", "strength": 0.95}}))
    (m,) = memory["current_matches"]
    assert (m["match_strength"], m["matched_by"]) == (0.95, 54)


def test_phi_pattern_queries_are_recorded_with_what_they_match() -> None:
    memory = run(msg("s1", 1, 10, "[P]", content={"pattern_match": {"pattern": "resource-contention",
                                                                    "strength": 0.8}}),
                 msg("s1", 2, 57, "[Q]", content={"pattern_query": {"pattern": "Contention"}}),
                 msg("s1", 3, 48, "[Q]", content={"pattern_query": "contention"}))  # not PHI
    (q,) = memory["queries"]
    assert q["query"] == "Contention"
    assert q["matches"] == [pattern_id("problem", "resource-contention")]


def test_failures_and_warnings_feed_failure_patterns() -> None:
    a = msg("s1", 1, 35, "[C] a", contradiction_with=27)
    b = msg("s1", 2, 36, "[C] b", contradiction_with=28, blocks_progress=True)
    w = event(ALERTS, alert("s1", "LOW_CONFIDENCE_OUTPUT", "MINOR", "low", source_event_id="m", at=1), 2)
    memory = run(a, b, w)
    by_name = {p["name"]: p for p in memory["failure_patterns"]}
    assert set(by_name) == {"CONTRADICTION", "LOW_CONFIDENCE_OUTPUT"}
    assert len(by_name["CONTRADICTION"]["derived_from"]) == 2
    assert by_name["CONTRADICTION"]["event_ids"] == sorted([a.event_id, b.event_id])


def test_successes_feed_solution_patterns() -> None:
    memory = run(msg("s1", 1, 52, "[SHIP] ok"),
                 msg("s1", 2, 32, "[X]", flag_extras={"breakthrough": {"pattern": "reproduce", "steps": ["a", "b"]}}))
    assert sorted((p["name"], p["steps"]) for p in memory["solution_patterns"]) == [
        ("QC_APPROVAL", []), ("reproduce", ["a", "b"])]


def test_the_outcome_reaches_examples_in_either_order() -> None:
    done = event(TERMINATIONS, termination("s1", "PARTIAL", at=999, partial_answer="half"), 5)
    before, after = run(classify(1, "A"), done), run(done, classify(1, "A"))
    assert before == after
    (p,) = before["problem_patterns"]
    assert (p["success_rate"], p["examples"][0]["outcome"]) == (0.5, "PARTIAL")
