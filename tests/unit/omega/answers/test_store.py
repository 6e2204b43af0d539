"""The fact store's pattern matching (the spec's `matchSignature`, §5.3): absent roles, repeated variables,
qualifier constraints and variables, boolean objects, patterns without a subject or predicate, and the exact
ids of subjects and predicates. Stores are built inside the tests."""

from __future__ import annotations

from typing import Any

from omega.answers.model import Fact, fact_from_dict
from omega.answers.store import FactStore, is_variable, same_value


def fact(subject: str, predicate: str, obj: Any, chunk: str = "c0", **qualifiers: Any) -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": subject, "predicate": predicate,
                           "object": obj, "source": {"docId": "d", "chunkId": chunk}, "polarity": "affirm",
                           "qualifiers": qualifiers})


def test_a_pattern_without_an_object_matches_whatever_the_object_is() -> None:
    part, need = fact("a", "part_of", "b", "c0"), fact("a", "requires", "vpn", "c1")
    store = FactStore([part, need])
    assert store.match({"subject": "a", "predicate": "part_of"}) == [(part, {})]
    assert store.match({"subject": "a"}) == [(part, {}), (need, {})]


def test_a_variable_used_twice_matches_only_a_fact_whose_two_roles_agree() -> None:
    loop, link = fact("x", "part_of", "x", "c0"), fact("a", "part_of", "b", "c1")
    store = FactStore([loop, link])
    assert store.match({"subject": "?s", "predicate": "part_of", "object": "?s"}) == [(loop, {"?s": "x"})]


def test_a_qualifier_in_a_pattern_must_be_present_and_agree_and_a_qualifier_variable_binds() -> None:
    mobile = fact("t", "expires_after", "15 minutes", "c0", condition="mobile")
    desktop = fact("t", "expires_after", "60 minutes", "c1", condition="desktop")
    plain = fact("t", "expires_after", "30 minutes", "c2")
    store = FactStore([mobile, desktop, plain])
    goal = {"subject": "t", "predicate": "expires_after", "object": "?d"}
    assert store.match({**goal, "qualifiers": {"condition": "mobile"}}) == [(mobile, {"?d": "15 minutes"})]
    assert store.match({**goal, "qualifiers": {"condition": "tablet"}}) == []
    # a fact without the qualifier never matches a pattern that asks for it, even through a variable
    assert store.match({**goal, "qualifiers": {"condition": "?c"}}) == [
        (mobile, {"?d": "15 minutes", "?c": "mobile"}), (desktop, {"?d": "60 minutes", "?c": "desktop"})]
    assert len(store.match(goal)) == 3


def test_a_boolean_object_matches_the_same_boolean_in_patterns_without_subject_or_predicate() -> None:
    on, off = fact("feature", "has_value", True, "c0"), fact("legacy", "has_value", False, "c1")
    store = FactStore([on, off])
    assert same_value(True, True)
    assert same_value(False, False)
    assert not same_value(True, False)
    assert store.match({"predicate": "has_value", "object": True}) == [(on, {})]
    assert store.match({"subject": "legacy", "object": False}) == [(off, {})]
    assert store.match({"object": "?v"}) == [(on, {"?v": True}), (off, {"?v": False})]


def test_facts_are_queried_by_predicate_alone_in_source_order() -> None:
    second, first = fact("b", "part_of", "c", "c1"), fact("a", "part_of", "b", "c0")
    other = fact("a", "requires", "vpn")
    store = FactStore([second, first, other])
    assert store.query(predicate="part_of") == [first, second]
    assert store.query(predicate="requires") == [other]


def test_a_lone_question_mark_is_a_constant_not_a_variable() -> None:
    assert not is_variable("?")
    assert is_variable("?x")
    store = FactStore([fact("a", "part_of", "b")])
    assert store.match({"subject": "?", "predicate": "part_of", "object": "?o"}) == []


def test_a_pattern_names_its_subject_and_predicate_by_their_exact_ids_as_query_does() -> None:
    token = fact("session_token", "expires_after", "15 minutes")
    store = FactStore([token])
    assert store.match({"subject": "session_token", "predicate": "expires_after", "object": "?d"}) == [
        (token, {"?d": "15 minutes"})]
    # subjects are canonical entity ids and predicates vocabulary ids (§4.1, §5.1): no case folding there,
    # exactly like FactStore.query (objects, by contrast, compare normalised)
    assert store.query("Session_Token") == []
    assert store.match({"subject": "Session_Token", "predicate": "expires_after", "object": "?d"}) == []
    assert store.match({"subject": "Session_Token", "object": "?d"}) == []
    assert store.match({"subject": "session_token", "predicate": "Expires_After", "object": "?d"}) == []
    assert store.match({"predicate": "Expires_After", "object": "?d"}) == []
    assert store.match({"subject": "session_token", "predicate": "expires_after", "object": "15 MINUTES"}) == [
        (token, {})]
