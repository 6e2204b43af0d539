"""The §7 answer contract as a user reads it: inferred goals, refusal reasons, the conclusion step of the chain,
the yes/no and lookup texts, the version filter on negated facts, and the depth and chunk limits."""

from __future__ import annotations

from typing import Any

from omega.answers.answer import answer, goal_of
from omega.answers.model import Fact, QueryPlan, fact_from_dict
from omega.answers.store import FactStore
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB


def _fact(subject: str, predicate: str, obj: Any, chunk: str = "c0", version: str | None = None,
          polarity: str = "affirm") -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": subject, "predicate": predicate, "object": obj,
                           "source": {"docId": "d", "chunkId": chunk}, "polarity": polarity,
                           "qualifiers": {} if version is None else {"version": version}})


def _refusal(reason: str) -> dict[str, Any]:
    return {"text": None, "verdict": "unsupported", "chunksUsed": [], "factChain": [], "supportScores": {},
            "conflicts": [], "reason": reason}


def test_a_goal_is_inferred_from_a_parameter_or_else_from_the_first_predicate() -> None:
    assert goal_of(QueryPlan(params={"inactivityMinutes": 20})) == {
        "subject": "?subject", "predicate": "valid_after_inactivity", "object": "?answer"}
    assert goal_of(QueryPlan(predicates=("expires_after", "valid_for"))) == {
        "subject": "?subject", "predicate": "expires_after", "object": "?value"}
    assert goal_of(QueryPlan(subjects=("t",), predicates=("expires_after",))) == {
        "subject": "t", "predicate": "expires_after", "object": "?value"}


def test_plans_outside_the_vocabulary_are_refused_with_the_reason() -> None:
    store = FactStore([_fact("t", "expires_after", "15 minutes")])
    cases = [
        (QueryPlan(), "the plan names no goal or predicate"),
        (QueryPlan(predicates=("owns",)), "predicate(s) outside the vocabulary: owns"),
        (QueryPlan(predicates=("owns", "holds")), "predicate(s) outside the vocabulary: owns, holds"),
        (QueryPlan(goal={"subject": "t", "predicate": "flies", "object": "?x"}),
         "goal predicate 'flies' is outside the vocabulary and has no rule"),
        (QueryPlan(goal={"subject": "t", "predicate": ["expires_after"], "object": "?x"}),
         "goal predicate ['expires_after'] is outside the vocabulary and has no rule"),
    ]
    for plan, reason in cases:
        assert answer(plan, store, VOCAB).to_dict() == _refusal(reason)


def test_a_variable_predicate_is_never_a_goal_even_when_a_vocabulary_declares_it() -> None:
    store = FactStore([_fact("a", "requires", "b")])
    vocabulary = {**VOCAB, "?p": ("entity", "entity")}
    got = answer(QueryPlan(goal={"subject": "a", "predicate": "?p", "object": "?v"}), store, vocabulary)
    assert got.to_dict() == _refusal("goal predicate '?p' is outside the vocabulary and has no rule")


def test_an_unsupported_goal_is_named_with_the_version_asked_and_the_candidates_seen() -> None:
    empty = FactStore()
    assert answer(QueryPlan(predicates=("expires_after",)), empty, VOCAB).reason == (
        'no fact supports the goal {"object":"?value","predicate":"expires_after","subject":"?subject"} '
        "(candidates retrieved: 0)")
    assert answer(QueryPlan(version="V2.0", predicates=("expires_after",)), empty, VOCAB).reason == (
        'no fact supports the goal {"object":"?value","predicate":"expires_after","subject":"?subject"} '
        "in version 2.0 (written 'V2.0') (candidates retrieved: 0)")


def test_the_candidate_count_of_a_refusal_is_capped_by_limit_facts() -> None:
    store = FactStore([_fact("t", "expires_after", "15 minutes", "c0"),
                       _fact("u", "expires_after", "30 minutes", "c1")])
    plan = QueryPlan(predicates=("expires_after",),
                     goal={"subject": "t", "predicate": "expires_after", "object": "99 minutes"})
    goal = '{"object":"99 minutes","predicate":"expires_after","subject":"t"}'
    refused = f"no fact supports the goal {goal} (candidates retrieved: "
    assert answer(plan, store, VOCAB).reason == f"{refused}2)"
    assert answer(plan, store, VOCAB, limit_facts=1).reason == f"{refused}1)"


def test_a_negated_fact_of_another_version_does_not_answer_no() -> None:
    store = FactStore([_fact("g", "requires", "mfa", version="v1", polarity="negate")])
    goal = {"subject": "g", "predicate": "requires", "object": "mfa"}
    assert answer(QueryPlan(goal=goal), store, VOCAB).text == "No"
    got = answer(QueryPlan(version="v2", goal=goal), store, VOCAB)
    assert got.to_dict() == _refusal('no fact supports the goal {"object":"mfa","predicate":"requires","subject":"g"} '
                                     "in version 2 (written 'v2') (candidates retrieved: 0)")


