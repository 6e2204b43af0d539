"""§6.1 backward chaining in detail: variables a rule binds in its own naming reach the next sub-goals,
recursive rule uses bind fresh variables, a premise that cannot be evaluated is skipped, the per-goal cap,
the score of a derived step with no premise, and the ids of derived steps."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from omega.answers.answer import answer
from omega.answers.model import Fact, QueryPlan, fact_from_dict
from omega.answers.reasoning import MAX_SOLUTIONS, Context, Step, derive
from omega.answers.rules import Pattern, Rule
from omega.answers.store import FactStore, is_variable
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB

Concluded = tuple[list[dict[str, Any]], Any]


def fact(subject: str, predicate: str, obj: Any, chunk: str = "c0") -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": subject, "predicate": predicate,
                           "object": obj, "source": {"docId": "d", "chunkId": chunk}, "polarity": "affirm"})


def _contains_from_part_of() -> Rule:
    """`W contains P` from `P part_of W`, written in the rule's own variable names (?_p, ?_w)."""

    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        return [[{"subject": "?_p", "predicate": "part_of", "object": "?_w"}]]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> Concluded | None:
        for role, var in (("subject", "?_w"), ("object", "?_p")):
            if not is_variable(goal.get(role)) and goal.get(role) != b[var]:
                return None
        return [{"subject": b["?_w"], "predicate": "contains", "object": b["?_p"]}], b["?_p"]

    return Rule("contains_from_part_of", "contains", body, conclude)


def _requires_what_its_container_requires() -> Rule:
    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        return [[{"subject": "?_y", "predicate": "contains", "object": goal.get("subject")},
                 {"subject": "?_y", "predicate": "requires", "object": goal.get("object")}]]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> Concluded:
        obj = b.get(str(goal.get("object")), goal.get("object"))
        return [{"subject": goal.get("subject"), "predicate": "requires", "object": obj}], obj

    return Rule("requires_what_its_container_requires", "requires", body, conclude)


def test_a_variable_a_sub_goal_proof_binds_in_its_own_naming_constrains_the_next_sub_goal() -> None:
    widget, gear = fact("widget", "part_of", "dashboard", "c0"), fact("gear", "part_of", "server", "c1")
    vpn, badge = fact("dashboard", "requires", "vpn", "c2"), fact("server", "requires", "badge", "c3")
    ctx = Context(FactStore([widget, gear, vpn, badge]),
                  rules=(_contains_from_part_of(), _requires_what_its_container_requires()))
    # "?_y contains widget" is proved by a rule that never names ?_y: the proof's subject (dashboard) is what
    # ?_y is, so only the dashboard's requirement follows (never the server's badge)
    [solution] = derive({"subject": "widget", "predicate": "requires", "object": "?r"}, ctx)
    assert solution.bindings == {"?_p": "widget", "?_w": "dashboard", "?_y": "dashboard", "?r": "vpn"}
    assert solution.premises == (widget, vpn)
    assert [(s.role, s.fact["subject"], s.fact["predicate"], s.fact["object"]) for s in solution.steps] == [
        ("premise", "widget", "part_of", "dashboard"), ("derived", "dashboard", "contains", "widget"),
        ("premise", "dashboard", "requires", "vpn"), ("derived", "widget", "requires", "vpn")]


def test_a_recursive_rule_binds_fresh_variables_at_each_depth_so_every_whole_within_reach_is_found() -> None:
    # widget -> dashboard only through the inverse of "contains"; then two part_of hops: 3 hops, within depth 4
    store = FactStore([fact("dashboard", "contains", "widget", "c0"), fact("dashboard", "part_of", "portal", "c1"),
                       fact("portal", "part_of", "site", "c2")])
    got = answer(QueryPlan(goal={"subject": "widget", "predicate": "part_of", "object": "?whole"}), store, VOCAB)
    assert got.verdict == "supported"
    assert sorted((got.text or "").split(", ")) == ["dashboard", "portal", "site"]
    wholes = {s.bindings["?whole"] for s in derive({"subject": "widget", "predicate": "part_of", "object": "?whole"},
                                                   Context(store))}
    assert wholes == {"dashboard", "portal", "site"}


