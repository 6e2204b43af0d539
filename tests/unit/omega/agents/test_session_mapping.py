"""Mapping of accepted messages to the §3.1 session state (`omega.agents.session_mapping`): each record read
whole on small sessions built from messages."""

from __future__ import annotations

from omega.agents.session import SessionState, replay
from omega.agents.session_state import ClaimRef, Contradiction, Decision, TimelineEntry
from omega.canonical import derived_id
from tests.unit.omega.agents.factories import Builder, ref


def state_of(b: Builder) -> SessionState:
    state = replay(b.events)[0]
    assert state is not None
    return state


def test_the_progress_monitor_may_report_its_count_as_new_findings_and_new_claims_wins() -> None:
    b = Builder()
    b.msg(48, 1, 0.8, "[PROGRESSING] three", content={"new_findings": 3})
    assert state_of(b).stats(1).reported_new_claims == 3
    b.msg(48, 1, 0.8, "[PROGRESSING] two", content={"new_claims": 2, "new_findings": 7})
    stats = state_of(b).stats(1)
    assert (stats.reported_new_claims, stats.new_claims) == (2, 0)  # the monitor's own verdicts are no claims


def test_phi_initial_message_without_a_problem_statement_takes_the_query_else_the_verdict() -> None:
    b = Builder("sess-q")
    b.msg(57, 1, 0.9, "[QUERY] the verdict", responding_to="INITIAL", content={"query": "Should we ship it?"})
    assert state_of(b).problem.original_statement == "Should we ship it?"
    v = Builder("sess-v")
    v.msg(57, 1, 0.9, "[QUERY] the verdict", responding_to="INITIAL", content={})
    assert state_of(v).problem.original_statement == "[QUERY] the verdict"


def test_a_hypothesis_resolved_as_modified_is_replaced_by_its_modified_statement() -> None:
    b = Builder()
    b.msg(1, 1, 0.8, content={"hypothesis": "latency is the bottleneck"})
    resolver = b.msg(27, 1, 0.7, "[MODIFIED] partly", content={"hypothesis_resolved": {
        "statement": "latency is the bottleneck", "resolution": "MODIFIED", "basis": "traces",
        "modified_to": "tail latency is the bottleneck"}})
    state = state_of(b)
    (resolved,) = state.hypotheses_resolved
    assert (resolved.statement, resolved.resolution) == ("latency is the bottleneck", "MODIFIED")
    assert [(h.statement, h.proposed_by, h.proposed_at, h.confidence, h.iteration)
            for h in state.hypotheses_active] == [("tail latency is the bottleneck", 27, resolver.timestamp, 0.7, 1)]


def test_a_decision_is_recorded_whole_with_the_verdict_as_default_basis() -> None:
    b = Builder()
    m = b.msg(51, 1, 0.8, "[DECIDED] phase one first",
              content={"decision": ["migrate reads first", {"decision": "keep writes", "basis": "risk",
                                                            "reversible": False, "dependent_on": ["d0"]}]})
    assert state_of(b).decisions == (
        Decision(derived_id("dec_", "sess-test", m.message_id, "0"), "migrate reads first", m.timestamp,
                 "[DECIDED] phase one first", True, ()),
        Decision(derived_id("dec_", "sess-test", m.message_id, "1"), "keep writes", m.timestamp, "risk", False,
                 ("d0",)),
    )


def test_a_contradiction_takes_the_element_the_message_contradicts_of_the_named_agent() -> None:
    b = Builder()
    b.msg(1, 1, 0.8, "[FINDING] reads dominate")
    b.msg(8, 1, 0.8, "[FINDING] writes are rare")
    m = b.msg(35, 1, 0.7, "[CONTRADICTS] writes dominate", contradiction_detected=True, contradiction_with=1,
              refs=[ref("CONTRADICTS", 8, "writes are rare"), ref("CONTRADICTS", 1, "reads dominate")])
    assert state_of(b).contradictions_unresolved == (
        Contradiction(derived_id("ctr_", "sess-test", m.message_id), ClaimRef(1, "reads dominate"),
                      ClaimRef(35, "[CONTRADICTS] writes dominate"), m.timestamp, "MINOR", 1, m.message_id),
    )


def test_an_output_timeline_entry_reads_whole() -> None:
    b = Builder()
    m = b.msg(13, 2, 0.65, "[FINDING] a wild idea", tokens=1234)
    assert state_of(b).timeline == (
        TimelineEntry(m.timestamp, "OUTPUT", 13, "[FINDING] a wild idea",
                      {"message_id": m.message_id, "iteration": 2, "confidence": 0.65, "tokens_used": 1234}),
    )