def test_a_yes_no_answer_concludes_with_the_goal_object_and_rests_on_the_first_proof_only() -> None:
    first, second = _fact("a", "requires", "b", "c0"), _fact("a", "requires", "b", "c1")
    goal = {"subject": "a", "predicate": "requires", "object": "b"}
    got = answer(QueryPlan(goal=goal), FactStore([first, second]), VOCAB)
    assert (got.verdict, got.text, got.chunks_used, got.goal) == ("supported", "Yes", ("c0",), goal)
    premise, conclusion = got.to_dict()["factChain"]
    assert premise == {"factId": first.fact_id, "role": "premise", "fact": first.to_dict()}
    assert conclusion["role"] == "conclusion"
    assert conclusion["fact"] == {"subject": "a", "predicate": "requires", "object": "b", "answer": "Yes"}
    assert conclusion["factId"].startswith("conclusion_")
    assert got.to_dict()["supportScores"] == {first.fact_id: 1.0, conclusion["factId"]: 1.0}


def test_a_lookup_concludes_with_the_bound_values_and_its_id_depends_on_fact_and_premises() -> None:
    goal = {"subject": "a", "predicate": "requires", "object": "?x"}
    got = answer(QueryPlan(goal=goal), FactStore([_fact("a", "requires", "b", "c0")]), VOCAB)
    conclusion = got.fact_chain[-1]
    assert (got.text, conclusion.role, conclusion.score) == ("b", "conclusion", 1.0)
    assert conclusion.fact == {"subject": "a", "predicate": "requires", "object": "b", "answer": "b"}
    # same premise, other question (yes/no): another conclusion, another id
    yes_no = answer(QueryPlan(goal={**goal, "object": "b"}), FactStore([_fact("a", "requires", "b", "c0")]), VOCAB)
    assert yes_no.fact_chain[-1].fact_id != conclusion.fact_id
    # same conclusion, other premise (another chunk): another id
    elsewhere = answer(QueryPlan(goal=goal), FactStore([_fact("a", "requires", "b", "c7")]), VOCAB)
    assert elsewhere.fact_chain[-1].fact == conclusion.fact
    assert elsewhere.fact_chain[-1].fact_id != conclusion.fact_id


def test_a_negated_fact_answers_no_with_a_conclusion_saying_no() -> None:
    negated = _fact("g", "requires", "mfa", polarity="negate")
    goal = {"subject": "g", "predicate": "requires", "object": "mfa"}
    got = answer(QueryPlan(goal=goal), FactStore([negated]), VOCAB)
    assert (got.verdict, got.text, got.chunks_used) == ("supported", "No", ("c0",))
    assert [s.fact_id for s in got.fact_chain[:-1]] == [negated.fact_id]
    assert got.fact_chain[-1].fact == {"subject": "g", "predicate": "requires", "object": "mfa", "answer": "No"}


def test_a_boolean_value_is_answered_in_lowercase_json_spelling() -> None:
    got = answer(QueryPlan(goal={"subject": "flag", "predicate": "has_value", "object": "?v"}),
                 FactStore([_fact("flag", "has_value", True)]), VOCAB)
    assert (got.verdict, got.text) == ("supported", "true")


def test_the_depth_bound_of_answer_is_passed_to_the_derivation() -> None:
    store = FactStore([_fact("a", "part_of", "b", "c0"), _fact("b", "part_of", "c", "c1")])
    plan = QueryPlan(goal={"subject": "a", "predicate": "part_of", "object": "c"})
    assert answer(plan, store, VOCAB).text == "Yes"
    assert answer(plan, store, VOCAB, depth=1).to_dict() == _refusal(
        'no fact supports the goal {"object":"c","predicate":"part_of","subject":"a"} (candidates retrieved: 0)')


def test_chunks_used_is_capped_by_limit_chunks_for_supported_and_conflicting_answers() -> None:
    lookup = {"subject": "a", "predicate": "requires", "object": "?x"}
    store = FactStore([_fact("a", "requires", "b", "c0"), _fact("a", "requires", "c", "c1")])
    supported = answer(QueryPlan(goal=lookup), store, VOCAB, limit_chunks=1)
    assert (supported.verdict, supported.text, supported.chunks_used, supported.goal) == (
        "supported", "b, c", ("c0",), lookup)
    expiry = {"subject": "t", "predicate": "expires_after", "object": "?d"}
    clash = FactStore([_fact("t", "expires_after", "15 minutes", "c0", "v1"),
                       _fact("t", "expires_after", "30 minutes", "c1", "v1")])
    conflicting = answer(QueryPlan(goal=expiry), clash, VOCAB, limit_chunks=1)
    assert (conflicting.verdict, conflicting.text, conflicting.chunks_used, conflicting.goal) == (
        "conflicting", None, ("c0",), expiry)
    assert answer(QueryPlan(goal=expiry), clash, VOCAB).chunks_used == ("c0", "c1")
