"""The session judge: mapping of messages to §3.1 state, iteration handling, idempotency, determinism and the
JSON round trip of its state."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from omega.agents.limits import DEFAULTS
from omega.agents.model import SessionEvent
from omega.agents.session import SessionState, evolve, replay
from omega.agents.session_state import TimelineEntry
from omega.agents.termination import TerminationReport
from omega.events import Alert
from tests.unit.omega.agents.factories import Builder, ref


def fold(events: list[SessionEvent]) -> tuple[SessionState, list[Any]]:
    state, outputs = replay(events)
    assert state is not None
    return state, outputs


def round_trip(state: SessionState) -> SessionState:
    return SessionState.from_dict(json.loads(json.dumps(state.to_dict())))


def success_session(b: Builder) -> None:
    """Two iterations: QC holds the first, the second converges and ships (every §1.3 rule kept, no trigger)."""
    b.start()
    b.iteration(1)
    b.msg(27, 1, 0.8, "[SUPPORTS] chain holds", refs=[ref("SUPPORTS", 1)])
    b.msg(44, 1, 0.7, "[QUALIFIES] a first attack, not decisive", content={"defeated": False})
    b.msg(48, 1, 0.7, "[PROGRESSING] 3 new claims")
    b.msg(52, 1, 0.8, "[HOLD] the adversary pass is too thin yet")
    b.msg(53, 1, 0.9, "[RECORDED] iteration 1")
    b.iteration(2, genesis=(1, 8))
    b.msg(44, 2, 0.7, "[ATTACK FAILED] could not defeat", refs=[ref("SUPPORTS", 1)], content={"defeated": False})
    b.msg(46, 2, 0.8, "[SURVIVABLE CORE] core survives")
    b.msg(40, 2, 0.8, "[NO CRITICAL GAPS] complete")
    b.msg(51, 2, 0.8, "[SYNTHESIS] migrate in two phases", content={"answer": "Migrate in two phases"})
    b.msg(48, 2, 0.8, "[CONVERGED] done")
    b.msg(52, 2, 0.85, "[SHIP] good", content={"caveats": ["cost estimate is rough"]})
    b.msg(53, 2, 0.9, "[RECORDED] iteration 2")
    b.phi(2, "END_ITERATION")


# ------------------------------------------------------------------------------------------- problem and budget
def test_phi_initial_message_states_problem_stakes_and_budget() -> None:
    b = Builder()
    b.start(stakes="high", tokens=5000, seconds=60, uncertainty="HIGH")
    state, _ = fold(b.events)
    assert state.problem.original_statement == "Should we migrate the billing service?"
    assert (state.problem.stakes, state.problem.uncertainty) == ("HIGH", "HIGH")
    assert (state.budget.tokens, state.budget.seconds) if state.budget else None == (5000, 60)
    assert state.timeline[0].event_type == "QUERY"


def test_defaults_apply_when_phi_states_nothing() -> None:
    b = Builder()
    b.msg(1, 1, 0.8)
    b.msg(47, 1, 0.8, content={"clarified_statement": "Migrate billing to the new ledger?"})
    state, _ = fold(b.events)
    assert state.problem.stakes == DEFAULTS.default_stakes
    assert state.budget is not None
    assert state.budget.tokens == DEFAULTS.default_token_budget
    assert state.problem.clarified_statement == "Migrate billing to the new ledger?"


# ------------------------------------------------------------------------------------------- hypotheses
def test_hypothesis_lifecycle() -> None:
    b = Builder()
    b.msg(1, 1, 0.7, content={"hypotheses": ["Latency is the bottleneck", {"statement": "Cost dominates",
                                                                             "confidence": 0.4}]})
    b.msg(8, 1, 0.9, refs=[ref("SUPPORTS", 1, "latency is the  bottleneck")])
    b.msg(35, 1, 0.8, refs=[ref("CONTRADICTS", 1, "Cost dominates")])
    state, _ = fold(b.events)
    latency, cost = state.hypotheses_active
    assert latency.supporting_agents == (8,)
    assert cost.opposing_agents == (35,)
    assert cost.confidence < 0.4  # attacked (rule 3)
    assert state.stats(1).new_hypotheses == 2
    b.msg(27, 1, 0.8, content={"hypothesis_resolved": {"statement": "Latency is the bottleneck",
                                                       "resolution": "CONFIRMED", "basis": "traces"}})
    b.msg(57, 1, 0.9, content={"hypothesis_abandoned": {"statement": "Cost dominates", "reason": "out of scope"}})
    b.msg(9, 1, 0.8, content={"hypothesis_resolved": {"statement": "x", "resolution": "CONFIRMED"}})  # GENESIS
    state, _ = fold(b.events)
    assert state.hypotheses_active == ()
    assert [(h.resolution, h.verified) for h in state.hypotheses_resolved] == [("CONFIRMED", True)]
    assert state.hypotheses_abandoned[0].reason == "out of scope"


def test_reproposing_supports_and_settled_hypotheses_stay_settled() -> None:
    b = Builder()
    b.msg(1, 1, 0.7, content={"hypothesis": "H"})
    b.msg(2, 1, 0.7, content={"hypothesis": "h"})
    state, _ = fold(b.events)
    assert len(state.hypotheses_active) == 1
    assert state.hypotheses_active[0].supporting_agents == (2,)
    b.msg(51, 1, 0.7, content={"hypothesis_resolved": {"statement": "H", "resolution": "REJECTED"}})
    b.msg(3, 1, 0.7, content={"hypothesis": "H"})
    state, _ = fold(b.events)
    assert state.hypotheses_active == ()
    assert len(state.hypotheses_resolved) == 1


# ------------------------------------------------------------------------------------------- contradictions
def test_contradiction_severity_from_flags_and_the_extra() -> None:
    b = Builder()
    b.msg(35, 1, 0.8, contradiction_detected=True, contradiction_with=1, blocks_progress=True)
    b.msg(36, 1, 0.8, contradiction_detected=True, contradiction_with=2, requires_resolution=True)
    b.msg(37, 1, 0.8, contradiction_detected=True, contradiction_with=3)
    b.msg(38, 1, 0.8, contradiction_detected=True, contradiction_with=4, blocks_progress=True,
          flag_extras={"contradiction_severity": "minor"})
    state, _ = fold(b.events)
    assert [c.severity for c in state.contradictions_unresolved] == ["FATAL", "SERIOUS", "MINOR", "MINOR"]
    assert state.timeline[-1].event_type == "CONTRADICTION"


def test_a_repeated_contradiction_upgrades_instead_of_piling_up() -> None:
    b = Builder()
    b.msg(37, 1, 0.8, contradiction_detected=True, contradiction_with=3)
    b.msg(3, 1, 0.8, contradiction_detected=True, contradiction_with=37, blocks_progress=True)
    state, _ = fold(b.events)
    assert [c.severity for c in state.contradictions_unresolved] == ["FATAL"]


def test_conflict_resolver_resolves_by_pair_agent_or_tag() -> None:
    b = Builder()
    for attacker, target in ((35, 1), (36, 2), (37, 3)):
        b.msg(attacker, 1, 0.8, contradiction_detected=True, contradiction_with=target)
    b.msg(50, 1, 0.8, "[RESOLVED] pair", content={"resolves": [[35, 1]], "resolution": "scope differs"})
    b.msg(50, 1, 0.8, "[RESOLVED] by agent", content={"resolves": [2]})
    state, _ = fold(b.events)
    assert len(state.contradictions_unresolved) == 1
    assert state.contradictions_resolved[0].resolution == "scope differs"
    assert state.timeline[-1].event_type == "RESOLUTION"
    b.msg(50, 1, 0.8, "[RESOLVED] the historian's point", responding_to=37)
    b.msg(50, 1, 0.8, "[RESOLVED] nothing left")  # nothing to resolve: no change
    state, _ = fold(b.events)
    assert state.contradictions_unresolved == ()
    assert len(state.contradictions_resolved) == 3


def test_only_the_conflict_resolver_or_phi_resolve() -> None:
    b = Builder()
    b.msg(35, 1, 0.8, contradiction_detected=True, contradiction_with=1)
    b.msg(49, 1, 0.8, "[RESOLVED] consensus", content={"resolves": "ALL"})
    state, _ = fold(b.events)
    assert len(state.contradictions_unresolved) == 1
    b.msg(57, 1, 0.8, "[DECISION] call it", content={"resolves": "ALL", "decision": "take the newer data"})
    state, _ = fold(b.events)
    assert state.contradictions_unresolved == ()
    assert state.decisions[0].decision == "take the newer data"


# ------------------------------------------------------------------------------------------- other content
def test_decisions_commitments_and_evidence() -> None:
    b = Builder()
    b.msg(1, 1, 0.8, content={"hypothesis": "H1"})
    b.msg(57, 1, 0.9, content={"decision": {"decision": "focus on latency", "reversible": False},
                               "commitment": "report by Friday"})
    b.msg(32, 1, 0.9, content={"evidence": [{"evidence": "p99 is 2s", "supports": ["H1"]}, "cpu is idle"]})
    b.msg(57, 1, 0.9, content={"invalidates_commitment": "Report by friday"})
    state, _ = fold(b.events)
    assert state.decisions[0].reversible is False
    assert state.commitments[0].still_valid is False
    assert state.commitments[0].invalidated_by == 57
    assert [e.strength for e in state.evidence] == ["STRONG", "STRONG"]
    assert state.evidence[0].supports == (state.hypotheses_active[0].id,)


def test_gates_follow_the_named_agents() -> None:
    b = Builder()
    b.msg(52, 1, 0.8, "[REJECT] missing")
    b.msg(52, 1, 0.8, "[REJECT] still missing")
    b.msg(40, 1, 0.8, "[GAPS FOUND] two", content={"critical_gaps": ["a", "b"]})
    b.msg(44, 1, 0.8, "[DEFEATED] broke it")
    b.msg(45, 1, 0.8, "[UNTESTABLE] core claim", blocks_progress=True)
    state, _ = fold(b.events)
    g = state.gates
    assert (g.qc_consecutive_rejections, g.gaps_clear, g.steelman_defeated) == (2, False, True)
    assert g.untestable_critical == "[UNTESTABLE] core claim"
    assert g.blocking_attack_iteration == 1
    b.msg(52, 1, 0.8, "[SHIP WITH CAVEATS] ok")
    b.msg(40, 1, 0.8, "[NO CRITICAL GAPS]")
    state, _ = fold(b.events)
    assert (state.gates.qc_verdict, state.gates.qc_consecutive_rejections, state.gates.gaps_clear) == \
        ("SHIP WITH CAVEATS", 0, True)


# ------------------------------------------------------------------------------------------- iterations
def test_a_higher_iteration_closes_the_previous_one() -> None:
    b = Builder()
    b.iteration(1)
    b.msg(53, 1, 0.9)
    state, _ = fold(b.events)
    assert state.closed_through == 0
    b.iteration(2)
    state, _ = fold(b.events)
    assert state.closed_through == 1
    assert state.stats(1).closed
    assert state.stats(1).aggregate == 0.8
    assert state.stats(1).batches == {"1": (1, 8, 9)}


def test_only_phi_control_actions_close_an_iteration() -> None:
    b = Builder()
    b.iteration(1)
    b.phi(1, "END_ITERATION")
    b.msg(57, 2, 0.9, "[DEPLOY] iteration 2", content={"deploy": [1, 8]})  # no action: iteration 2 stays open
    b.iteration(2)
    state, _ = fold(b.events)
    assert state.closed_through == 1
    assert state.gates.phi_action is None
    assert state.timeline[-4].event_type == "DEPLOYMENT"


def test_batches_are_counted_against_the_parallel_limit() -> None:
    b = Builder()
    for agent in range(1, 13):
        b.msg(agent, 1, 0.8)
    b.msg(21, 1, 0.8, header_extras={"batch": 1})  # an explicit batch wins over the tier's
    b.msg(53, 1, 0.9)  # MEMORY runs outside batches
    state, _ = fold(b.events)
    assert state.stats(1).over_batch_limit(DEFAULTS.max_agents_per_batch) == {"1": 13}
    assert state.stats(1).over_batch_limit(20) == {}
    assert state.mandatory_seen == (53,)


def test_phi_end_iteration_closes_and_late_messages_do_not_reopen() -> None:
    b = Builder()
    b.iteration(1)
    b.phi(1, "END_ITERATION")
    b.msg(53, 1, 0.9)  # late in iteration 1: recorded, no second close
    b.iteration(2)
    state, _ = fold(b.events)
    assert state.closed_through == 1
    assert state.stats(1).messages == 5


def test_stalled_iterations_count_repeated_claims_and_the_progress_monitor_overrides() -> None:
    b = Builder()
    b.iteration(1, novel=False)
    b.iteration(2, novel=False)
    b.iteration(3, novel=False)
    state, _ = fold(b.events)
    assert (state.stats(2).new_claims, state.stalled_iterations) == (0, 1)
    b.msg(48, 3, 0.8, "[PROGRESSING]", content={"new_claims": 4})
    b.iteration(4)
    state, _ = fold(b.events)
    assert state.stalled_iterations == 0


def test_quarantined_messages_count_as_failures_but_do_not_move_time() -> None:
    b = Builder()
    b.msg(13, 1, 0.8)
    b.rejected(13, 5)
    state, outputs = fold(b.events)
    assert state.current_iteration == 1
    assert state.consecutive_failures["13"] == 1
    assert state.quarantined == (b.events[1].message_id,)
    assert [o.kind for o in outputs if isinstance(o, Alert)] == ["AGENT_FAILURE"]


# ------------------------------------------------------------------------------------------- termination flow
def test_success_session_terminates_once() -> None:
    b = Builder()
    success_session(b)
    state, outputs = fold(b.events)
    reports = [o for o in outputs if isinstance(o, TerminationReport)]
    assert [r.status for r in reports] == ["SUCCESS"]
    assert not [o for o in outputs if isinstance(o, Alert)]
    assert reports[0].caveats == ("cost estimate is rough",)
    b.iteration(3)  # after the report: recorded, never terminates again
    b.phi(3, "TERMINATE")
    later, more = fold(b.events)
    assert more == outputs
    assert later.termination == state.termination
    assert later.stats(3).messages == 4


def test_user_abort_ends_the_session_at_once() -> None:
    b = Builder()
    b.start()
    b.iteration(1)
    b.phi(1, "USER_ABORT")
    _, outputs = fold(b.events)
    (report,) = [o for o in outputs if isinstance(o, TerminationReport)]
    assert (report.status, report.failure_type) == ("FAILURE", "ABORT")


# ------------------------------------------------------------------------------------------- idempotency
def test_a_redelivered_message_changes_nothing_and_reemits_the_same_outputs() -> None:
    b = Builder()
    success_session(b)
    state = None
    for event in b.events:
        state, first = evolve(state, event)
        again_state, again = evolve(state, event)
        assert again_state is state
        assert again == first


def test_replay_twice_gives_identical_outputs_and_state() -> None:
    b = Builder()
    success_session(b)
    s1, o1 = fold(b.events)
    s2, o2 = fold(b.events)
    assert o1 == o2
    assert [o.to_dict() for o in o1] == [o.to_dict() for o in o2]
    assert s1.to_dict() == s2.to_dict()


def test_state_round_trips_through_json_midway_without_changing_the_outcome() -> None:
    b = Builder()
    success_session(b)
    state = None
    outputs: list[Any] = []
    for event in b.events:
        state, out = evolve(None if state is None else round_trip(state), event)
        outputs += out
    assert outputs == fold(b.events)[1]


# ------------------------------------------------------------------------------------------- properties
_step = st.tuples(
    st.sampled_from([1, 8, 13, 16, 21, 27, 35, 40, 44, 46, 48, 50, 51, 52, 53, 57]),
    st.integers(min_value=0, max_value=1),  # iteration increment
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    st.sampled_from([None, "SUPPORTS", "CONTRADICTS", "USES"]),
    st.booleans(),  # contradiction flag
    st.sampled_from([{}, {"hypothesis": "H"}, {"resolves": "ALL"}, {"action": "END_ITERATION"},
                     {"hypothesis_resolved": {"statement": "H", "resolution": "CONFIRMED"}},
                     {"evidence": "e"}, {"decision": "d"}]),
    st.booleans(),  # quarantined instead
)


def build(steps: list[Any]) -> list[SessionEvent]:
    b = Builder("sess-prop")
    iteration = 1
    for agent, step, confidence, kind, flagged, content, broken in steps:
        iteration += step
        if broken:
            b.rejected(agent, iteration)
            continue
        refs = [ref(kind, 1 if agent != 1 else 8, "H")] if kind else []
        b.msg(agent, iteration, confidence, f"[X] {agent}-{confidence:.1f}", content=content, refs=refs,
              contradiction_detected=flagged, contradiction_with=(agent % 57) + 1 if flagged else None,
              blocks_progress=flagged and confidence > 0.5, tokens=20_000)
    return b.events


@settings(max_examples=60, deadline=None)
@given(st.lists(_step, min_size=1, max_size=40))
def test_state_json_round_trip(steps: list[Any]) -> None:
    state, _ = fold(build(steps))
    assert round_trip(state) == state
    assert round_trip(state).to_dict() == state.to_dict()


@settings(max_examples=40, deadline=None)
@given(st.lists(_step, min_size=1, max_size=30), st.data())
def test_duplicates_anywhere_change_nothing(steps: list[Any], data: st.DataObject) -> None:
    events = build(steps)
    at = data.draw(st.integers(min_value=0, max_value=len(events) - 1))
    with_duplicate = [*events[: at + 1], events[at], *events[at + 1:]]
    s1, o1 = fold(events)
    s2, o2 = fold(with_duplicate)
    assert s1 == s2
    assert set(map(repr, o2)) == set(map(repr, o1))
    reports = [o for o in o1 if isinstance(o, TerminationReport)]
    assert len(reports) <= 1


# ------------------------------------------------------------------------------------------- whole outcomes
def test_replaying_nothing_gives_no_state_and_no_outputs() -> None:
    assert replay([]) == (None, [])


def test_a_first_quarantine_is_recorded_whole() -> None:
    """The quarantine's timeline entry, the agent's first failure, the message id and the iteration's count."""
    b = Builder()
    b.start()
    long_reason = "summary.verdict: " + "x" * 250
    event = b.rejected(13, 1, reasons=("summary.confidence: 1.7 is not in [0, 1]", long_reason))
    state, _ = fold(b.events)
    joined = "summary.confidence: 1.7 is not in [0, 1]; " + long_reason
    assert state.timeline[-1] == TimelineEntry(
        event.timestamp, "OUTPUT", 13, "QUARANTINED: " + joined[:200],
        {"message_id": event.message_id, "quarantined": True, "iteration": 1})
    assert state.consecutive_failures == {"57": 0, "13": 1}
    assert state.quarantined == (event.message_id,)
    assert state.stats(1).rejected == 1


