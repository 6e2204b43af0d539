"""§6.1 relational rules of the default library: the derived fact a transitive or inverse rule concludes names
the goal's own subject (a constant stays itself, a variable takes its binding), so the proof shows what it
derived about whom."""

from __future__ import annotations

from typing import Any

from omega.answers.model import Fact, fact_from_dict
from omega.answers.reasoning import Context, derive
from omega.answers.rules import RULES
from omega.answers.store import FactStore


def fact(subject: str, predicate: str, obj: Any, chunk: str = "c0") -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": subject, "predicate": predicate,
                           "object": obj, "source": {"docId": "d", "chunkId": chunk}, "polarity": "affirm"})


def _derived(solution: Any) -> list[tuple[str, Any, str, Any]]:
    return [(s.fact.get("rule"), s.fact["subject"], s.fact["predicate"], s.fact["object"])
            for s in solution.steps if s.role == "derived"]


def test_a_transitive_part_of_derives_a_fact_about_the_goal_subject() -> None:
    store = FactStore([fact("widget", "part_of", "dashboard", "c0"), fact("dashboard", "part_of", "portal", "c1")])
    # the transitive rule comes first in the library; later proofs go through the contains inverses
    solution = derive({"subject": "widget", "predicate": "part_of", "object": "portal"}, Context(store))[0]
    assert _derived(solution) == [("part_of_transitive", "widget", "part_of", "portal")]


def test_a_transitive_rule_concludes_with_the_subject_variable_replaced_by_its_binding() -> None:
    [rule] = [r for r in RULES if r.name == "requires_transitive"]
    concluded = rule.conclude({"subject": "?s", "predicate": "requires", "object": "?o"},
                              {"?s": "widget", "?_m3": "dashboard", "?o": "vpn"}, {})
    assert concluded == ([{"subject": "widget", "predicate": "requires", "object": "vpn",
                           "rule": "requires_transitive"}], "vpn")


def test_an_inverse_contains_derives_a_fact_about_the_goal_subject_from_part_of() -> None:
    store = FactStore([fact("widget", "part_of", "dashboard", "c0")])
    [solution] = derive({"subject": "dashboard", "predicate": "contains", "object": "?part"}, Context(store))
    assert solution.bindings["?part"] == "widget"
    assert _derived(solution) == [("contains_inverse_of_part_of", "dashboard", "contains", "widget")]


def test_an_inverse_rule_concludes_with_a_constant_subject_kept_and_a_variable_one_bound() -> None:
    [rule] = [r for r in RULES if r.name == "part_of_inverse_of_contains"]
    assert rule.conclude({"subject": "widget", "predicate": "part_of", "object": "?w"}, {"?w": "dashboard"}, {}) == (
        [{"subject": "widget", "predicate": "part_of", "object": "dashboard",
          "rule": "part_of_inverse_of_contains"}], "dashboard")
    assert rule.conclude({"subject": "?p", "predicate": "part_of", "object": "dashboard"}, {"?p": "widget"}, {}) == (
        [{"subject": "widget", "predicate": "part_of", "object": "dashboard",
          "rule": "part_of_inverse_of_contains"}], "dashboard")