def test_a_premise_whose_duration_cannot_be_read_is_skipped_and_the_next_one_still_concludes() -> None:
    store = FactStore([fact("session_token", "expires_after", "soon", "c0"),
                       fact("session_token", "expires_after", "15 minutes", "c1")])
    ctx = Context(store, params={"inactivityMinutes": 20})
    [solution] = derive({"subject": "session_token", "predicate": "valid_after_inactivity", "object": "?answer"}, ctx)
    assert solution.bindings["?answer"] == "No"
    assert [f.object for f in solution.premises] == ["15 minutes"]
    assert solution.steps[-1].fact == {"subject": "session_token", "predicate": "session_expired", "object": True,
                                       "evaluation": "15 <= 20", "rule": "valid_after_inactivity"}
    assert ctx.missing == set()


def test_a_conjunctive_body_yields_at_most_max_solutions_proofs_in_order() -> None:
    store = FactStore([fact(f"s{i}", "part_of", "w", f"c{i}") for i in range(5)])  # 25 pairs for two sub-goals
    seen: list[tuple[str, str]] = []

    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        return [[{"subject": "?_a", "predicate": "part_of", "object": "?_b"},
                 {"subject": "?_c", "predicate": "part_of", "object": "?_d"}]]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> Concluded | None:
        seen.append((b["?_a"], b["?_c"]))
        if (b["?_a"], b["?_c"]) not in {("s0", "s0"), ("s3", "s1")}:  # the 1st and the 17th pair
            return None
        return [], b["?_a"]

    rule = Rule("pairs", "has_status", body, conclude)
    got = derive({"subject": "x", "predicate": "has_status", "object": "?s"}, Context(store, rules=(rule,)))
    assert MAX_SOLUTIONS == 16
    assert seen == [(f"s{i}", f"s{j}") for i in range(5) for j in range(5)][:16]
    assert [s.bindings["?s"] for s in got] == ["s0"]


def test_a_derived_step_resting_on_no_premise_has_full_support() -> None:
    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> Concluded:
        return [{"subject": goal["subject"], "predicate": "has_status", "object": "active"}], "active"

    rule = Rule("always_active", "has_status", lambda goal, depth: [[]], conclude)
    [solution] = derive({"subject": "svc", "predicate": "has_status", "object": "?s"},
                        Context(FactStore([]), rules=(rule,)))
    [step] = solution.steps
    assert (step.role, step.fact, step.score) == ("derived", {"subject": "svc", "predicate": "has_status",
                                                               "object": "active"}, 1.0)
    assert (solution.bindings, solution.premises) == ({"?s": "active"}, ())


def _derived_step(store: FactStore, inactivity: int) -> Step:
    goal = {"subject": "session_token", "predicate": "valid_after_inactivity", "object": "?answer"}
    [solution] = derive(goal, Context(store, params={"inactivityMinutes": inactivity}))
    return solution.steps[-1]


def test_a_derived_step_id_is_stable_and_names_both_what_was_derived_and_what_it_rests_on() -> None:
    here = FactStore([fact("session_token", "expires_after", "15 minutes", "c0")])
    there = FactStore([fact("session_token", "expires_after", "15 minutes", "c9")])
    expired, valid = _derived_step(here, 20), _derived_step(here, 10)
    assert re.fullmatch(r"derived_[0-9a-f]{32}", expired.fact_id)
    assert re.fullmatch(r"derived_[0-9a-f]{32}", valid.fact_id)
    assert _derived_step(here, 20).fact_id == expired.fact_id  # deterministic
    assert (expired.fact["object"], valid.fact["object"]) == (True, False)
    assert expired.fact_id != valid.fact_id  # same premise, different derived fact
    elsewhere = _derived_step(there, 20)
    assert elsewhere.fact == expired.fact
    assert elsewhere.fact_id != expired.fact_id  # same derived fact, different premise