def test_replay_judges_with_the_given_parameters() -> None:
    b = Builder()
    b.msg(13, 1, 0.5)
    _, default_outputs = replay(b.events)
    assert default_outputs == []
    _, outputs = replay(b.events, dataclasses.replace(DEFAULTS, usable_threshold=0.6))
    assert [(o.kind, o.severity, o.message) for o in outputs if isinstance(o, Alert)] == [(
        "AGENT_FAILURE", "MINOR",
        "AGENT_FAILURE (MINOR): Creative Wanderer (13) output incoherent: confidence 0.50 below the usable "
        "threshold 0.6; 1 consecutive failure(s); recovery RETRY (§4.2.1)")]


def test_an_iteration_end_decides_with_the_given_iteration_limit() -> None:
    """With `max_full_cycles` 2, closing iteration 2 reaches the limit; nothing was answered or verified, so
    the session fails for resources (§6.4)."""
    b = Builder()
    b.start()
    b.iteration(1)
    b.iteration(2)
    b.phi(2, "END_ITERATION")
    assert fold(b.events)[0].termination is None
    state, _ = replay(b.events, dataclasses.replace(DEFAULTS, max_full_cycles=2))
    assert state is not None
    assert state.termination is not None
    assert (state.termination.status, state.termination.failure_type, state.termination.why_failed) == (
        "FAILURE", "RESOURCE", "iteration limit of 2 reached")


def test_a_cascade_keeps_the_iteration_it_was_raised_in_until_an_iteration_end_fails_it() -> None:
    """§6.2.2: a FATAL cascade raised in iteration 1 and still unresolved when iteration 2 closes is
    irrecoverable; later messages do not restart its clock."""
    b = Builder()
    b.start()
    for agent in range(35, 39):
        b.msg(agent, 1, 0.8, "[CONTRADICTS] no", contradiction_detected=True, contradiction_with=agent - 34,
              blocks_progress=True)
    b.iteration(2)
    mid, _ = fold(b.events)
    assert mid.alerts.cascade_since == 1
    assert mid.termination is None
    b.phi(2, "END_ITERATION")
    state, _ = fold(b.events)
    assert state.termination is not None
    assert (state.termination.status, state.termination.failure_type, state.termination.why_failed) == (
        "FAILURE", "IRRECOVERABLE", "contradiction cascade raised in iteration 1 still unresolved")
