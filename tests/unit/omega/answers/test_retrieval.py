"""§5.3 retrieval: candidates per predicate (and subject), ranked by the plan's predicates and subjects, the
goal's included; chunksUsed capped."""

from __future__ import annotations

from omega.answers.model import Fact, QueryPlan, fact_from_dict
from omega.answers.retrieval import retrieve
from omega.answers.store import FactStore


def _fact(subject: str, predicate: str, obj: str, chunk: str) -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": subject, "predicate": predicate, "object": obj,
                           "source": {"docId": "d", "chunkId": chunk}})


B_PART = _fact("b", "part_of", "c", "c0")
A_REQ = _fact("a", "requires", "mfa", "c1")
A_PART = _fact("a", "part_of", "z", "c2")
STORE = FactStore([B_PART, A_REQ, A_PART])


def test_a_predicate_without_subjects_retrieves_every_subject() -> None:
    assert retrieve(QueryPlan(predicates=("part_of",)), STORE).facts == (B_PART, A_PART)


def test_a_predicate_with_subjects_retrieves_only_those_subjects_and_that_predicate() -> None:
    assert retrieve(QueryPlan(subjects=("a",), predicates=("part_of",)), STORE).facts == (A_PART,)


def test_the_goal_predicate_and_subject_count_as_wanted_in_the_ranking() -> None:
    plan = QueryPlan(predicates=("part_of",), goal={"subject": "a", "predicate": "requires", "object": "?x"})
    got = retrieve(plan, STORE)
    assert got.facts == (A_REQ, A_PART, B_PART)
    assert got.chunks_used == ("c1", "c2", "c0")
    assert retrieve(plan, STORE, limit_chunks=1).chunks_used == ("c1",)


def test_a_non_string_goal_subject_is_not_a_wanted_subject() -> None:
    plan = QueryPlan(predicates=("part_of",), goal={"subject": ["a"], "predicate": "part_of", "object": "?x"})
    assert retrieve(plan, STORE).facts == (B_PART, A_PART)
