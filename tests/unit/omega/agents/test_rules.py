"""§1.3 deployment rules and §1.3.4 iteration triggers (`omega.agents.rules`): each rule and trigger on
states built from real messages, the batch-order bookkeeping, the alert rendering and their place in `evolve`."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import pytest

from omega.agents import rules as r
from omega.agents.limits import DEFAULTS
from omega.agents.session import SessionState, evolve, replay
from omega.agents.session_mapping import with_stats
from omega.agents.session_state import AlertBook, IterationStats, OutOfOrder
from omega.agents.termination import TerminationReport
from omega.events import Alert
from tests.unit.omega.agents.factories import Builder, ref


def state_of(b: Builder) -> SessionState:
    state = replay(b.events)[0]
    assert state is not None
    return state


def outputs_of(b: Builder) -> list[Any]:
    return replay(b.events)[1]


def deploy(b: Builder, iteration: int, *, genesis: Sequence[int] = (1, 2, 4), verification: Sequence[int] = (27,),
           adversary: Sequence[int] = (44,), mandatory: Sequence[int] = (48, 52, 53), qc: str = "[HOLD] not yet",
           start: bool = True) -> None:
    """An iteration that keeps every §1.3 rule unless told otherwise (PHI's INITIAL message first)."""
    if start and iteration == 1:
        b.start()
    for agent in genesis:
        b.msg(agent, iteration, 0.8, f"[FINDING] agent {agent} in iteration {iteration}")
    b.msg(21, iteration, 0.8, f"[FORMALIZES] model {iteration}")
    for agent in verification:
        b.msg(agent, iteration, 0.8, f"[SUPPORTS] check {agent} {iteration}")
    for agent in adversary:
        b.msg(agent, iteration, 0.7, f"[QUALIFIES] attack {agent} {iteration}")
    b.msg(51, iteration, 0.8, f"[SYNTHESIS] answer {iteration}")
    for agent in mandatory:
        b.msg(agent, iteration, 0.8, qc if agent == 52 else f"[RECORDED] agent {agent} {iteration}")


def checks(findings: Sequence[r.Finding]) -> list[str]:
    return [f.check for f in findings]


def with_aggregate(state: SessionState, iteration: int, aggregate: float | None) -> SessionState:
    stats = dataclasses.replace(state.stats(iteration), aggregate=aggregate)
    return dataclasses.replace(state, iterations=with_stats(state, stats))


def rule_alerts(outputs: Sequence[Any]) -> list[Alert]:
    return [o for o in outputs if isinstance(o, Alert) and o.kind in r.KINDS]


# ------------------------------------------------------------------------------------------- §1.3.2 mandatory
def test_mandatory_agents_missing_progress_monitor_is_moderate() -> None:
    b = Builder()
    deploy(b, 1, mandatory=(52, 53))
    (found,) = r.r_1_3_2_mandatory_agents(state_of(b), 1)
    assert (found.kind, found.rule, found.severity, found.agents) == ("DEPLOYMENT_RULE", "§1.3.2", "MODERATE", (48,))
    assert found.facts["missing"] == [48]


def test_mandatory_agents_are_judged_per_iteration() -> None:
    b = Builder()
    deploy(b, 1)
    deploy(b, 2, mandatory=(48,))  # iteration 1 had all three; iteration 2 lacks memory and QC
    (found,) = r.r_1_3_2_mandatory_agents(state_of(b), 2)
    assert found.facts["missing"] == [53, 52]
    assert "Session Memory (53)" in found.summary


def test_mandatory_agents_all_present_is_no_finding() -> None:
    b = Builder()
    deploy(b, 1)
    assert r.r_1_3_2_mandatory_agents(state_of(b), 1) == []


def test_mandatory_agents_missing_earlier_does_not_taint_a_complete_iteration() -> None:
    b = Builder()
    deploy(b, 1, mandatory=())
    deploy(b, 2)
    assert r.r_1_3_2_mandatory_agents(state_of(b), 2) == []


# ------------------------------------------------------------------------------------------- §1.3.2 diversity
def test_genesis_from_one_category_breaks_diversity() -> None:
    b = Builder()
    deploy(b, 1, genesis=(1, 3, 7))  # all "Needs formal structure"
    (found,) = r.r_1_3_2_genesis_diversity(state_of(b), 1)
    assert (found.severity, found.facts["categories"], found.facts["missing"]) == ("MINOR", ["formal"], 2)
    assert found.agents == (1, 3, 7)


def test_genesis_from_two_categories_breaks_diversity() -> None:
    b = Builder()
    deploy(b, 1, genesis=(2, 9, 10, 11))
    (found,) = r.r_1_3_2_genesis_diversity(state_of(b), 1)
    assert found.facts["categories"] == ["empirical", "pattern"]


def test_genesis_diversity_counts_the_session_so_far() -> None:
    b = Builder()
    deploy(b, 1, genesis=(1, 2))
    deploy(b, 2, genesis=(4,))
    state = state_of(b)
    assert checks(r.r_1_3_2_genesis_diversity(state, 1)) == ["r_1_3_2_genesis_diversity"]
    assert r.r_1_3_2_genesis_diversity(state, 2) == []


def test_a_trivial_problem_needs_no_genesis_diversity() -> None:
    b = Builder()
    b.msg(57, 1, 0.9, "[QUERY] trivial", responding_to="INITIAL",
          content={"problem": {"statement": "2+2?", "classification": "ANALYTICAL/TRIVIAL"}})
    deploy(b, 1, genesis=(1,), start=False)
    assert r.r_1_3_2_genesis_diversity(state_of(b), 1) == []
    other = Builder()
    other.start(classification="META/NON-TRIVIAL")  # only a class named TRIVIAL exempts
    assert r.non_trivial(other_state := state_of(other))
    assert len(r.r_1_3_2_genesis_diversity(other_state, 1)) == 1


# ------------------------------------------------------------------------------------------- §1.3.2 tiers
@pytest.mark.parametrize(("rule", "tier", "recommended"), [
    (r.r_1_3_2_verification_present, "VERIFICATION", ()),
    (r.r_1_3_2_adversary_present, "ADVERSARY", (44,)),
])
def test_a_missing_tier_is_moderate(rule: r.Rule, tier: str, recommended: tuple[int, ...]) -> None:
    b = Builder()
    deploy(b, 1, verification=() if tier == "VERIFICATION" else (27,), adversary=() if tier == "ADVERSARY" else (44,))
    (found,) = rule(state_of(b), 1, DEFAULTS)
    assert (found.severity, found.facts["missing"], found.agents) == ("MODERATE", tier, recommended)


@pytest.mark.parametrize("rule", [r.r_1_3_2_verification_present, r.r_1_3_2_adversary_present])
def test_a_tier_first_deployed_later_still_counts_as_missing_earlier(rule: r.Rule) -> None:
    b = Builder()
    deploy(b, 1, verification=(), adversary=())
    deploy(b, 2)
    state = state_of(b)
    assert len(rule(state, 1, DEFAULTS)) == 1
    assert rule(state, 2, DEFAULTS) == []


@pytest.mark.parametrize("rule", [r.r_1_3_2_verification_present, r.r_1_3_2_adversary_present])
def test_a_present_tier_is_no_finding(rule: r.Rule) -> None:
    b = Builder()
    deploy(b, 1, verification=(30,), adversary=(35,))
    assert rule(state_of(b), 1, DEFAULTS) == []


@pytest.mark.parametrize("rule", [r.r_1_3_2_verification_present, r.r_1_3_2_adversary_present])
def test_a_trivial_problem_needs_no_verification_or_adversary(rule: r.Rule) -> None:
    b = Builder()
    b.msg(57, 1, 0.9, "[QUERY] trivial", responding_to="INITIAL",
          content={"problem": {"statement": "2+2?", "classification": "TRIVIAL"}})
    deploy(b, 1, verification=(), adversary=(), start=False)
    assert rule(state_of(b), 1, DEFAULTS) == []


# ------------------------------------------------------------------------------------------- §1.3.3 limit
def test_eleven_genesis_agents_in_one_batch_break_the_parallel_limit() -> None:
    b = Builder()
    deploy(b, 1, genesis=tuple(range(1, 12)))
    (found,) = r.r_1_3_3_parallel_limit(state_of(b), 1)
    assert (found.rule, found.severity, found.subject) == ("§1.3.3", "MODERATE", "1")
    assert (found.facts["count"], found.facts["over"], found.agents) == (11, 1, tuple(range(1, 12)))


def test_the_parallel_limit_follows_the_parameters_and_explicit_batches() -> None:
    b = Builder()
    deploy(b, 1)
    for agent in (35, 36, 37, 38):
        b.msg(agent, 1, 0.7, header_extras={"batch": "4b"})
    params = dataclasses.replace(DEFAULTS, max_agents_per_batch=3)
    found = r.r_1_3_3_parallel_limit(state_of(b), 1, params)
    assert [(f.subject, f.facts["count"]) for f in found] == [("4b", 4)]


@pytest.mark.parametrize("split", [10, 6])
def test_ten_agents_in_a_batch_or_a_wide_deployment_split_in_two_are_within_the_limit(split: int) -> None:
    b = Builder()
    b.start()
    for agent in range(1, split + 1 if split == 10 else 13):  # 10 in batch 1, or 12 split 6 + 6
        b.msg(agent, 1, 0.8, header_extras={"batch": "1" if agent <= split else "2"})
    assert r.r_1_3_3_parallel_limit(state_of(b), 1) == []


# ------------------------------------------------------------------------------------------- §1.3.3 order
def test_verification_after_the_attack_batch_is_out_of_order() -> None:
    b = Builder()
    b.start()
    b.msg(1, 1)
    b.msg(44, 1)
    late = b.msg(27, 1)
    state = state_of(b)
    assert [(o.message_id, o.agent_id, o.batch, o.after) for o in state.stats(1).out_of_order] == \
        [(late.message_id, 27, "3", "4")]
    (found,) = r.r_1_3_3_batch_order(state, 1)
    assert (found.severity, found.agents, found.facts["out_of_order"][0]["after"]) == ("MINOR", (27,), "4")


def test_an_explicit_earlier_batch_after_a_later_one_is_out_of_order() -> None:
    b = Builder()
    b.start()
    b.msg(51, 1)  # META: batch 5
    b.msg(2, 1, header_extras={"batch": "2"})  # overflow declared, yet after batch 5
    b.msg(3, 1)
    found = r.r_1_3_3_batch_order(state_of(b), 1)
    assert found[0].facts["out_of_order"] == [
        {"message_id": b.events[2].message_id, "agent_id": 2, "batch": "2", "after": "5"},
        {"message_id": b.events[3].message_id, "agent_id": 3, "batch": "1", "after": "5"}]


def test_genesis_overflow_and_final_verification_are_in_order() -> None:
    b = Builder()
    b.start()
    b.msg(1, 1)
    b.msg(21, 1)
    b.msg(2, 1)  # GENESIS overflow in batch 2
    b.msg(27, 1)
    b.msg(44, 1)
    b.msg(51, 1)
    b.msg(28, 1)  # final VERIFICATION in batch 5
    b.msg(53, 1)
    b.msg(57, 1)
    assert r.r_1_3_3_batch_order(state_of(b), 1) == []


def test_memory_phi_and_unranked_batches_are_never_out_of_order() -> None:
    b = Builder()
    b.start()
    b.msg(51, 1)
    b.msg(53, 1)
    b.msg(57, 1)
    b.msg(9, 1, header_extras={"batch": "exploration"})
    assert r.r_1_3_3_batch_order(state_of(b), 1) == []
    assert r.batch_rank("4b") == 4
    assert r.batch_rank("exploration") is None


def test_order_is_judged_within_each_iteration() -> None:
    b = Builder()
    deploy(b, 1)
    deploy(b, 2)  # iteration 2 starts again at batch 1
    state = state_of(b)
    assert r.r_1_3_3_batch_order(state, 2) == []
    assert state.stats(2).out_of_order == ()


# ------------------------------------------------------------------------------------------- §1.3.4 triggers
def test_new_contradiction_unresolved_recommends_genesis_and_verification() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(36, 1, 0.7, "[CONTRADICTS] sample too small", contradiction_detected=True, contradiction_with=2)
    (found,) = r.t_1_3_4_new_contradiction(state_of(b), 1)
    assert (found.kind, found.severity, found.action) == ("ITERATION_TRIGGER", "MINOR",
                                                          "REDEPLOY_GENESIS_AND_VERIFICATION")
    assert (found.facts["genesis"], found.facts["verification"], found.facts["pairs"]) == ([2], [27], [[2, 36]])


def test_new_contradiction_between_other_tiers_recommends_the_iterations_genesis() -> None:
    b = Builder()
    deploy(b, 1, genesis=(1, 8, 9), verification=(32,))
    b.msg(36, 1, 0.7, contradiction_detected=True, contradiction_with=32)
    (found,) = r.t_1_3_4_new_contradiction(state_of(b), 1)
    assert (found.facts["genesis"], found.facts["verification"]) == ([1, 8, 9], [32])


def test_a_contradiction_resolved_within_the_iteration_is_no_trigger() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(36, 1, 0.7, contradiction_detected=True, contradiction_with=2)
    b.msg(50, 1, 0.8, "[RESOLVED] settled", content={"resolves": [[36, 2]]})
    assert r.t_1_3_4_new_contradiction(state_of(b), 1) == []


def test_a_contradiction_of_an_earlier_iteration_is_not_new() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(36, 1, 0.7, contradiction_detected=True, contradiction_with=2)
    deploy(b, 2)
    state = state_of(b)
    assert r.t_1_3_4_new_contradiction(state, 2) == []
    assert checks(r.t_1_3_4_outputs_conflict(state, 2)) == ["t_1_3_4_outputs_conflict"]


@pytest.mark.parametrize("aggregate", [0.49, 0.1])
def test_confidence_below_the_proceed_threshold_recommends_more_adversaries(aggregate: float) -> None:
    b = Builder()
    deploy(b, 1, adversary=(44, 35))
    (found,) = r.t_1_3_4_low_confidence(with_aggregate(state_of(b), 1, aggregate), 1)
    assert (found.action, found.facts["threshold"], found.facts["adversaries_used"]) == \
        ("DEPLOY_ADDITIONAL_ADVERSARY", 0.5, [35, 44])
    assert 44 not in found.agents
    assert set(found.agents) == set(range(36, 47)) - {44}


@pytest.mark.parametrize("aggregate", [0.5, 0.9, None])
def test_confidence_at_or_above_the_threshold_or_unknown_is_no_trigger(aggregate: float | None) -> None:
    b = Builder()
    deploy(b, 1)
    assert r.t_1_3_4_low_confidence(with_aggregate(state_of(b), 1, aggregate), 1) == []


def test_gap_detector_reporting_gaps_recommends_targeted_genesis() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(31, 1, 0.7, "[GAPS FOUND] rollback unspecified")
    (found,) = r.t_1_3_4_gap_identified(state_of(b), 1)
    assert (found.action, found.facts["reported_by"], found.facts["tiers"]) == ("DEPLOY_TARGETED_GENESIS", 31,
                                                                               ["GENESIS"])
    assert found.facts["report"] == "[GAPS FOUND] rollback unspecified"


def test_gap_hunter_listing_critical_gaps_is_a_gap_trigger() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(40, 1, 0.7, "[FINDING] two holes", content={"critical_gaps": ["a", "b"]})
    assert [f.facts["reported_by"] for f in r.t_1_3_4_gap_identified(state_of(b), 1)] == [40]


def test_gaps_closed_by_a_later_word_are_no_trigger() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(31, 1, 0.7, "[GAPS FOUND] rollback unspecified")
    b.msg(40, 1, 0.7, "[NO CRITICAL GAPS] complete")
    assert r.t_1_3_4_gap_identified(state_of(b), 1) == []


def test_no_gap_report_is_no_trigger() -> None:
    b = Builder()
    deploy(b, 1)
    assert r.t_1_3_4_gap_identified(state_of(b), 1) == []


def test_an_opposed_hypothesis_recommends_the_conflict_resolver() -> None:
    b = Builder()
    b.start()
    b.msg(1, 1, 0.8, "[PROPOSES] event sourcing fits", content={"hypothesis": "Event sourcing fits"})
    b.msg(42, 1, 0.6, "[CONTRADICTS] it does not", refs=[ref("CONTRADICTS", 1, "Event sourcing fits")])
    (found,) = r.t_1_3_4_outputs_conflict(state_of(b), 1)
    assert (found.action, found.agents, found.facts["rerun"]) == ("DEPLOY_CONFLICT_RESOLVER_THEN_RERUN", (50, 1, 42),
                                                                  [1, 42])
    assert len(found.facts["hypotheses"]) == 1


def test_a_contradiction_persisting_into_the_next_iteration_is_a_conflict() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(39, 1, 0.7, contradiction_detected=True, contradiction_with=1)
    deploy(b, 2)
    (found,) = r.t_1_3_4_outputs_conflict(state_of(b), 2)
    assert found.facts["rerun"] == [1, 39]
    assert found.agents[0] == 50


def test_a_qualified_hypothesis_is_no_conflict() -> None:
    b = Builder()
    b.start()
    b.msg(1, 1, 0.8, "[PROPOSES] h", content={"hypothesis": "H"})
    b.msg(44, 1, 0.6, "[QUALIFIES] only partly", refs=[ref("QUALIFIES", 1, "H")])
    assert r.t_1_3_4_outputs_conflict(state_of(b), 1) == []


def test_a_contradiction_new_in_the_iteration_is_not_yet_a_conflict() -> None:
    b = Builder()
    deploy(b, 1)
    b.msg(39, 1, 0.7, contradiction_detected=True, contradiction_with=1)
    assert r.t_1_3_4_outputs_conflict(state_of(b), 1) == []


def test_a_quality_controller_rejection_recommends_rerunning_the_tiers_that_ran() -> None:
    b = Builder()
    deploy(b, 1, qc="[REJECT] verification too thin")
    (found,) = r.t_1_3_4_qc_rejects(state_of(b), 1)
    assert (found.action, found.facts["tiers"]) == ("RERUN_AFFECTED_TIERS",
                                                    ["GENESIS", "BRIDGE", "VERIFICATION", "ADVERSARY", "META"])
    assert (found.facts["report"], found.facts["consecutive_rejections"]) == ("[REJECT] verification too thin", 1)


def test_a_rejection_given_in_the_content_is_a_trigger() -> None:
    b = Builder()
    deploy(b, 1, adversary=(), mandatory=(48, 53))
    b.msg(52, 1, 0.8, "[REVIEW] see content", content={"qc_verdict": "REJECT"})
    (found,) = r.t_1_3_4_qc_rejects(state_of(b), 1)
    assert found.facts["tiers"] == ["GENESIS", "BRIDGE", "VERIFICATION", "META"]


@pytest.mark.parametrize(("first", "second", "judged"), [("[SHIP] good", None, 1), ("[REJECT] no", "[HOLD] wait", 2)])
def test_no_rejection_in_the_iteration_is_no_qc_trigger(first: str, second: str | None, judged: int) -> None:
    b = Builder()
    deploy(b, 1, qc=first)
    if second is not None:
        deploy(b, 2, qc=second)
    assert r.t_1_3_4_qc_rejects(state_of(b), judged) == []


# ------------------------------------------------------------------------------------------- alerts
def _finding(check: str, severity: str, kind: str = r.DEPLOYMENT_RULE, subject: str = "") -> r.Finding:
    return r.Finding(kind, check, "§1.3.2", severity, 1, f"{check} broken", "ACT", (1,), {"x": 1}, subject)


def test_findings_of_one_kind_make_one_alert_at_the_worst_severity() -> None:
    book, alerts = r.raise_rule_alerts(AlertBook(), [_finding("a", "MINOR"), _finding("b", "MODERATE"),
                                                     _finding("t", "MINOR", r.ITERATION_TRIGGER)], "s", "m1", None)
    assert [(a.kind, a.severity) for a in alerts] == [("DEPLOYMENT_RULE", "MODERATE"), ("ITERATION_TRIGGER", "MINOR")]
    details = alerts[0].details or {}
    assert [x["check"] for x in details["rules"]] == ["a", "b"]
    assert (details["escalation"]["level"], details["iteration"]) == (2, 1)
    assert [x["check"] for x in (alerts[1].details or {})["triggers"]] == ["t"]
    assert len({a.alert_id for a in alerts}) == 2
    assert json.loads(json.dumps(alerts[0].to_dict()))["kind"] == "DEPLOYMENT_RULE"
    assert "DEPLOYMENT_RULE|a|1|" in book.emitted


def test_a_finding_already_reported_is_not_reported_again() -> None:
    book, _ = r.raise_rule_alerts(AlertBook(), [_finding("a", "MINOR")], "s", "m1", None)
    book, alerts = r.raise_rule_alerts(book, [_finding("a", "MINOR")], "s", "m2", None)
    assert alerts == []
    _, alerts = r.raise_rule_alerts(book, [_finding("a", "MINOR", subject="2")], "s", "m2", None)
    assert len(alerts) == 1  # another subject (batch) is another finding


def test_a_message_raises_each_kind_once_and_keeps_the_rest_for_later() -> None:
    book, _ = r.raise_rule_alerts(AlertBook(), [_finding("a", "MINOR")], "s", "m1", None)
    book, alerts = r.raise_rule_alerts(book, [_finding("b", "MODERATE")], "s", "m1", None)
    assert alerts == []  # same alert id otherwise
    assert "DEPLOYMENT_RULE|b|1|" not in book.emitted
    _, alerts = r.raise_rule_alerts(book, [_finding("b", "MODERATE")], "s", "m9", None)
    assert len(alerts) == 1


# ------------------------------------------------------------------------------------------- in evolve
def test_the_parallel_limit_alerts_on_the_message_that_breaks_it_and_only_once() -> None:
    b = Builder()
    b.start()
    for agent in range(1, 13):
        b.msg(agent, 1)
    deploy(b, 1, genesis=(), start=False)
    b.phi(1, "END_ITERATION")
    alerts = rule_alerts(outputs_of(b))
    parallel = [a for a in alerts if any(x["check"] == "r_1_3_3_parallel_limit" for x in (a.details or {})["rules"])]
    assert len(parallel) == 1
    assert parallel[0].source_event_id == b.events[11].message_id  # the 11th GENESIS agent
    assert parallel[0].severity == "MODERATE"


def test_iteration_end_alerts_come_from_the_closing_message() -> None:
    b = Builder()
    deploy(b, 1, adversary=(), mandatory=(53,), qc="")
    closing = b.phi(1, "END_ITERATION")
    alerts = rule_alerts(outputs_of(b))
    assert [a.kind for a in alerts] == ["DEPLOYMENT_RULE"]
    assert alerts[0].source_event_id == closing.message_id
    assert [x["check"] for x in (alerts[0].details or {})["rules"]] == ["r_1_3_2_mandatory_agents",
                                                                        "r_1_3_2_adversary_present"]


def test_the_first_message_of_a_new_iteration_closes_the_old_one_with_its_triggers() -> None:
    b = Builder()
    deploy(b, 1, qc="[REJECT] thin")
    opener = b.msg(1, 2)
    alerts = rule_alerts(outputs_of(b))
    assert [(a.kind, a.source_event_id) for a in alerts] == [("ITERATION_TRIGGER", opener.message_id)]


def test_a_closing_that_ends_the_session_raises_rules_but_no_trigger() -> None:
    b = Builder()
    deploy(b, 1, mandatory=(48, 52), qc="[REJECT] thin")
    b.phi(1, "TERMINATE")
    outputs = outputs_of(b)
    assert [a.kind for a in rule_alerts(outputs)] == ["DEPLOYMENT_RULE"]
    assert isinstance(outputs[-1], TerminationReport)


def test_a_compliant_session_raises_no_rule_alert_and_survives_json_and_redelivery() -> None:
    b = Builder()
    deploy(b, 1)
    b.phi(1, "END_ITERATION")
    deploy(b, 2, genesis=(3,))
    b.phi(2, "END_ITERATION")
    assert rule_alerts(outputs_of(b)) == []
    state: SessionState | None = None
    for event in b.events:
        state, out = evolve(state, event)
        state = SessionState.from_dict(json.loads(json.dumps(state.to_dict())))
        assert evolve(state, event)[1] == out


# ------------------------------------------------------------------------------------------- whole findings
def test_an_over_full_batch_finding_reads_whole() -> None:
    state = SessionState("s", iterations=(IterationStats(1, batches={"1": tuple(range(1, 13)), "2": (17,)}),))
    assert r.r_1_3_3_parallel_limit(state, 1) == [r.Finding(
        "DEPLOYMENT_RULE", "r_1_3_3_parallel_limit", "§1.3.3", "MODERATE", 1,
        "batch 1 of iteration 1 ran 12 agents (A.3 limit 10)", "SPLIT_BATCH", tuple(range(1, 13)),
        {"batch": "1", "count": 12, "limit": 10, "over": 2}, "1")]


def _breaks(n: int) -> tuple[OutOfOrder, ...]:
    return tuple(OutOfOrder(f"m{a}", a, "1", "3") for a in range(1, n + 1))


@pytest.mark.parametrize(("n", "tail"), [(1, ""), (5, ""), (7, " and 2 more")])
def test_a_batch_order_finding_reads_whole_and_shows_at_most_five_breaks(n: int, tail: str) -> None:
    state = SessionState("s", iterations=(IterationStats(1, out_of_order=_breaks(n)),))
    shown = "; ".join(f"agent {a} (batch 1) after batch 3" for a in range(1, min(n, 5) + 1))
    assert r.r_1_3_3_batch_order(state, 1) == [r.Finding(
        "DEPLOYMENT_RULE", "r_1_3_3_batch_order", "§1.3.3", "MINOR", 1,
        f"{n} message(s) out of batch order in iteration 1: {shown}{tail}", "FOLLOW_BATCH_SEQUENCE",
        tuple(range(1, n + 1)),
        {"out_of_order": [{"message_id": f"m{a}", "agent_id": a, "batch": "1", "after": "3"}
                          for a in range(1, n + 1)]})]


def test_a_rule_alert_reads_whole() -> None:
    _, alerts = r.raise_rule_alerts(AlertBook(), [_finding("a", "MODERATE")], "s", "m1", "2026-01-26T09:00:00+00:00")
    assert alerts == [Alert(
        "DEPLOYMENT_RULE", "MODERATE", "s", "DEPLOYMENT_RULE (MODERATE): §1.3.2 a broken", "m1",
        "2026-01-26T09:00:00+00:00",
        {"signature": "DEPLOYMENT_RULE", "severity": "MODERATE", "subject": "session", "iteration": 1,
         "recovery": {"procedure": "1.3.2", "action": "ACT"}, "escalation": {"level": 2, "path": "PEER_RECOVERY"},
         "rules": [{"check": "a", "rule": "§1.3.2", "severity": "MODERATE", "summary": "a broken", "action": "ACT",
                    "agents": [1], "x": 1}]})]
