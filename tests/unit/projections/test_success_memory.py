"""Success Memory (§3.4) and sync rule 4: breakthroughs, HIGH-confidence confirmations, Quality Controller
approvals, and what PHI marks brilliant."""

from __future__ import annotations

from typing import Any

import pytest

from projections.memories import success_memory
from projections.memories.log_events import LogEvent
from tests.unit.projections.factories import msg


def run(*events: LogEvent) -> dict[str, Any]:
    memory: dict[str, Any] | None = None
    for e in events:
        memory = success_memory.apply(memory, e)
    assert memory is not None
    return memory


@pytest.mark.parametrize("flagged", [
    msg("s1", 1, 32, "[BREAKTHROUGH] reproduced"),
    msg("s1", 1, 32, "[X] reproduced", flag_extras={"breakthrough": True}),
    msg("s1", 1, 32, "[X] reproduced", extras={"breakthrough": "reproduced on demand"}),
    msg("s1", 1, 32, "[X] reproduced", content={"breakthrough": {"description": "reproduced on demand"}}),
])
def test_breakthroughs_flagged_by_any_agent(flagged: LogEvent) -> None:
    (s,) = run(flagged)["session_successes"]
    assert (s["trigger"], s["success_type"], s["agent_id"]) == ("BREAKTHROUGH", "BREAKTHROUGH", 32)
    assert s["description"] in ("reproduced on demand", "[BREAKTHROUGH] reproduced", "[X] reproduced")
    assert s["event_id"] == flagged.event_id


def test_a_breakthrough_object_gives_pattern_heuristic_and_replicability() -> None:
    memory = run(msg("s1", 1, 32, "[X]", flag_extras={"breakthrough": {
        "description": "d", "pattern": "reproduce-on-demand", "heuristic": "When periodic, trigger at the period",
        "success_type": "EFFICIENCY", "transferable_elements": ["load test"], "enabling_conditions": ["staging"]}}),
        msg("s1", 2, 14, "[X]", content={"breakthrough": {"heuristic": "when periodic, trigger at the PERIOD"}}))
    first = memory["session_successes"][0]
    assert (first["pattern"], first["success_type"]) == ("reproduce-on-demand", "EFFICIENCY")
    assert first["replicability"]["transferable_elements"] == ["load test"]
    assert first["analysis"]["enabling_conditions"] == ["staging"]
    (heuristic,) = memory["success_heuristics"]
    assert heuristic["applications"] == 2
    assert heuristic["success_rate"] is None


@pytest.mark.parametrize(("item_conf", "msg_conf", "counts"), [
    (0.8, 0.1, True), (None, 0.85, True), (0.79, 0.95, False), (None, 0.5, False),
])
def test_hypotheses_confirmed_with_high_confidence(item_conf: float | None, msg_conf: float, counts: bool) -> None:
    item: dict[str, Any] = {"statement": "quota", "status": "CONFIRMED"}
    if item_conf is not None:
        item["confidence"] = item_conf
    found = run(msg("s1", 1, 27, "[VERIFIED]", confidence=msg_conf, content={"hypothesis": item}))
    assert [s["trigger"] for s in found["session_successes"]] == (["CONFIRMED"] if counts else [])


def test_supported_or_rejected_hypotheses_are_not_successes() -> None:
    found = run(msg("s1", 1, 27, "[X]", confidence=0.95, content={"hypotheses": [
        {"statement": "a", "status": "SUPPORTED"}, {"statement": "b", "status": "REJECTED"}]}))
    assert found["session_successes"] == []


@pytest.mark.parametrize("verdict_line", ["[SHIP] ready", "[SHIP WITH CAVEATS] tenant quotas untested",
                                          "[SHIP_WITH_CAVEATS] same"])
def test_quality_controller_approvals(verdict_line: str) -> None:
    (s,) = run(msg("s1", 1, 52, verdict_line, content={"caveats": ["c1"]}))["session_successes"]
    assert (s["trigger"], s["success_type"], s["pattern"]) == ("QC_APPROVAL", "APPROACH", "QC_APPROVAL")
    assert run(msg("s1", 1, 51, verdict_line))["session_successes"] == []


@pytest.mark.parametrize("marked", [
    msg("s1", 1, 57, "[BRILLIANT] natural experiment"),
    msg("s1", 1, 57, "[X] natural experiment", extras={"brilliant": True}),
    msg("s1", 1, 57, "[X] natural experiment", flag_extras={"brilliant": "natural experiment"}),
    msg("s1", 1, 57, "[X]", content={"brilliant": {"idea": "natural experiment", "why_brilliant": "free",
                                                   "filed_to": "ideas/n.md"}}),
])
def test_phi_marks_brilliant_ideas(marked: LogEvent) -> None:
    memory = run(marked)
    (idea,) = memory["brilliant_ideas"]
    assert "natural experiment" in idea["idea"]
    assert idea["agent_id"] == 57
    assert memory["session_successes"] == []


def test_only_phi_files_brilliant_ideas() -> None:
    assert run(msg("s1", 1, 14, "[BRILLIANT] mine", extras={"brilliant": True}))["brilliant_ideas"] == []


def test_hypothesis_resolved_confirmed_counts_and_other_resolutions_do_not() -> None:
    found = run(msg("s1", 1, 27, "[V]", confidence=0.9, content={"hypothesis_resolved": [
        {"statement": "quota", "resolution": "CONFIRMED"}, {"statement": "gc", "resolution": "REJECTED"},
        {"statement": "io"}]}))
    assert [s["analysis"]["key_insight"] for s in found["session_successes"]] == ["quota"]
